package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reproductions of hostile input (docs/reliability.md) at full size: too slow for go test (tens of
// seconds, gigabytes of input), run by .ci/run with LOOPGATE_HEAVY=1. Each
// measures the built binary's peak memory (runMeasured), not its time.
// They run in parallel (two at a time on two cores): each peak measured is
// that of a process of its own (the peakrss wrapper's child).

// heavy skips the test unless LOOPGATE_HEAVY is set, and runs it in
// parallel with the other heavy tests.
func heavy(t *testing.T) {
	if os.Getenv("LOOPGATE_HEAVY") == "" {
		t.Skip("set LOOPGATE_HEAVY=1 to run (.ci/run does)")
	}
	t.Parallel()
}

// TestHeavyNULGzipDefaultLimit: a 1 MB .json.gz of 1 GiB of NUL bytes
// (3-9 GB before) at the default --max-record of 256 MiB, in replay and
// in gate.
func TestHeavyNULGzipDefaultLimit(t *testing.T) {
	heavy(t)
	dir := t.TempDir()
	writeNULGzip(t, filepath.Join(dir, "nul.json.gz"), 1<<30)
	os.WriteFile(filepath.Join(dir, "g.gate.yaml"), []byte("preset: nanobot\ntokenizer: chars4\nsnapshots: false\ncases:\n  - {name: nul, transcript: '*.json.gz', expect: {problems: 1}}\n"), 0o644)
	for _, args := range [][]string{
		{"replay", "--format", "json", "--tokenizer", "chars4", filepath.Join(dir, "nul.json.gz")},
		{"gate", filepath.Join(dir, "g.gate.yaml")},
	} {
		m := runMeasured(t, "", args...)
		t.Logf("%s: peak %d MiB, exit %d", args[0], m.peakMiB, m.code)
		if m.code != 0 || (args[0] == "replay" && !strings.Contains(m.stdout, "over the --max-record limit of 256 MiB")) {
			t.Errorf("%s: exit %d\n%.600s\n%s", args[0], m.code, m.stdout, m.stderr)
		}
		if m.peakMiB > 1024 {
			t.Errorf("%s: peak %d MiB, want at most 1024 (a 256 MiB record at most)", args[0], m.peakMiB)
		}
	}
}

// TestHeavyTwoLongResults: two identical 256 MB results without a space
// (9.7 GB and 164 s before).
func TestHeavyTwoLongResults(t *testing.T) {
	heavy(t)
	file := filepath.Join(t.TempDir(), "blob.jsonl")
	writeNoSpaceResults(t, file, 256_000_000)
	m := runMeasured(t, "", "replay", "--format", "json", file)
	t.Logf("peak %d MiB, exit %d", m.peakMiB, m.code)
	if m.code != 0 || !strings.Contains(m.stdout, `"estimated_texts": `) {
		t.Errorf("exit %d\n%.800s\n%s", m.code, m.stdout, m.stderr)
	}
	if m.peakMiB > 2500 {
		t.Errorf("peak %d MiB, want at most 2500", m.peakMiB)
	}
}

// TestHeavyTableManySessions: the table report of 100k sessions (66 s
// before, one tablewriter table per session), its peak memory bounded.
func TestHeavyTableManySessions(t *testing.T) {
	heavy(t)
	file := filepath.Join(t.TempDir(), "many.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range 100_000 {
		fmt.Fprintf(w, `{"metadata":{"session_id":"s%d"},"messages":[{"role":"user","content":"read it %d"}`, i, i)
		for c := range 4 {
			fmt.Fprintf(w, `,{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f\"}"}}]}`, c)
			fmt.Fprintf(w, `,{"role":"tool","tool_call_id":"c%d","content":"same"}`, c)
		}
		w.WriteString(`,{"role":"assistant","content":"done"}]}` + "\n")
	}
	w.Flush()
	f.Close()
	// --top 0: every session's row and decisions, not the top 20.
	m := runMeasured(t, "", "replay", "--format", "table", "--tokenizer", "chars4", "--max-decisions", "0", "--top", "0", file)
	t.Logf("peak %d MiB, exit %d, %d bytes of table", m.peakMiB, m.code, len(m.stdout))
	if m.code != 0 || !strings.Contains(m.stdout, "Sessions (100,000)") || !strings.Contains(m.stdout, "Decisions #100000") {
		t.Errorf("exit %d\n%.600s\n%s", m.code, m.stdout, m.stderr)
	}
	if m.peakMiB > 1024 {
		t.Errorf("peak %d MiB, want at most 1024", m.peakMiB)
	}
}

// TestHeavyHostileRoundThree: the memory probes of docs/reliability.md's
// "Hostile input, round three" at full size: a
// 512 MiB one-line gzip bomb at the default --max-record (677 MB before),
// a hermes state.db with a 300 MiB messages cell under --max-record 16MiB
// (1.9 GB before, and read), and merge of a partial with a 300 MiB line
// (1 GB before).
func TestHeavyHostileRoundThree(t *testing.T) {
	heavy(t)
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.json.gz")
	writeNULGzip(t, bomb, 512<<20)
	m := runMeasured(t, "", "replay", "--format", "json", "--tokenizer", "chars4", bomb)
	t.Logf("gzip bomb: peak %d MiB, exit %d", m.peakMiB, m.code)
	if m.code != 0 || !strings.Contains(m.stdout, "over the --max-record limit of 256 MiB") || m.peakMiB > 400 {
		t.Errorf("gzip bomb: exit %d, peak %d MiB (want at most 400)\n%.400s", m.code, m.peakMiB, m.stdout)
	}

	db := writeHermesBigCell(t, dir, 300<<20)
	m = runMeasured(t, "", "replay", "--format", "json", "--tokenizer", "chars4", "--max-record", "16MiB", db)
	t.Logf("hermes cell: peak %d MiB, exit %d", m.peakMiB, m.code)
	if m.code != 0 || !strings.Contains(m.stdout, "content is 300 MiB, over the --max-record limit of 16 MiB") || m.peakMiB > 256 {
		t.Errorf("hermes cell: exit %d, peak %d MiB (want at most 256)\n%.600s", m.code, m.peakMiB, m.stdout)
	}

	part := filepath.Join(dir, "part.jsonl")
	f, err := os.Create(part)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"id":"`)
	for range 300 << 10 {
		w.WriteString(strings.Repeat("x", 1<<10))
	}
	w.WriteString("\"}\n")
	w.Flush()
	f.Close()
	m = runMeasured(t, "", "merge", "--format", "json", part)
	t.Logf("merge: peak %d MiB, exit %d", m.peakMiB, m.code)
	if m.code != 2 || !strings.Contains(m.stderr, "part.jsonl:1: line of 300.0 MiB, over the --max-record limit of 256 MiB") || m.peakMiB > 400 {
		t.Errorf("merge: exit %d, peak %d MiB (want at most 400)\n%s", m.code, m.peakMiB, m.stderr)
	}
}

// writeHermesBigCell writes a hermes state.db whose one tool result is
// size bytes, returning its path.
func writeHermesBigCell(t *testing.T, dir string, size int) string {
	t.Helper()
	path := filepath.Join(dir, "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL)`,
		`INSERT INTO sessions VALUES ('s1', 'cli', 1)`,
		`INSERT INTO messages VALUES (1, 's1', 'user', 'read it', NULL, NULL, NULL, 1)`,
		`INSERT INTO messages VALUES (2, 's1', 'assistant', '', NULL, '[{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]', NULL, 2)`,
		`INSERT INTO messages VALUES (3, 's1', 'tool', zeroblob(1), 'c1', NULL, 'read_file', 3)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`UPDATE messages SET content = CAST(zeroblob(?) AS TEXT) WHERE id = 3`, size); err != nil {
		t.Fatal(err)
	}
	return path
}
