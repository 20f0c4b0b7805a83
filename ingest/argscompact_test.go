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
	flagged, pending, calls := 0, 0, 0
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
						if !c.ArgsOK || c.ArgsRaw != c.ArgsValue().String() {
							t.Errorf("%s line %d: ArgsCompact, but ArgsRaw %q and ArgsValue().String() %q (ArgsOK %v)", p, c.Line, c.ArgsRaw, c.ArgsValue().String(), c.ArgsOK)
						}
						if c.ArgsPending {
							pending++
							if c.Args != nil {
								t.Errorf("%s line %d: arguments pending, but Args holds %s", p, c.Line, c.Args.String())
							}
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
	// The Claude Code fixtures' calls are written compact as they are
	// read, and left pending.
	if flagged < 50 || flagged == calls || pending < 8 {
		t.Errorf("%d of %d calls flagged compact, %d pending: the fixtures should hold both kinds", flagged, calls, pending)
	}
	t.Logf("%d of %d calls flagged compact, %d pending", flagged, calls, pending)
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
