package ingest

import (
	"fmt"
	"strings"
)

// forcedProblemsHeld bounds the problems held back while a forced format
// has found no session in a file (forcedSink).
const forcedProblemsHeld = 1000

// forcedSink stands between a format named by --input-format and the
// file's sink. A file that format cannot read gave either nothing at all
// (the file lost silently) or one problem per line (a flood naming no
// cause). Its problems are held back until the format finds a session;
// if it finds none, the file gets one problem that names the format and
// what it met instead.
type forcedSink struct {
	out     *Sink
	format  string
	found   bool
	held    []Problem
	dropped int        // problems past forcedProblemsHeld, counted only
	syntax  int        // problems of the file's bytes (isSyntaxProblem) held
	empty   []*Session // sessions without a turn, held as the problems are
}

func newForcedSink(out *Sink, format string) (*forcedSink, *Sink) {
	f := &forcedSink{out: out, format: format}
	return f, &Sink{File: out.File, OnSession: f.session, OnProblem: f.problem, KeepText: out.KeepText}
}

// session passes s on once the format has read a session with a turn: a
// format reading another's file can make sessions of nothing (nanobot
// reads any JSONL as messages, and skips every line).
func (f *forcedSink) session(s *Session) {
	if !f.found {
		if len(s.Turns) == 0 {
			f.empty = append(f.empty, s)
			return
		}
		f.found = true
		f.flush()
	}
	f.out.Session(s)
}

func (f *forcedSink) problem(p Problem) {
	// Lines that are not JSON are held too: a JSON document written over
	// several lines, read as JSON lines, made one problem per line.
	if f.found {
		f.out.Problemf(p.Line, "%s", p.Message)
		return
	}
	if isSyntaxProblem(p.Message) {
		f.syntax++
	}
	if len(f.held) < forcedProblemsHeld {
		f.held = append(f.held, p)
	} else {
		f.dropped++
	}
}

// isSyntaxProblem tells a problem of the file's bytes (a line that is not
// JSON, invalid UTF-8, a cut) from one of a format's reading.
func isSyntaxProblem(msg string) bool {
	for _, prefix := range []string{"line is not valid JSON", "last line is cut short", "file could not be read", "file is not valid JSON", badUTF8Message} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// flush passes the held problems on, once the format proved it reads the
// file.
func (f *forcedSink) flush() {
	for _, p := range f.held {
		f.out.Problemf(p.Line, "%s", p.Message)
	}
	if f.dropped > 0 {
		f.out.Problemf(0, "%d more problem(s) before the first session", f.dropped)
	}
	for _, s := range f.empty {
		f.out.Session(s)
	}
	f.held, f.dropped, f.empty = nil, 0, nil
}

// finish ends the file: without a session, one problem stands for all.
func (f *forcedSink) finish() {
	if f.found {
		return
	}
	n := len(f.held) + f.dropped
	if n == 0 {
		f.out.Problemf(0, "--input-format %s found no session in this file", f.format)
		return
	}
	if n == 1 && f.syntax == 1 { // a file of one bad line: that line says it
		f.out.Problemf(f.held[0].Line, "%s", f.held[0].Message)
		return
	}
	// The example is the first problem of the format's reading, if any:
	// it says more than a line's bytes.
	first := f.held[0]
	for _, p := range f.held {
		if !isSyntaxProblem(p.Message) {
			first = p
			break
		}
	}
	where := ""
	if first.Line > 0 {
		where = fmt.Sprintf(", line %d", first.Line)
	}
	hint := ""
	if f.syntax == n && n > 1 {
		hint = "; a JSON document written over several lines is not JSON lines"
	}
	f.out.Problemf(first.Line, "--input-format %s cannot read this file: no session, %s (the first%s: %s)%s",
		f.format, plural(n, "problem"), where, first.Message, hint)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
