package report

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loopgate/loopgate/analyze"
)

// prepared returns a copy of rep that renderers may show: secrets redacted
// when opt.Redact, and every list non-nil (the JSON contract says [] not
// null). The caller's report is not touched. The copy holds every session
// in Sessions, those a replay spilled to disk included (the table and
// markdown formats, made for people, hold their rows); its fields are
// copied one by one, so that it shares no spill with rep.
func prepared(rep *analyze.Report, opt Options) (*analyze.Report, error) {
	out := &analyze.Report{Summary: rep.Summary, Rules: preparedRules(rep.Rules, opt), Tokens: rep.Tokens}
	out.Sessions = make([]analyze.SessionResult, 0, rep.SessionCount())
	err := rep.EachSession(func(s *analyze.SessionResult) error {
		out.Sessions = append(out.Sessions, preparedSession(s, opt))
		return nil
	})
	out.Tools = preparedTools(rep.Tools, opt)
	out.Problems = preparedProblems(rep.Problems, opt)
	return out, err
}

func preparedSession(s *analyze.SessionResult, opt Options) analyze.SessionResult {
	out := *s
	if opt.Redact {
		// Names and ids come from the transcript too and may hold
		// anything; a file name may hold a secret too.
		out.ID, out.Agent, out.Parent, out.File = Redact(out.ID), Redact(out.Agent), Redact(out.Parent), Redact(out.File)
		out.Selector = Redact(out.Selector)
	}
	out.Decisions = make([]analyze.Decision, len(s.Decisions))
	copy(out.Decisions, s.Decisions)
	for i := range out.Decisions {
		d := &out.Decisions[i]
		if opt.Redact {
			d.Args = Redact(d.Args)
			d.Message = Redact(d.Message)
			d.CallID = Redact(d.CallID) // an id from the transcript may hold anything
			d.Tool = Redact(d.Tool)
		}
		// Abbreviate after redacting, so that a cut can never leave part
		// of a secret behind in a form the patterns no longer recognize.
		d.Args = AbbreviateArgs(d.Args, DecisionArgsChars)
	}
	return out
}

// DecisionArgsChars is how much of a decision's arguments the machine
// formats (json, jsonl) keep; tables and markdown cut shorter.
const DecisionArgsChars = 240

// preparedTools copies the per-tool table with tool names redacted.
func preparedTools(ts []analyze.ToolStat, opt Options) []analyze.ToolStat {
	out := append([]analyze.ToolStat{}, ts...)
	if opt.Redact {
		for i := range out {
			out[i].Tool = Redact(out[i].Tool)
		}
	}
	return out
}

func preparedProblems(ps []analyze.Problem, opt Options) []analyze.Problem {
	out := make([]analyze.Problem, len(ps))
	copy(out, ps)
	if opt.Redact {
		for i := range out {
			out[i].Message, out[i].File = Redact(out[i].Message), Redact(out[i].File)
		}
	}
	return out
}

// AbbreviateArgs makes argument text fit one line of a report: every run of
// white space (line breaks included) becomes one space, leading and trailing
// space goes, and text longer than max characters (runes) is cut so that,
// with its final "…", it is max characters long. max < 1 means no cut. It
// stops reading at the cut, so a huge argument costs only max characters.
func AbbreviateArgs(raw string, max int) string {
	var b strings.Builder
	n := 0 // runes written
	space := false
	for _, r := range raw {
		if unicode.IsSpace(r) {
			space = n > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if max > 0 && n+need > max {
			return keepRunes(b.String(), max-1) + "…"
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// keepRunes returns the first n runes of s, trailing space trimmed.
func keepRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			s = s[:pos]
			break
		}
		i++
	}
	return strings.TrimRight(s, " ")
}

// cutLeft keeps the end of s (a path) within max runes, "…" first.
func cutLeft(s string, max int) string {
	if max < 2 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-max+1:])
}

// cutRight keeps the start of s within max runes, "…" last.
func cutRight(s string, max int) string {
	if max < 2 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// Thousands writes n with thousands separators (12,345).
func Thousands(n int64) string { return thousands(n) }

// thousands formats n with comma separators: 1234567 → "1,234,567".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// percent shows a ratio that may be null (no denominator) as "n/a".
func percent(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*p*100, 'f', 1, 64) + "%"
}

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
