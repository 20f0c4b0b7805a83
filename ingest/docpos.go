package ingest

// Lines inside a whole-file JSON document (a pretty-printed OpenAI array, a
// hermes snapshot, an OpenHands trajectory). Sessions, turns and calls read
// from such a file keep line 0, as docs/formats.md says; but a problem found in the document names the line where the element
// at fault starts, so that it can be found. Detection builds the document
// from the file's lines with the blank lines kept (detect.go), so a newline
// count from the document's first line gives the file line.

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// docPos maps byte offsets of a document to file lines.
type docPos struct {
	doc   []byte
	first int // file line of doc[0]
	// The last offset asked for and its line: offsets are mostly asked for
	// in increasing order, so newlines are counted once.
	off, line int
}

func newDocPos(doc []byte, firstLine int) *docPos {
	if firstLine < 1 {
		firstLine = 1
	}
	return &docPos{doc: doc, first: firstLine, line: firstLine}
}

// lineAt returns the file line of doc[off].
func (d *docPos) lineAt(off int) int {
	if off < d.off {
		d.off, d.line = 0, d.first
	}
	if off > len(d.doc) {
		off = len(d.doc)
	}
	d.line += bytes.Count(d.doc[d.off:off], []byte{'\n'})
	d.off = off
	return d.line
}

// offsetOf returns where sub starts in the document, or -1 when sub is not
// a part of it (not a subslice of the same bytes).
func (d *docPos) offsetOf(sub []byte) int {
	if d == nil || len(sub) == 0 || len(d.doc) == 0 {
		return -1
	}
	off := cap(d.doc) - cap(sub)
	if off < 0 || off >= len(d.doc) || &d.doc[off] != &sub[0] {
		return -1
	}
	return off
}

// lineOf returns the file line where sub, a part of the document, starts;
// the document's first line when sub is not a part of it.
func (d *docPos) lineOf(sub []byte) int {
	if d == nil {
		return 0
	}
	off := d.offsetOf(bytes.TrimLeft(sub, " \t\r\n"))
	if off < 0 {
		return d.first
	}
	return d.lineAt(off)
}

// elemLines returns the file line of each element of arr, a JSON array
// that is a part of the document (as jsonx.TopLevel returns it), or nil
// when arr is not one. arr must be valid JSON.
func (d *docPos) elemLines(arr []byte) []int {
	if d == nil {
		return nil
	}
	arr = bytes.TrimLeft(arr, " \t\r\n")
	base := d.offsetOf(arr)
	if base < 0 || arr[0] != '[' {
		return nil
	}
	var lines []int
	for _, off := range arrayElementOffsets(arr) {
		lines = append(lines, d.lineAt(base+off))
	}
	return lines
}

// member follows a path of top-level object members from data (a part of
// the document), returning the raw value, still a part of the document,
// or nil.
func member(data []byte, path ...string) []byte {
	for _, key := range path {
		v, ok := jsonx.TopLevel(data, key)
		if !ok {
			return nil
		}
		data = v
	}
	return data
}

// arrayElementOffsets returns the offset in arr of each element of the JSON
// array arr (valid JSON starting with '['). It only tracks strings and
// nesting: a syntax check has already been done.
func arrayElementOffsets(arr []byte) []int {
	var offs []int
	depth := 0
	want := false // at depth 1, an element starts at the next value byte
	for i := 0; i < len(arr); i++ {
		c := arr[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case ',':
			if depth == 1 {
				want = true
			}
			continue
		case ':':
			continue
		}
		if depth == 1 && want {
			offs = append(offs, i)
			want = false
		}
		switch c {
		case '"':
			for i++; i < len(arr) && arr[i] != '"'; i++ {
				if arr[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			if depth == 1 {
				want = true
			}
		case ']', '}':
			depth--
			if depth == 0 {
				return offs
			}
		}
	}
	return offs
}

// lineAtIndex returns lines[i], or def when there is no such line.
func lineAtIndex(lines []int, i, def int) int {
	if i >= 0 && i < len(lines) && lines[i] > 0 {
		return lines[i]
	}
	return def
}

// jsonErrorLine finds the line of a syntax error in a document from the
// "offset N:" that jsonx's errors start with; ok is false when the error
// gives no offset (nesting too deep).
func jsonErrorLine(doc []byte, firstLine int, err error) (line int, msg string, ok bool) {
	msg = err.Error()
	rest, found := strings.CutPrefix(msg, "offset ")
	if !found {
		return firstLine, msg, false
	}
	num, text, found := strings.Cut(rest, ": ")
	off, convErr := strconv.Atoi(num)
	if !found || convErr != nil || off < 0 {
		return firstLine, msg, false
	}
	// An error at the very end ("unexpected end of input") is on the last
	// line: the reader ends every line of doc with a newline, which would
	// otherwise count as the start of one more line than the file has.
	if off >= len(doc) && len(doc) > 0 && doc[len(doc)-1] == '\n' {
		off = len(doc) - 1
	}
	return newDocPos(doc, firstLine).lineAt(off), text, true
}

// zeroLines sets every line of a session read from a multi-line JSON
// document back to 0 (docs/formats.md) once the
// problems, which name the element lines, have been reported.
func zeroLines(s *Session) {
	for ti := range s.Turns {
		t := &s.Turns[ti]
		t.Line = 0
		for ri := range t.Requests {
			r := &t.Requests[ri]
			r.Line = 0
			for ci := range r.Calls {
				r.Calls[ci].Line, r.Calls[ci].ResultLine = 0, 0
			}
		}
	}
}
