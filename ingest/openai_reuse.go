package ingest

import (
	"bytes"
	"cmp"
	"slices"
	"unsafe"
)

// oaReuse turns on lineReuse; tests turn it off to check that a log reads
// the same with and without it.
var oaReuse = true

// lineReuse spares a JSONL request log most of its decoding. Each request
// of a log replays the conversation so far (docs/formats/openai.md), so a
// line usually begins with the very bytes of the line before it, and only
// its last few messages are new: a log of n requests holds about n²/2
// messages, of which n are new. lineReuse keeps the message and item
// elements read on the line before, each with where it lay in that line;
// an element of this line that starts at the same offset and ends within
// the prefix the two lines share is taken from there instead of being
// decoded again: by splitRecord for the arrays at the top of the line, by
// chatItems and responseItems for those in a request or response object.
//
// Why that is the same as decoding it: the bytes before the element are
// the same in both lines, so the reading reaches it in the same state (the
// same member of the same array, by the same path), and its own bytes are
// the same, so it decodes to the same value. The elements decoded are only
// read afterwards (chatItems and responseItems copy them), never changed,
// but for what they keep of their own reading (chatMessage.built,
// respItem.memo), which is a function of the element; so one value can
// serve several lines, its raw view moved to the line being read.
// Everything else about a line (its other members, its syntax past the
// shared prefix, every problem) is read as before: an element is kept only
// once it decoded without a problem.
//
// A nil *lineReuse (a document, or oaReuse off) keeps and takes nothing.
type lineReuse struct {
	line  []byte       // the line being read
	prev  []byte       // a copy of the line before
	elems []reusedElem // the elements read on it, by start
	next  []reusedElem // those of the line being read
	same  int          // the length of the prefix the two lines share
	taken int          // elements taken, for tests
}

// reusedElem is an element of a line: where it lies, and what it decoded to.
type reusedElem struct {
	start, end int
	e          oaElem
}

// maxReusedLine bounds the line that lineReuse keeps a copy of: the copy
// costs a line's length in memory, which a replaying log repays many times
// over; a single huge line is not held on to.
const maxReusedLine = 64 << 20

// start begins the reading of line.
func (r *lineReuse) start(line []byte) {
	if r == nil {
		return
	}
	r.line = line
	r.same = commonPrefix(r.prev, line)
	r.next = r.next[:0]
}

// takeAt returns the element at line[pos:], and where it ends, when the
// line before had the same one there, with its raw view moved to line.
func (r *lineReuse) takeAt(pos int) (oaElem, int, bool) {
	if r == nil || pos >= r.same {
		return oaElem{}, 0, false
	}
	i, found := slices.BinarySearchFunc(r.elems, pos, func(e reusedElem, pos int) int { return cmp.Compare(e.start, pos) })
	if !found || r.elems[i].end > r.same {
		return oaElem{}, 0, false
	}
	old := r.elems[i]
	e := old.e
	e.raw = r.line[pos:old.end:old.end]
	r.taken++
	return e, old.end, true
}

// take returns e decoded as on the line before, when it was there (ok),
// else e.
func (r *lineReuse) take(e oaElem) (oaElem, bool) {
	pos, ok := r.offset(e.raw)
	if !ok {
		return e, false
	}
	t, end, ok := r.takeAt(pos)
	if !ok || end != pos+len(e.raw) {
		return e, false
	}
	return t, true
}

// keep records an element of the line being read, decoded.
func (r *lineReuse) keep(e oaElem) {
	pos, ok := r.offset(e.raw)
	if !ok {
		return
	}
	end := pos + len(e.raw)
	e.raw = nil // a view of a buffer that is about to be reused
	r.next = append(r.next, reusedElem{pos, end, e})
}

// offset returns where raw lies in the line being read; ok is false when
// raw is not a view of it (a copy that a fallback decoding made).
func (r *lineReuse) offset(raw []byte) (int, bool) {
	if r == nil || len(raw) == 0 || len(r.line) == 0 {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(r.line)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	if p < base || p-base+uintptr(len(raw)) > uintptr(len(r.line)) {
		return 0, false
	}
	return int(p - base), true
}

// finish ends the reading of the line: its elements serve the next line.
// They were kept in the order they were read, which is their order in the
// line unless a response came before its request there; an element read
// twice (a record's request that is the record itself) is kept once.
func (r *lineReuse) finish() {
	if r == nil {
		return
	}
	if len(r.line) > maxReusedLine {
		r.prev, r.elems, r.line = r.prev[:0], r.elems[:0], nil
		return
	}
	r.prev = append(r.prev[:0], r.line...)
	r.line = nil
	slices.SortStableFunc(r.next, func(a, b reusedElem) int { return cmp.Compare(a.start, b.start) })
	r.next = slices.CompactFunc(r.next, func(a, b reusedElem) bool { return a.start == b.start })
	r.elems, r.next = r.next, r.elems
}

// commonPrefix returns the length of the longest common prefix of a and b:
// whole blocks compared by bytes.Equal (vectorized), then the first
// differing block byte by byte.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 256
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// at returns the item as read on line: a copy whose calls are its own, so
// that what the session builder does to them does not reach the item kept.
func (it *oaItem) at(line int) oaItem {
	c := *it
	c.line = line
	if it.calls != nil {
		c.calls = make([]Call, len(it.calls))
		for i, call := range it.calls {
			call.Line = line
			c.calls[i] = call
		}
	}
	return c
}
