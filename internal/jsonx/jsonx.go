// Package jsonx is loopgate's single point of JSON handling: an order-preserving
// value tree for tool-call arguments (guards key on argument order or on sorted
// keys, so the order the model wrote must survive parsing), canonical encodings
// of that tree, and the struct decoder the ingesters use. Keeping the decoder
// behind one package lets us swap the implementation after measuring it
// (docs/performance.md) without touching every ingester.
package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"
)

// RawMessage is a raw encoded JSON value kept for later decoding.
type RawMessage = json.RawMessage

// Unmarshal decodes data into v (a struct the ingesters define narrowly).
func Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// Marshal encodes v without HTML escaping.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Valid reports whether data is one valid JSON value.
func Valid(data []byte) bool { return json.Valid(data) }

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
	p := parser{data: data}
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

// ParseString is Parse for a string.
func ParseString(s string) (Value, error) { return Parse([]byte(s)) }

type parser struct {
	data []byte
	pos  int
}

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
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if digits() == 0 {
		return Value{}, p.errf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return Value{}, p.errf("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return Value{}, p.errf("invalid number")
		}
	}
	return Value{Kind: Number, Str: string(p.data[start:p.pos])}, nil
}

func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	simple := true
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if simple && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.errf("invalid string: %v", err)
			}
			return s, nil
		case c == '\\':
			simple = false
			p.pos += 2
		case c < 0x20:
			return "", p.errf("control character in string")
		default:
			p.pos++
		}
	}
	return "", p.errf("unterminated string")
}

func (p *parser) array(depth int) (Value, error) {
	p.pos++
	v := Value{Kind: Array, Arr: []Value{}}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.ws()
		e, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.Arr = append(v.Arr, e)
		p.ws()
		if p.pos >= len(p.data) {
			return Value{}, p.errf("unterminated array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return Value{}, p.errf("expected , or ] in array")
		}
	}
}

func (p *parser) object(depth int) (Value, error) {
	p.pos++
	v := Value{Kind: Object, Obj: []Member{}}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.errf("expected a key string")
		}
		k, err := p.str()
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
		v.Obj = append(v.Obj, Member{Key: k, Val: e})
		p.ws()
		if p.pos >= len(p.data) {
			return Value{}, p.errf("unterminated object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
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
		members := v.Obj
		if style == Sorted || (style == SortedTop && depth == 0) {
			members = append([]Member(nil), members...)
			sort.SliceStable(members, func(i, j int) bool { return members[i].Key < members[j].Key })
		}
		buf = append(buf, '{')
		for i, m := range members {
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

const hexDigits = "0123456789abcdef"

// AppendQuoted appends s as a JSON string literal, escaping like JSON.stringify.
// Invalid UTF-8 bytes are written as U+FFFD so the output is always valid JSON.
func AppendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				buf = append(buf, '\\', '"')
			case '\\':
				buf = append(buf, '\\', '\\')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			default:
				if c < 0x20 {
					buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				} else {
					buf = append(buf, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, "\ufffd"...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// Quote returns s as a JSON string literal.
func Quote(s string) string { return string(AppendQuoted(nil, s)) }
