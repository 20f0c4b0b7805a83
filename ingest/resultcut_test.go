package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultFileReadsAgain: every cut result of a Claude Code file reads
// again as the reader first gave it, whatever the line holds around it:
// CRLF line ends, blank lines before, invalid UTF-8 (replaced as the line
// reader replaces it), a result before its call (held ahead), a result
// block without its id, two results on one line.
func TestResultFileReadsAgain(t *testing.T) {
	long := strings.Repeat("output line \"q\"\n", 40)
	lines := []string{
		`{"type":"user","uuid":"u0","parentUuid":null,"sessionId":"s","timestamp":"2026-03-02T10:00:00Z","message":{"role":"user","content":"go"}}`,
		``,
		`{"type":"assistant","uuid":"a1","parentUuid":"u0","sessionId":"s","timestamp":"2026-03-02T10:00:01Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"a"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"b"}}]}}`,
		`{"type":"user","uuid":"u1","parentUuid":"a1","sessionId":"s","timestamp":"2026-03-02T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + rawJSONString(long+"one") + `},{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":` + rawJSONString(long+"two \xff bad") + `}]}]}}`,
		`{"type":"user","uuid":"u3","parentUuid":"a3","sessionId":"s","timestamp":"2026-03-02T10:00:04Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":` + rawJSONString(long+"ahead") + `}]}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"u1","sessionId":"s","timestamp":"2026-03-02T10:00:03Z","requestId":"r3","message":{"id":"m3","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"c"}}]}}`,
		`{"type":"assistant","uuid":"a4","parentUuid":"u3","sessionId":"s","timestamp":"2026-03-02T10:00:05Z","requestId":"r4","message":{"id":"m4","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"d"}}]}}`,
		`{"type":"user","uuid":"u4","parentUuid":"a4","sessionId":"s","sourceToolUseID":"t4","timestamp":"2026-03-02T10:00:06Z","message":{"role":"user","content":[{"type":"tool_result","content":` + rawJSONString(long+"no id") + `}]}}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\r\n")+"\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(cut bool) []Call {
		var calls []Call
		opt := Options{}
		if cut {
			opt.CutResult = func(_ string, c *Call) { c.CutResult(10, nil) }
		}
		ReadFile(path, opt, &Sink{OnSession: func(s *Session) {
			for _, tu := range s.Turns {
				for _, q := range tu.Requests {
					calls = append(calls, q.Calls...)
				}
			}
		}})
		return calls
	}
	whole, cut := read(false), read(true)
	if len(whole) != 4 || len(cut) != 4 {
		t.Fatalf("%d and %d calls, want 4", len(whole), len(cut))
	}
	rf := NewResultFile(path, "claude-code")
	for i := range cut {
		c := &cut[i]
		if c.Cut == nil || len(c.Result) != 10 {
			t.Fatalf("call %s: not cut (%d bytes held)", c.ID, len(c.Result))
		}
		got, err := rf.Result(c)
		if err != nil || got != whole[i].Result {
			t.Errorf("call %s read again: %q, %v; want %q", c.ID, got, err, whole[i].Result)
		}
	}
}

// rawJSONString writes s as a JSON string, its bytes as they are (invalid
// UTF-8 too: json.Marshal would replace it).
func rawJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range []byte(s) {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
