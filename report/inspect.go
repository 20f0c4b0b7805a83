package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/olekukonko/tablewriter/tw"
)

// inspectArgsWidth is how much of a call's arguments inspect shows.
const inspectArgsWidth = 120

// InspectSession is what `loopgate inspect` shows of one normalized session.
// Its JSON form is the inspect --format json contract.
type InspectSession struct {
	File   string `json:"file"`
	Format string `json:"format"`
	ID     string `json:"id"`
	Agent  string `json:"agent"`
	Parent string `json:"parent"`
	// StartedAt and EndedAt are the session's first and last recorded
	// times (RFC 3339), "" when it records none; Notes its reader's notes.
	StartedAt string   `json:"started_at,omitempty"`
	EndedAt   string   `json:"ended_at,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Turns     int      `json:"turns"`
	Requests  int      `json:"requests"`
	// Calls is the number of calls; CallList lists them when asked.
	Calls int `json:"calls"`
	// CallList is nil unless calls were asked for; then it is in the JSON
	// form, even when empty ("call_list": []).
	CallList []InspectCall `json:"call_list"`
}

// MarshalJSON leaves call_list out when calls were not listed.
func (s InspectSession) MarshalJSON() ([]byte, error) {
	type base struct {
		File      string   `json:"file"`
		Format    string   `json:"format"`
		ID        string   `json:"id"`
		Agent     string   `json:"agent"`
		Parent    string   `json:"parent"`
		StartedAt string   `json:"started_at,omitempty"`
		EndedAt   string   `json:"ended_at,omitempty"`
		Notes     []string `json:"notes,omitempty"`
		Turns     int      `json:"turns"`
		Requests  int      `json:"requests"`
		Calls     int      `json:"calls"`
	}
	b := base{s.File, s.Format, s.ID, s.Agent, s.Parent, s.StartedAt, s.EndedAt, s.Notes, s.Turns, s.Requests, s.Calls}
	var buf bytes.Buffer
	var v any = b
	if s.CallList != nil {
		v = struct {
			base
			CallList []InspectCall `json:"call_list"`
		}{b, s.CallList}
	}
	if err := writeJSON(&buf, v, ""); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// InspectCall is one call of an inspected session.
type InspectCall struct {
	Turn int `json:"turn"`
	// Call is the 1-based index of the call in its session (the same
	// numbering as a replay decision's "call").
	Call   int    `json:"call"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Class  string `json:"class"`
	// Args are abbreviated to about 120 characters, and redacted.
	Args        string `json:"args"`
	ResultChars int    `json:"result_chars"`
	// Envelope is the text around the tool's output that the result's
	// format declares envelope (a wall time, a run's id:
	// ingest.SplitEnvelope), redacted, and OutputChars the size of the
	// output without it; both are absent when the result has none.
	OutputChars int    `json:"output_chars,omitempty"`
	Envelope    string `json:"envelope,omitempty"`
	IsError     bool   `json:"is_error"`
	HasResult   bool   `json:"has_result"`
	Line        int    `json:"line"`
}

// NewInspectSession summarizes s; with withCalls it lists the calls, their
// class given by classOf (nil: no class). Arguments are redacted before they
// are abbreviated, so that a cut never hides a secret's shape from Redact.
func NewInspectSession(s *ingest.Session, classOf func(tool string) string, withCalls bool, opt Options) InspectSession {
	out := InspectSession{
		File:     s.File,
		Format:   s.Format,
		ID:       s.ID,
		Agent:    s.Agent,
		Parent:   s.Parent,
		Turns:    len(s.Turns),
		Requests: s.NumRequests(),
		Calls:    s.NumCalls(),
		Notes:    s.Notes,
	}
	if start, end := s.Span(); !start.IsZero() {
		out.StartedAt, out.EndedAt = start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339)
	}
	if opt.Redact {
		// Ids and names come from the transcript (or its file name) and
		// may hold anything, as in a replay's report.
		out.File, out.ID, out.Agent, out.Parent = Redact(out.File), Redact(out.ID), Redact(out.Agent), Redact(out.Parent)
	}
	if !withCalls {
		return out
	}
	out.CallList = make([]InspectCall, 0, out.Calls)
	for ti := range s.Turns {
		t := &s.Turns[ti]
		turn := t.Index
		if turn == 0 {
			turn = ti + 1
		}
		for ri := range t.Requests {
			for ci := range t.Requests[ri].Calls {
				c := &t.Requests[ri].Calls[ci]
				args, callID, tool := c.ArgsRaw, c.ID, c.Tool
				if opt.Redact {
					args, callID, tool = Redact(args), Redact(callID), Redact(tool)
				}
				class := ""
				if classOf != nil {
					// A gateway call's class is the tool's it names
					// (guard.CallEvent.ClassName).
					ev := guard.CallEvent{Tool: c.Tool, ArgsRaw: c.ArgsRaw, ArgsOK: true}
					class = classOf(ev.ClassName())
				}
				outputChars := 0
				output, envelope := ingest.SplitEnvelope(s.Format, c.Result)
				if envelope != "" {
					outputChars = len(output)
					if opt.Redact {
						envelope = Redact(envelope)
					}
				}
				out.CallList = append(out.CallList, InspectCall{
					Turn:        turn,
					Call:        len(out.CallList) + 1,
					CallID:      callID,
					Tool:        tool,
					Class:       class,
					Args:        AbbreviateArgs(args, inspectArgsWidth),
					ResultChars: len(c.Result),
					OutputChars: outputChars,
					Envelope:    envelope,
					IsError:     c.IsError,
					HasResult:   c.HasResult,
					Line:        c.Line,
				})
			}
		}
	}
	return out
}

// InspectJSONWriter writes the inspect --format json document while the
// files are read: each session as it comes, the problems at the end, so
// that inspecting a corpus of millions of sessions does not hold them.
// The bytes are those of the whole document encoded at once
// (TestInspectJSONStreamsAsEncoded).
type InspectJSONWriter struct {
	jw       *jsonDocWriter
	sessions *jsonList
	opt      Options
}

// NewInspectJSONWriter starts the document on w.
func NewInspectJSONWriter(w io.Writer, opt Options) *InspectJSONWriter {
	jw := newJSONDocWriter(w)
	jw.raw("{\n")
	return &InspectJSONWriter{jw: jw, sessions: jw.openList("sessions"), opt: opt}
}

// Session writes one session; an error is kept for Finish.
func (iw *InspectJSONWriter) Session(s *InspectSession) {
	_ = iw.sessions.elem(s)
}

// Finish writes the problems and ends the document, returning the first
// error met.
func (iw *InspectJSONWriter) Finish(problems []ingest.Problem) error {
	iw.sessions.close(false)
	iw.jw.list("problems", eachOf(preparedProblems(problems, iw.opt)), true)
	return iw.jw.close()
}

// InspectTable writes the sessions as a table, then, when calls were listed,
// one table of calls per session, then the problems, under a heading that
// gives their count (more than those listed when a file had more than a
// report lists).
func InspectTable(w io.Writer, sessions []InspectSession, problems []ingest.Problem, count int, opt Options) error {
	t := &textWriter{opt: opt}
	t.heading(fmt.Sprintf("Sessions (%s)", thousands(int64(len(sessions)))))
	if len(sessions) == 0 {
		t.printf("none\n")
	} else {
		tab := t.newTable([]tw.Align{tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft,
			tw.AlignRight, tw.AlignRight, tw.AlignRight})
		tab.Header("#", "File", "Format", "Session", "Agent", "Turns", "Requests", "Calls")
		for i := range sessions {
			s := &sessions[i]
			agent := s.Agent
			if s.Parent != "" {
				agent += " ← " + s.Parent
			}
			t.append(tab, i+1, Sanitize(s.File), Sanitize(s.Format), cutRight(Sanitize(s.ID), 24), cutRight(Sanitize(agent), 24),
				s.Turns, s.Requests, s.Calls)
		}
		// Files keep their name in 32 columns, or in what a known
		// terminal width leaves if that is 16 or more (else render lists
		// the rows as records).
		const fileCol = 1
		fileWidth := 32
		if room := opt.Width - otherColumnsWidth(tab.header, tab.rows, fileCol); opt.Width > 0 && room >= 16 {
			fileWidth = min(room, 32)
		}
		for _, r := range tab.rows {
			r[fileCol] = cutLeft(r[fileCol], fileWidth)
		}
		t.render(tab)
	}
	t.sessionNotes(len(sessions), func(i int) []string { return sessions[i].Notes })
	const argsCol = 4
	for i := range sessions {
		s := &sessions[i]
		if len(s.CallList) == 0 {
			continue
		}
		// The envelope column is shown for sessions whose format declares
		// an envelope some result has.
		envelopes := false
		for _, c := range s.CallList {
			envelopes = envelopes || c.Envelope != ""
		}
		header := []string{"Turn", "#", "Tool", "Class", "Args", "Result chars", "Error", "Line"}
		align := []tw.Align{tw.AlignRight, tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft,
			tw.AlignRight, tw.AlignLeft, tw.AlignRight}
		errCol := 6
		if envelopes {
			header = slices.Insert(header, 6, "Envelope")
			align = slices.Insert(align, 6, tw.AlignLeft)
			errCol = 7
		}
		head, tail := fmt.Sprintf("Calls #%d ", i+1), fmt.Sprintf(" %s (%s)", Sanitize(s.ID), thousands(int64(len(s.CallList))))
		file := Sanitize(s.File)
		if opt.Width > 0 { // the file gives way, from the left (its name stays)
			file = cutLeft(file, max(opt.Width-utf8.RuneCountInString(head+tail), 16))
		}
		t.heading(head + file + tail)
		rows := make([][]string, len(s.CallList))
		for j, c := range s.CallList {
			result := strconv.Itoa(c.ResultChars)
			if !c.HasResult {
				result = "none"
			}
			errText := ""
			if c.IsError {
				errText = "error"
			}
			rows[j] = []string{strconv.Itoa(c.Turn), strconv.Itoa(c.Call), cutRight(Sanitize(c.Tool), 24), orDash(Sanitize(c.Class)),
				"", result, errText, lineText(c.Line)}
			if envelopes {
				rows[j] = slices.Insert(rows[j], 6, cutRight(Sanitize(strings.ReplaceAll(c.Envelope, "\n", " · ")), 32))
			}
		}
		argsWidth := max(t.opt.width()-otherColumnsWidth(header, rows, argsCol), 20)
		tab := t.newTable(align)
		tab.Header(header)
		for j, row := range rows {
			row[argsCol] = Sanitize(AbbreviateArgs(s.CallList[j].Args, argsWidth))
			row[errCol] = paint(opt.Color, ansiRed, row[errCol])
			t.append(tab, row)
		}
		t.render(tab)
	}
	t.problems(preparedProblems(problems, opt), count)
	if t.err != nil {
		return t.err
	}
	_, err := w.Write(t.buf.Bytes())
	return err
}
