package report

// The words the text reports give a decision, a session and a problem.

import (
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze"
)

// actionLabel is a decision's action with what the truth says of it:
// "block (harmful)", "allow (redundant)", "block (stopped action)",
// "allow (native)". The kind of a
// native intervention is in the JSON; tables keep the column narrow.
func actionLabel(d *analyze.Decision) string {
	s := d.Action.String()
	var notes []string
	if d.Harmful {
		notes = append(notes, "harmful")
	}
	if d.Redundant {
		notes = append(notes, "redundant")
	}
	if d.StoppedAction {
		notes = append(notes, "stopped action")
	}
	if d.Native != "" {
		notes = append(notes, "native")
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// intervened reports whether the guard acted in the session, or a stop in it
// was harmful.
func intervened(s *analyze.SessionResult) bool {
	return s.Steered+s.Blocked+s.Deduped+s.Halted+s.Harmful > 0
}

// problemLine words a problem as "file:line: message" (no line when 0).
func problemLine(p analyze.Problem) string {
	if p.Line > 0 {
		return p.File + ":" + strconv.Itoa(p.Line) + ": " + p.Message
	}
	if p.File == "" {
		return p.Message
	}
	return p.File + ": " + p.Message
}
