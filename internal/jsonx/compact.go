package jsonx

import (
	"bytes"
	"unicode/utf8"
	"unsafe"
)

// AppendCompact appends to buf the compact text of the JSON value that
// starts at data[pos] (after white space), which is depth levels deep in
// the input: the text Parse then Value.String give for it (members in
// source order, no white space, strings as AppendQuoted writes them,
// numbers as they stand), without building the value. It checks the
// value's syntax as it goes, as Valid does, so one pass both checks and
// writes it: a tool result that is a JSON object inside a record is read
// once instead of being checked by one walk and written by another.
//
// end is the index just past the value. ok is false for invalid JSON and
// for a value nested deeper than MaxDepth (counted from depth, as Parse
// counts it), and buf may then hold part of the value. What follows the
// value is not looked at. TestAppendCompact and FuzzAppendCompact hold it
// to Parse and Value.String.
func AppendCompact(buf, data []byte, pos, depth int) (out []byte, end int, ok bool) {
	if pos < 0 || pos > len(data) {
		return buf, 0, false
	}
	p := parser{data: data, pos: pos}
	p.ws()
	buf, ok = p.compact(buf, depth, nil)
	if !ok {
		return buf, 0, false
	}
	return buf, p.pos, true
}

// compact is skip that also writes what it passes, compacted. When top is
// not nil and the value is an object, it notes where its members' values
// are written (the nested values are compacted with top nil).
func (p *parser) compact(buf []byte, depth int, top *memberSpans) ([]byte, bool) {
	if depth > MaxDepth || p.pos >= len(p.data) {
		return buf, false
	}
	switch c := p.data[p.pos]; {
	case c == '"':
		return p.compactString(buf)
	case c == '{' || c == '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		buf = append(buf, c)
		p.pos++
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == close {
			p.pos++
			return append(buf, close), true
		}
		for {
			var ok bool
			if c == '{' {
				p.ws()
				if p.pos >= len(p.data) || p.data[p.pos] != '"' {
					return buf, false
				}
				keyStart := len(buf)
				if buf, ok = p.compactString(buf); !ok {
					return buf, false
				}
				p.ws()
				if p.pos >= len(p.data) || p.data[p.pos] != ':' {
					return buf, false
				}
				p.pos++
				buf = append(buf, ':')
				if top != nil {
					top.key(buf[keyStart+1 : len(buf)-2])
				}
			}
			p.ws()
			valueStart := len(buf)
			if buf, ok = p.compact(buf, depth+1, nil); !ok {
				return buf, false
			}
			if top != nil && top.current >= 0 {
				top.spans[top.current] = [2]int{valueStart, len(buf)}
			}
			p.ws()
			if p.pos >= len(p.data) {
				return buf, false
			}
			switch p.data[p.pos] {
			case ',':
				p.pos++
				buf = append(buf, ',')
			case close:
				p.pos++
				return append(buf, close), true
			default:
				return buf, false
			}
		}
	case c == 't' || c == 'f' || c == 'n':
		word := "null"
		if c == 't' {
			word = "true"
		} else if c == 'f' {
			word = "false"
		}
		if _, err := p.lit(word, Value{}); err != nil {
			return buf, false
		}
		return append(buf, word...), true
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		if p.scanNumber() != nil {
			return buf, false
		}
		return append(buf, p.data[start:p.pos]...), true
	}
	return buf, false
}

// memberSpans is what compact notes of an object's members for
// CompactStringMembers: spans[i] is where the value of the first member
// named keys[i] was written, {0, 0} until one is.
type memberSpans struct {
	keys    []string
	spans   [maxMemberKeys][2]int
	current int // the index in keys of the member being written, or -1
}

// maxMemberKeys bounds the keys CompactStringMembers looks for: its notes
// stay on the stack.
const maxMemberKeys = 8

// key notes that the member being written has the key k, as written (its
// text between the quotes): the first member of each name counts, and a
// key written with an escape matches none, as in TopLevelFields.
func (m *memberSpans) key(k []byte) {
	m.current = -1
	for i, want := range m.keys {
		if string(k) == want {
			if m.spans[i][1] == 0 && bytes.IndexByte(k, '\\') < 0 {
				m.current = i
			}
			return
		}
	}
}

// compactString checks the JSON string at p.pos and appends it as
// AppendQuoted writes its value. Most strings already are written that
// way (valid UTF-8, only the escapes AppendQuoted uses) and are copied as
// they stand, in the same pass that checks them; any other is decoded and
// quoted again.
func (p *parser) compactString(buf []byte) ([]byte, bool) {
	data := p.data
	start := p.pos
	i := start + 1
	asQuoted, high := true, false
	for {
		j, h := nextSpecialHigh(data, i)
		high = high || h
		if j >= len(data) || data[j] < 0x20 {
			return buf, false // unterminated, or a control character
		}
		if data[j] == '"' {
			i = j
			break
		}
		// A backslash.
		if j+1 >= len(data) {
			return buf, false
		}
		switch data[j+1] {
		case '"', '\\', 'n', 'r', 't', 'b', 'f':
			i = j + 2
		case '/':
			asQuoted = false // AppendQuoted writes a plain slash
			i = j + 2
		case 'u':
			r, ok := HexRune(data, j+2)
			if !ok {
				return buf, false
			}
			// AppendQuoted writes \u00xx, in lower case, only for the
			// control characters without a two-byte escape.
			if r >= 0x20 || shortEscapes[r] != 0 || upperHex(data[j+2:j+6]) {
				asQuoted = false
			}
			i = j + 6
		default:
			return buf, false
		}
	}
	end := i + 1 // just past the closing quote
	if asQuoted && (!high || utf8.Valid(data[start:end])) {
		p.pos = end
		return append(buf, data[start:end]...), true
	}
	s, err := p.str() // from start: p.pos is still there
	if err != nil {
		return buf, false
	}
	return AppendQuoted(buf, s), true
}

// upperHex reports whether the hex digits h hold an upper-case letter.
func upperHex(h []byte) bool {
	for _, c := range h {
		if c >= 'A' && c <= 'F' {
			return true
		}
	}
	return false
}

// CompactString is AppendCompact into a new string. The text is written
// into a buffer the size of the rest of data, which a compact value
// rarely outgrows (only invalid UTF-8, written as U+FFFD, takes more room
// than it had), and the string is that buffer itself rather than a copy,
// unless white space or members after the value left more than a quarter
// of it unused: a result kept for the session's life does not hold much
// more memory than its text.
func CompactString(data []byte, pos, depth int) (s string, end int, ok bool) {
	if pos < 0 || pos > len(data) {
		return "", 0, false
	}
	buf, end, ok := AppendCompact(make([]byte, 0, len(data)-pos), data, pos, depth)
	if !ok {
		return "", 0, false
	}
	return compactResult(buf), end, true
}

// compactResult is the string of CompactString's buffer: the buffer itself,
// or a copy when more than a quarter of it is unused.
func compactResult(buf []byte) string {
	if cap(buf)-len(buf) > len(buf)/4+64 {
		return string(buf)
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// CompactStringMembers is CompactString that also gives, when the value is
// an object, the compact text of its first top-level member named keys[i]
// in raw[i] ("" for none): what TopLevelFields(s, keys...) returns, noted
// as the members are written instead of found by a second walk of the
// text. A caller that keeps a JSON object result and reads a few of its
// members later (the replay's failure and guard-note members) reads them
// for nothing. raw must be as long as keys, and keys at most
// maxMemberKeys; raw is not touched when ok is false.
func CompactStringMembers(data []byte, pos, depth int, keys, raw []string) (s string, end int, ok bool) {
	if pos < 0 || pos > len(data) || len(keys) > maxMemberKeys || len(raw) != len(keys) {
		return "", 0, false
	}
	top := memberSpans{keys: keys, current: -1}
	p := parser{data: data, pos: pos}
	p.ws()
	buf, ok := p.compact(make([]byte, 0, len(data)-p.pos), depth, &top)
	if !ok {
		return "", 0, false
	}
	s = compactResult(buf)
	for i := range keys {
		raw[i] = s[top.spans[i][0]:top.spans[i][1]]
	}
	return s, p.pos, true
}
