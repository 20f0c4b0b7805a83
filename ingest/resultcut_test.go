package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// TestHeldResultsKept: with results cut (Options.CutResult), a long result
// is decoded into a scratch the next lines reuse (jsonx.Scratch); a result
// the hook leaves whole must then be a copy, on every path a result takes
// to its call (in order, ahead of its call's line, without an id, a server
// tool's result in an assistant line), decoded in turn or ahead on
// workers: every call reads as when nothing is cut, while many more long
// results are decoded after it.
func TestHeldResultsKept(t *testing.T) {
	var lines []string
	line := func(s string) { lines = append(lines, s) }
	// Results of 30 bytes to 7 KB: under CutAbove (packed), over it
	// (decoded into the scratch), over 4 KiB.
	body := func(i int) string {
		return strings.Repeat(fmt.Sprintf("line %d of the output, \"quoted\"\n", i), 1+(i*37)%211)
	}
	line(`{"type":"user","uuid":"u0","parentUuid":null,"sessionId":"s","timestamp":"2026-03-02T10:00:00Z","message":{"role":"user","content":"go"}}`)
	parent := "u0"
	for i := 0; i < 120; i++ {
		a, u, id := fmt.Sprintf("a%d", i), fmt.Sprintf("u%d", i+1), fmt.Sprintf("t%d", i)
		call := `{"type":"assistant","uuid":"` + a + `","parentUuid":"` + parent + `","sessionId":"s","timestamp":"2026-03-02T10:00:01Z","requestId":"r` + id + `","message":{"id":"m` + id + `","role":"assistant","model":"m","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"c"}}]}}`
		result := `{"type":"user","uuid":"` + u + `","parentUuid":"` + a + `","sessionId":"s","timestamp":"2026-03-02T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + rawJSONString(body(i)) + `}]}}`
		switch i % 4 {
		case 0, 3:
			line(call)
			line(result)
		case 1: // the result just before its call's line
			line(result)
			line(call)
		case 2: // no id on the block: the line's sourceToolUseID names the call
			line(call)
			line(strings.Replace(strings.Replace(result, `"tool_use_id":"`+id+`",`, ``, 1), `"sessionId":"s",`, `"sessionId":"s","sourceToolUseID":"`+id+`",`, 1))
		}
		if i%10 == 9 { // a server tool's result, in the assistant line
			sid := fmt.Sprintf("srv%d", i)
			line(`{"type":"assistant","uuid":"` + a + `s","parentUuid":"` + u + `","sessionId":"s","timestamp":"2026-03-02T10:00:03Z","requestId":"rs` + id + `","message":{"id":"ms` + id + `","role":"assistant","model":"m","content":[{"type":"server_tool_use","id":"` + sid + `","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"` + sid + `","content":` + rawJSONString(body(i+1000)) + `}]}}`)
			u = a + "s"
		}
		parent = u
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(opt Options) []Call {
		var calls []Call
		var problems []string
		ReadFile(path, opt, &Sink{
			OnSession: func(s *Session) {
				for _, tu := range s.Turns {
					for _, q := range tu.Requests {
						calls = append(calls, q.Calls...)
					}
				}
			},
			OnProblem: func(p Problem) { problems = append(problems, p.Message) },
		})
		if len(problems) > 0 {
			t.Fatalf("problems: %q", problems)
		}
		return calls
	}
	whole := read(Options{})
	if len(whole) != 132 {
		t.Fatalf("%d calls, want 132", len(whole))
	}
	for _, ahead := range []int{0, 1} {
		var cutIDs []string
		// The hook cuts every third result, and leaves the others whole.
		opt := Options{Workers: 2, aheadAfter: ahead, CutResult: func(_ string, c *Call) {
			if n, _ := strconv.Atoi(strings.TrimLeft(c.ID, "tsrv")); n%3 == 0 {
				c.CutResult(100, nil)
				cutIDs = append(cutIDs, c.ID)
			}
		}}
		got := read(opt)
		if len(got) != len(whole) || len(cutIDs) == 0 || len(cutIDs) == len(got) {
			t.Fatalf("ahead %d: %d calls, %d cut", ahead, len(got), len(cutIDs))
		}
		for i := range got {
			c, w := &got[i], &whole[i]
			want := w.Result
			if c.Cut != nil {
				want = w.Result[:100]
			}
			if c.ID != w.ID || c.Result != want || c.ResultLen() != len(w.Result) {
				t.Fatalf("ahead %d: call %s: result %.60q (%d bytes), want %.60q (%d)", ahead, c.ID, c.Result, c.ResultLen(), want, len(w.Result))
			}
		}
	}
}

// TestHeldResultsBadLines: a line whose long result is malformed (a bad
// escape, a raw control byte, no closing quote, invalid UTF-8) is reported
// with its file and line as when results are not cut, decoded in turn or
// ahead, and the calls around it read alike.
func TestHeldResultsBadLines(t *testing.T) {
	long := strings.Repeat(`output line \"q\"\n`, 300)
	head := `{"type":"user","uuid":"u0","parentUuid":null,"sessionId":"s","timestamp":"2026-03-02T10:00:00Z","message":{"role":"user","content":"go"}}`
	lines := []string{head}
	for i, bad := range []string{long + `\q`, long + "\x01", long + "\xff\xfe", long, long + `\u12`} {
		id := fmt.Sprintf("t%d", i)
		lines = append(lines,
			`{"type":"assistant","uuid":"a`+id+`","parentUuid":"u0","sessionId":"s","timestamp":"2026-03-02T10:00:01Z","requestId":"r`+id+`","message":{"id":"m`+id+`","role":"assistant","model":"m","content":[{"type":"tool_use","id":"`+id+`","name":"Bash","input":{"command":"c"}}]}}`,
			`{"type":"user","uuid":"u`+id+`","parentUuid":"a`+id+`","sessionId":"s","timestamp":"2026-03-02T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"`+bad+`"}]}}`)
		if i == 3 { // no closing quote: the line ends inside the string
			lines[len(lines)-1] = lines[len(lines)-1][:len(lines[len(lines)-1])-len(`"}]}}`)]
		}
		lines = append(lines, `{"type":"user","uuid":"v`+id+`","parentUuid":"u`+id+`","sessionId":"s","timestamp":"2026-03-02T10:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`x","content":"`+long+`"}]}}`)
	}
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(opt Options) (results []string, problems []Problem) {
		ReadFile(path, opt, &Sink{
			OnSession: func(s *Session) {
				for _, tu := range s.Turns {
					for _, q := range tu.Requests {
						for _, c := range q.Calls {
							results = append(results, fmt.Sprintf("%s %v %d %.40q", c.ID, c.HasResult, c.ResultLen(), c.Result[:min(len(c.Result), 64)]))
						}
					}
				}
			},
			OnProblem: func(p Problem) { problems = append(problems, p) },
		})
		return results, problems
	}
	wantResults, wantProblems := read(Options{})
	badLines := map[int]bool{}
	for _, p := range wantProblems {
		if p.File == "" || p.Line == 0 {
			t.Fatalf("problem without its file and line: %+v", p)
		}
		badLines[p.Line] = true
	}
	// The lines of the results with a bad escape, a control byte, no
	// closing quote and a short \u escape; invalid UTF-8 is replaced.
	for _, n := range []int{3, 6, 12, 15} {
		if !badLines[n] {
			t.Fatalf("line %d not reported; problems %+v", n, wantProblems)
		}
	}
	for _, ahead := range []int{0, 1} {
		cut := Options{Workers: 2, aheadAfter: ahead, CutResult: func(_ string, c *Call) { c.CutResult(64, nil) }}
		results, problems := read(cut)
		if fmt.Sprint(problems) != fmt.Sprint(wantProblems) {
			t.Errorf("ahead %d: problems\n%+v\nwant\n%+v", ahead, problems, wantProblems)
		}
		if fmt.Sprint(results) != fmt.Sprint(wantResults) {
			t.Errorf("ahead %d: calls\n%q\nwant\n%q", ahead, results, wantResults)
		}
	}
}
