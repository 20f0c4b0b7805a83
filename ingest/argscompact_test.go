package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// TestArgsCompactMeansValueString: a call that says its ArgsRaw is its
// arguments written compact (Call.ArgsCompact) holds exactly what
// Value.String writes, in every fixture of every format: the replay keys
// such a call on ArgsRaw, and a wrong flag would change its key.
func TestArgsCompactMeansValueString(t *testing.T) {
	flagged, calls := 0, 0
	err := filepath.WalkDir("../fixtures", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ReadFile(p, Options{}, &Sink{OnSession: func(s *Session) {
			for _, tr := range s.Turns {
				for _, r := range tr.Requests {
					for _, c := range r.Calls {
						calls++
						if !c.ArgsCompact {
							continue
						}
						flagged++
						if !c.ArgsOK || c.ArgsRaw != c.Args.String() {
							t.Errorf("%s line %d: ArgsCompact, but ArgsRaw %q and Args.String() %q (ArgsOK %v)", p, c.Line, c.ArgsRaw, c.Args.String(), c.ArgsOK)
						}
					}
				}
			}
		}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The Claude Code fixtures' calls are written compact as they are read.
	if flagged < 50 || flagged == calls {
		t.Errorf("%d of %d calls flagged compact: the fixtures should hold both kinds", flagged, calls)
	}
	t.Logf("%d of %d calls flagged compact", flagged, calls)
}

// TestSetArgsFlags: SetArgs says nothing of the text it is given;
// SetArgsValue writes the text itself.
func TestSetArgsFlags(t *testing.T) {
	var c Call
	v, err := jsonx.ParseString(`{"b": 1, "a": [2]}`)
	if err != nil {
		t.Fatal(err)
	}
	c.SetArgsValue(v)
	if !c.ArgsCompact || c.ArgsRaw != `{"b":1,"a":[2]}` {
		t.Errorf("SetArgsValue: ArgsCompact %v, ArgsRaw %q", c.ArgsCompact, c.ArgsRaw)
	}
	c.SetArgs(`{"b":1,"a":[2]}`)
	if c.ArgsCompact {
		t.Errorf("SetArgs left ArgsCompact set")
	}
}
