package ingest

import (
	"bytes"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// docArray is an array read from a whole-file document: its elements and
// the file line where each starts.
type docArray struct {
	elems []jsonx.RawMessage
	lines []int
	// multiLine says the document spans several lines: sessions read from
	// it keep line 0 (sessionBuilder.doc).
	multiLine bool
}

// line is the file line of element i (the document's first line when
// unknown).
func (a docArray) line(i int, def int) int { return lineAtIndex(a.lines, i, def) }

// readDocArray finds the array at path in doc (the document itself when
// path is empty) and splits it. It reports, at the document's first line,
// what keeps it from being read, and returns false then.
func readDocArray(doc []byte, h *Head, out *Sink, path ...string) (docArray, bool) {
	doc = bytes.TrimSpace(doc)
	pos := newDocPos(doc, h.Line)
	arr := doc
	if len(path) > 0 {
		arr = member(doc, path...)
	}
	name := strings.Join(path, ".")
	if name == "" {
		name = "the document"
	}
	if !rawIsArray(arr) {
		out.Problemf(h.Line, "%s is not an array; no session read", name)
		return docArray{}, false
	}
	elems, err := elementsOf(arr)
	if err != nil {
		out.Problemf(h.Line, "%s is not readable (%s); no session read", name, strings.TrimPrefix(err.Error(), "json: "))
		return docArray{}, false
	}
	return docArray{elems: elems, lines: pos.elemLines(arr), multiLine: bytes.Contains(doc, []byte("\n"))}, true
}

// renamed is a sink that hands sessions to out as format id (a format that
// reads its records with another format's reader) and passes problems on.
func renamed(out *Sink, id string) *Sink {
	return &Sink{
		File:     out.File,
		KeepText: out.KeepText,
		OnSession: func(s *Session) {
			s.Format = id
			out.Session(s)
		},
		OnProblem: func(p Problem) { out.Problemf(p.Line, "%s", p.Message) },
	}
}
