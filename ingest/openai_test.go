package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

var zeroTime time.Time

// builderOp is one step fed to a sessionBuilder in the pairing tests.
type builderOp struct {
	turn   bool   // start a turn
	req    bool   // start a request
	call   string // "id:tool" (id may be empty: a legacy call)
	result string // "id=text" (a result by id) or "fn:name=text" (legacy)
}

func runBuilder(ops []builderOp) (*Session, []Problem) {
	var problems []Problem
	var got *Session
	out := &Sink{OnProblem: func(p Problem) { problems = append(problems, p) }, OnSession: func(s *Session) { got = s }}
	b := newSessionBuilder(&Session{}, 0)
	for i, op := range ops {
		line := i + 1
		switch {
		case op.turn:
			b.turn(line, zeroTime, 1)
		case op.req:
			b.request(line, zeroTime, 0, nil)
		case op.call != "":
			id, tool, _ := strings.Cut(op.call, ":")
			b.call(Call{ID: id, Tool: tool, Line: line}, out)
		case strings.HasPrefix(op.result, "fn:"):
			name, text, _ := strings.Cut(strings.TrimPrefix(op.result, "fn:"), "=")
			b.legacyResult(name, text, line, zeroTime, out)
		default:
			id, text, _ := strings.Cut(op.result, "=")
			b.result(id, text, false, line, zeroTime, out)
		}
	}
	b.finish(out)
	return got, problems
}

// callSummary lists the session's calls as "id/tool=result" ("!" for no
// result), in order.
func callSummary(s *Session) string {
	var parts []string
	for _, t := range s.Turns {
		for _, r := range t.Requests {
			for _, c := range r.Calls {
				res := "!"
				if c.HasResult {
					res = c.Result
				}
				parts = append(parts, c.ID+"/"+c.Tool+"="+res)
			}
		}
	}
	return strings.Join(parts, " ")
}

func problemSummary(ps []Problem) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.Message)
	}
	return strings.Join(parts, " | ")
}

func TestSessionBuilderPairing(t *testing.T) {
	tests := []struct {
		name     string
		ops      []builderOp
		calls    string
		problems []string // substrings, in order
	}{
		{
			name:  "results out of order join by id",
			ops:   []builderOp{{turn: true}, {req: true}, {call: "a:read"}, {call: "b:grep"}, {result: "b=B"}, {result: "a=A"}},
			calls: "a/read=A b/grep=B",
		},
		{
			name:     "call without result is reported",
			ops:      []builderOp{{req: true}, {call: "a:read"}},
			calls:    "a/read=!",
			problems: []string{"call a (read) has no result"},
		},
		{
			name:     "result without call is reported and ignored",
			ops:      []builderOp{{req: true}, {call: "a:read"}, {result: "x=X"}, {result: "a=A"}},
			calls:    "a/read=A",
			problems: []string{"result for call x has no matching call"},
		},
		{
			name:  "id reused after its result is not a problem",
			ops:   []builderOp{{req: true}, {call: "c0:ls"}, {result: "c0=1"}, {req: true}, {call: "c0:ls"}, {result: "c0=2"}},
			calls: "c0/ls=1 c0/ls=2",
		},
		{
			// The builder keeps an answered id as an empty list of waiting
			// calls: an answered id stays answered when called again.
			name:     "results after an id's calls are answered are second results, again after a new call",
			ops:      []builderOp{{req: true}, {call: "e:ls"}, {result: "e=1"}, {result: "e=x"}, {call: "e:ls"}, {result: "e=2"}, {result: "e=y"}, {result: "=z"}, {result: "f=F"}, {call: "f:ls"}},
			calls:    "e/ls=1 e/ls=2 f/ls=!",
			problems: []string{"second result for call e", "second result for call e", "result has no call id", "result for call f has no matching call", "call f (ls) has no result"},
		},
		{
			name:     "duplicate pending ids join in order",
			ops:      []builderOp{{req: true}, {call: "d:read"}, {call: "d:read"}, {result: "d=first"}, {result: "d=second"}, {result: "d=third"}},
			calls:    "d/read=first d/read=second",
			problems: []string{"call id d is used again", "second result for call d"},
		},
		{
			name:  "legacy results pair by order and name",
			ops:   []builderOp{{req: true}, {call: ":read"}, {req: true}, {call: ":grep"}, {result: "fn:grep=G"}, {result: "fn:read=R"}},
			calls: "/read=R /grep=G",
		},
		{
			name:     "legacy result of another name does not pair",
			ops:      []builderOp{{req: true}, {call: ":read"}, {result: "fn:write=W"}},
			calls:    "/read=!",
			problems: []string{"function result for write has no matching function_call", "call to read has no result"},
		},
		{
			name:     "legacy result without name pairs with the oldest waiting call",
			ops:      []builderOp{{req: true}, {call: ":read"}, {call: ":grep"}, {result: "fn:=X"}},
			calls:    "/read=X /grep=!",
			problems: []string{"call to grep has no result"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, problems := runBuilder(tc.ops)
			if got := callSummary(s); got != tc.calls {
				t.Errorf("calls = %q, want %q", got, tc.calls)
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %q", problemSummary(problems), tc.problems)
			}
			for i, want := range tc.problems {
				if !strings.Contains(problems[i].Message, want) {
					t.Errorf("problem %d = %q, want it to contain %q", i, problems[i].Message, want)
				}
			}
		})
	}
}

// readText reads a file given as text, through detection.
func readText(t *testing.T, name, text string) ([]*Session, []Problem) {
	t.Helper()
	var sessions []*Session
	var problems []Problem
	Read(strings.NewReader(text), name, Options{}, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	return sessions, problems
}

func TestOpenAIReading(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		text     string
		format   string
		turns    int
		calls    string
		problems int
	}{
		{
			name:   "bare chat array, one line",
			file:   "a.json",
			text:   `[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"X"}]`,
			format: formatOpenAIChat,
			turns:  1,
			calls:  "c1/read_file=X",
		},
		{
			name:     "tool results are not turns; content null user is not a turn",
			file:     "b.json",
			text:     `{"messages":[{"role":"user","content":null},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"a"}]},{"role":"user","content":"go on"}]}`,
			format:   formatOpenAIChat,
			turns:    2, // the calls before the first genuine user message get a turn of their own
			calls:    "c1/ls=a",
			problems: 0,
		},
		{
			name:   "responses item array joins on call_id not id",
			file:   "c.json",
			text:   `[{"role":"user","content":"q"},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"grep","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"hit"}]`,
			format: formatOpenAIResponses,
			turns:  1,
			calls:  "call_1/grep=hit",
		},
		{
			name:     "JSONL log: replayed prefix is read once",
			file:     "d.jsonl",
			text:     `{"messages":[{"role":"user","content":"q"}],"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}}]}` + "\n" + `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}],"choices":[{"message":{"role":"assistant","content":"done"}}]}` + "\n",
			format:   formatOpenAIChat,
			turns:    1,
			calls:    "c1/ls=r",
			problems: 0,
		},
		{
			name:     "message of the wrong shape is a problem, the rest is read",
			file:     "e.json",
			text:     `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":"oops"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]`,
			format:   formatOpenAIChat,
			turns:    1,
			calls:    "c1/ls=r",
			problems: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readText(t, tc.file, tc.text)
			if len(problems) != tc.problems {
				t.Errorf("problems = %q, want %d", problemSummary(problems), tc.problems)
			}
			if len(sessions) != 1 {
				t.Fatalf("sessions = %d, want 1", len(sessions))
			}
			s := sessions[0]
			if s.Format != tc.format {
				t.Errorf("format = %s, want %s", s.Format, tc.format)
			}
			if len(s.Turns) != tc.turns {
				t.Errorf("turns = %d, want %d", len(s.Turns), tc.turns)
			}
			if got := callSummary(s); got != tc.calls {
				t.Errorf("calls = %q, want %q", got, tc.calls)
			}
		})
	}
}

func TestOpenAISniff(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		chat, rsp bool
	}{
		{"chat array", `[{"role":"user","content":"x"}]`, true, false},
		{"responses array", `[{"type":"message","role":"user","content":"x"}]`, false, true},
		{"chat request body", `{"model":"m","messages":[]}`, true, false},
		{"chat request/response log line", `{"request":{"messages":[]},"response":{}}`, true, false},
		{"responses body", `{"model":"m","input":[]}`, false, true},
		{"batch input line", `{"custom_id":"r1","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}`, true, false},
		{"batch output line", `{"id":"b1","custom_id":"r1","response":{"status_code":200,"body":{"id":"chatcmpl-1","object":"chat.completion","choices":[]}}}`, true, false},
		{"responses object", `{"id":"resp_1","object":"response","output":[]}`, false, true},
		{"hermes snapshot is not ours", `{"session_id":"s","session_start":"t","messages":[]}`, false, false},
		{"hermes gateway message line is not ours", `{"role":"user","content":"x"}`, false, false},
		{"nanobot metadata is not ours", `{"_type":"metadata","key":"k"}`, false, false},
		{"openhands events are not ours", `[{"id":0,"source":"user","action":"message"}]`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &Head{Name: "x.json"}
			describe(h, []byte(tc.text))
			if got := sniffOpenAIChat(h); got != tc.chat {
				t.Errorf("sniffOpenAIChat = %v, want %v", got, tc.chat)
			}
			if got := sniffOpenAIResponses(h); got != tc.rsp {
				t.Errorf("sniffOpenAIResponses = %v, want %v", got, tc.rsp)
			}
		})
	}
}

func TestOpenAIInterleavedLog(t *testing.T) {
	// Two conversations whose requests alternate in one log: each request is
	// matched to the conversation whose messages it replays.
	lines := []string{
		`{"messages":[{"role":"user","content":"A"}],"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a1","type":"function","function":{"name":"ls","arguments":"{}"}}]}}]}`,
		`{"messages":[{"role":"user","content":"B"}],"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"b1","type":"function","function":{"name":"cat","arguments":"{}"}}]}}]}`,
		`{"messages":[{"role":"user","content":"A"},{"role":"assistant","tool_calls":[{"id":"a1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a1","content":"ra"}],"choices":[{"message":{"role":"assistant","content":"done A"}}]}`,
		`{"messages":[{"role":"user","content":"B"},{"role":"assistant","tool_calls":[{"id":"b1","type":"function","function":{"name":"cat","arguments":"{}"}}]},{"role":"tool","tool_call_id":"b1","content":"rb"}],"choices":[{"message":{"role":"assistant","content":"done B"}}]}`,
	}
	sessions, problems := readText(t, "log.jsonl", strings.Join(lines, "\n")+"\n")
	if len(problems) != 0 {
		t.Errorf("problems: %s", problemSummary(problems))
	}
	if len(sessions) != 2 {
		t.Fatalf("sessions = %d, want 2", len(sessions))
	}
	want := []struct{ id, calls string }{{"log", "a1/ls=ra"}, {"log#L2", "b1/cat=rb"}}
	for i, w := range want {
		s := sessions[i]
		if s.ID != w.id || callSummary(s) != w.calls || s.NumRequests() != 2 {
			t.Errorf("session %d: id %q calls %q requests %d; want %q %q 2", i, s.ID, callSummary(s), s.NumRequests(), w.id, w.calls)
		}
		if r := s.Turns[0].Requests[0]; r.Calls[0].Line != i+1 || r.Calls[0].ResultLine != i+3 {
			t.Errorf("session %d: call line %d result line %d", i, r.Calls[0].Line, r.Calls[0].ResultLine)
		}
	}
}

// TestMyFormatsSurviveDamage cuts every fixture of the OpenAI, Claude Code,
// Codex and OpenHands families at many points, and forces each through every
// one of those formats: reading must never panic (Read turns a panic into an
// "internal error" problem, which this test rejects).
func TestMyFormatsSurviveDamage(t *testing.T) {
	ids := []string{formatOpenAIChat, formatOpenAIResponses, formatClaudeCode, formatCodex, formatOpenHands}
	var files []string
	for _, dir := range []string{"openai", "claude-code", "codex", "openhands"} {
		filepath.WalkDir(filepath.Join("..", "fixtures", "ingest", dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && IsTranscriptName(p) && !strings.HasSuffix(p, ".golden") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 10 {
		t.Fatalf("found %d fixtures, expected at least 10", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		step := len(data)/40 + 1
		for cut := 0; cut <= len(data); cut += step {
			for _, id := range append([]string{""}, ids...) {
				var bad []string
				Read(bytes.NewReader(data[:cut]), filepath.Base(f), Options{Format: id}, &Sink{OnProblem: func(p Problem) {
					if strings.Contains(p.Message, "internal error") {
						bad = append(bad, p.Message)
					}
				}})
				if len(bad) > 0 {
					t.Errorf("%s cut at %d, format %q: %s", f, cut, id, bad[0])
				}
			}
		}
	}
}

// TestTooDeepLine: a line nested deeper than jsonx.MaxDepth, which goccy
// decodes without error, is a bad line worded as such under every JSONL
// reader that words bad lines with the decoder's error (it was a nil
// dereference, reported as an internal error, found in a review).
func TestTooDeepLine(t *testing.T) {
	deep := strings.Repeat("[", jsonx.MaxDepth) + strings.Repeat("]", jsonx.MaxDepth)
	for _, format := range []string{"openai-chat", "openai-responses", "openhands"} {
		for _, line := range []string{
			`{"input":[{"type":"message","role":"user","content":"a","x":` + deep + `}]}`,
			`{"messages":[{"role":"user","content":"a"}],"x":[` + deep + `]}`,
		} {
			_, problems := readBytes([]byte(`{"messages":[{"role":"user","content":"ok"}]}`+"\n"+line+"\n"), "log.jsonl", format)
			found := false
			for _, p := range problems {
				if strings.Contains(p.Message, "internal error") {
					t.Fatalf("%s: %s", format, p.Message)
				}
				if p.Line == 2 && p.Message == "line is not valid JSON: JSON nested too deeply" {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: line 2 not reported as nested too deeply: %s", format, problemSummary(problems))
			}
		}
	}
}
