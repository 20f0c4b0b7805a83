package ingest

// Problems of the input: every bad spot is one problem with its
// file and line, and the run goes on. These tests cover, format by format,
// invalid UTF-8, results with no call, duplicate call ids, results before
// their calls, the lines named inside whole-file JSON documents, and the
// "no known format" line. The hostile inputs (huge lines, binary, cut gzip)
// are in hostile_test.go.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readBytesAs reads data as a file of that name (its ending and name matter
// to detection) and returns what it yielded.
func readBytesAs(t *testing.T, name string, data []byte) ([]*Session, []Problem) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sessions, problems := readAll(t, path, Options{})
	for _, p := range problems {
		if p.File != path {
			t.Errorf("problem %+v does not name the file %s", p, path)
		}
	}
	return sessions, problems
}

func numCalls(sessions []*Session) int {
	n := 0
	for _, s := range sessions {
		n += s.NumCalls()
	}
	return n
}

// utf8Fixtures is one fixture per format id (and per file kind, JSONL or
// document), read clean and then with invalid UTF-8 planted in one line.
var utf8Fixtures = []string{
	"nanobot/f4_v0.2.2_full_turns/telegram_31337.jsonl",
	"hermes/export/sessions_export.jsonl",
	"hermes/snapshot/session_20260305_142233_9f8e7d.json",
	"hermes/gateway/20260413_083748_5a617929.jsonl",
	"hermes/trajectory/swe-runner-test1.jsonl",
	"hermes/batch/batch_0.jsonl",
	"openai/chat-array.json",
	"openai/chat-log.jsonl",
	"openai/responses-items.json",
	"openai/responses-log.jsonl",
	"claude-code/session.jsonl",
	"codex/2026/02/03/rollout-2026-02-03T10-00-00-0a0a0a0a-0000-4000-8000-00000000abcd.jsonl",
	"openhands/trajectory.json",
	"openhands/output.jsonl",
}

// plantBadUTF8 puts two invalid bytes inside the first string value named
// "content", "value", "text", "output" or "message" after the first line,
// just after its first character (so that prefixes that classify a message
// are left alone as far as possible). It returns the data and the 1-based
// line changed.
func plantBadUTF8(t *testing.T, data []byte) ([]byte, int) {
	t.Helper()
	lines := bytes.Split(data, []byte("\n"))
	var keys []string
	for _, k := range []string{"content", "value", "text", "output", "message"} {
		keys = append(keys, `"`+k+`": "`, `"`+k+`":"`)
	}
	for _, start := range []int{1, 0} {
		for _, key := range keys {
			for i := start; i < len(lines); i++ {
				at := bytes.Index(lines[i], []byte(key))
				if at < 0 {
					continue
				}
				at += len(key)
				if at+1 >= len(lines[i]) || lines[i][at] == '"' || lines[i][at] == '\\' {
					continue
				}
				l := append([]byte{}, lines[i][:at+1]...)
				l = append(l, 0xff, 0xfe)
				lines[i] = append(l, lines[i][at+1:]...)
				return bytes.Join(lines, []byte("\n")), i + 1
			}
		}
	}
	t.Fatal("no string value to plant invalid UTF-8 in")
	return nil, 0
}

// TestInvalidUTF8EveryFormat: invalid UTF-8 in a line is one problem with
// the file and that line, in every format and file kind, and the record is
// still read (same sessions and calls as the clean file, the same other
// problems).
func TestInvalidUTF8EveryFormat(t *testing.T) {
	for _, rel := range utf8Fixtures {
		t.Run(rel, func(t *testing.T) {
			clean, err := os.ReadFile(filepath.Join("..", "fixtures", "ingest", filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(rel)
			wantSessions, wantProblems := readBytesAs(t, name, clean)
			bad, line := plantBadUTF8(t, clean)
			sessions, problems := readBytesAs(t, name, bad)
			if len(sessions) != len(wantSessions) || numCalls(sessions) != numCalls(wantSessions) {
				t.Errorf("%d sessions, %d calls; the clean file gives %d, %d", len(sessions), numCalls(sessions), len(wantSessions), numCalls(wantSessions))
			}
			var utf8Problems, others []Problem
			for _, p := range problems {
				if strings.Contains(p.Message, "invalid UTF-8") {
					utf8Problems = append(utf8Problems, p)
				} else {
					others = append(others, p)
				}
			}
			if len(utf8Problems) != 1 || utf8Problems[0].Line != line || !strings.Contains(utf8Problems[0].Message, "U+FFFD") {
				t.Errorf("want one invalid UTF-8 problem at line %d, got %+v", line, utf8Problems)
			}
			if problemLines(others) != problemLines(wantProblems) {
				t.Errorf("other problems:\n%swant those of the clean file:\n%s", problemLines(others), problemLines(wantProblems))
			}
		})
	}
}

// TestInvalidUTF8OnABadLine: a line that is not JSON and also holds invalid
// UTF-8 is one problem, not two; with the format forced, binary junk in
// which it finds no session is one problem that counts the lines.
func TestInvalidUTF8OnABadLine(t *testing.T) {
	lines := hostileNanobot(1)
	withBad := append(append(append([]string{}, lines[:2]...), "{\"role\": \"user\", \"content\": \"caf\xe9"), lines[2:]...)
	sessions, problems := readBytesAs(t, "bad.jsonl", joinLines(withBad...))
	if len(sessions) != 1 || len(problems) != 1 || problems[0].Line != 3 || !strings.Contains(problems[0].Message, "not valid JSON") || !strings.Contains(problems[0].Message, "invalid UTF-8") {
		t.Errorf("want one problem at line 3 saying both, got %d sessions, %+v", len(sessions), problems)
	}

	path := filepath.Join(t.TempDir(), "junk.jsonl")
	os.WriteFile(path, []byte(nbMeta+"\n\xff\xfe\xfd\n\x80abc\n"), 0o644)
	_, problems = readAll(t, path, Options{Format: "nanobot"})
	if len(problems) != 1 || problems[0].Line != 2 || !strings.Contains(problems[0].Message, "cannot read this file: no session, 2 problems") {
		t.Errorf("want one problem for the file, at line 2, counting the two bad lines, got %+v", problems)
	}
}

// leadingInt is the number a "N: ..." expectation starts with.
func leadingInt(s string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(s[:strings.IndexByte(s+":", ':')], "line "))
	return n
}

// problemLines renders problems as "line: message" lines, for comparing.
func problemLines(problems []Problem) string {
	var b strings.Builder
	for _, p := range problems {
		fmt.Fprintf(&b, "%d: %s\n", p.Line, p.Message)
	}
	return b.String()
}

// Building blocks of the per-format inputs below.
const (
	oaUser      = `{"role": "user", "content": "go"}`
	oaCallC1    = `{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]}`
	oaResultC1  = `{"role": "tool", "tool_call_id": "c1", "content": "ok"}`
	oaResultZZ  = `{"role": "tool", "tool_call_id": "zz", "content": "lost"}`
	respUser    = `{"role": "user", "content": "go"}`
	respCallC1  = `{"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": "{}"}`
	respOutC1   = `{"type": "function_call_output", "call_id": "c1", "output": "ok"}`
	respOutZZ   = `{"type": "function_call_output", "call_id": "zz", "output": "lost"}`
	ccPrompt    = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-05T09:00:00.000Z","message":{"role":"user","content":"go"}}`
	ccCall      = `{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-05T09:00:01.000Z","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"a"}}]}}`
	ccResult1   = `{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s1","timestamp":"2026-01-05T09:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}`
	ccResultZZ  = `{"type":"user","uuid":"r2","parentUuid":"r1","sessionId":"s1","timestamp":"2026-01-05T09:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_zz","content":"lost"}]}}`
	cxMeta      = `{"timestamp":"2026-01-05T09:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.128.0","source":"cli"}}`
	cxUser      = `{"timestamp":"2026-01-05T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}`
	cxCall      = `{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}`
	cxOut1      = `{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}`
	cxOutZZ     = `{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"zz","output":"lost"}}`
	cxOutNoID   = `{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","output":"lost"}}`
	hgMeta      = `{"role": "session_meta", "model": "m", "platform": "cli"}`
	hgCallC1    = `{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]}`
	nbUserGo    = `{"role": "user", "content": "go"}`
	nbCallC1    = `{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]}`
	nbResultC1  = `{"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "ok"}`
	nbResultZZ  = `{"role": "tool", "tool_call_id": "zz", "name": "read_file", "content": "lost"}`
	nbAnswer    = `{"role": "assistant", "content": "done"}`
	ohUserEvent = `{"id": 0, "timestamp": "2026-03-01T08:00:00", "source": "user", "message": "go", "action": "message", "args": {"content": "go"}}`
	ohCall      = `{"id": 1, "timestamp": "2026-03-01T08:00:01", "source": "agent", "message": "run", "action": "run", "args": {"command": "ls"}, "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1", "model_response": {"id": "r1", "model": "m", "choices": []}}}`
	ohObs1      = `{"id": 2, "timestamp": "2026-03-01T08:00:02", "source": "agent", "message": "ran", "observation": "run", "content": "ok", "cause": 1}`
	ohObsZZ     = `{"id": 3, "timestamp": "2026-03-01T08:00:03", "source": "agent", "message": "ran", "observation": "run", "content": "lost", "cause": 99}`
)

func trajLine(entries ...string) string {
	var conv []string
	for i := 0; i+1 < len(entries); i += 2 {
		conv = append(conv, `{"from": "`+entries[i]+`", "value": `+jsonxQuote(entries[i+1])+`}`)
	}
	return `{"conversations": [` + strings.Join(conv, ", ") + `], "model": "m", "completed": true}`
}

func jsonxQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const (
	trajCall = "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>"
	trajResp = "<tool_response>\n{\"tool_call_id\": \"c1\", \"name\": \"read_file\", \"content\": \"ok\"}\n</tool_response>"
	trajLost = "<tool_response>\n{\"tool_call_id\": \"zz\", \"name\": \"read_file\", \"content\": \"lost\"}\n</tool_response>"
)

// TestResultWithNoCallEveryFormat: a result with no call is kept
// as a problem naming its file and line, in every format; no call is made
// up for it (the call counts are those of the calls that were made).
func TestResultWithNoCallEveryFormat(t *testing.T) {
	tests := []struct {
		name  string // file name: its ending and form matter to detection
		lines []string
		calls int
		line  int
		word  string
	}{
		{"nanobot.jsonl", []string{nbMeta, nbUserGo, nbCallC1, nbResultC1, nbResultZZ, nbAnswer}, 1, 5, `"zz" (read_file) has no call`},
		{"nanobot-first.jsonl", []string{nbMeta, nbUserGo, nbResultZZ, nbAnswer}, 0, 3, "no assistant message with tool calls comes before it"},
		{"20260413_083748_5a617929.jsonl", []string{hgMeta, oaUser, hgCallC1, oaResultC1, oaResultZZ}, 1, 5, `unknown tool_call_id "zz"`},
		{"export.jsonl", []string{`{"id": "s1", "source": "cli", "started_at": 1771560000.5, "messages": [` + strings.Join([]string{oaUser, hgCallC1, oaResultC1}, ", ") + `]}`,
			`{"id": "s2", "source": "cli", "started_at": 1771560000.5, "messages": [` + strings.Join([]string{oaUser, hgCallC1, oaResultC1, oaResultZZ}, ", ") + `]}`}, 2, 2, `unknown tool_call_id "zz"`},
		{"traj.jsonl", []string{trajLine("human", "go", "gpt", trajCall, "tool", trajResp), trajLine("human", "go", "gpt", trajCall, "tool", trajResp+"\n"+trajLost)}, 2, 2, "<tool_response> 2 (tool_call_id \"zz\", read_file) has no <tool_call> before it"},
		{"chat.jsonl", []string{`{"messages": [` + strings.Join([]string{oaUser, oaCallC1, oaResultC1}, ", ") + `]}`, `{"messages": [` + strings.Join([]string{oaUser, oaCallC1, oaResultC1, oaResultZZ}, ", ") + `]}`}, 1, 2, "result for call zz has no matching call"},
		{"responses.jsonl", []string{`{"input": [` + strings.Join([]string{respUser, respCallC1, respOutC1}, ", ") + `]}`, `{"input": [` + strings.Join([]string{respUser, respCallC1, respOutC1, respOutZZ}, ", ") + `]}`}, 1, 2, "result for call zz has no matching call"},
		{"session.jsonl", []string{ccPrompt, ccCall, ccResult1, ccResultZZ}, 1, 4, "result for call toolu_zz has no matching call"},
		{"rollout-2026-01-05T09-00-00-x.jsonl", []string{cxMeta, cxUser, cxCall, cxOut1, cxOutZZ}, 1, 5, "result for call zz has no matching call"},
		{"rollout-2026-01-05T09-00-01-x.jsonl", []string{cxMeta, cxUser, cxCall, cxOut1, cxOutNoID}, 1, 5, "result has no call id"},
		{"output.jsonl", []string{`{"instance_id": "i0", "history": [` + strings.Join([]string{ohUserEvent, ohCall, ohObs1}, ", ") + `]}`, `{"instance_id": "i1", "history": [` + strings.Join([]string{ohUserEvent, ohCall, ohObs1, ohObsZZ}, ", ") + `]}`}, 2, 2, "answers event 99, which is not in the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := readBytesAs(t, tt.name, joinLines(tt.lines...))
			if len(sessions) == 0 {
				t.Fatalf("no session read; problems %+v", problems)
			}
			if got := numCalls(sessions); got != tt.calls {
				t.Errorf("%d calls, want %d: no call is made up for the result", got, tt.calls)
			}
			if len(problems) != 1 || problems[0].Line != tt.line || !strings.Contains(problems[0].Message, tt.word) {
				t.Errorf("want one problem at line %d with %q, got:\n%s", tt.line, tt.word, problemLines(problems))
			}
		})
	}
}

// TestDuplicateCallIDs: two calls with one id while the first
// still waits for its result are one problem at the second call's line;
// both calls are kept and the results are joined first call first. An id
// reused after its call got its result is no problem.
func TestDuplicateCallIDs(t *testing.T) {
	nbTwo := `{"role": "assistant", "content": "", "tool_calls": [{"id": "d", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}, {"id": "d", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"b\"}"}}]}`
	nbRes := func(c string) string {
		return `{"role": "tool", "tool_call_id": "d", "name": "read_file", "content": "` + c + `"}`
	}
	oaRes := func(c string) string { return `{"role": "tool", "tool_call_id": "d", "content": "` + c + `"}` }
	ccTwo := `{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-05T09:00:01.000Z","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"d","name":"Read","input":{"file_path":"a"}},{"type":"tool_use","id":"d","name":"Read","input":{"file_path":"b"}}]}}`
	ccRes := func(c string) string {
		return `{"type":"user","uuid":"r` + c + `","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"d","content":"` + c + `"}]}}`
	}
	cxCallD := func(path string) string {
		return `{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"read","arguments":"{\"path\":\"` + path + `\"}","call_id":"d"}}`
	}
	cxOut := func(c string) string {
		return `{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"d","output":"` + c + `"}}`
	}
	tests := []struct {
		name    string
		lines   []string
		line    int
		results string
	}{
		{"nanobot.jsonl", []string{nbMeta, nbUserGo, nbTwo, nbRes("A"), nbRes("B"), nbAnswer}, 3, "A B"},
		{"20260413_083748_5a617929.jsonl", []string{hgMeta, oaUser, strings.Replace(nbTwo, `"content": ""`, `"content": null`, 1), oaRes("A"), oaRes("B")}, 3, "A B"},
		{"chat.jsonl", []string{`{"messages": [` + strings.Join([]string{oaUser, nbTwo, oaRes("A"), oaRes("B")}, ", ") + `]}`}, 1, "A B"},
		{"session.jsonl", []string{ccPrompt, ccTwo, ccRes("A"), ccRes("B")}, 2, "A B"},
		{"rollout-2026-01-05T09-00-00-x.jsonl", []string{cxMeta, cxUser, cxCallD("a"), cxCallD("b"), cxOut("A"), cxOut("B")}, 4, "A B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := readBytesAs(t, tt.name, joinLines(tt.lines...))
			if len(sessions) != 1 {
				t.Fatalf("%d sessions; problems %+v", len(sessions), problems)
			}
			var results []string
			for _, tr := range sessions[0].Turns {
				for _, r := range tr.Requests {
					for _, c := range r.Calls {
						results = append(results, c.Result)
					}
				}
			}
			if strings.Join(results, " ") != tt.results {
				t.Errorf("results %q, want %q (both calls kept, joined in order)", results, tt.results)
			}
			if len(problems) != 1 || problems[0].Line != tt.line || !(strings.Contains(problems[0].Message, "used again") || strings.Contains(problems[0].Message, "reuses the id")) {
				t.Errorf("want one problem at line %d about the reused id, got:\n%s", tt.line, problemLines(problems))
			}
		})
	}
}

// TestResultBeforeItsCall: a result written before its call is a
// problem at its line ("no call before it"); the call that follows is not
// answered by it, and its own problem says where the early result was.
func TestResultBeforeItsCall(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string // "line: word"
	}{
		{"nanobot.jsonl", []string{nbMeta, nbUserGo, strings.Replace(nbResultZZ, "zz", "c1", 1), nbCallC1, nbAnswer},
			[]string{"3: has no call", "4: a result with its id came before the call (line 3)"}},
		{"20260413_083748_5a617929.jsonl", []string{hgMeta, oaUser, oaResultC1, hgCallC1},
			[]string{`3: unknown tool_call_id "c1"`, "4: at line 3, and was not joined"}},
		{"chat.jsonl", []string{`{"messages": [` + strings.Join([]string{oaUser, oaResultC1, oaCallC1}, ", ") + `]}`},
			[]string{"1: no matching call before it", "1: at line 1, and was not joined"}},
		{"session.jsonl", []string{ccPrompt, strings.Replace(ccResult1, `"parentUuid":"a1",`, "", 1), ccCall},
			[]string{"2: no matching call before it", "3: at line 2, and was not joined"}},
		{"rollout-2026-01-05T09-00-00-x.jsonl", []string{cxMeta, cxUser, cxOut1, cxCall},
			[]string{"3: no matching call before it", "4: at line 3, and was not joined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := readBytesAs(t, tt.name, joinLines(tt.lines...))
			if numCalls(sessions) != 1 {
				t.Fatalf("%d calls, want the one call kept; problems:\n%s", numCalls(sessions), problemLines(problems))
			}
			if len(problems) != len(tt.want) {
				t.Fatalf("problems:\n%swant %q", problemLines(problems), tt.want)
			}
			for i, w := range tt.want {
				line, word, _ := strings.Cut(w, ": ")
				if strconv.Itoa(problems[i].Line) != line || !strings.Contains(problems[i].Message, word) {
					t.Errorf("problem %d is %d: %s; want %s", i+1, problems[i].Line, problems[i].Message, w)
				}
			}
		})
	}
}

// TestDocumentProblemLines: in a whole-file JSON document the
// problems name the line where the element at fault starts (blank lines
// counted), while sessions, turns and calls keep line 0 (docs/formats.md).
func TestDocumentProblemLines(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // "line: word"
	}{
		{"chat.json", "[\n" +
			"  " + oaUser + ",\n" +
			"\n" + // a blank line: counted
			"  {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [\n" +
			"    {\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"read_file\", \"arguments\": \"{}\"}}\n" +
			"  ]},\n" +
			"  " + oaResultZZ + ",\n" +
			"  {\"role\": \"robot\", \"content\": \"?\"}\n" +
			"]\n",
			[]string{"8: unknown role", "7: result for call zz has no matching call", "4: call c1 (read_file) has no result"}},
		{"request.json", "{\n  \"model\": \"m\",\n  \"messages\": [\n    " + oaUser + ",\n    " + oaCallC1 + ",\n    " + oaResultZZ + "\n  ]\n}\n",
			[]string{"6: result for call zz", "5: call c1 (read_file) has no result"}},
		{"responses.json", "{\n  \"input\": [\n    " + respUser + ",\n    " + respCallC1 + ",\n    " + respOutZZ + "\n  ]\n}\n",
			[]string{"5: result for call zz", "4: call c1 (read_file) has no result"}},
		{"trajectory.json", "[\n  " + ohUserEvent + ",\n  " + ohCall + ",\n  " + ohObsZZ + "\n]\n",
			[]string{"4: answers event 99", "3: call t1 (execute_bash) has no result"}},
		{"session_20260305_142233_9f8e7d.json", "{\n  \"session_id\": \"s\",\n  \"session_start\": \"2026-03-05T14:22:33\",\n  \"messages\": [\n    " + oaUser + ",\n    " + hgCallC1 + ",\n    " + oaResultZZ + ",\n    [1, 2]\n  ]\n}\n",
			[]string{`7: unknown tool_call_id "zz"`, "8: message 4 has an unexpected shape", `6: call "c1" (read_file) has no result`}},
		{"session_20260201_090000_c0ffee.json", "{\n  \"session_id\": \"s\",\n  \"session_start\": \"2026-02-01T09:00:00\",\n  \"conversations\": [\n" +
			"    {\"from\": \"human\", \"value\": \"go\"},\n" +
			"    {\"from\": \"gpt\", \"value\": " + jsonxQuote(trajCall) + "},\n" +
			"    {\"from\": \"tool\", \"value\": " + jsonxQuote(trajResp+"\n"+trajLost) + "},\n" +
			"    {\"from\": \"martian\", \"value\": \"?\"}\n  ]\n}\n",
			[]string{"7: <tool_response> 2", "8: unknown `from`"}},
		{"export.json", "{\n  \"id\": \"s1\",\n  \"source\": \"cli\",\n  \"started_at\": 1771560000.5,\n  \"messages\": [\n    " + oaUser + ",\n    " + hgCallC1 + ",\n    " + oaResultZZ + "\n  ]\n}\n",
			[]string{`8: unknown tool_call_id "zz"`, `7: call "c1" (read_file) has no result`}},
		{"traj.json", "{\n  \"conversations\": [\n" +
			"    {\"from\": \"human\", \"value\": \"go\"},\n" +
			"    {\"from\": \"gpt\", \"value\": " + jsonxQuote(trajCall+"\n"+trajCall) + "},\n" +
			"    {\"from\": \"tool\", \"value\": " + jsonxQuote(trajResp) + "},\n" +
			"    {\"from\": \"human\", \"value\": \"again\"}\n  ],\n  \"completed\": true\n}\n",
			[]string{"4: conversations[1] call 2 (read_file) has no <tool_response>"}},
		// A one-line document after blank lines: the line is the file's.
		{"oneline.json", "\n\n[" + oaUser + ", " + oaResultZZ + "]\n", []string{"3: result for call zz"}},
		// Invalid documents: the line where the parser stopped.
		{"cut.json", "[\n  " + oaUser + ",\n  {\"role\": \"assistant\", \"content\": \"cut", []string{"3: file is not valid JSON"}},
		{"broken.json", "{\n  \"messages\": [\n    " + oaUser + ",\n    {\"role\": \"assistant\" \"content\": \"x\"}\n  ]\n}\n", []string{"4: file is not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := readBytesAs(t, tt.name, []byte(tt.doc))
			if len(problems) != len(tt.want) {
				t.Fatalf("problems:\n%swant %q", problemLines(problems), tt.want)
			}
			// A file's problems come in line order.
			want := slices.Clone(tt.want)
			slices.SortStableFunc(want, func(a, b string) int { return cmp.Compare(leadingInt(a), leadingInt(b)) })
			for i, w := range want {
				line, word, _ := strings.Cut(w, ": ")
				if strconv.Itoa(problems[i].Line) != line || !strings.Contains(problems[i].Message, word) {
					t.Errorf("problem %d is %d: %s; want %s", i+1, problems[i].Line, problems[i].Message, w)
				}
			}
			if tt.name == "oneline.json" {
				return
			}
			for _, s := range sessions {
				for _, tr := range s.Turns {
					for _, r := range tr.Requests {
						for _, c := range r.Calls {
							if tr.Line != 0 || r.Line != 0 || c.Line != 0 || c.ResultLine != 0 {
								t.Errorf("session %s: turn line %d, request line %d, call line %d/%d; a multi-line document keeps 0", s.ID, tr.Line, r.Line, c.Line, c.ResultLine)
							}
						}
					}
				}
			}
		})
	}
}

// TestNoKnownFormatLine: "of no known format" names the line of the record
// detection looked at, or the file's first line when no line is JSON; it
// is never 0 (kept for files with no line: empty, unreadable).
func TestNoKnownFormatLine(t *testing.T) {
	tests := []struct {
		name, data string
		line       int
	}{
		{"keys.jsonl", "\n\n{\"hello\": 1}\n{\"hello\": 2}\n", 3},
		{"junk.jsonl", "\n  \nnot json\n{\"hello\": 1}\n", 4},
		{"text.txt.jsonl", "\nhello\nworld\n", 2},
		{"scalar.json", "42\n", 1},
		{"doc.json", "{\n  \"hello\": [1, 2]\n}\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := readBytesAs(t, tt.name, []byte(tt.data))
			if len(problems) != 1 || problems[0].Line != tt.line || !strings.Contains(problems[0].Message, "no known format") {
				t.Errorf("want one 'no known format' problem at line %d, got:\n%s", tt.line, problemLines(problems))
			}
		})
	}
}
