package analyze

import (
	"strings"
	"testing"

	"github.com/loopgate/loopgate/ingest"
)

// TestSessionBatch checks when a file's reader hands its sessions on:
// after batchSessions small sessions, after about batchBytes of calls, and
// at once for a session that is that large alone.
func TestSessionBatch(t *testing.T) {
	small := &ingest.Session{ID: "small", Turns: []ingest.Turn{{Requests: []ingest.Request{{Calls: []ingest.Call{{Result: "ok"}}}}}}}
	big := &ingest.Session{ID: "big", Turns: []ingest.Turn{{Requests: []ingest.Request{{Calls: []ingest.Call{{Result: strings.Repeat("x", batchBytes)}}}}}}}
	half := &ingest.Session{ID: "half", Turns: []ingest.Turn{{Requests: []ingest.Request{{Calls: []ingest.Call{{ArgsRaw: strings.Repeat("y", batchBytes/2)}}}}}}}
	empty := &ingest.Session{ID: "empty"}
	tests := []struct {
		name string
		in   []*ingest.Session
		// full is the index of the first session after which the batch
		// is full (-1: never).
		full int
	}{
		{"one small", []*ingest.Session{small}, -1},
		{"small ones up to the count", repeat(small, batchSessions), batchSessions - 1},
		{"sessions without calls count too", repeat(empty, batchSessions), batchSessions - 1},
		{"a big one alone", []*ingest.Session{big}, 0},
		{"a big one after small ones", []*ingest.Session{small, small, big}, 2},
		{"two halves", []*ingest.Session{half, small, half}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b sessionBatch
			full := -1
			for i, s := range tt.in {
				if b.add(s) {
					full = i
					break
				}
			}
			if full != tt.full {
				t.Fatalf("full after session %d, want %d", full, tt.full)
			}
			n := len(b.sessions)
			got := b.take()
			if len(got) != n || (n > 0 && got[0] != tt.in[0]) {
				t.Fatalf("take returned %d sessions, want the %d added", len(got), n)
			}
			if len(b.sessions) != 0 || b.bytes != 0 {
				t.Fatalf("after take the batch holds %d sessions, %d bytes", len(b.sessions), b.bytes)
			}
		})
	}
}

func repeat(s *ingest.Session, n int) []*ingest.Session {
	out := make([]*ingest.Session, n)
	for i := range out {
		out[i] = s
	}
	return out
}
