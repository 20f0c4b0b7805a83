package jsonx

import (
	"bytes"
	"unicode/utf8"
)

// DecodeString decodes data when it is one JSON string (white space around
// it allowed), as Unmarshal into a string would. ok is false for anything
// else, and for the rare strings whose decoding is left to Unmarshal's own
// rules (invalid UTF-8, surrogate escapes): the caller then calls
// Unmarshal. It exists because Unmarshal copies its whole input before
// decoding, and a tool result is often a multi-megabyte JSON string.
func DecodeString(data []byte) (s string, ok bool) {
	data = bytes.Trim(data, " \t\r\n") // JSON's white space only
	if len(data) < 2 || data[0] != '"' || !utf8.Valid(data) {
		return "", false
	}
	if bytes.IndexByte(data, '\\') >= 0 && hasSurrogateEscape(data) {
		return "", false
	}
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data = data
	s, err := p.str()
	return s, err == nil && p.pos == len(data)
}

// hasSurrogateEscape reports whether raw holds a \uD800-\uDFFF escape
// (possibly; an escaped backslash before "uD8" is counted too, which only
// sends the string to Unmarshal).
func hasSurrogateEscape(raw []byte) bool {
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i < len(raw) && (raw[i] == 'd' || raw[i] == 'D') {
			return true
		}
	}
}
