package jsonx

import (
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Packed strings (StringOrValueAtPacked). A tool result with escapes (nearly
// every one: a newline is an escape) used to be decoded into a scratch
// buffer and then copied into a string of its own: every byte written
// twice, and one allocation per result. A packed one is decoded once,
// straight into memory it keeps:
//   - a short one into a block shared with the strings decoded before it
//     on the same processor (stringBlocks): many small results, one
//     allocation;
//   - a long one into an allocation of its escaped length, the most its
//     decoded bytes can take.
//
// A string in a block keeps the whole block alive, which is why packing is
// asked for by the reader, for texts that live and die with their session.
// Strings with no escape are copied as before: packing them into blocks too
// measured no faster.

const (
	// packBlockSize is the size of a shared block.
	packBlockSize = 64 << 10
	// maxPackedInBlock is the longest escaped string decoded into a block:
	// at most this much of a block is left unused when a string does not
	// fit in the rest of it.
	maxPackedInBlock = 4 << 10
	// packSlack is room past a string's escaped length: the decoding
	// stores whole vectors of 32 bytes (unescapeAVX2) and words of 8, and
	// grows its buffer when fewer than 32 bytes are left past what it wrote.
	packSlack = 32
)

// stringBlock is a block short strings are decoded into, one after the
// other: buf[:len(buf)] is taken by strings handed out, never written
// again; the rest is free.
type stringBlock struct{ buf []byte }

var stringBlocks = sync.Pool{New: func() any { return new(stringBlock) }}

// makeNoZero returns n bytes of new memory, not cleared first: every byte
// of a string is written before the string is handed out. strings.Builder
// allocates its buffer so, and is the one way to ask for it outside the
// runtime.
func makeNoZero(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0) // a string of one byte, whose StringData is defined
	return unsafe.Slice(unsafe.StringData(b.String()), n)
}

// strPacked is str's decoding of a string with an escape into memory the
// string keeps: start is where its content starts, i its first special
// byte (high: a byte of 0x80 or more before it). ok is false when there is
// no closing quote: the caller then decodes as for any string, and reports
// the error.
func (p *parser) strPacked(start, i int, high bool) (s string, ok bool, err error) {
	end := closingQuote(p.data, start) // sortedtext.go
	if end >= len(p.data) {
		return "", false, nil
	}
	need := end - start + packSlack
	if end-start > maxPackedInBlock {
		dst := makeNoZero(need)
		s, err = p.unescapeInto(dst[:0], start, i, high)
		return s, true, err
	}
	b := stringBlocks.Get().(*stringBlock)
	s, err = b.decode(p, start, i, high, need)
	stringBlocks.Put(b)
	return s, true, err
}

// decode is strPacked's decoding into b's free bytes, need of them at
// most, in a new block when b has fewer; the bytes the string takes are
// b's no more.
func (b *stringBlock) decode(p *parser, start, i int, high bool, need int) (string, error) {
	if cap(b.buf)-len(b.buf) < need {
		b.buf = makeNoZero(packBlockSize)[:0]
	}
	free := b.buf[len(b.buf):cap(b.buf)]
	s, err := p.unescapeInto(free[:0], start, i, high)
	if err == nil && len(s) > 0 && unsafe.StringData(s) == &free[0] {
		b.buf = b.buf[:len(b.buf)+len(s)]
	}
	return s, err
}

// unescapeInto is unescape decoding into dst, with the string returned
// over dst's bytes, not a copy of them, while they hold it: dst has room
// for the string and packSlack more, so it is not outgrown; a string with
// invalid UTF-8 is rewritten elsewhere, and is a copy.
func (p *parser) unescapeInto(dst []byte, start, i int, high bool) (string, error) {
	p.buf, p.into = dst, unsafe.SliceData(dst)
	s, err := p.unescape(start, i, high)
	p.buf, p.into = nil, nil
	return s, err
}

// Scratch is memory a caller lends the decoding of long strings it needs
// only for a while (StringOrValueAtScratch): a transcript's long tool
// results, read for their facts and then cut to their head, need never be
// allocated each on its own. The strings decoded into it stay valid until
// the caller calls Reset, after which its bytes are written again: a
// string that must outlive that is copied by the caller. The zero value is
// ready to use. It is not safe for concurrent use.
type Scratch struct {
	// Above: a string whose escaped content is longer is decoded into the
	// scratch; 0 means maxPackedInBlock (4 KiB), the length over which
	// StringOrValueAtPacked gives a string an allocation of its own.
	Above int
	buf   []byte
}

const (
	// minScratch is the least a Scratch takes at once.
	minScratch = 64 << 10
	// maxKeptScratch bounds the memory a Scratch keeps across Reset: a
	// string of many megabytes is let go with its memory.
	maxKeptScratch = 1 << 20
)

// Reset makes the memory of every string decoded into sc free for the next
// ones. Only the memory taken last is kept: an earlier one, outgrown, is
// left to the collector with the strings that hold it.
func (sc *Scratch) Reset() {
	if cap(sc.buf) > maxKeptScratch {
		sc.buf = nil
	}
	sc.buf = sc.buf[:0]
}

// free returns room for need bytes past what sc holds, taking new memory
// when there is not enough: the strings in the old memory keep it. The new
// memory doubles the old while Reset would keep it; past that, a string
// takes only what it needs (as StringOrValueAtPacked gives it), not twice
// a string of many megabytes before it.
func (sc *Scratch) free(need int) []byte {
	if cap(sc.buf)-len(sc.buf) < need {
		size := max(need, minScratch)
		if grown := 2 * cap(sc.buf); grown <= maxKeptScratch {
			size = max(size, grown)
		}
		sc.buf = makeNoZero(size)[:0]
	}
	return sc.buf[len(sc.buf):cap(sc.buf)]
}

// strScratch is str's decoding of a long string (its escaped content
// longer than p.scratch.Above) into p.scratch; start is where its content
// starts, i its first special byte (high: a byte of 0x80 or more before it).
// ok is false when the string is not long, or has no closing quote: the
// caller then decodes it its own way. held says s lies in the scratch
// (a string with invalid UTF-8 is rewritten elsewhere, a copy).
func (p *parser) strScratch(start, i int, high bool) (s string, held, ok bool, err error) {
	end := i
	if i >= len(p.data) || p.data[i] != '"' {
		end = closingQuote(p.data, start) // sortedtext.go
	}
	above := p.scratch.Above
	if above <= 0 {
		above = maxPackedInBlock
	}
	if end >= len(p.data) || end-start <= above {
		return "", false, false, nil
	}
	if end == i { // no escape: the content is copied as it is
		raw := p.data[start:i]
		if high && !utf8.Valid(raw) {
			return "", false, false, nil
		}
		free := p.scratch.free(len(raw))
		copy(free, raw)
		p.scratch.buf = p.scratch.buf[:len(p.scratch.buf)+len(raw)]
		p.pos, p.high = i+1, high
		return unsafe.String(&free[0], len(raw)), true, true, nil
	}
	free := p.scratch.free(end - start + packSlack)
	s, err = p.unescapeInto(free[:0], start, i, high)
	if err == nil && len(s) > 0 && unsafe.StringData(s) == &free[0] {
		p.scratch.buf = p.scratch.buf[:len(p.scratch.buf)+len(s)]
		held = true
	}
	return s, held, true, err
}
