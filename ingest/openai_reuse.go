package ingest

import "bytes"

// oaReuse turns on lineReuse; tests turn it off to check that a log reads
// the same with and without it.
var oaReuse = true

// lineReuse spares a JSONL request log most of its decoding. Each request
// of a log replays the conversation so far (docs/formats/openai.md), so a
// line usually begins with the very bytes of the line before it, and only
// its last few messages are new: a log of n requests holds about n²/2
// messages, of which n are new. splitRecord decodes each line's message
// and item elements; lineReuse keeps the elements of the line before, and
// an element that starts at the same offset and ends within the prefix the
// two lines share is taken from there instead of being decoded again.
//
// Why that is the same as decoding it: the bytes before the element are
// the same in both lines, so the parser reaches it in the same state (the
// same member of the same array, at the same depth), and its own bytes are
// the same, so it decodes to the same value. The elements decoded are only
// read afterwards (chatItems and responseItems copy them), never changed,
// so one value can serve several lines; its raw view is moved to the line
// being read. Everything else about the line (its other members, its
// syntax past the shared prefix, every problem) is read as before: only the
// decoding of shared elements is skipped.
//
// The zero value and a nil *lineReuse are ready to use; a nil one reuses
// nothing.
type lineReuse struct {
	prev  []byte       // a copy of the line before
	elems []reusedElem // the elements decoded on it, in line order
	next  []reusedElem // those of the line being read
	same  int          // the length of the prefix the two lines share
	k     int          // where take looks next in elems
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
	r.same = commonPrefix(r.prev, line)
	r.k = 0
	r.next = r.next[:0]
}

// take returns the element at line[pos:] when the line before had the same
// one there, with its raw view moved to line.
func (r *lineReuse) take(line []byte, pos int) (oaElem, int, bool) {
	if r == nil || pos >= r.same {
		return oaElem{}, 0, false
	}
	for r.k < len(r.elems) && r.elems[r.k].start < pos {
		r.k++
	}
	if r.k == len(r.elems) {
		return oaElem{}, 0, false
	}
	old := r.elems[r.k]
	if old.start != pos || old.end > r.same {
		return oaElem{}, 0, false
	}
	e := old.e
	e.raw = line[pos:old.end:old.end]
	r.keep(pos, old.end, e)
	r.taken++
	return e, old.end, true
}

// keep records an element of the line being read.
func (r *lineReuse) keep(start, end int, e oaElem) {
	if r != nil {
		e.raw = nil // a view of a buffer that is about to be reused
		r.next = append(r.next, reusedElem{start, end, e})
	}
}

// finish ends the reading of line: when splitRecord read it whole (ok),
// its elements serve the next line.
func (r *lineReuse) finish(line []byte, ok bool) {
	if !ok || len(line) > maxReusedLine {
		r.prev, r.elems = r.prev[:0], r.elems[:0]
		return
	}
	r.prev = append(r.prev[:0], line...)
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
