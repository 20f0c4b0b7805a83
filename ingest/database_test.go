package ingest

// Conformance of the database readers (hermes state.db, OpenCode
// opencode.db): each fixtures/ingest/**/NAME.sql is an SQL script written
// from the upstream schema; the test builds NAME.db from it in a temporary
// directory, reads it through ReadFile, and compares what was read with
// NAME.golden beside the script (-update rewrites them).

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildDB runs an SQL script into a new database file dir/name.
func buildDB(t testing.TB, script []byte, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatalf("building %s: %v", name, err)
	}
	return path
}

// fixtureDatabases lists the SQL scripts under fixtures/ingest.
func fixtureDatabases(t testing.TB) []string {
	var files []string
	filepath.WalkDir(filepath.Join("..", "fixtures", "ingest"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sql") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no .sql fixtures under fixtures/ingest")
	}
	return files
}

func TestGoldenDatabases(t *testing.T) {
	root := filepath.Join("..", "fixtures", "ingest")
	for _, f := range fixtureDatabases(t) {
		rel, _ := filepath.Rel(root, f)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			script, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(filepath.Base(f), ".sql") + ".db"
			path := buildDB(t, script, t.TempDir(), name)
			sessions, problems := readAll(t, path, Options{})
			for i := range problems {
				problems[i].File = filepath.ToSlash(strings.TrimSuffix(rel, ".sql") + ".db")
			}
			checkGolden(t, strings.TrimSuffix(f, ".sql")+".golden", DumpOf(sessions, problems).MarshalIndent())
		})
	}
}

// TestDatabaseReadOnly: reading a database leaves its bytes as they were,
// and works while another connection holds a write lock on it (a running
// agent mid-transaction), since it is opened read-only and immutable.
func TestDatabaseReadOnly(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "fixtures", "ingest", "hermes", "state-v16", "state.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := buildDB(t, script, dir, "state.db")
	before, _ := os.ReadFile(path)

	writer, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	writer.SetMaxOpenConns(1)
	tx, err := writer.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('x', 'user', 'held', 1)`); err != nil {
		t.Fatal(err)
	}
	sessions, problems := readAll(t, path, Options{})
	tx.Rollback()
	if len(sessions) != 3 {
		t.Errorf("read %d sessions under a held write lock, want 3 (problems %v)", len(sessions), problems)
	}
	after, _ := os.ReadFile(path)
	if sha256.Sum256(before) != sha256.Sum256(after) {
		t.Error("reading changed the database file")
	}
}

// TestDatabaseProblems: a database that is not of a known format, a
// database given on a stream, and a forced JSON format on a database are
// each one clear problem.
func TestDatabaseProblems(t *testing.T) {
	dir := t.TempDir()
	other := buildDB(t, []byte(`CREATE TABLE notes (id INTEGER, body TEXT);`), dir, "state.db")
	_, problems := readAll(t, other, Options{})
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "SQLite database of no known format (tables notes)") {
		t.Errorf("unknown database: %v", problems)
	}
	data, _ := os.ReadFile(other)
	_, problems = readBytes(data, "state.db", "")
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "reads databases by their path") {
		t.Errorf("database on a stream: %v", problems)
	}
	script, _ := os.ReadFile(filepath.Join("..", "fixtures", "ingest", "hermes", "state-v1", "state.sql"))
	state := buildDB(t, script, t.TempDir(), "state.db")
	_, problems = readAll(t, state, Options{Format: "nanobot"})
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "format nanobot cannot read this file (it is an SQLite database") {
		t.Errorf("forced JSON format: %v", problems)
	}
	_, problems = readAll(t, filepath.Join("..", "fixtures", "ingest", "hermes", "export", "lineage.jsonl"), Options{Format: formatHermesState})
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "reads SQLite databases by path") {
		t.Errorf("database format forced on JSONL: %v", problems)
	}
	// A write-ahead log is read from a copy; one that is not a log (no
	// log header) SQLite ignores, and the database reads as it is.
	if err := os.WriteFile(state+"-wal", []byte("not yet checkpointed"), 0o644); err != nil {
		t.Fatal(err)
	}
	sessions, problems := readAll(t, state, Options{})
	if len(sessions) != 1 || len(problems) != 0 {
		t.Errorf("wal: %d sessions, problems %v", len(sessions), problems)
	}
	if data, _ := os.ReadFile(state + "-wal"); string(data) != "not yet checkpointed" {
		t.Errorf("the agent's log was changed: %q", data)
	}
}

// TestWalkFindsAgentFiles: a directory walk reads the known databases and an
// OpenCode storage session file, and leaves the message and part files to
// their session file; a .db of another name is not read.
func TestWalkFindsAgentFiles(t *testing.T) {
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("..", "fixtures", "ingest", "hermes", "state-v1", "state.sql"))
	if err != nil {
		t.Fatal(err)
	}
	buildDB(t, script, dir, "state.db")
	buildDB(t, script, dir, "other.db")
	oc, err := os.ReadFile(filepath.Join("..", "fixtures", "ingest", "opencode", "opencode.sql"))
	if err != nil {
		t.Fatal(err)
	}
	// Kilo CLI's copy of OpenCode's database.
	kilo := buildDB(t, oc, dir, "kilo.db")
	files := Expand([]string{dir, filepath.Join("..", "fixtures", "ingest", "opencode", "storage")}, func(p Problem) { t.Error(p) })
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := "[kilo.db state.db ses_5b2c3d4e5ffeLegacyAbCdEf1.json]"
	// The fixture's deliberate flaws make problems; the sessions are OpenCode's.
	if sessions, _ := readAll(t, kilo, Options{}); len(sessions) != 2 || sessions[0].Format != formatOpenCode {
		t.Errorf("kilo.db: %d sessions; want the fixture's 2 OpenCode sessions", len(sessions))
	}
	if got := fmt.Sprint(names); got != want {
		t.Errorf("walk found %s, want %s", got, want)
	}
}

// TestDatabaseKeep: the session filters (--since, --until, --session,
// --tool) choose a database's sessions as they choose a stream's: the
// OpenCode fixture's and the real opencode.db's sessions are dropped by a
// --since after them and kept by one before them.
func TestDatabaseKeep(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "fixtures", "ingest", "opencode", "opencode.sql"))
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"fixture": buildDB(t, script, t.TempDir(), "opencode.db")}
	real := filepath.Join("..", "..", "shared", "samples", "third-party", "opencode", "suhd550-dev-stunning-memory", "opencode.db")
	if _, err := os.Stat(real); err == nil {
		paths["real"] = real
	} else {
		t.Logf("the real opencode.db is not available (%v): only the fixture is read", err)
	}
	since := func(at time.Time) func(*Session) bool {
		return func(s *Session) bool { return !sessionEnd(s).Before(at) }
	}
	for name, path := range paths {
		all, _ := readAll(t, path, Options{})
		if len(all) == 0 {
			t.Fatalf("%s: no sessions", name)
		}
		end := sessionEnd(all[0])
		if end.IsZero() {
			t.Fatalf("%s: the session has no time", name)
		}
		late, _ := readAll(t, path, Options{Keep: since(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))})
		early, _ := readAll(t, path, Options{Keep: since(end.Add(-time.Hour))})
		if len(late) != 0 || len(early) == 0 {
			t.Errorf("%s: --since 2099 kept %d sessions (want 0), --since an hour before the end kept %d (want some)", name, len(late), len(early))
		}
	}
}

// sessionEnd is the latest time of a session's turns and calls.
func sessionEnd(s *Session) time.Time {
	var end time.Time
	note := func(t time.Time) {
		if t.After(end) {
			end = t
		}
	}
	for _, tr := range s.Turns {
		note(tr.Time)
		for _, r := range tr.Requests {
			note(r.Time)
			for _, c := range r.Calls {
				note(c.Time)
			}
		}
	}
	return end
}
