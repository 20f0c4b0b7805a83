package analyze

import (
	"fmt"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
)

// TestMentionedAcrossTurns replays a read, a second turn, the same read
// with the same result under scope.reset: mentioned: the second turn's
// message decides whether the repeat is answered from the first.
func TestMentionedAcrossTurns(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	read := func(id string) ingest.Request {
		c := ingest.Call{ID: id, Tool: "read_file", Result: "package a\n", HasResult: true}
		c.SetArgs(`{"path":"src/a.go"}`)
		return ingest.Request{Calls: []ingest.Call{c}}
	}
	cases := []struct {
		name      string
		second    ingest.Turn
		action    guard.Action
		redundant bool
	}{
		{"a message naming nothing", ingest.Turn{UserText: "thanks, go on"}, guard.Dedup, true},
		{"a message naming the file", ingest.Turn{UserText: "I edited src/a.go"}, guard.Allow, true},
		{"a message of unknown text", ingest.Turn{}, guard.Allow, true},
		// A compaction's summary: no user's message, so nothing is
		// cleared; the truth counts no repeat across a compaction.
		{"a compaction's summary", ingest.Turn{CompactedBefore: true, Continued: true}, guard.Dedup, false},
		{"a compaction, then a message of unknown text", ingest.Turn{CompactedBefore: true}, guard.Allow, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := preset(t, "loopgate")
			r.Scope.Reset = "mentioned"
			r.Scope.ResetOnCompaction = false
			second := tc.second
			second.Requests = []ingest.Request{read("c2")}
			s := &ingest.Session{ID: "s", Format: "claude-code", Turns: []ingest.Turn{
				{UserText: "read src/a.go", Requests: []ingest.Request{read("c1")}},
				second,
			}}
			res, _ := Run(Prepare(s), r, NewTokenCache(counter))
			var d *Decision
			for i := range res.Decisions {
				if res.Decisions[i].Call == 2 {
					d = &res.Decisions[i]
				}
			}
			got := fmt.Sprint(guard.Allow, false)
			if d != nil {
				got = fmt.Sprint(d.Action, d.Redundant)
			}
			if want := fmt.Sprint(tc.action, tc.redundant); got != want {
				t.Errorf("second read: %s, want %s", got, want)
			}
		})
	}
}
