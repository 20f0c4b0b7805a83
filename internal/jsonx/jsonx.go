// Package jsonx is loopgate's single point of JSON handling: an order-preserving
// value tree for tool-call arguments (guards key on argument order or on sorted
// keys, so the order the model wrote must survive parsing), canonical encodings
// of that tree, and the struct decoder the ingesters use. Keeping the decoder
// behind one package lets us swap the implementation after measuring it
// (docs/performance.md) without touching every ingester.
package jsonx

import (
	"encoding/binary"
	"encoding/json"

	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	gojson "github.com/goccy/go-json"
)

// RawMessage is a raw encoded JSON value kept for later decoding.
type RawMessage = json.RawMessage

// Unmarshal decodes data into v (a struct the ingesters define narrowly).
// A string target takes DecodeString's path when it can: the decoder would
// first copy all of data, and strings are where a transcript's bytes are.
func Unmarshal(data []byte, v any) error {
	if sp, ok := v.(*string); ok {
		if s, ok := DecodeString(data); ok {
			*sp = s
			return nil
		}
	}
	return gojson.Unmarshal(data, v)
}

// Valid reports whether data is one valid JSON value. It allocates nothing:
// detection and ingest call it on every line.
func Valid(data []byte) bool {
	p := parser{data: data}
	p.ws()
	if p.skip(0) != nil {
		return false
	}
	p.ws()
	return p.pos == len(p.data)
}

// skip moves past one value, checking its syntax, building nothing.
func (p *parser) skip(depth int) error {
	if depth > MaxDepth {
		return ErrTooDeep
	}
	if p.pos >= len(p.data) {
		return p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '"':
		end, _, err := scanString(p.data, p.pos+1)
		if err != nil {
			return err
		}
		p.pos = end + 1
		return nil
	case c == '{' || c == '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		p.pos++
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == close {
			p.pos++
			return nil
		}
		for {
			p.ws()
			if c == '{' {
				if p.pos >= len(p.data) || p.data[p.pos] != '"' {
					return p.errf("expected a key string")
				}
				end, _, err := scanString(p.data, p.pos+1)
				if err != nil {
					return err
				}
				p.pos = end + 1
				p.ws()
				if p.pos >= len(p.data) || p.data[p.pos] != ':' {
					return p.errf("expected : after key")
				}
				p.pos++
				p.ws()
			}
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			p.ws()
			if p.pos >= len(p.data) {
				return p.errf("unterminated value")
			}
			switch p.data[p.pos] {
			case ',':
				p.pos++
			case close:
				p.pos++
				return nil
			default:
				return p.errf("expected , or %c", close)
			}
		}
	case c == 't':
		_, err := p.lit("true", Value{})
		return err
	case c == 'f':
		_, err := p.lit("false", Value{})
		return err
	case c == 'n':
		_, err := p.lit("null", Value{})
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.scanNumber()
	}
	return p.errf("invalid character %q", p.data[p.pos])
}

// Members calls fn with each member of the JSON object that starts data
// (after white space), in order, while fn returns true: the key as it
// stands between its quotes (escaped tells whether it holds escapes, which
// are left undecoded) and the raw value, both views of data (the value's
// capacity runs to the end of data, so its offset in data is
// cap(data)-cap(val); append to a copy, not to it). Values are
// checked as they are skipped; nothing is built or copied. complete is
// true when the object was read to its closing brace, then at end, the
// index just past it; a syntax error, or fn returning false, stops the
// walk where it is, with complete false. What follows the object is not
// looked at.
func Members(data []byte, fn func(key []byte, escaped bool, val []byte) bool) (end int, complete bool) {
	p := parser{data: data}
	if empty, ok := p.openObject(); !ok {
		return 0, false
	} else if empty {
		return p.pos, true
	}
	for {
		key, escaped, ok := p.memberKey()
		if !ok {
			return 0, false
		}
		start := p.pos
		if p.skip(1) != nil {
			return 0, false
		}
		if !fn(key, escaped, p.data[start:p.pos]) {
			return 0, false
		}
		if more, ok := p.listNext('}'); !ok {
			return 0, false
		} else if !more {
			return p.pos, true
		}
	}
}

// openObject moves past the opening brace of an object (after white
// space), and past its closing one too when it is empty.
func (p *parser) openObject() (empty, ok bool) { return p.open('{', '}') }

// open is openObject for an object or, with '[' and ']', an array.
func (p *parser) open(open, close byte) (empty, ok bool) {
	p.ws()
	if p.pos >= len(p.data) || p.data[p.pos] != open {
		return false, false
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == close {
		p.pos++
		return true, true
	}
	return false, true
}

// memberKey reads a member's key and the colon after it, leaving p at
// the value. key is the key's raw content, escapes and all.
func (p *parser) memberKey() (key []byte, escaped, ok bool) {
	p.ws()
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return nil, false, false
	}
	kend, escaped, err := scanString(p.data, p.pos+1)
	if err != nil {
		return nil, false, false
	}
	key = p.data[p.pos+1 : kend]
	p.pos = kend + 1
	p.ws()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return nil, false, false
	}
	p.pos++
	p.ws()
	return key, escaped, true
}

// ReadOnlyBytes returns the bytes of s without copying them, for the
// functions of this package that take bytes and only read them (Valid,
// Parse, Members, TopLevel): a multi-megabyte result is not duplicated to
// be looked at. The bytes must never be written to.
func ReadOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// TopLevelFields reads several members of a JSON object in one pass over
// its top level, without copying s or building values: raw[i] is the raw
// JSON of keys[i] ("" when absent), the first member of that name. It
// stops at the first syntax error, keeping what it found before it, and
// finds nothing in text that is not an object. A key with escapes matches
// no name.
func TopLevelFields(s string, keys ...string) []string {
	raw := make([]string, len(keys))
	Members(ReadOnlyBytes(s), func(k []byte, escaped bool, val []byte) bool {
		if !escaped {
			for i, want := range keys {
				if string(k) == want && raw[i] == "" {
					// val is a view of s: its string is a substring, no copy.
					raw[i] = unsafe.String(unsafe.SliceData(val), len(val))
				}
			}
		}
		return true
	})
	return raw
}

// TopLevel returns the raw value of member key of the JSON object in data,
// looking only at the top level and building nothing: a cheap way to read
// one field of a large result. It stops at the first member of that name
// (a key with escapes matches none) or at the first syntax error.
func TopLevel(data []byte, key string) (val []byte, ok bool) {
	Members(data, func(k []byte, escaped bool, v []byte) bool {
		if !escaped && string(k) == key {
			val, ok = v, true
			return false
		}
		return true
	})
	return val, ok
}

// Kind is the type of a JSON value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "bool", "number", "string", "array", "object"}[k]
}

// Value is a parsed JSON value. Objects keep their members in source order.
type Value struct {
	Kind Kind
	// Str holds a string's decoded text, or a number's literal text.
	Str  string
	Bool bool
	Arr  []Value
	Obj  []Member
}

// Member is one key/value pair of an object.
type Member struct {
	Key string
	Val Value
}

// MaxDepth bounds nesting so that hostile input cannot exhaust the stack.
const MaxDepth = 512

// ErrTooDeep is returned for values nested deeper than MaxDepth.
var ErrTooDeep = errors.New("JSON nested too deeply")

// Parse parses exactly one JSON value (surrounding white space allowed).
func Parse(data []byte) (Value, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data = data
	return p.parse()
}

// ParseString is Parse for a string.
func ParseString(s string) (Value, error) {
	// The parser only reads its input and copies every string it returns,
	// so s is read in place rather than copied.
	return Parse(ReadOnlyBytes(s))
}

// ParseStringShared is ParseString except that the strings of the value
// (string contents without escapes, number literals) may be substrings of
// s rather than copies, saving an allocation each. Use it when s is kept
// anyway as long as the value (a call's raw argument text next to its
// parsed arguments): any one string kept from the value keeps all of s in
// memory.
func ParseStringShared(s string) (Value, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data = ReadOnlyBytes(s)
	p.src = s
	return p.parse()
}

func (p *parser) parse() (Value, error) {
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.ws()
	if p.pos != len(p.data) {
		return Value{}, p.errf("unexpected data after the value")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
	// src is data as a string when the caller allows the parsed strings
	// to be substrings of it (ParseStringShared), else "".
	src string

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
	// costs no allocation: see key.
	keys [256]string
}

var parserPool = sync.Pool{New: func() any { return new(parser) }}

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
	// nanobot sessions, issue 7). A few parsers are pooled (about one per
	// worker), so this bounds what the pool keeps to a few times 4 MiB.
	maxPooledBuf   = 4 << 20
	maxPooledStack = 1024
)

func (p *parser) errf(format string, a ...any) error {
	return fmt.Errorf("offset %d: %s", p.pos, fmt.Sprintf(format, a...))
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
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
		// Issue 8 (found by FuzzJSON in ingest): "012" was accepted; JSON
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
// converted once.
func (p *parser) str() (string, error) {
	start := p.pos + 1 // after the opening quote
	i, high := nextSpecialHigh(p.data, start)
	if i < len(p.data) && p.data[i] == '"' {
		raw := p.data[start:i]
		p.pos = i + 1
		if !high || utf8.Valid(raw) {
			if p.src != "" {
				return p.src[start:i], nil
			}
			return string(raw), nil
		}
		return string(replaceInvalidUTF8(raw)), nil
	}
	// An escape, or an error: the errors and their offsets are those of
	// scanString, which Valid uses.
	buf := append(p.buf[:0], p.data[start:i]...)
	data := p.data
	// seen is the plain bytes copied, OR-ed together: its high bits say
	// whether any was outside ASCII (the first run's, from high).
	var seen uint64
	if high {
		seen = highs
	}
	for {
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
			p.pos = i + 1
			// What the escapes wrote is valid UTF-8 (utf8.AppendRune), so
			// only plain runs with bytes outside ASCII need the check.
			if seen&highs != 0 && !utf8.Valid(buf) {
				buf = replaceInvalidUTF8(buf)
			}
			p.buf = buf[:0]
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
	if end >= len(p.data) || p.data[end] != '"' || end-start > maxCachedKey {
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
// was 4–5% of a replay's instructions). The word it stops in counts only
// below the byte it stops at.
func nextSpecialHigh(data []byte, i int) (end int, high bool) {
	var seen uint64
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		if m := specials(x); m != 0 {
			k := bits.TrailingZeros64(m) >> 3
			seen |= x & (1<<(8*k) - 1)
			return i + k, seen&highs != 0
		}
		seen |= x
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

func (p *parser) array(depth int) (Value, error) {
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return Value{Kind: Array, Arr: []Value{}}, nil
	}
	base := len(p.elems) // this array's elements are p.elems[base:]
	for {
		p.ws()
		e, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.elems = append(p.elems, e)
		p.ws()
		if p.pos >= len(p.data) {
			return Value{}, p.errf("unterminated array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			arr := slices.Clone(p.elems[base:])
			clear(p.elems[base:])
			p.elems = p.elems[:base]
			return Value{Kind: Array, Arr: arr}, nil
		default:
			return Value{}, p.errf("expected , or ] in array")
		}
	}
}

func (p *parser) object(depth int) (Value, error) {
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return Value{Kind: Object, Obj: []Member{}}, nil
	}
	base := len(p.members) // this object's members are p.members[base:]
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.errf("expected a key string")
		}
		k, err := p.key()
		if err != nil {
			return Value{}, err
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.errf("expected : after key")
		}
		p.pos++
		p.ws()
		e, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.members = append(p.members, Member{Key: k, Val: e})
		p.ws()
		if p.pos >= len(p.data) {
			return Value{}, p.errf("unterminated object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			obj := slices.Clone(p.members[base:])
			clear(p.members[base:])
			p.members = p.members[:base]
			return Value{Kind: Object, Obj: obj}, nil
		default:
			return Value{}, p.errf("expected , or } in object")
		}
	}
}

// Get returns the value of the first member named key.
func (v Value) Get(key string) (Value, bool) {
	if v.Kind != Object {
		return Value{}, false
	}
	for _, m := range v.Obj {
		if m.Key == key {
			return m.Val, true
		}
	}
	return Value{}, false
}

// GetString returns the member key when it is a string.
func (v Value) GetString(key string) (string, bool) {
	m, ok := v.Get(key)
	if !ok || m.Kind != String {
		return "", false
	}
	return m.Str, true
}

// Text returns a scalar's text the way Python's str() would show it for keys
// built from a scalar argument: strings as is, numbers as written, booleans and
// null as JSON literals; composite values as compact JSON.
func (v Value) Text() string {
	switch v.Kind {
	case String, Number:
		return v.Str
	case Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case Null:
		return "null"
	}
	return string(v.Append(nil, Compact))
}

// Style selects how Append encodes a value.
type Style uint8

const (
	// Compact keeps members in source order, like JSON.stringify.
	Compact Style = iota
	// Sorted sorts object keys at every level, like Python's
	// json.dumps(sort_keys=True, separators=(",", ":")).
	Sorted
	// SortedTop sorts only the top-level keys (pi-tools-loop-guard's callKey).
	SortedTop
)

// Append appends the compact encoding of v in the given style. Strings are
// escaped as JSON.stringify does: only '"', '\\' and control characters; no
// HTML escaping, non-ASCII written raw.
func (v Value) Append(buf []byte, style Style) []byte {
	return v.appendDepth(buf, style, 0)
}

// String returns the compact, source-ordered encoding.
func (v Value) String() string { return string(v.Append(nil, Compact)) }

func (v Value) appendDepth(buf []byte, style Style, depth int) []byte {
	switch v.Kind {
	case Null:
		return append(buf, "null"...)
	case Bool:
		if v.Bool {
			return append(buf, "true"...)
		}
		return append(buf, "false"...)
	case Number:
		return append(buf, v.Str...)
	case String:
		return AppendQuoted(buf, v.Str)
	case Array:
		buf = append(buf, '[')
		for i, e := range v.Arr {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = e.appendDepth(buf, style, depth+1)
		}
		return append(buf, ']')
	case Object:
		if (style == Sorted || (style == SortedTop && depth == 0)) && !KeysSorted(v.Obj) {
			return appendSortedObject(buf, v.Obj, style, depth)
		}
		buf = append(buf, '{')
		for i, m := range v.Obj {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendQuoted(buf, m.Key)
			buf = append(buf, ':')
			buf = m.Val.appendDepth(buf, style, depth+1)
		}
		return append(buf, '}')
	}
	return buf
}

// KeysSorted reports whether members are already in key order, as they
// often are (then Append need not sort them).
func KeysSorted(members []Member) bool {
	for i := 1; i < len(members); i++ {
		if members[i].Key < members[i-1].Key {
			return false
		}
	}
	return true
}

// appendSortedObject appends an object with its members stably sorted by
// key (repeated keys keep their source order). It sorts indexes, in a
// small array on the stack for the usual small object, not the members.
func appendSortedObject(buf []byte, members []Member, style Style, depth int) []byte {
	var small [32]int32
	order := small[:0]
	if len(members) > len(small) {
		order = make([]int32, 0, len(members))
	}
	for i := range members {
		order = append(order, int32(i))
	}
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(members[a].Key, members[b].Key) })
	buf = append(buf, '{')
	for i, j := range order {
		if i > 0 {
			buf = append(buf, ',')
		}
		m := &members[j]
		buf = AppendQuoted(buf, m.Key)
		buf = append(buf, ':')
		buf = m.Val.appendDepth(buf, style, depth+1)
	}
	return append(buf, '}')
}

const hexDigits = "0123456789abcdef"

// AppendQuoted appends s as a JSON string literal, escaping like JSON.stringify.
// Invalid UTF-8 bytes are written as U+FFFD so the output is always valid JSON.
// Runs of bytes written as they are (almost all of most strings) are
// appended in one go.
func AppendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	data := ReadOnlyBytes(s) // for the eight-bytes-at-a-time scan
	start := 0               // start of the run not yet appended
	for i := 0; ; {
		i = nextQuoteSpecial(data, i)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, "\ufffd"...)
				start = i + 1
			}
			i += size // valid UTF-8 stays in the run
			continue
		}
		buf = append(buf, s[start:i]...)
		if e := shortEscapes[c]; e != 0 {
			buf = append(buf, '\\', e)
		} else { // another control character
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// nextQuoteSpecial is nextSpecial for AppendQuoted: it also stops at
// non-ASCII bytes (bit 7 set), whose UTF-8 must be checked.
func nextQuoteSpecial(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		// specials, plus every byte with its high bit set: the mask by x
		// that specials applies would only clear flags that x sets again.
		x := binary.LittleEndian.Uint64(data[i:])
		if m := (belowOne(x) | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// shortEscapes is the two-byte escape of each byte AppendQuoted escapes
// so (the letter after the backslash), 0 for the control characters
// written as \u00XX.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f'}

// Quote returns s as a JSON string literal.
func Quote(s string) string { return string(AppendQuoted(nil, s)) }
