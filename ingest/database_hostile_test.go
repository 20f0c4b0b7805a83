package ingest

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatabaseHostile: a database whose tables are all in its write-ahead
// log is read from a copy, the agent's files untouched; a format forced on a database of another schema
// names what is missing; a database changed while it is read says so; a
// cell over --max-record is skipped and named, and the rest is read.
func TestDatabaseHostile(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "fixtures", "ingest", "hermes", "state-v16", "state.sql"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("tables only in the wal", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close() // closing checkpoints: read before
		if _, err := db.Exec(string(script)); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(path + "-wal")
		sessions, problems := readAll(t, path, Options{})
		// The fixture's own problems (rows it plants) are read too; none
		// is about the log.
		if len(sessions) != 3 || len(problems) != 3 || strings.Contains(fmt.Sprint(problems), "-wal") {
			t.Errorf("%d sessions, problems %v: want the fixture's 3 sessions and 3 problems, read from a copy", len(sessions), problems)
		}
		if after, _ := os.ReadFile(path + "-wal"); len(before) == 0 || !bytes.Equal(before, after) {
			t.Errorf("the log was %d bytes, then %d: the agent's files must only be read", len(before), len(after))
		}
	})
	t.Run("forced format, other schema", func(t *testing.T) {
		path := buildDB(t, []byte(`CREATE TABLE sessions (id TEXT, source TEXT); CREATE TABLE messages (id INTEGER, session_id TEXT, role TEXT, content TEXT);`), t.TempDir(), "other.db")
		_, problems := readAll(t, path, Options{Format: formatHermesState})
		if len(problems) != 1 || !strings.Contains(problems[0].Message, "table messages has no column tool_call_id") {
			t.Errorf("problems %v, want the missing column named", problems)
		}
	})
	t.Run("changed while read", func(t *testing.T) {
		path := buildDB(t, script, t.TempDir(), "state.db")
		testDatabaseRead = func(p string) {
			db, _ := sql.Open("sqlite", p)
			if _, err := db.Exec(`INSERT INTO sessions (id, source, started_at) VALUES ('late', 'cli', 1)`); err != nil {
				t.Error(err)
			}
			db.Close()
		}
		defer func() { testDatabaseRead = nil }()
		_, problems := readAll(t, path, Options{})
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p.Message, "the database changed while it was read: read a copy or try again")
		}
		if !found {
			t.Errorf("problems %v, want the change said", problems)
		}
	})
	t.Run("cell over --max-record", func(t *testing.T) {
		big := strings.Repeat("x", 2<<20)
		path := buildDB(t, append(script, []byte(`UPDATE messages SET content = '`+big+`' WHERE id = 43;`)...), t.TempDir(), "state.db")
		plain, _ := readAll(t, buildDB(t, script, t.TempDir(), "state.db"), Options{})
		sessions, problems := readAll(t, path, Options{MaxRecord: 1 << 20})
		over := 0
		for _, p := range problems {
			if strings.Contains(p.Message, "row 43") && strings.Contains(p.Message, "content is 2 MiB, over the --max-record limit of 1 MiB") {
				over++
			}
		}
		if over != 1 {
			t.Errorf("problems %v, want the cell named", problems)
		}
		if len(sessions) != len(plain) {
			t.Errorf("%d sessions read, want %d", len(sessions), len(plain))
		}
	})
}
