package ingest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClineTextResults: native calls whose results Cline wrote as text
// blocks are joined in order, a call Cline did not run gets its text as a
// failed result, a resumed task leaves the waiting call without a result
// (with the reason), and usage counts the cached tokens by provider.
func TestClineTextResults(t *testing.T) {
	p := filepath.Join("..", "fixtures", "ingest", "cline", "tasks", "1770000000000", "api_conversation_history.json")
	sessions, problems := readAll(t, p, Options{})
	if len(sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(sessions))
	}
	s := sessions[0]
	type want struct {
		tool, result string
		has, failed  bool
	}
	wants := []want{
		{"read_file", "package a\n\nfunc A() int { return 1 }", true, false},
		{"read_file", "Tool [read_file] was not executed", true, true},
		{"use_subagents", "Subagent results:", true, false},
		{"read_file", "package a\n\nfunc A() int { return 1 }", true, false},
		{"execute_command", "Command failed with exit code 1.", true, true},
		{"ask_followup_question", "", false, false},
		{"replace_in_file", "The content was successfully saved", true, false},
		{"attempt_completion", "Done", true, false},
	}
	var got []Call
	var inputs []int64
	for _, tr := range s.Turns {
		for _, r := range tr.Requests {
			got = append(got, r.Calls...)
			inputs = append(inputs, r.Usage.Input)
		}
	}
	if len(got) != len(wants) {
		t.Fatalf("%d calls, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		c := got[i]
		if c.Tool != w.tool || c.HasResult != w.has || c.IsError != w.failed || !strings.HasPrefix(c.Result, w.result) {
			t.Errorf("call %d: %s has=%v failed=%v %.40q; want %s has=%v failed=%v %.40q", i+1, c.Tool, c.HasResult, c.IsError, c.Result, w.tool, w.has, w.failed, w.result)
		}
	}
	if len(s.Turns) != 2 {
		t.Errorf("%d turns, want 2 (the task and the resumption with new instructions)", len(s.Turns))
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "ask_followup_question") || !strings.Contains(problems[0].Message, "resumed") {
		t.Errorf("problems %v, want one: the ask_followup_question interrupted by the resumption", problems)
	}
	// anthropic: prompt 10 + cached 9000; openai (prompt holds the cache): 20.
	if inputs[0] != 9010 || inputs[5] != 20 {
		t.Errorf("input tokens %v, want 9010 first and 20 for the openai request", inputs)
	}
}

func TestClineTextResultForms(t *testing.T) {
	cases := []struct {
		text, tool, result string
		failed, ok         bool
	}{
		{"[read_file for 'a b.go'] Result:\nx", "read_file", "x", false, true},
		{"[attempt_completion] Result: Done", "attempt_completion", "Done", false, true},
		{"[subagents] Result:\nTotal: 1", "subagents", "Total: 1", false, true},
		{"[subagent: reviewer] Result:\nok", "subagent", "ok", false, true},
		{"[execute_command for 'x'] Result:\nThe user denied this operation.", "execute_command", "The user denied this operation.", true, true},
		{"Tool [read_file] was not executed because a tool has already been used in this message. Only one tool may be used per message.", "read_file", "", true, true},
		{"Skipping tool due to user rejecting a previous tool. [write_to_file for 'a.go']", "write_to_file", "", true, true},
		{"[ERROR] You did not use a tool in your previous response! Please retry with a tool use.", "", "", false, false},
		{"<environment_details>\n</environment_details>", "", "", false, false},
		{"[TASK RESUMPTION] This task was interrupted just now.", "", "", false, false},
	}
	for _, c := range cases {
		tool, result, failed, ok := clineTextResult(c.text)
		if ok != c.ok || tool != c.tool || failed != c.failed || (c.result != "" && result != c.result) {
			t.Errorf("clineTextResult(%.40q) = %q %.30q %v %v, want %q %.30q %v %v", c.text, tool, result, failed, ok, c.tool, c.result, c.failed, c.ok)
		}
	}
}

// TestClineRealTaskHistories: the three real Cline task histories have
// their native calls' text results joined (before: none), the anthropic
// tasks count the cached tokens as input, and the byte-identical re-reads
// of the long task are seen as the same call and result again.
func TestClineRealTaskHistories(t *testing.T) {
	cases := []struct {
		rel                                string
		calls, joined, interrupted, sameAt int
		input                              int64
	}{
		// The two anthropic tasks end on attempt_completion with no
		// answer; the long one was resumed 8 times while a call waited.
		{"cline/gmfstu-Online-Card-Architecture/1769053680585/api_conversation_history.json", 47, 46, 0, 0, 1581507},
		{"cline/gmfstu-Online-Card-Architecture/1769064454592/api_conversation_history.json", 38, 37, 0, 0, 1409410},
		{"cline/mike4567-MRA04242026/api_conversation_history.json", 231, 223, 8, 5, 13886779},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			sessions, problems := readAll(t, thirdPartySample(t, c.rel), Options{})
			n := countJoins(sessions)
			if n.calls != c.calls || n.joined != c.joined {
				t.Errorf("%d of %d calls joined, want %d of %d", n.joined, n.calls, c.joined, c.calls)
			}
			if n.sameAgain != c.sameAt {
				t.Errorf("%d calls repeat an earlier call and result, want %d", n.sameAgain, c.sameAt)
			}
			interrupted := 0
			for _, p := range problems {
				if strings.Contains(p.Message, "the task was resumed") {
					interrupted++
				}
			}
			if interrupted != c.interrupted {
				t.Errorf("%d calls interrupted by a resumption, want %d", interrupted, c.interrupted)
			}
			if got := inputTokens(sessions); got != c.input {
				t.Errorf("input tokens %d, want %d", got, c.input)
			}
		})
	}
}
