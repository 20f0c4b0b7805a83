package jsonx

import "strings"

// Field is one member of an object that DecodeObject reads. Name is the
// member's key; exactly one of the destinations is set, and its type says
// what the member may hold.
type Field struct {
	Name string
	// Str takes a string; null leaves it as it is (Unmarshal into a
	// string field does the same).
	Str *string
	// Ptr takes a string, as a new pointer, or null, as nil.
	Ptr **string
	// Raw takes any value, copied (a RawMessage field; null gives the
	// four bytes null, as Unmarshal gives).
	Raw *RawMessage
	// View makes Raw a view of the input instead of a copy, for a member
	// the caller decodes further before the input changes.
	View bool
}

// maxFields is how many fields DecodeObject takes: it marks the ones it
// has seen in one word.
const maxFields = 64

// DecodeObject reads the JSON object that starts at data[pos] (after white
// space) into fields, in one pass: each member is checked and, when it is
// one of the fields, decoded where it lies, without the separate syntax
// pass, reflection and input copy of Unmarshal. end is the index just past
// the object's closing brace.
//
// ok is false for anything it does not read exactly as Unmarshal into a
// struct with these fields (tagged with their names) would: a syntax error
// anywhere in the object, a member of another type than its field takes, a
// field that appears twice, a key with an escape or with bytes outside
// ASCII, or a key that matches a field only when case is folded (Unmarshal
// matches those too). The caller then calls Unmarshal, whose answer or
// error stands; the fields may be partly written. TestDecodeObject and
// FuzzDecodeObject hold it to Unmarshal.
func DecodeObject(data []byte, pos int, fields []Field) (end int, ok bool) {
	if len(fields) > maxFields {
		return 0, false
	}
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data, p.pos = data, pos
	if empty, ok := p.openObject(); !ok || empty {
		return p.pos, ok
	}
	var seen uint64
	for {
		key, escaped, ok := p.memberKey()
		if !ok || escaped {
			return 0, false
		}
		f := -1
		for i := range fields {
			if fields[i].Name == string(key) {
				f = i
				break
			}
		}
		if f < 0 {
			if !unknownKey(key, fields) || p.skip(1) != nil {
				return 0, false
			}
		} else {
			if seen&(1<<f) != 0 {
				return 0, false
			}
			seen |= 1 << f
			if !p.field(&fields[f]) {
				return 0, false
			}
		}
		if more, ok := p.listNext('}'); !ok {
			return 0, false
		} else if !more {
			return p.pos, true
		}
	}
}

// DecodeObjectAll is DecodeObject of all of data: one object with nothing
// but white space around it, as Unmarshal requires.
func DecodeObjectAll(data []byte, fields []Field) bool {
	end, ok := DecodeObject(data, 0, fields)
	return ok && OnlySpace(data[end:])
}

// OnlySpace reports whether data is all JSON white space.
func OnlySpace(data []byte) bool {
	q := parser{data: data}
	return q.atEnd()
}

// unknownKey reports whether key, which names none of fields, can be
// skipped: it is ASCII and no field's name equals it with case folded
// (encoding/json and goccy match names case-insensitively, with Unicode
// folding that only bytes outside ASCII can reach).
func unknownKey(key []byte, fields []Field) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	for i := range fields {
		if len(fields[i].Name) == len(key) && strings.EqualFold(fields[i].Name, string(key)) {
			return false
		}
	}
	return true
}

// field decodes the value at p.pos into f.
func (p *parser) field(f *Field) bool {
	if p.pos >= len(p.data) {
		return false
	}
	c := p.data[p.pos]
	switch {
	case f.Raw != nil:
		start := p.pos
		if p.skip(1) != nil {
			return false
		}
		if f.View {
			*f.Raw = p.data[start:p.pos:p.pos]
		} else {
			*f.Raw = append(RawMessage(nil), p.data[start:p.pos]...)
		}
		return true
	case c == '"':
		s, err := p.str()
		if err != nil {
			return false
		}
		switch {
		case f.Str != nil:
			*f.Str = s
		case f.Ptr != nil:
			*f.Ptr = &s
		default:
			return false
		}
		return true
	case c == 'n':
		if _, err := p.lit("null", Value{}); err != nil {
			return false
		}
		if f.Ptr != nil {
			*f.Ptr = nil
		}
		return true
	}
	return false
}
