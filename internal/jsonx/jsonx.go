// Package jsonx is loopgate's single point of JSON handling: an order-preserving
// value tree for tool-call arguments (guards key on argument order or on sorted
// keys, so the order the model wrote must survive parsing), canonical encodings
// of that tree, the module's one JSON string quoter, and the decoders the
// ingesters use: one-pass decoding of records where they lie (decode.go), and
// the generic struct decoder behind Unmarshal for what those decline. Keeping
// the decoders behind one package lets us swap the implementation after
// measuring it without touching every ingester. It imports the standard
// library, goccy/go-json and golang.org/x/sys/cpu (whether the processor
// has AVX2) only.
//
// Files: jsonx.go (Unmarshal, Valid, member scans), parser.go (the shared
// lexer), value.go (the value tree), encode.go (encodings and the quoter,
// AppendQuoted), decode.go and cursor.go (one-pass decoding),
// compact.go, split.go, str.go, pynum.go (Python's number forms),
// special_amd64.s (long strings scanned 32 bytes at a time).
package jsonx

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"

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
	// Most keys are plain and end within two words: their closing quote
	// is found here, without scanString's loop over escapes.
	kend := -1
	if i := p.pos + 1; i+16 <= len(p.data) {
		if m := specials(binary.LittleEndian.Uint64(p.data[i:])); m != 0 {
			kend = i + bits.TrailingZeros64(m)>>3
		} else if m := specials(binary.LittleEndian.Uint64(p.data[i+8:])); m != 0 {
			kend = i + 8 + bits.TrailingZeros64(m)>>3
		}
		if kend >= 0 && p.data[kend] != '"' {
			kend = -1 // an escape or a control byte: scanString says which
		}
	}
	if kend < 0 {
		var err error
		if kend, escaped, err = scanString(p.data, p.pos+1); err != nil {
			return nil, false, false
		}
	}
	key = p.data[p.pos+1 : kend]
	p.pos = kend + 1
	if !p.colon() {
		return nil, false, false
	}
	return key, escaped, true
}

// keyGuessed returns the guess of g (nil: none) that the next member
// (after white space) begins with, its key and colon, and moves p to the
// member's value; nil, when none is. A guess is a key memberKey read
// without escapes, so the same bytes are that key; a key written with
// white space before its colon is not guessed.
func (p *parser) keyGuessed(g *guesses) *keySeen {
	if g == nil {
		return nil
	}
	p.ws()
	for i := range g {
		if k := g[i].Load(); k != nil {
			if end, ok := k.writtenAt(p.data, p.pos); ok {
				p.pos = end
				p.ws()
				return k
			}
		}
	}
	return nil
}

// colon moves past the colon after a member's key and the white space
// around it, leaving p at the value.
func (p *parser) colon() bool {
	p.ws()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return false
	}
	p.pos++
	p.ws()
	return true
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
