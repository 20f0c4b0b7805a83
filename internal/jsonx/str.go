package jsonx

import (
	"bytes"
	"unicode/utf8"
)

// DecodeString decodes data when it is one JSON string (white space around
// it allowed), as Unmarshal into a string would. ok is false for anything
// else, and for strings with invalid UTF-8, whose decoding is left to
// Unmarshal's own rules: the caller then calls Unmarshal. It exists because
// Unmarshal copies its whole input before decoding, and a tool result is
// often a multi-megabyte JSON string. Surrogate escapes decode as in
// encoding/json, as goccy's do (pairs combine, a lone one is U+FFFD):
// TestDecodeStringMatchesUnmarshal and FuzzDecodeString hold the two to it.
func DecodeString(data []byte) (s string, ok bool) {
	data = bytes.Trim(data, " \t\r\n") // JSON's white space only
	if len(data) < 2 || data[0] != '"' || !utf8.Valid(data) {
		return "", false
	}
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data = data
	s, err := p.str()
	return s, err == nil && p.pos == len(data)
}
