package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// conformanceCase is a fixture written from a format's upstream structure
// and what reading it must give.
type conformanceCase struct {
	name string
	file string // the file name detection sees
	text string
	// sessions: per session "ID agent Nt Nr calls" (callSummary, each call
	// id/tool=result, "!" for none), joined by " | ".
	sessions string
	// problems: substrings of the problems, in order.
	problems []string
	// lines, when set, are the problems' lines.
	lines []int
	// check, when set, asserts more of the sessions.
	check func(t *testing.T, sessions []*Session)
}

// runConformance reads each case with detection (so the case also checks
// that the file is recognized as format) and compares the reading.
func runConformance(t *testing.T, format string, cases []conformanceCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readText(t, tc.file, tc.text)
			var got []string
			for _, s := range sessions {
				if s.Format != format {
					t.Errorf("session %s read as %s, want %s", s.ID, s.Format, format)
				}
				got = append(got, fmt.Sprintf("%s %s %dt %dr %s", s.ID, s.Agent, len(s.Turns), s.NumRequests(), callSummary(s)))
			}
			if g := strings.Join(got, " | "); g != tc.sessions {
				t.Errorf("sessions:\n got %q\nwant %q", g, tc.sessions)
			}
			if len(problems) != len(tc.problems) {
				t.Errorf("problems: got %d (%s), want %d", len(problems), problemSummary(problems), len(tc.problems))
			} else {
				for i, want := range tc.problems {
					if !strings.Contains(problems[i].Message, want) {
						t.Errorf("problem %d is %q, want it to say %q", i, problems[i].Message, want)
					}
				}
			}
			for i, want := range tc.lines {
				if i < len(problems) && problems[i].Line != want {
					t.Errorf("problem %d (%s) at line %d, want %d", i, problems[i].Message, problems[i].Line, want)
				}
			}
			if tc.check != nil && !t.Failed() {
				tc.check(t, sessions)
			}
		})
	}
}

// fuzzOneFormat is the body of a format's fuzz target: any input, read as
// the format and with detection, keeps Read's invariants (no panic, lines
// inside the input, every non-empty input a session or a problem).
func fuzzOneFormat(f *testing.F, format, name string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(t, fuzzDeadline)()
		for _, forced := range []string{format, ""} {
			sessions, problems := readBytes(data, name, forced)
			checkReadInvariants(t, data, name, forced, sessions, problems)
		}
	})
}
