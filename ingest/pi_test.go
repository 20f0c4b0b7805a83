package ingest

import "testing"

// TestPiHeaderOnly: a pi file holding its session header and no entry (a
// session started and left) is read as one session with no turns, named
// by the header's id, or by the file's name when that id is empty; a file
// with neither header nor entry is a problem. Before, a header alone gave
// neither a session nor a problem (found by FuzzRead).
func TestPiHeaderOnly(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		wantID     string // "" with wantProblem
		wantProb   bool
	}{
		{"header", `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/x"}` + "\n", "s1", false},
		{"header with an empty id", `{"type":"session","id":"","timestamp":"","cwd":""}`, "2026-01-01_s2", false},
		{"blank lines only", "\n\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Detected, not forced: a forced format's sessions with no
			// turns count as none found (forcedSink), which says so.
			sessions, problems := readBytes([]byte(tc.data), "2026-01-01_s2.jsonl", "")
			if tc.wantProb {
				if len(sessions) != 0 || len(problems) == 0 {
					t.Fatalf("got %d sessions and problems %v, want a problem and no session", len(sessions), problems)
				}
				return
			}
			if len(problems) != 0 {
				t.Fatalf("problems %v", problems)
			}
			if len(sessions) != 1 {
				t.Fatalf("got %d sessions, want 1", len(sessions))
			}
			if s := sessions[0]; s.ID != tc.wantID || len(s.Turns) != 0 || s.Format != formatPi {
				t.Errorf("session %q (%s) with %d turns, want %q with none", s.ID, s.Format, len(s.Turns), tc.wantID)
			}
		})
	}
}
