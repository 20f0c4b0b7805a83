package ingest

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"
)

// lineReuse spares a JSONL request log most of its decoding. Each request
// of a log replays the conversation so far (docs/formats/openai.md), so a
// line usually begins with the very bytes of an earlier line of its
// conversation, and only its last few messages are new: a log of n
// requests holds about n²/2 messages, of which n are new. lineReuse keeps
// the message and item elements read on the last few lines, each with
// where it lay in its line, and picks the line that shares the longest
// prefix with the one being read (the line before, unless conversations
// are interleaved); an element of this line that starts at the same offset
// and ends within that prefix is taken from there instead of being decoded
// again: by splitRecord for the arrays at the top of the line and in its
// request and response objects, by chatItems and responseItems for those
// splitRecord leaves to them.
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
// A nil *lineReuse (a document, or Options.noLineReuse) keeps and takes nothing.
type lineReuse struct {
	line []byte       // the line being read
	next []reusedElem // the elements read on it so far
	// recent holds the last lines read, the latest first.
	recent []*readLine
	// from is the line of recent that shares the longest prefix with
	// line, same that prefix's length.
	from  *readLine
	same  int
	taken int // elements taken (the tests read it too)
	kept  int // lines kept, for tests

	// A log that does not replay its conversations (one line per
	// conversation, as the generated corpus writes) takes nothing, and
	// copying each of its lines to keep it cost a replay of the
	// generated corpus time for nothing (docs/performance.md). After
	// coldAfter lines in a row took nothing, a line is kept only when it
	// took something itself or is one line in probeEvery; a line that
	// takes something ends the cold run.
	cold      int // lines in a row that took nothing
	lines     int // lines read
	takenFrom int // taken when the line began
}

const (
	coldAfter  = 8
	probeEvery = 8
)

// readLine is a line read earlier: a copy of it, and its elements.
type readLine struct {
	line  []byte
	elems []reusedElem // by start
}

// reusedElem is an element of a line: where it lies, and what it decoded to.
type reusedElem struct {
	start, end int
	e          oaElem
}

// Bounds on what lineReuse keeps: the lines it compares a line with (as
// many as conversations a log may interleave before the reader closes one,
// maxOpenConversations), and their total length, since each copy costs a
// line's length in memory; a line longer than that is not kept at all.
const (
	maxRecentLines = maxOpenConversations
	maxRecentBytes = 4 << 20
)

// memoize reports whether what the reader makes of the line's elements
// (chatMessage.built, respItem.memo) is worth keeping for later lines: not
// on a line of a cold run that has taken nothing and is no probe, which
// finish will not keep. A line that does get kept after all (it takes an
// element later on) has some elements without their memo, which a later
// line then decodes and builds again: slower, the same result.
func (r *lineReuse) memoize() bool {
	// A line that has taken nothing so far ends with the cold run one
	// longer.
	return r != nil && (r.taken > r.takenFrom || !r.drops(r.cold+1))
}

// drops reports whether finish drops the line being read, with a cold run
// of that length counting it: past coldAfter, all lines but the probes.
func (r *lineReuse) drops(cold int) bool {
	return cold > coldAfter && r.lines%probeEvery != 0
}

// start begins the reading of line.
func (r *lineReuse) start(line []byte) {
	if r == nil {
		return
	}
	r.line = line
	r.next = r.next[:0]
	r.from, r.same = nil, 0
	r.lines++
	r.takenFrom = r.taken
	for _, old := range r.recent {
		if n := commonPrefix(old.line, line); n > r.same {
			r.from, r.same = old, n
		}
	}
}

// takeAt returns the element at line[pos:], and where it ends, when the
// line it shares the most with had the same one there, with its raw view
// moved to line.
func (r *lineReuse) takeAt(pos int) (oaElem, int, bool) {
	if r == nil || r.from == nil || pos >= r.same {
		return oaElem{}, 0, false
	}
	elems := r.from.elems
	i, found := slices.BinarySearchFunc(elems, pos, func(e reusedElem, pos int) int { return cmp.Compare(e.start, pos) })
	if !found || elems[i].end > r.same {
		return oaElem{}, 0, false
	}
	old := elems[i]
	e := old.e
	e.raw = r.line[pos:old.end:old.end]
	r.taken++
	return e, old.end, true
}

// take returns e as it was read on the recent line that shares the most
// with this one, when it was there, else e.
func (r *lineReuse) take(e oaElem) oaElem {
	pos, ok := r.offset(e.raw)
	if !ok {
		return e
	}
	if t, end, ok := r.takeAt(pos); ok && end == pos+len(e.raw) {
		return t
	}
	return e
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

// finish ends the reading of the line: it joins the recent lines, the
// oldest leaving when there are too many or they are too long together.
// Its elements were kept in the order they were read, which is their
// order in the line unless a response came before its request there; an
// element read twice (a record's request that is the record itself) is
// kept once.
func (r *lineReuse) finish() {
	if r == nil {
		return
	}
	line, from := r.line, r.from
	r.line, r.from = nil, nil
	if r.taken > r.takenFrom {
		r.cold = 0
	} else {
		r.cold++
	}
	if len(line) > maxRecentBytes || r.drops(r.cold) {
		clear(r.next) // the elements decoded on the line go to the collector
		r.next = r.next[:0]
		return
	}
	// A line whose elements all lie in the prefix this one shares with it
	// has nothing this one does not (every element of this line that
	// decoded is kept, the ones taken too): its slot takes this line. In a
	// log that is not interleaved, recent then holds one line.
	var slot *readLine
	if from != nil && (len(from.elems) == 0 || from.elems[len(from.elems)-1].end <= r.same) {
		i := slices.Index(r.recent, from)
		r.recent = slices.Delete(r.recent, i, i+1)
		slot = from
	}
	// Else the slot of the oldest line, when one must go, or a new one.
	total := len(line)
	keep := 0
	for keep < len(r.recent) && keep < maxRecentLines-1 && total+len(r.recent[keep].line) <= maxRecentBytes {
		total += len(r.recent[keep].line)
		keep++
	}
	if slot == nil {
		if keep < len(r.recent) {
			slot = r.recent[len(r.recent)-1]
		} else {
			slot = &readLine{}
		}
	}
	clear(r.recent[keep:])
	clear(slot.elems) // the dropped line's elements go to the collector
	r.recent = append(r.recent[:keep], nil)
	copy(r.recent[1:], r.recent[:keep])
	r.recent[0] = slot
	slot.line = append(slot.line[:0], line...)
	r.kept++
	slices.SortStableFunc(r.next, func(a, b reusedElem) int { return cmp.Compare(a.start, b.start) })
	r.next = slices.CompactFunc(r.next, func(a, b reusedElem) bool { return a.start == b.start })
	slot.elems, r.next = r.next, slot.elems[:0]
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
	// The rest a word at a time: on a log of short lines, the few dozen
	// bytes that lines share (a wrapper's keys, a session ID's prefix)
	// were most of this function's work byte by byte.
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
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
