package jsonx

import "unicode/utf8"

// SplitArray returns the elements of the JSON array in data as subslices of
// data: what Unmarshal into a []RawMessage gives, without copying a byte.
// The elements alias data, so the caller must not change or reuse data
// while it holds them. ok is false when data is not one array with plain
// JSON elements (anything SplitArray does not read exactly as Unmarshal
// does): the caller then calls Unmarshal, which gives the same answer as
// before, or its error. JSON null gives nil, ok, as Unmarshal does.
func SplitArray(data []byte) (elems []RawMessage, ok bool) {
	p := parser{data: data}
	p.ws()
	if isNull(&p) {
		return nil, true
	}
	if p.pos >= len(p.data) || p.data[p.pos] != '[' {
		return nil, false
	}
	p.pos++
	p.ws()
	elems = []RawMessage{}
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return elems, p.atEnd()
	}
	for {
		p.ws()
		start := p.pos
		if p.skip(1) != nil {
			return nil, false
		}
		elems = append(elems, RawMessage(p.data[start:p.pos:p.pos]))
		if more, ok := p.listNext(']'); !ok {
			return nil, false
		} else if !more {
			return elems, p.atEnd()
		}
	}
}

// SplitObject returns the members of the JSON object in data, each value a
// subslice of data: what Unmarshal into a map[string]RawMessage gives
// (the last of repeated keys wins), without copying the values. As with
// SplitArray the values alias data, and ok false sends the caller to
// Unmarshal; a key with an escape is one such case, since decoding it is
// left to Unmarshal's own rules, and so is a key with invalid UTF-8.
func SplitObject(data []byte) (members map[string]RawMessage, ok bool) {
	p := parser{data: data}
	p.ws()
	if isNull(&p) {
		return nil, true
	}
	members = map[string]RawMessage{}
	sure := true
	end, complete := Members(data, func(key []byte, escaped bool, val []byte) bool {
		if escaped || !utf8.Valid(key) { // Unmarshal makes bad bytes U+FFFD
			sure = false
			return false
		}
		members[string(key)] = RawMessage(val[:len(val):len(val)])
		return true
	})
	if !sure || !complete {
		return nil, false
	}
	q := parser{data: data, pos: end}
	return members, q.atEnd()
}

// isNull moves past a JSON null that is all of the rest of p's data.
func isNull(p *parser) bool {
	rest := p.data[p.pos:]
	if len(rest) < 4 || string(rest[:4]) != "null" {
		return false
	}
	q := parser{data: rest, pos: 4}
	q.ws()
	return q.pos == len(rest)
}

// listNext moves past what follows an element of an array or object: a
// comma (more) or the closing byte (not more); ok is false for anything
// else.
func (p *parser) listNext(close byte) (more, ok bool) {
	p.ws()
	if p.pos >= len(p.data) {
		return false, false
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return true, true
	case close:
		p.pos++
		return false, true
	}
	return false, false
}

// atEnd reports whether only white space is left.
func (p *parser) atEnd() bool {
	p.ws()
	return p.pos == len(p.data)
}
