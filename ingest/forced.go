package ingest

import "fmt"

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
	dropped int // problems past forcedProblemsHeld, counted only
}

func newForcedSink(out *Sink, format string) (*forcedSink, *Sink) {
	f := &forcedSink{out: out, format: format}
	return f, &Sink{File: out.File, OnSession: f.session, OnProblem: f.problem}
}

func (f *forcedSink) session(s *Session) {
	if !f.found {
		f.found = true
		f.flush()
	}
	f.out.Session(s)
}

func (f *forcedSink) problem(p Problem) {
	if f.found {
		f.out.Problemf(p.Line, "%s", p.Message)
		return
	}
	if len(f.held) < forcedProblemsHeld {
		f.held = append(f.held, p)
	} else {
		f.dropped++
	}
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
	f.held, f.dropped = nil, 0
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
	first := f.held[0]
	f.out.Problemf(first.Line, "--input-format %s cannot read this file: no session, %s (the first, line %d: %s)",
		f.format, plural(n, "problem"), first.Line, first.Message)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
