package ingest

import (
	"fmt"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Sink receives what an ingester finds in one file: sessions, one at a
// time, and problems.
type Sink struct {
	File      string
	OnSession func(*Session)
	OnProblem func(Problem)
	// KeepText: the reader keeps each response's visible text
	// (Options.KeepText, for a format whose reader records it); Session
	// marks the sessions it hands on so (Session.TextKept).
	KeepText bool
	// cut is Options.CutResult, for a file whose results can be read
	// again (dispatch).
	cut func(format string, c *Call)

	sessions int
	problems int
}

// Session hands a finished session on. It fills in File and defaults.
func (s *Sink) Session(x *Session) {
	x.File = s.File
	if s.KeepText {
		x.TextKept = true
	}
	if x.Agent == "" {
		x.Agent = "main"
	}
	for i := range x.Turns {
		x.Turns[i].Index = i + 1
	}
	s.sessions++
	if s.OnSession != nil {
		s.OnSession(x)
	}
}

// Problemf reports a problem at a line (0 only when the problem has no line
// to name, see Problem).
func (s *Sink) Problemf(line int, format string, a ...any) {
	s.problem(Problem{File: s.File, Line: line, Message: fmt.Sprintf(format, a...)})
}

// problem passes on a problem another sink worded (eachSelfContainedLine).
func (s *Sink) problem(p Problem) {
	s.problems++
	if s.OnProblem != nil {
		s.OnProblem(p)
	}
}

// BadLine reports a line that could not be decoded, saying when it is the
// last line of the file cut short (a crash while writing) rather than a
// corrupt line in the middle.
func (s *Sink) BadLine(lr *LineReader, line int, err error) {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	// Invalid UTF-8 on a line that is not JSON anyway is said here, not
	// as a second problem of the same line.
	if lr.takeBadUTF8(line) {
		msg += " (the line also holds invalid UTF-8)"
	}
	// A line cut short by a read error (gzip data that ends
	// early) is the spot Read reports as "could not be read to the end
	// after line N"; reporting it here too made one bad spot two problems.
	if lr != nil && lr.Truncated() && lr.Err() != nil {
		return
	}
	if lr != nil && lr.Truncated() {
		s.Problemf(line, "last line is cut short (no newline at end of file) and is not valid JSON: %s", msg)
		return
	}
	s.Problemf(line, "line is not valid JSON: %s", msg)
}

// notJSON is the error that words a line jsonx.Valid rejects, for
// BadLine: the decoder's, as the other readers give it, or jsonx's own
// when the decoder takes the line. goccy allows nesting to 10 000 levels,
// Valid to jsonx.MaxDepth; a deeper line gave no error to word, which was
// a nil dereference (TestTooDeepLine).
func notJSON(line []byte) error {
	var v any
	if err := jsonx.Unmarshal(line, &v); err != nil {
		return err
	}
	_, err := jsonx.Parse(line)
	return err
}

// Sessions returns how many sessions were emitted so far.
func (s *Sink) Sessions() int { return s.sessions }

// Problems returns how many problems were reported so far.
func (s *Sink) Problems() int { return s.problems }
