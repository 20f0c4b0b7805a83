// The parser shared by Parse, Valid and the one-pass decoders: white
// space, literals, numbers, strings (with the SWAR scan of plain content)
// and keys.

package jsonx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

type parser struct {
	data []byte
	pos  int
	// src is data as a string when the caller allows the parsed strings
	// to be substrings of it (ParseStringShared), else "".
	src string
	// high says whether the last string str read had a byte of 0x80 or
	// more among its raw bytes; when not, they are ASCII, and valid UTF-8.
	high bool

	// Scratch space that Parse reuses across the values it builds (and,
	// through parserPool, across calls: it runs per record): buf holds a
	// string being unescaped; members and elems are stacks holding the
	// members of the objects and the elements of the arrays being parsed,
	// each copied into an exactly sized slice when it is complete, instead
	// of growing every object's and array's own slice by doubling.
	buf     []byte
	members []Member
	elems   []Value
	// keys remembers recent object keys, which repeat from record to
	// record ("role", "content", "command"...), so that a key seen before
	// costs no allocation: see key. Only the pooled parsers that build
	// values have it: held in the struct, its 4 KiB were zeroed every time
	// a parser was made on the stack (Valid, AtEnd, SkipValue,
	// DecodeArrayEach...), which cost more than those calls' own work.
	keys *[256]string
	// packed asks str to decode a string with escapes into memory the
	// string keeps (strPacked, StringOrValueAtPacked); into is the start of
	// that memory while unescape writes it.
	packed bool
	into   *byte
	// scratch, when set, is where str decodes a long string
	// (StringOrValueAtScratch, strScratch); held says the last one lies
	// there.
	scratch *Scratch
	held    bool
}

var parserPool = sync.Pool{New: func() any { return &parser{keys: new([256]string)} }}

// release returns p to parserPool, dropping its references to the input
// and to the values built (the stacks are left partly filled by an error)
// and any scratch space grown unusually large by one big record.
func (p *parser) release() {
	p.data, p.pos, p.src = nil, 0, ""
	clear(p.members)
	clear(p.elems)
	p.members, p.elems = p.members[:0], p.elems[:0]
	if cap(p.buf) > maxPooledBuf {
		p.buf = nil
	}
	if cap(p.members) > maxPooledStack {
		p.members = nil
	}
	if cap(p.elems) > maxPooledStack {
		p.elems = nil
	}
	parserPool.Put(p)
}

const (
	// maxPooledBuf is large enough for the tool results of real
	// transcripts (up to a few MB): a pooled parser that dropped its
	// buffer decoded each long escaped string in a buffer grown again
	// step by step, a large allocation and copy per step (measured on
	// nanobot sessions). A few parsers are pooled (about one per
	// worker), so this bounds what the pool keeps to a few times 4 MiB.
	maxPooledBuf   = 4 << 20
	maxPooledStack = 1024
)

func (p *parser) errf(format string, a ...any) error {
	return fmt.Errorf("offset %d: %s", p.pos, fmt.Sprintf(format, a...))
}

func (p *parser) ws() {
	// Most JSONL is compact: a byte above the space is the common case,
	// decided by one comparison before the switch's four.
	for p.pos < len(p.data) && p.data[p.pos] <= ' ' {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, ErrTooDeep
	}
	if p.pos >= len(p.data) {
		return Value{}, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Str: s}, err
	case c == 't':
		return p.lit("true", Value{Kind: Bool, Bool: true})
	case c == 'f':
		return p.lit("false", Value{Kind: Bool})
	case c == 'n':
		return p.lit("null", Value{Kind: Null})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return Value{}, p.errf("invalid character %q", c)
	}
}

func (p *parser) lit(word string, v Value) (Value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return Value{}, p.errf("invalid literal")
	}
	p.pos += len(word)
	return v, nil
}

func (p *parser) number() (Value, error) {
	start := p.pos
	if err := p.scanNumber(); err != nil {
		return Value{}, err
	}
	lit := p.data[start:p.pos]
	if len(lit) == 1 {
		// A one-digit number (counts, flags, exit codes) shares a constant
		// string instead of allocating one.
		return Value{Kind: Number, Str: digitStrings[lit[0]-'0' : lit[0]-'0'+1]}, nil
	}
	if p.src != "" {
		return Value{Kind: Number, Str: p.src[start:p.pos]}, nil
	}
	return Value{Kind: Number, Str: string(lit)}, nil
}

const digitStrings = "0123456789"

// scanNumber moves past a number, checking its syntax; skip uses it
// directly so that Valid and TopLevel allocate nothing for numbers.
func (p *parser) scanNumber() error {
	if p.data[p.pos] == '-' {
		p.pos++
	}
	intStart := p.pos
	if n := p.digits(); n == 0 || (n > 1 && p.data[intStart] == '0') {
		// Found by FuzzJSON in ingest: "012" was accepted; JSON
		// (and encoding/json, the reference) forbids leading zeros.
		return p.errf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return p.errf("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return p.errf("invalid number")
		}
	}
	return nil
}

// digits moves past a run of decimal digits and returns its length.
func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// str parses a string. Content without escapes (most strings) is
// converted in one allocation; content with escapes is decoded in the same
// pass that checks it, into the parser's reused scratch buffer, then
// converted once (a packed one: into memory it keeps, not copied).
func (p *parser) str() (string, error) {
	start := p.pos + 1 // after the opening quote
	i, high := nextSpecialHigh(p.data, start)
	if p.scratch != nil {
		if s, held, ok, err := p.strScratch(start, i, high); ok {
			p.held = held
			return s, err
		}
	}
	if i < len(p.data) && p.data[i] == '"' {
		raw := p.data[start:i]
		p.pos, p.high = i+1, high
		if !high || utf8.Valid(raw) {
			if p.src != "" {
				return p.src[start:i], nil
			}
			return string(raw), nil
		}
		return string(replaceInvalidUTF8(raw)), nil
	}
	// An escape, or an error. A packed string is decoded into memory it
	// keeps (packed.go).
	if p.packed {
		if s, ok, err := p.strPacked(start, i, high); ok {
			return s, err
		}
	}
	// Any other is decoded in a scratch buffer, the parser's own when it
	// is a pooled one (it keeps the buffer between strings), else one lent
	// by scratchBufs: the parsers made on the stack for one-pass decoding
	// (DecodeObjectNested, DecodeStringAt) have none, and taking a pooled
	// parser for every object cost more than lending a buffer for the few
	// strings with escapes.
	if p.keys == nil {
		lent := scratchBufs.Get().(*[]byte)
		p.buf = *lent
		s, err := p.unescape(start, i, high)
		if cap(p.buf) <= maxPooledBuf {
			*lent = p.buf[:0]
		}
		p.buf = nil
		scratchBufs.Put(lent)
		return s, err
	}
	return p.unescape(start, i, high)
}

// scratchBufs lends the parsers that have no buffer of their own one to
// decode a string with escapes in (str).
var scratchBufs = sync.Pool{New: func() any { return new([]byte) }}

// unescape is str past the first run of plain bytes, data[start:i], when
// i is not the closing quote: an escape, or an error (the errors and their
// offsets are those of scanString, which Valid uses). high says whether
// that run had a byte outside ASCII.
func (p *parser) unescape(start, i int, high bool) (string, error) {
	buf := append(p.buf[:0], p.data[start:i]...)
	data := p.data
	// seen is the plain bytes copied, OR-ed together: its high bits say
	// whether any was outside ASCII (the first run's, from high).
	var seen uint64
	if high {
		seen = highs
	}
	for {
		// Where the processor can (special_amd64.s), plain runs are
		// copied 32 bytes at a time, a block stored whole and the run
		// ended at the special byte as below a word at a time, and the
		// escapes of one byte are decoded in the same loop, which
		// returns only at anything else (or when the blocks run out): a
		// tool result has an escaped newline every few dozen bytes.
		if useVector && len(data)-i >= 32 {
			if cap(buf)-len(buf) < 32 {
				buf = slices.Grow(buf, len(buf)+64)
			}
			n := len(buf)
			w, r, h, stopped := unescapeAVX2(buf[n:cap(buf)], data[i:])
			buf = buf[:n+w]
			i += r
			if h {
				seen |= highs
			}
			if stopped {
				goto special
			}
			if len(data)-i >= 32 {
				continue // buf was full: grown, and on
			}
		}
		// The plain run up to the next special byte, copied a word at a
		// time: each word is stored whole and the slice extended by the
		// bytes before the special one, so a run of a few dozen bytes
		// between two escapes costs neither a call to find its end nor
		// one to copy it.
		for i <= len(data)-8 {
			n := len(buf)
			if cap(buf)-n < 8 {
				buf = slices.Grow(buf, 8)
			}
			buf = buf[:n+8]
			x := binary.LittleEndian.Uint64(data[i : i+8])
			binary.LittleEndian.PutUint64(buf[n:], x)
			if m := specials(x); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				seen |= x & (1<<(8*k) - 1)
				buf = buf[:n+k]
				i += k
				goto special
			}
			seen |= x
			i += 8
		}
		for ; i < len(data); i++ {
			c := data[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			seen |= uint64(c)
			buf = append(buf, c)
		}
	special:
		if i >= len(data) {
			p.pos = len(data)
			return "", p.errf("%v", errUnterminated)
		}
		switch c := data[i]; {
		case c == '"':
			p.pos, p.high = i+1, seen&highs != 0
			// What the escapes wrote is valid UTF-8 (utf8.AppendRune), so
			// only plain runs with bytes outside ASCII need the check.
			if seen&highs != 0 && !utf8.Valid(buf) {
				buf = replaceInvalidUTF8(buf)
			}
			p.buf = buf[:0]
			if p.into != nil && unsafe.SliceData(buf) == p.into {
				return unsafe.String(p.into, len(buf)), nil // unescapeInto
			}
			return string(buf), nil
		case c < 0x20:
			p.pos = i
			return "", p.errf("%v", errControl)
		}
		// A backslash.
		if i+1 >= len(data) {
			p.pos = len(data)
			return "", p.errf("%v", errUnterminated)
		}
		e := data[i+1]
		if u := unescapes[e]; u != 0 {
			buf = append(buf, u)
			i += 2
			continue
		}
		if e != 'u' {
			p.pos = i
			return "", p.errf("%v", errEscape)
		}
		r, ok := HexRune(data, i+2)
		if !ok {
			p.pos = i
			return "", p.errf("%v", errEscape)
		}
		step := 6
		if utf16.IsSurrogate(r) {
			// A valid pair takes the next escape too; a lone
			// surrogate becomes U+FFFD, as encoding/json does.
			r2, ok := HexRune(data, i+8)
			if d := utf16.DecodeRune(r, r2); ok && data[i+6] == '\\' && data[i+7] == 'u' && d != utf8.RuneError {
				r, step = d, 12
			} else {
				r = utf8.RuneError
			}
		}
		buf = utf8.AppendRune(buf, r)
		i += step
	}
}

// unescapes maps the byte after a backslash to the byte the escape stands
// for, for the two-byte escapes; 0 for 'u' and for the bytes that may not
// follow a backslash. parser.str decodes with it and scanString checks
// with it: one list of the escapes JSON allows.
var unescapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// key parses an object key. A short plain key is looked up in p.keys, a
// small cache indexed by a hash of its bytes, and the cached string is
// shared when it matches (strings are immutable, so sharing is safe);
// otherwise the key is parsed as any string and cached.
func (p *parser) key() (string, error) {
	start := p.pos + 1
	end := nextSpecial(p.data, start)
	if end >= len(p.data) || p.data[end] != '"' || end-start > maxCachedKey || p.keys == nil {
		return p.str()
	}
	raw := p.data[start:end]
	h := uint32(2166136261) // FNV-1a
	for _, c := range raw {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &p.keys[uint8(h^h>>8^h>>16)]
	if *slot == string(raw) { // compared without a conversion
		p.pos = end + 1
		return *slot, nil
	}
	k, err := p.str()
	if err == nil {
		*slot = k
	}
	return k, err
}

// maxCachedKey bounds the length of the keys that parser.key caches.
const maxCachedKey = 32

var (
	errUnterminated = errors.New("unterminated string")
	errControl      = errors.New("control character in string")
	errEscape       = errors.New("invalid escape in string")
)

// scanString finds the closing quote of a string whose content starts at
// i. It returns the quote's index and whether the content has escapes.
func scanString(data []byte, i int) (int, bool, error) {
	escaped := false
	for {
		i = nextSpecial(data, i)
		if i >= len(data) {
			return len(data), escaped, errUnterminated
		}
		switch c := data[i]; {
		case c == '"':
			return i, escaped, nil
		case c < 0x20:
			return i, escaped, errControl
		}
		// A backslash.
		escaped = true
		if i+1 >= len(data) {
			return len(data), escaped, errUnterminated
		}
		switch e := data[i+1]; {
		case unescapes[e] != 0:
			i += 2
		case e == 'u':
			if _, ok := HexRune(data, i+2); !ok {
				return i, escaped, errEscape
			}
			i += 6
		default:
			return i, escaped, errEscape
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// nextSpecial returns the index of the first byte at or after i that ends a
// run of plain string content: '"', '\\' or a control character; len(data)
// when there is none. It tests eight bytes at a time (SWAR): string content
// is most of a transcript's bytes, so this loop is the parser's hot path.
// For each test, (x - ones*k) & ^x & highs flags a byte below k (after the
// XOR, a zero byte); borrows only run towards higher bytes, so the lowest
// flagged byte is always a true match, and that is the one taken.
func nextSpecial(data []byte, i int) int {
	// Most strings (keys, ids, short values) end within two words; a
	// longer one (a result, a text) is scanned on 32 bytes at a time where
	// the processor can (special_amd64.s), which for a short string would
	// not pay for its call.
	if i+16 <= len(data) {
		if m := specials(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		if m := specials(binary.LittleEndian.Uint64(data[i+8:])); m != 0 {
			return i + 8 + bits.TrailingZeros64(m)>>3
		}
		i += 16
		if useVector && len(data)-i >= 32 {
			blocks := (len(data) - i) &^ 31
			j, _ := indexSpecialAVX2(data[i:])
			if i += j; j < blocks {
				return i
			}
		}
	}
	for ; i+8 <= len(data); i += 8 {
		if m := specials(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// specials flags, in the high bit of each byte, the bytes of the word x
// (eight bytes, little-endian) that are '"', '\\' or below 0x20, and maybe
// bytes above a flagged one: only the lowest flag is sure (see nextSpecial).
//
// Each of the three tests is (y - ones*k) &^ y for a y whose high bits are
// x's (the XOR with '"' or '\\' leaves them alone), so the three &^ y are
// one &^ x: two operations fewer in the parser's innermost loop.
func specials(x uint64) uint64 {
	return belowOne(x) &^ x & highs
}

// belowOne is the three zero-byte tests of specials before their mask:
// their high bits, over the bytes of x whose own high bit is clear, flag
// '"', '\\' and the bytes below 0x20 (and maybe bytes above one of them).
func belowOne(x uint64) uint64 {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return (q - ones) | (b - ones) | (x - ones*0x20)
}

// nextSpecialHigh is nextSpecial that also reports whether a byte of 0x80
// or more lies in data[i:end], the run it passed: when none does, the run
// is ASCII and needs no UTF-8 check (utf8.Valid over every decoded string
// was a visible share of a replay's instructions, docs/performance.md). The word it stops in counts only
// below the byte it stops at.
func nextSpecialHigh(data []byte, i int) (end int, high bool) {
	var seen uint64
	if i+16 <= len(data) { // as in nextSpecial
		k, passed := wordSpecialHigh(binary.LittleEndian.Uint64(data[i:]))
		if seen |= passed; k < 8 {
			return i + k, seen&highs != 0
		}
		k, passed = wordSpecialHigh(binary.LittleEndian.Uint64(data[i+8:]))
		if seen |= passed; k < 8 {
			return i + 8 + k, seen&highs != 0
		}
		i += 16
		if useVector && len(data)-i >= 32 {
			blocks := (len(data) - i) &^ 31
			j, h := indexSpecialAVX2(data[i:])
			if h {
				seen |= highs
			}
			if i += j; j < blocks {
				return i, seen&highs != 0
			}
		}
	}
	for ; i+8 <= len(data); i += 8 {
		k, passed := wordSpecialHigh(binary.LittleEndian.Uint64(data[i:]))
		if seen |= passed; k < 8 {
			return i + k, seen&highs != 0
		}
	}
	for ; i < len(data); i++ {
		c := data[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		seen |= uint64(c)
	}
	return i, seen&highs != 0
}

// wordSpecialHigh is the index in the word x (eight bytes of data,
// little-endian) of its first special byte ('"', '\\' or below 0x20), 8
// when it has none, and the bytes before it (the others zero).
func wordSpecialHigh(x uint64) (k int, passed uint64) {
	if m := specials(x); m != 0 {
		k := bits.TrailingZeros64(m) >> 3
		return k, x & (1<<(8*k) - 1)
	}
	return 8, x
}

// replaceInvalidUTF8 writes each invalid byte as U+FFFD, as encoding/json
// does. (bytes.ToValidUTF8 writes one U+FFFD per run of invalid bytes, which
// made object keys that differ only in their invalid bytes collide: found
// by FuzzJSON, kept as ingest/testdata/fuzz/FuzzJSON/01f290aed3a86001.)
func replaceInvalidUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// HexRune decodes the four hex digits at s[i:], as in a \uXXXX escape;
// ok is false when there are not four hex digits there.
func HexRune[T ~string | ~[]byte](s T, i int) (r rune, ok bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	for j := i; j < i+4; j++ {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
