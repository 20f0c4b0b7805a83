package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/formatcheck"
)

// TestCompareWeighsDifferences: on a folder written here, a difference
// between the readings fails unless listed, a listed check that holds is
// stale, a file of no format either reading knows needs its entry, and an
// entry for a file that is not there is stale. loopgate's reading is
// stood in for, so that the difference does not depend on a reader's bug.
func TestCompareWeighsDifferences(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One Claude Code session: a call and its result, read alike by both.
	write("a/s.jsonl", `{"type":"user","sessionId":"s","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}
{"type":"assistant","sessionId":"s","uuid":"a1","parentUuid":"u1","requestId":"r1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/x"}}],"usage":{"input_tokens":3,"output_tokens":4}}}
{"type":"user","sessionId":"s","uuid":"u2","parentUuid":"a1","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}
`)
	write("b/notes.txt", "not a transcript\n")
	// A second session, which the stand-in for loopgate below reads with
	// one token too many.
	write("c/split.jsonl", `{"type":"user","sessionId":"s","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}
{"type":"assistant","sessionId":"s","uuid":"a1","parentUuid":"u1","requestId":"r1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"x"}],"usage":{"input_tokens":10,"cache_read_input_tokens":100,"output_tokens":0}}}
{"type":"assistant","sessionId":"s","uuid":"a2","parentUuid":"a1","requestId":"r1","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":10,"cache_read_input_tokens":100,"output_tokens":5}}}
`)
	exp := filepath.Join(t.TempDir(), "expectations.txt")
	if err := os.WriteFile(exp, []byte(`a/s.jsonl | calls | issue 48 | listed though both count one call
b/notes.txt | independent | file | not a transcript
gone/x.jsonl | tokens | file | a file no longer there
`), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := formatcheck.LoadExpectations(exp)
	if err != nil {
		t.Fatal(err)
	}
	stand := func(path string) formatcheck.Count {
		c := readLoopgate(path)
		if strings.HasSuffix(path, "split.jsonl") {
			c.Tokens++
		}
		return c
	}
	rows, failures, err := compare(root, x, stand)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || !rows[0].Known || len(rows[0].Differ) != 0 || rows[0].Loopgate.Calls != 1 || rows[0].Loopgate.WithResults != 1 || rows[0].Loopgate.Tokens != 7 {
		t.Errorf("rows = %+v; want a/s.jsonl read alike (1 call with its result, 7 tokens), b/notes.txt and c/split.jsonl", rows)
	}
	want := []string{
		"a/s.jsonl: calls passes now: stale entry, remove line 1",
		"c/split.jsonl: tokens: loopgate 116, independent 115",
		"gone/x.jsonl: no such file was checked: stale entry, remove line 3",
	}
	if len(failures) != len(want) {
		t.Fatalf("failures = %q; want %d", failures, len(want))
	}
	for i, w := range want {
		if !strings.Contains(failures[i], w) {
			t.Errorf("failure %d = %q; want it to say %q", i, failures[i], w)
		}
	}
}
