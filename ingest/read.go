package ingest

import (
	"bytes"
	"cmp"
	"io"
	"math"
	"slices"
)

// Read is ReadFile over an open reader; name is used for detection (file
// name patterns) and in messages. It opens the stream (openStream: gzip,
// the record limit, databases refused), sniffs its format (sniff and
// pickFormat, detect.go) and hands it to that format's reader (dispatch).
func Read(r io.Reader, name string, opt Options, out *Sink) {
	out.File = name
	defer func() {
		if p := recover(); p != nil {
			out.Problemf(0, "internal error while reading this file (please report it): %v", p)
		}
	}()
	in, ok := openStream(r, name, opt, out)
	if !ok {
		return
	}
	defer in.close()
	s, ok := sniff(in, opt, out)
	if !ok {
		return
	}
	if s.cut != "" {
		// Reported once the file is read, after what was read of it.
		defer out.Problemf(s.cutLine, "%s", s.cut)
	}
	f := pickFormat(in, s, opt, out)
	if f == nil {
		return
	}
	dispatch(f, in, s, opt, out)
}

// keepSink passes on only the sessions opt.Keep keeps (--since, --until,
// --session, --tool), and holds the file's problems until done is called,
// which passes them on in line order (a reader reports some, such as a call
// without a result, when a session ends, after later lines). When Keep
// left out every session of a file that had some, its problems are not
// passed on: they are counted to opt.ProblemsLeftOut. A file's first
// heldProblemsMax problems are held; more go on as they come.
func keepSink(out *Sink, opt Options) (*Sink, func()) {
	var held []Problem
	sessions, kept, passed := 0, 0, false
	flush := func() {
		slices.SortStableFunc(held, func(a, b Problem) int { return cmp.Compare(problemOrder(a), problemOrder(b)) })
		for _, p := range held {
			out.problem(p)
		}
		held, passed = nil, true
	}
	done := func() {
		if opt.Keep != nil && sessions > 0 && kept == 0 && !passed {
			if opt.ProblemsLeftOut != nil && len(held) > 0 {
				opt.ProblemsLeftOut(len(held))
			}
			return
		}
		flush()
	}
	return &Sink{File: out.File,
		OnProblem: func(p Problem) {
			if passed {
				out.problem(p)
				return
			}
			held = append(held, p)
			if len(held) >= heldProblemsMax {
				flush()
			}
		},
		OnSession: func(s *Session) {
			sessions++
			if opt.Keep == nil || opt.Keep(s) {
				kept++
				out.Session(s)
			}
		}}, done
}

// heldProblemsMax bounds the problems keepSink holds for one file.
const heldProblemsMax = 10000

// problemOrder sorts a file's problems by line; those of no line (about
// the whole file) come after the lines.
func problemOrder(p Problem) int {
	if p.Line <= 0 {
		return math.MaxInt
	}
	return p.Line
}

// dispatch hands the sniffed file to format f's reader: a document to
// ParseDoc (or, when it is one line, to ParseLines), JSONL to ParseLines.
// A forced format's sink reports a file in which it found nothing.
func dispatch(f *Format, in *stream, s *sniffed, opt Options, out *Sink) {
	lr, h, doc := in.lr, s.h, s.doc
	out, done := keepSink(out, opt)
	defer done()
	if opt.Format != "" {
		var forced *forcedSink
		forced, out = newForcedSink(out, f.ID)
		defer forced.finish()
	}
	// out is a sink of dispatch's own here (keepSink's), so it may be marked.
	out.KeepText = opt.KeepText && f.Text
	if !in.gz && opt.sizeHint > 0 {
		// A cut result is read again from its file by its line
		// (ResultFile): a regular file, not compressed.
		out.cut = opt.CutResult
	}
	oneLine := h.Doc && !bytes.Contains(bytes.TrimSpace(doc), []byte("\n"))
	if h.Doc && (f.ParseDoc != nil || (oneLine && f.ParseLines != nil)) {
		// The document is read: its lines that held invalid UTF-8 are one
		// problem each, as JSONL lines are.
		for _, ln := range s.docBadUTF8 {
			out.Problemf(ln, "%s", badUTF8Message)
		}
	}
	switch {
	case h.Doc && f.ParseDoc != nil:
		f.ParseDoc(doc, h, out)
	case oneLine && f.ParseLines != nil:
		f.ParseLines(docLineReader(doc, h), h, out)
	case !h.Doc && f.ParseLines != nil:
		lr.reportBadUTF8(out)
		f.ParseLines(lr, h, out)
		lr.flushBadUTF8()
		if err := lr.Err(); err != nil {
			out.Problemf(lr.Lines(), "file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, in.gz))
		}
	case f.ParseFile != nil && f.ParseLines == nil && f.ParseDoc == nil:
		out.Problemf(0, "format %s reads SQLite databases by path; this file is not one", f.ID)
	default:
		out.Problemf(0, "format %s cannot read this file (it expects %s)", f.ID, map[bool]string{true: "JSONL records", false: "one JSON document"}[h.Doc])
	}
}
