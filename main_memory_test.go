package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/testdiff"
)

// TestFollowLiveHeap: a small live heap leaves the fixed limit alone; with
// 160 MiB alive the soft limit rises to about one and a quarter times that;
// once it is freed, the limit comes back down to the fixed one. Stopping
// restores nothing by itself (limitStreamingMemory's restore does).
func TestFollowLiveHeap(t *testing.T) {
	prev := debug.SetMemoryLimit(streamingMemoryLimit)
	defer debug.SetMemoryLimit(prev)

	waitLimit := func(ok func(int64) bool) int64 {
		var limit int64
		for range 50 {
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
			if limit = debug.SetMemoryLimit(-1); ok(limit) {
				break
			}
		}
		return limit
	}

	stop := followLiveHeap()
	defer stop()
	if limit := waitLimit(func(int64) bool { return false }); limit != streamingMemoryLimit {
		t.Fatalf("small live heap: limit %d, want the fixed %d", limit, streamingMemoryLimit)
	}
	alive := make([][]byte, 0, 160)
	for range 160 { // 160 MiB, in pieces the collector cannot free
		alive = append(alive, make([]byte, 1<<20))
	}
	const want = 160 << 20 * 5 / 4
	limit := waitLimit(func(l int64) bool { return l >= want })
	runtime.KeepAlive(alive)
	if limit < want || limit > 3*160<<20/2 {
		t.Errorf("160 MiB alive: limit %d MiB, want %d to %d", limit>>20, want>>20, 3*160/2)
	}
	alive = nil
	if limit := waitLimit(func(l int64) bool { return l == streamingMemoryLimit }); limit != streamingMemoryLimit {
		t.Errorf("160 MiB freed: limit %d MiB, want the fixed %d back", limit>>20, streamingMemoryLimit>>20)
	}
}

// TestReplaySpilledReportIsTheSame: a replay of more sessions than a spill
// chunk (their summaries go to a temporary file and are read back when the
// report is written) writes, in every format, what it writes when it keeps
// them all in memory.
func TestReplaySpilledReportIsTheSame(t *testing.T) {
	const sessions = 17000 // more than two of analyze's chunks of 8192
	var b strings.Builder
	for i := range sessions {
		fmt.Fprintf(&b, `{"metadata":{"session_id":"s%d"},"messages":[{"role":"user","content":"read it %d"}`, i, i)
		calls := 1 + i%4 // every repeat is redundant, and the guard stops it
		for c := range calls {
			fmt.Fprintf(&b, `,{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f%d\"}"}}]}`, c, i%5)
			fmt.Fprintf(&b, `,{"role":"tool","tool_call_id":"c%d","content":"same text %d"}`, c, i%5)
		}
		b.WriteString(`,{"role":"assistant","content":"done"}]}` + "\n")
	}
	file := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() { spillSessions = true }()
	keptJSON := ""
	for _, format := range []string{"json", "jsonl", "table", "markdown"} {
		args := []string{"replay", "--format", format, "--tokenizer", "chars4", "--color", "never", file}
		spillSessions = true
		spilled, stderr, code := loopgate(t, args...)
		spillSessions = false
		kept, _, _ := loopgate(t, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", format, code, stderr)
		}
		// Table and markdown show the top 20 sessions (--top).
		if (format == "json" || format == "jsonl") && (!strings.Contains(kept, "s16999") || !strings.Contains(kept, "s8195")) {
			t.Fatalf("%s: the report does not list the sessions", format)
		}
		if spilled != kept {
			t.Errorf("%s: the spilled report differs:\n%s", format, testdiff.FirstLine(kept, spilled))
		}
		if format == "json" {
			keptJSON = kept
		}
	}
	// No temporary directory: the same report, and a warning.
	spillSessions = true
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	out, stderr, code := loopgate(t, "replay", "--format", "json", "--tokenizer", "chars4", file)
	if code != 0 || out != keptJSON {
		t.Errorf("without a temporary directory: exit %d, report the same: %v", code, out == keptJSON)
	}
	if !strings.Contains(stderr, "warning: session summaries could not wait in a temporary file") || !strings.Contains(stderr, "TMPDIR") {
		t.Errorf("without a temporary directory, stderr is %q, want the warning", stderr)
	}
}

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
