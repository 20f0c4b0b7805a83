// Encoding: a Value back to JSON in a chosen style, and the module's JSON
// string quoter (AppendQuoted, Quote).

package jsonx

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

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
