package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/ingest"
)

// TestInspectListsProblemsAsReplayDoes: inspect lists a file's problems as
// a replay's report does (the first 1000, then one entry for the rest), in
// JSON and in the table, whose heading, like --strict, counts every one.
func TestInspectListsProblemsAsReplayDoes(t *testing.T) {
	dir := t.TempDir()
	session := `{"metadata":{"session_id":"s0"},"messages":[{"role":"user","content":"hi"}]}` + "\n"
	many := filepath.Join(dir, "a-many.jsonl")
	few := filepath.Join(dir, "b-few.jsonl")
	for name, text := range map[string]string{
		many: session + strings.Repeat(`{"msg":"health check"}`+"\n", 1500),
		few:  session + "{broken\n{broken\n",
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problemsOf := func(args ...string) []ingest.Problem {
		t.Helper()
		out, stderr, code := loopgate(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var doc struct {
			Problems []ingest.Problem `json:"problems"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return doc.Problems
	}
	inspected := problemsOf("inspect", "--format", "json", many, few)
	if len(inspected) != 1003 {
		t.Fatalf("inspect lists %d problems, want 1000 + 1 + 2", len(inspected))
	}
	want := "500 more problems on lines 1002 to 1501 are counted but not listed"
	if got := inspected[1000]; got.File != many || !strings.Contains(got.Message, want) {
		t.Errorf("entry for the unlisted problems = %+v, want %q", got, want)
	}
	if inspected[1001].File != few || inspected[1002].File != few {
		t.Errorf("the second file's problems are not listed after the first's: %+v", inspected[1001:])
	}
	replayed := problemsOf("replay", "--format", "json", "--tokenizer", "chars4", many, few)
	if !reflect.DeepEqual(inspected, replayed) {
		t.Errorf("inspect and replay list different problems")
	}
	out, _, code := loopgate(t, "inspect", "--format", "table", many, few)
	if code != 0 || !strings.Contains(out, "Problems (1,502)") {
		t.Errorf("inspect table (exit %d) has no heading counting every problem:\n%.400s", code, out)
	}
	for _, args := range [][]string{
		{"inspect", "--format", "json"},
		{"replay", "--format", "json", "--tokenizer", "chars4"},
		{"compare", "--format", "json", "--tokenizer", "chars4", "--preset", "loopgate", "--preset", "hermes"},
	} {
		_, stderr, code := loopgate(t, append(args, "--strict", many, few)...)
		if code != 2 || !strings.Contains(stderr, "1502 input problem(s)") {
			t.Errorf("%s --strict: exit %d, %q; want 2 and every problem counted", args[0], code, lastLine(stderr))
		}
	}
}

// lastLine is the last line of s (standard error after a list of problems).
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
