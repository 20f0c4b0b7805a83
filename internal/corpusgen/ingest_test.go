package corpusgen_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/corpusgen"
)

// TestIngestReadsCorpus reads the corpus with loopgate's own ingesters: the
// files must be detected as the format the manifest names, read without a
// single problem, and yield the sessions, calls and loop positions the
// manifest records. This is what keeps the generator honest about the real
// formats as the ingesters evolve.
func TestIngestReadsCorpus(t *testing.T) {
	dir, m := generate(t, corpusgen.Config{Seed: testSeed(21), TotalBytes: 2 << 20, MaxFileBytes: 512 << 10, MaxResultBytes: 64 << 10, Loops: true})
	type key struct{ file, id string }
	sessions := map[key]*ingest.Session{}
	for _, f := range m.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		calls, n := 0, 0
		sink := &ingest.Sink{
			OnSession: func(s *ingest.Session) {
				n++
				calls += s.NumCalls()
				if s.Format != f.Format {
					t.Errorf("%s: read as %s, written as %s", f.Path, s.Format, f.Format)
				}
				sessions[key{f.Path, s.ID}] = s
			},
			OnProblem: func(p ingest.Problem) {
				t.Errorf("%s:%d: %s", f.Path, p.Line, p.Message)
			},
		}
		ingest.ReadFile(path, ingest.Options{}, sink)
		if n != f.Sessions || calls != f.Calls {
			t.Errorf("%s: ingest finds %d sessions and %d calls, manifest says %d and %d", f.Path, n, calls, f.Sessions, f.Calls)
		}
	}
	if len(sessions) != m.Totals.Sessions {
		t.Errorf("ingest finds %d distinct sessions, manifest says %d", len(sessions), m.Totals.Sessions)
	}
	for i, l := range m.Loops {
		name := fmt.Sprintf("loop %d (%s in %s session %s)", i, l.Shape, l.File, l.Session)
		s := sessions[key{l.File, l.Session}]
		if s == nil {
			t.Errorf("%s: ingest has no such session", name)
			continue
		}
		if s.Agent != l.Agent {
			t.Errorf("%s: ingest agent %q, manifest %q", name, s.Agent, l.Agent)
		}
		var flat []ingest.Call
		var turns []int
		for _, tr := range s.Turns {
			for _, rq := range tr.Requests {
				for _, c := range rq.Calls {
					flat = append(flat, c)
					turns = append(turns, tr.Index)
				}
			}
		}
		for k, idx := range l.Calls {
			if idx > len(flat) {
				t.Errorf("%s: call %d beyond the %d calls ingest found", name, idx, len(flat))
				break
			}
			if flat[idx-1].Tool != l.Tools[k] {
				t.Errorf("%s: ingest call %d is %s, manifest says %s", name, idx, flat[idx-1].Tool, l.Tools[k])
			}
		}
		if l.Calls[0] <= len(turns) && turns[l.Calls[0]-1] != l.Turn {
			t.Errorf("%s: ingest puts the first call in turn %d, manifest says %d", name, turns[l.Calls[0]-1], l.Turn)
		}
	}
}
