package report

import (
	"io"
	"runtime"
	"strconv"
	"testing"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
)

// manySessions is a report of n sessions with two decisions each.
func manySessions(n int) *analyze.Report {
	rep := &analyze.Report{}
	for i := range n {
		id := "session-" + strconv.Itoa(i)
		rep.Sessions = append(rep.Sessions, analyze.SessionResult{
			File: "dir/" + id + ".jsonl", ID: id, Agent: "main", Turns: 1, Calls: 3, Blocked: 2, Timeline: ".BB",
			Decisions: []analyze.Decision{
				{Turn: 1, Call: 2, Line: 4, Tool: "read_file", Action: guard.Block, Detector: "repeat", Count: 2, Args: `{"path":"a"}`},
				{Turn: 1, Call: 3, Line: 6, Tool: "read_file", Action: guard.Block, Detector: "repeat", Count: 3, Args: `{"path":"a"}`},
			},
		})
		rep.Summary.Sessions++
	}
	return rep
}

// allocatedBy is the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTableLinear: the table report's memory grows linearly with the
// sessions (a tablewriter table per session grew faster, and 100k sessions
// took 66 s): ten times the sessions allocate less than 12 times the bytes,
// and each session at most 16 KiB.
// .ci/run renders 100k sessions under the built binary and bounds its peak.
func TestTableLinear(t *testing.T) {
	small, large := manySessions(1000), manySessions(10000)
	render := func(rep *analyze.Report) func() {
		return func() {
			if err := Table(io.Discard, rep, Options{Redact: true, Width: 100}); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := allocatedBy(render(small)), allocatedBy(render(large))
	t.Logf("1000 sessions: %d KiB, 10000: %d KiB", a>>10, b>>10)
	if b > 12*a {
		t.Errorf("10 times the sessions allocate %.1f times the bytes", float64(b)/float64(a))
	}
	// A session's rows cost a few KiB, not a table of its own (500 KiB
	// each with a tablewriter table per session).
	if per := b / 10000; per > 16<<10 {
		t.Errorf("%d KiB allocated per session, want at most 16", per>>10)
	}
}
