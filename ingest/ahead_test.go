package ingest

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ccHostileLines builds a Claude Code file of n records spread over
// several batches, among them every kind of line the line reader or the
// reader reports: invalid UTF-8 (in JSON and not), lines that are not
// JSON, records of another shape or without a type, lines over the
// record limit (oversizeAt), blank and CRLF-ended lines.
func ccHostileLines(n int, oversizeAt map[int]bool) []byte {
	var b bytes.Buffer
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line(`{"type":"user","uuid":"u0","sessionId":"s1","timestamp":"2026-03-02T08:37:27.145Z","message":{"role":"user","content":"start"}}`)
	for i := 1; i < n; i++ {
		switch {
		case oversizeAt[i]:
			line(`{"type":"user","uuid":"big%d","message":{"role":"user","content":"%s"}}`, i, strings.Repeat("x", 6000))
		case i%97 == 0:
			line(`{"type":"user","uuid":"u%d","message":{"role":"user","content":"bad \xff utf8"}}`, i)
		case i%89 == 0:
			line("not json \xfe at all %d", i)
		case i%83 == 0:
			line(`{"type":"assistant","uuid":"u%d","message":`, i) // cut off
		case i%79 == 0:
			line(`[1,2,%d]`, i)
		case i%73 == 0:
			line(`{"uuid":"u%d","message":{"role":"user","content":"no type"}}`, i)
		case i%71 == 0:
			b.WriteString("   \r\n\n")
		case i%67 == 0:
			fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","message":{"role":"user","content":"crlf"}}`+"\r\n", i)
		case i%3 == 1:
			line(`{"type":"assistant","uuid":"u%d","parentUuid":"u%d","requestId":"r%d","message":{"id":"m%d","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"t%d","name":"Read","input":{"path":"/f%d"}}],"usage":{"input_tokens":%d,"output_tokens":3}}}`, i, i-1, i/9, i/9, i, i%5, i)
		case i%3 == 2:
			line(`{"type":"user","uuid":"u%d","parentUuid":"u%d","isSidechain":%t,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"result %d\nline two"}]}}`, i, i-1, i%11 == 0, i-1, i%7)
		default:
			line(`{"type":"user","uuid":"u%d","message":{"role":"user","content":"prompt %d"}}`, i, i)
		}
	}
	return b.Bytes()
}

// codexHostileLines is a Codex rollout of n lines with lines that are
// not JSON, records of another shape and payloads that cannot be read.
func codexHostileLines(n int) []byte {
	var b bytes.Buffer
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"c1","cwd":"/w"}}`)
	for i := 1; i < n; i++ {
		switch {
		case i%61 == 0:
			line("{\"type\": \xff %d", i)
		case i%59 == 0:
			line(`{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":[%d]}`, i)
		case i%53 == 0:
			line(`[%d]`, i)
		case i%3 == 0:
			line(`{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go %d"}]}}`, i)
		case i%3 == 1:
			line(`{"timestamp":"2026-01-01T00:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\",\"%d\"]}","call_id":"k%d"}}`, i%4, i)
		default:
			line(`{"timestamp":"2026-01-01T00:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"k%d","output":"out %d"}}`, i-1, i%5)
		}
	}
	return b.Bytes()
}

// messageHostileLines is a file of one message per line (nanobot,
// hermes gateway) among lines that are not JSON and records of another
// shape.
func messageHostileLines(n int, first string) []byte {
	var b bytes.Buffer
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("%s", first)
	for i := 1; i < n; i++ {
		switch {
		case i%61 == 0:
			line("{\"role\": \xff %d", i)
		case i%59 == 0:
			line(`[%d]`, i)
		case i%53 == 0:
			line(`{"role":7,"n":%d}`, i)
		case i%3 == 0:
			line(`{"role":"user","content":"go %d","timestamp":"2026-01-01T00:00:02"}`, i)
		case i%3 == 1:
			line(`{"role":"assistant","content":"","tool_calls":[{"id":"k%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"/f%d\"}"}}],"timestamp":"2026-01-01T00:00:03"}`, i, i%4)
		default:
			line(`{"role":"tool","tool_call_id":"k%d","name":"read_file","content":"out %d","timestamp":"2026-01-01T00:00:04"}`, i-1, i%5)
		}
	}
	return b.Bytes()
}

// piHostileLines is a pi session of n lines (eachJSONLine checks them
// ahead) among lines that are not JSON, with and without invalid UTF-8.
func piHostileLines(n int) []byte {
	var b bytes.Buffer
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line(`{"type":"session","id":"p1","timestamp":"2026-03-14T10:00:00.000Z","cwd":"/w"}`)
	for i := 1; i < n; i++ {
		switch {
		case i%61 == 0:
			line("{\"type\": \xff %d", i)
		case i%59 == 0:
			line("not json %d", i)
		case i%3 == 0:
			line(`{"type":"message","timestamp":"2026-03-14T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"go %d"}]}}`, i)
		case i%3 == 1:
			line(`{"type":"message","timestamp":"2026-03-14T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c%d","name":"ls","arguments":{"path":"%d"}}],"usage":{"input":300,"output":20}}}`, i, i%4)
		default:
			line(`{"type":"message","timestamp":"2026-03-14T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c%d","toolName":"ls","content":[{"type":"text","text":"out %d"}],"isError":false}}`, i-1, i%5)
		}
	}
	return b.Bytes()
}

// trajectoryHostileLines is a hermes trajectory file of n lines, one
// conversation each, among them lines that are not JSON (with and without
// invalid UTF-8, which the reader then says in one problem), records of
// another shape, valid records with invalid UTF-8 and lines over the
// record limit (oversizeAt).
func trajectoryHostileLines(n int, oversizeAt map[int]bool) []byte {
	var b bytes.Buffer
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	for i := 1; i <= n; i++ {
		switch {
		case oversizeAt[i]:
			line(`{"conversations":[{"from":"human","value":"%s"}]}`, strings.Repeat("y", 6000))
		case i%61 == 0:
			line("{\"conversations\": [\xff broken %d", i)
		case i%59 == 0:
			line("not json %d", i)
		case i%53 == 0:
			line(`{"conversations":"not a list","n":%d}`, i)
		case i%47 == 0:
			line("{\"conversations\":[{\"from\":\"human\",\"value\":\"bad \xfe %d\"}]}", i)
		default:
			line(`{"conversations":[{"from":"system","value":"sys"},{"from":"human","value":"task %d"},{"from":"gpt","value":"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"/f%d\"}}\n</tool_call>"},{"from":"tool","value":"<tool_response>\n{\"content\": \"r%d\"}\n</tool_response>"}]}`, i, i%4, i%3)
		}
	}
	return b.Bytes()
}

// TestDecodeAheadReadsTheSame: a file whose lines are decoded ahead on
// other cores yields the same sessions and the same problems, in the same
// order, as one read line by line.
func TestDecodeAheadReadsTheSame(t *testing.T) {
	t.Parallel() // a reader's pure function of its inputs: beside the package's other long tests
	cases := map[string]struct {
		data []byte
		opt  Options
	}{
		"hostile lines over many batches": {ccHostileLines(3000, map[int]bool{5: true, 512: true, 513: true, 1500: true}), Options{MaxRecord: 4096}},
		"over the limit at the end":       {ccHostileLines(700, map[int]bool{698: true, 699: true}), Options{MaxRecord: 4096}},
		"last line cut short":             {append(ccHostileLines(1200, nil), `{"type":"user","message":`...), Options{}},
		"last line cut short, bad UTF-8":  {append(ccHostileLines(600, nil), "{\"type\":\"user\xff\""...), Options{}},
		"forced format":                   {ccHostileLines(1100, nil), Options{Format: formatClaudeCode}},
		"codex lines":                     {codexHostileLines(2000), Options{Format: "codex"}},
		"nanobot lines":                   {messageHostileLines(1800, `{"_type":"metadata","key":"cli:direct","created_at":"2026-01-01T00:00:00"}`), Options{Format: "nanobot"}},
		"gateway lines":                   {messageHostileLines(1800, `{"role":"session_meta","model":"m","platform":"cli"}`), Options{Format: "hermes-gateway"}},
		"pi lines (checked ahead)":        {piHostileLines(1800), Options{Format: "pi"}},
		"trajectory lines":                {trajectoryHostileLines(1500, map[int]bool{3: true, 700: true, 1500: true}), Options{MaxRecord: 4096, Format: "hermes-trajectory"}},
	}
	for path, data := range directInputs(t, nil) {
		cases[path] = struct {
			data []byte
			opt  Options
		}{data, Options{}}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			inTurn := DumpOf(readBytesWith(c.data, "s1.jsonl", c.opt)).MarshalIndent()
			for _, workers := range []int{2, 3} {
				opt := c.opt
				opt.Workers, opt.aheadAfter = workers, 1
				ahead := DumpOf(readBytesWith(c.data, "s1.jsonl", opt)).MarshalIndent()
				if d := cmp.Diff(string(inTurn), string(ahead)); d != "" {
					t.Fatalf("%d workers: decoded ahead, the file reads differently (-in turn +ahead):\n%s", workers, d)
				}
			}
		})
	}
	// The hostile files must have exercised what they are for.
	for name, wants := range map[string][]string{
		"hostile lines over many batches": {"over the --max-record limit", "invalid UTF-8", "not valid JSON", "not a Claude Code line", "has no type"},
		"codex lines":                     {"not valid JSON", "not a Codex rollout line", "payload is not readable"},
		"nanobot lines":                   {"not valid JSON", "not an object"},
		"gateway lines":                   {"not valid JSON", "not a hermes gateway message"},
		"pi lines (checked ahead)":        {"not valid JSON", "(the line also holds invalid UTF-8)"},
		"trajectory lines":                {"over the --max-record limit", "line holds invalid UTF-8", "(the line also holds invalid UTF-8)", "not valid JSON", "not a hermes trajectory record"},
	} {
		opt := cases[name].opt
		opt.Workers, opt.aheadAfter = 2, 1
		sessions, problems := readBytesWith(cases[name].data, "s1.jsonl", opt)
		if len(sessions) == 0 {
			t.Errorf("%s: no session read", name)
		}
		for _, want := range wants {
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p.Message, want)
			}
			if !found {
				t.Errorf("%s: no problem says %q: the test file lost its purpose", name, want)
			}
		}
	}
}

// TestDecodeAheadPanics: a panic while decoding ahead, or while applying
// a record, reaches the caller's goroutine (where Read turns it into a
// problem), and no goroutine is left behind.
func TestDecodeAheadPanics(t *testing.T) {
	data := ccHostileLines(5000, nil)
	before := runtime.NumGoroutine()
	for _, where := range []string{"decode", "apply"} {
		t.Run(where, func(t *testing.T) {
			lr := NewLineReader(bytes.NewReader(data))
			h := &Head{workers: 2, aheadAfter: 1}
			applied := 0
			got := func() (p any) {
				defer func() { p = recover() }()
				eachRecord(lr.Next, lr, h, func(_ *LineReader, line []byte, _ int, rec *int) {
					if where == "decode" && bytes.Contains(line, []byte(`"u2500"`)) {
						panic("decode boom")
					}
				}, func(_ *LineReader, line []byte, n int, rec *int) {
					applied++
					if where == "apply" && n == 2500 {
						panic("apply boom")
					}
				})
				return nil
			}()
			if got != where+" boom" {
				t.Fatalf("panic %v reached the caller, want %q", got, where+" boom")
			}
			if applied == 0 || applied > 2500 {
				t.Errorf("%d records applied before the panic", applied)
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left behind", n-before)
	}
}

// TestDecodeAheadInOrder: records are applied in the file's order, each
// with the line it was decoded from.
func TestDecodeAheadInOrder(t *testing.T) {
	lr := NewLineReader(bytes.NewReader(ccHostileLines(4000, nil)))
	var got []int
	eachRecord(lr.Next, lr, &Head{workers: 3, aheadAfter: 1}, func(_ *LineReader, line []byte, _ int, rec *int) {
		*rec = len(line)
	}, func(_ *LineReader, line []byte, n int, rec *int) {
		if *rec != len(line) {
			t.Fatalf("line %d: its record was decoded from another line", n)
		}
		got = append(got, n)
	})
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("line %d applied after line %d", got[i], got[i-1])
		}
	}
	if len(got) < 3900 {
		t.Fatalf("%d lines applied", len(got))
	}
}
