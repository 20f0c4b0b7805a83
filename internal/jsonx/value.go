// The value tree: Parse builds it, keeping object members in source
// order, and its accessors read it.

package jsonx

import (
	"errors"
	"slices"
)

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

func (p *parser) parse() (Value, error) { return p.parseAt(0) }

// parseAt parses the whole of p's data as a value found at depth (0: a
// document's top level).
func (p *parser) parseAt(depth int) (Value, error) {
	p.ws()
	v, err := p.value(depth)
	if err != nil {
		return Value{}, err
	}
	p.ws()
	if p.pos != len(p.data) {
		return Value{}, p.errf("unexpected data after the value")
	}
	return v, nil
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
