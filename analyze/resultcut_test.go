package analyze

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// cutSessionFile writes a Claude Code session of rounds reads of one file
// whose result is long (results cut as read: cutAbove), stopped once with
// a pointer to the first and once, past pointer_within, answered with its
// text. withUsage records usage
// that calibrates the session (tokens counted from lengths); without it the
// tokenizer counts the stopped calls' results.
func cutSessionFile(t *testing.T, dir string, withUsage bool) string {
	t.Helper()
	var b strings.Builder
	line := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	ts := func(i int) string { return fmt.Sprintf("2026-03-02T10:%02d:%02d.000Z", i/60, i%60) }
	line(map[string]any{"type": "user", "uuid": "u0", "parentUuid": nil, "sessionId": "cut", "timestamp": ts(0),
		"message": map[string]any{"role": "user", "content": "Read the log, then the notes."}})
	parent, n, input := "u0", 0, int64(1000)
	// The long results: a read repeated, and different searches between.
	logText := strings.Repeat("log line \"quoted\"\twith a tab\n", 600)
	call := func(tool string, args map[string]any, result string) {
		n++
		id := fmt.Sprintf("toolu_%d", n)
		msg := map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": tool, "input": args}}}
		if withUsage {
			msg["usage"] = map[string]any{"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 20}
			input += 20 + int64(len(result)/4)
		}
		line(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", n), "parentUuid": parent, "sessionId": "cut", "timestamp": ts(2 * n),
			"requestId": fmt.Sprintf("req_%d", n), "message": msg})
		line(map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", n), "parentUuid": fmt.Sprintf("a%d", n), "sessionId": "cut", "timestamp": ts(2*n + 1),
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}}}})
		parent = fmt.Sprintf("r%d", n)
	}
	// The second read is stopped with a pointer to the first (it saves
	// its result's tokens); the third, after 40,000 tokens of searches,
	// is answered with the first's text.
	read := func() { call("Read", map[string]any{"file_path": "/w/trace.txt"}, logText) }
	read()
	read()
	for k := range 24 {
		call("Grep", map[string]any{"pattern": fmt.Sprintf("p%d", k)}, strings.Repeat(fmt.Sprintf("match %d\n", k), 1200))
	}
	read()
	// A short result, never cut, and a long blank one, which is not cut
	// either (blank_is_failure reads whether the whole is blank).
	call("Read", map[string]any{"file_path": "/w/short"}, "short")
	// A result a little over the head, cut too, read twice.
	mid := strings.Repeat("mid line\n", 120)
	call("Read", map[string]any{"file_path": "/w/mid"}, mid)
	call("Read", map[string]any{"file_path": "/w/mid"}, mid)
	call("Read", map[string]any{"file_path": "/w/blank"}, strings.Repeat(" \n", 5000))
	path := filepath.Join(dir, fmt.Sprintf("cut-%v.jsonl", withUsage))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCutResultsSameReport: a replay that holds long results as their head
// (ingest.Options.CutResult) reports what one that holds them whole does,
// byte for byte, with dedup answering with a cut result and the tokenizer
// counting stopped cut results (both read again from the file); and the
// cut session holds no result longer than the head.
func TestCutResultsSameReport(t *testing.T) {
	dir := t.TempDir()
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, withUsage := range []bool{false, true} {
		path := cutSessionFile(t, dir, withUsage)
		replay := func(cut bool) ([]byte, *Report) {
			opt := Options{Rules: r, Tokens: counter, Jobs: 1}
			if !cut {
				opt.Ingest.CutResult = func(string, *ingest.Call) {} // holds every result whole
			}
			rep := Replay([]string{path}, opt)
			data, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			return data, rep
		}
		whole, rep := replay(false)
		cut, _ := replay(true)
		if string(whole) != string(cut) {
			t.Errorf("usage %v: the report differs with results cut:\nwhole %s\ncut   %s", withUsage, whole, cut)
		}
		// The run must have answered with a long result and counted a
		// stopped one's tokens, or the test proves nothing.
		s := rep.Sessions[0]
		if s.Deduped < 2 || s.TokensSaved < 1000 {
			t.Fatalf("usage %v: %d deduped, %d tokens saved: the session does not exercise the cut results", withUsage, s.Deduped, s.TokensSaved)
		}
		if withUsage != (s.TokensFrom == "usage") {
			t.Fatalf("usage %v: tokens from %q", withUsage, s.TokensFrom)
		}
		answered := false
		for _, d := range s.Decisions {
			answered = answered || len(d.Message) > cutAbove
		}
		if !answered {
			t.Errorf("usage %v: no decision answered with a whole long result", withUsage)
		}

		// What the reader holds with the cut on.
		var cutCalls, blank int
		ingest.ReadFile(path, ingest.Options{CutResult: cutResult}, &ingest.Sink{OnSession: func(s *ingest.Session) {
			for _, tu := range s.Turns {
				for _, q := range tu.Requests {
					for _, c := range q.Calls {
						switch {
						case c.Cut != nil:
							cutCalls++
							if len(c.Result) > cutAbove || c.ResultLen() <= cutAbove {
								t.Errorf("call %s: %d bytes held of %d", c.ID, len(c.Result), c.ResultLen())
							}
						case len(c.Result) > cutAbove:
							blank++
						}
					}
				}
			}
		}})
		if cutCalls != 29 || blank != 1 {
			t.Errorf("usage %v: %d results cut, %d long ones kept whole; want 29 and 1 (the blank one)", withUsage, cutCalls, blank)
		}
	}
}

// TestResultFileChanged: a cut result whose file changed since it was read
// is not found again, and the replay falls back on its head.
func TestResultFileChanged(t *testing.T) {
	dir := t.TempDir()
	path := cutSessionFile(t, dir, false)
	var first ingest.Call
	ingest.ReadFile(path, ingest.Options{CutResult: cutResult}, &ingest.Sink{OnSession: func(s *ingest.Session) {
		first = s.Turns[0].Requests[0].Calls[0]
	}})
	if first.Cut == nil {
		t.Fatal("the first read's result was not cut")
	}
	rf := ingest.NewResultFile(path, "claude-code")
	whole, err := rf.Result(&first)
	if err != nil || len(whole) != first.ResultLen() || !strings.HasPrefix(whole, first.Result) {
		t.Fatalf("read again: %d bytes, %v; want %d", len(whole), err, first.ResultLen())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), "log line", "log LINE", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.NewResultFile(path, "claude-code").Result(&first); err == nil {
		t.Error("a changed result was read again without an error")
	}
}
