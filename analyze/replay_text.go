package analyze

import (
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze/guard"
)

// textFeed hands a session's responses' text to the guard as Run reaches
// them, for the detectors that read the model's text (content_loop through
// Guard.Text, monologue through Guard.Message). A response's text is fed
// before its calls. A verdict on text lands on the next call of its turn:
// a steer is attached to it, a halt ends the turn there (the call and the
// turn's later calls do not run). A verdict with no call after it in its
// turn has nothing to land on and becomes a note of the session.
//
// Reading taken: the guard gets each response's text a line at a time.
// Gemini CLI checks the text at each chunk of the stream, and its
// exclusions (a code fence, a list item, a table row, a heading) are
// tested on the chunk; a transcript keeps the response whole, and a line
// is the nearest piece to a chunk that puts each of those markers in a
// piece of its own.
type textFeed struct {
	texts []PreparedText
	next  int
	// pending is a verdict on text waiting for the next call of its turn,
	// from the response at line pendingLine.
	pending     guard.Verdict
	pendingLine int
}

// upTo feeds the texts of turn ti placed before call i (At <= i); halted
// says the turn has ended (its later text is not fed).
func (f *textFeed) upTo(g *guard.Guard, ti, i int, halted bool) {
	for f.next < len(f.texts) && f.texts[f.next].Turn <= ti && (f.texts[f.next].Turn < ti || f.texts[f.next].At <= i) {
		t := &f.texts[f.next]
		f.next++
		if halted || f.pending.Action == guard.Halt {
			continue
		}
		if v := feedResponse(g, t); v.Action > f.pending.Action {
			f.pending, f.pendingLine = v, t.Line
		}
	}
}

// take returns the pending verdict and forgets it.
func (f *textFeed) take() guard.Verdict {
	v := f.pending
	f.pending = guard.Verdict{}
	return v
}

// endTurn feeds the rest of turn ti's text and words the verdict left with
// no call to land on ("" when none).
func (f *textFeed) endTurn(g *guard.Guard, ti, end int, halted bool) string {
	f.upTo(g, ti, end, halted)
	v := f.take()
	if v.Action == guard.Allow {
		return ""
	}
	where := ""
	if f.pendingLine > 0 {
		where = " at line " + strconv.Itoa(f.pendingLine)
	}
	return "turn " + strconv.Itoa(ti+1) + ": " + v.Detector + " would have " + actionPast(v.Action) + " after the response" + where +
		", with no call after it in the turn: " + v.Message
}

// actionPast words an action as done ("steered", "halted", ...).
func actionPast(a guard.Action) string {
	switch a {
	case guard.Steer:
		return "steered"
	case guard.Block:
		return "blocked"
	case guard.Dedup:
		return "deduped"
	case guard.Halt:
		return "halted"
	}
	return "allowed"
}

// feedResponse feeds one response's text a line at a time, stopping at the
// first verdict (the stream broke there), and, for a response without
// calls, the whole text as the agent's message.
func feedResponse(g *guard.Guard, t *PreparedText) guard.Verdict {
	var best guard.Verdict
	for rest := t.Text; rest != ""; {
		line := rest
		if k := strings.IndexByte(rest, '\n'); k >= 0 {
			line = rest[:k+1]
		}
		rest = rest[len(line):]
		if v := g.Text(line); v.Action != guard.Allow {
			best = v
			break
		}
	}
	if !t.Calls {
		m := g.Message(t.Text)
		guard.Raise(&best, &m)
	}
	return best
}

// textNotRun is the note of a session the text detectors could not read:
// its reader kept no text of the model's ("" when they could, or none is
// enabled).
func textNotRun(p *PreparedSession, readers []string) string {
	if len(readers) == 0 || p.TextKept {
		return ""
	}
	return strings.Join(readers, ", ") + " not run: no model text was read from this session (loopgate keeps it from some formats only; this is " + p.Format + "), so it was not checked for repeated text"
}
