package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReplaySpilledReportIsTheSame: a replay of more sessions than a spill
// chunk (their summaries go to a temporary file and are read back when the
// report is written) writes, in every format, what it writes when it keeps
// them all in memory.
func TestReplaySpilledReportIsTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: replays 17,000 sessions; analyze's spill tests (TestReplaySpillsTheSameSessions, TestReplayWithoutATemporaryDirectory) spill chunks of two")
	}
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
			t.Errorf("%s: the spilled report differs:\n%s", format, cmp.Diff(kept, spilled))
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
