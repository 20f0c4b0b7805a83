package jsonx

import (
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
	buf, ok = p.compact(buf, depth)
	if !ok {
		return buf, 0, false
	}
	return buf, p.pos, true
}

// compact is skip that also writes what it passes, compacted.
func (p *parser) compact(buf []byte, depth int) ([]byte, bool) {
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
				if buf, ok = p.compactString(buf); !ok {
					return buf, false
				}
				p.ws()
				if p.pos >= len(p.data) || p.data[p.pos] != ':' {
					return buf, false
				}
				p.pos++
				buf = append(buf, ':')
			}
			p.ws()
			if buf, ok = p.compact(buf, depth+1); !ok {
				return buf, false
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
	if cap(buf)-len(buf) > len(buf)/4+64 {
		return string(buf), end, true
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf)), end, true
}
