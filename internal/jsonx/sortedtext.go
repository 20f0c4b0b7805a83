package jsonx

import (
	"bytes"
	"slices"
	"strings"
)

// AppendStyled appends what Value.Append(style) writes for the value of
// text, which must be that value written compact (Value.String, or
// CompactString): the members of the objects the style sorts are moved
// into key order as they stand in text, and everything else is copied,
// where Append would quote every string again. A replay keys each call on
// its sorted arguments (analyze/guard's appendCallKeyWith), and a call that writes a
// file carries the file in them.
//
// The text is trusted, not checked: its strings are skipped to their
// closing quotes, as fast as the parser finds them. ok is false, with buf
// as it was, when a key the style would sort holds an escape (key order is
// that of the unescaped keys: the caller then writes the parsed value), or
// when the text is seen not to be one compact value. Any other text that
// is not a compact value gives bytes other than Append's, but never a
// panic: callers pass only the texts they wrote compact.
//
// keep, when not nil, is asked about the key of each member of text when
// text is an object, and AppendStyled declines (ok false) when it returns
// false for one: a caller whose key leaves some arguments out writes such
// a call from its parsed value instead.
func AppendStyled(buf []byte, text string, style Style, keep func(key string) bool) (_ []byte, ok bool) {
	w := styledWriter{text: text, data: ReadOnlyBytes(text), style: style, keep: keep}
	out, end, ok := w.value(buf, 0, 0)
	if !ok || end != len(text) {
		return buf, false
	}
	return out, true
}

// styledWriter is AppendStyled's walk over its text.
type styledWriter struct {
	text  string
	data  []byte // text's bytes, for the parser's scans
	style Style
	keep  func(key string) bool // asked about the top-level keys
}

// memberSpan is an object member in the text: its key (without its
// quotes, which hold no escape), and its value from start to end.
type memberSpan struct {
	key        string
	start, end int
}

// value appends the value at pos (at depth) and returns where it ends.
func (w *styledWriter) value(buf []byte, pos, depth int) ([]byte, int, bool) {
	if pos >= len(w.data) || depth > MaxDepth {
		return buf, 0, false
	}
	switch w.data[pos] {
	case '{':
		if w.sorts(depth) || (depth == 0 && w.keep != nil) {
			return w.object(buf, pos, depth)
		}
	case '[':
		if w.style == Sorted {
			return w.array(buf, pos, depth)
		}
	}
	end := skipCompact(w.data, pos)
	return append(buf, w.data[pos:end]...), end, true
}

// array appends the array at pos, each element in style.
func (w *styledWriter) array(buf []byte, pos, depth int) ([]byte, int, bool) {
	buf = append(buf, '[')
	pos++
	if pos < len(w.data) && w.data[pos] == ']' {
		return append(buf, ']'), pos + 1, true
	}
	for {
		var ok bool
		if buf, pos, ok = w.value(buf, pos, depth+1); !ok || pos >= len(w.data) {
			return buf, 0, false
		}
		switch w.data[pos] {
		case ',':
			buf = append(buf, ',')
			pos++
		case ']':
			return append(buf, ']'), pos + 1, true
		default:
			return buf, 0, false
		}
	}
}

// sorts reports whether the style sorts the members of objects at depth.
func (w *styledWriter) sorts(depth int) bool {
	return w.style == Sorted || (w.style == SortedTop && depth == 0)
}

// object appends the object at pos with its members stably sorted by key,
// as appendSortedObject orders them, when the style sorts them there; it
// asks keep about the keys of the top-level object.
func (w *styledWriter) object(buf []byte, pos, depth int) ([]byte, int, bool) {
	var small [16]memberSpan
	members := small[:0]
	pos++
	if pos < len(w.data) && w.data[pos] == '}' {
		return append(buf, '{', '}'), pos + 1, true
	}
	for {
		if pos >= len(w.data) || w.data[pos] != '"' {
			return buf, 0, false
		}
		end := nextSpecial(w.data, pos+1)
		if end >= len(w.data) || w.data[end] != '"' {
			return buf, 0, false // an escape (or no end) in the key
		}
		key := w.text[pos+1 : end]
		if depth == 0 && w.keep != nil && !w.keep(key) {
			return buf, 0, false
		}
		pos = end + 1
		if pos >= len(w.data) || w.data[pos] != ':' {
			return buf, 0, false
		}
		start := pos + 1
		if pos = skipCompact(w.data, start); pos >= len(w.data) || pos == start {
			return buf, 0, false
		}
		members = append(members, memberSpan{key, start, pos})
		if w.data[pos] == '}' {
			pos++
			break
		}
		if w.data[pos] != ',' {
			return buf, 0, false
		}
		pos++
	}
	if w.sorts(depth) && !slices.IsSortedFunc(members, compareMemberKeys) {
		slices.SortStableFunc(members, compareMemberKeys)
	}
	buf = append(buf, '{')
	for i, m := range members {
		if i > 0 {
			buf = append(buf, ',')
		}
		// A key without escapes is written as it stands.
		buf = append(append(append(buf, '"'), m.key...), '"', ':')
		if c := w.data[m.start]; w.style == Sorted && (c == '{' || c == '[') {
			var ok bool
			if buf, _, ok = w.value(buf, m.start, depth+1); !ok {
				return buf, 0, false
			}
			continue
		}
		buf = append(buf, w.data[m.start:m.end]...)
	}
	return append(buf, '}'), pos, true
}

func compareMemberKeys(a, b memberSpan) int { return strings.Compare(a.key, b.key) }

// skipCompact returns where the value at pos ends in a compact text: a
// string at its closing quote, a container at its closing bracket, a
// number or literal at the ',', '}' or ']' after it; len(data) when the
// text ends first. Nothing is checked.
func skipCompact(data []byte, pos int) int {
	depth := 0
	for pos < len(data) {
		switch c := data[pos]; c {
		case '"':
			pos = closingQuote(data, pos+1) + 1
			if depth == 0 {
				return min(pos, len(data))
			}
		case '{', '[':
			depth++
			pos++
		case '}', ']':
			if depth == 0 {
				return pos // after a number or literal
			}
			depth--
			pos++
			if depth == 0 {
				return pos
			}
		case ',':
			if depth == 0 {
				return pos
			}
			pos++
		default:
			pos++
		}
	}
	return len(data)
}

// closingQuote returns the index of the quote that closes the string whose
// content starts at start, or len(data). It looks for quotes alone and
// counts the backslashes before each: a tool's file content has an escaped
// newline every few dozen bytes, and stopping at every escape, as the
// parser must to decode them, would take most of the time.
func closingQuote(data []byte, start int) int {
	for i := start; i < len(data); {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			break
		}
		q := i + j
		k := q
		for k > start && data[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q
		}
		i = q + 1
	}
	return len(data)
}
