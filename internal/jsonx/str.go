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
	s, end, ok := DecodeStringAt(data, 0)
	return s, ok && end == len(data)
}

// DecodeStringAt is DecodeString of the JSON string whose opening quote is
// data[pos], for a reading that walks a record in one pass (a Nested
// member that is sometimes a string): end is the index just past its
// closing quote. What follows the string is not looked at.
func DecodeStringAt(data []byte, pos int) (s string, end int, ok bool) {
	return decodeStringAt(data, pos, false)
}

func decodeStringAt(data []byte, pos int, packed bool) (s string, end int, ok bool) {
	s, end, ok, _ = decodeStringInto(data, pos, packed, nil)
	return s, end, ok
}

// decodeStringInto is decodeStringAt with a long string decoded into
// scratch when it is not nil (held then says it lies there).
func decodeStringInto(data []byte, pos int, packed bool, scratch *Scratch) (s string, end int, ok, held bool) {
	if pos < 0 || pos >= len(data) || data[pos] != '"' {
		return "", 0, false, false
	}
	p := parser{data: data, pos: pos, packed: packed, scratch: scratch} // see DecodeObjectNested
	s, err := p.str()
	// Only raw bytes outside ASCII can be invalid UTF-8 (the escapes are
	// ASCII): a string of none needs no second look.
	if err != nil || (p.high && !utf8.Valid(data[pos:p.pos])) {
		return "", 0, false, false
	}
	return s, p.pos, true, p.held
}

// StringOrValueAt reads the value at data[pos] (white space skipped),
// depth levels deep in data, for a member that is nearly always a string:
// a string is decoded (isString, s), as DecodeStringAt decodes it; any
// other value, and a string DecodeStringAt declines (invalid UTF-8), is
// checked as Valid checks it and left to the caller. raw is the value, a
// view of data either way; end is the index just past it. ok is false for
// a syntax error or a value nested too deeply.
func StringOrValueAt(data []byte, pos, depth int) (s string, raw []byte, isString bool, end int, ok bool) {
	s, raw, isString, end, ok, _ = stringOrValueAt(data, pos, depth, false, nil)
	return s, raw, isString, end, ok
}

// StringOrValueAtPacked is StringOrValueAt for a text that lives and dies
// with many others read near it: a transcript's tool results, which are
// most of its bytes. A string with escapes is decoded straight into memory
// it keeps, a short one into a block shared with the strings decoded
// before it (packed.go), instead of into a scratch buffer and then copied.
// A packed string keeps its whole block alive: what outlives its session
// (a report's texts, a cache's keys) must be a copy (strings.Clone).
func StringOrValueAtPacked(data []byte, pos, depth int) (s string, raw []byte, isString bool, end int, ok bool) {
	s, raw, isString, end, ok, _ = stringOrValueAt(data, pos, depth, true, nil)
	return s, raw, isString, end, ok
}

// StringOrValueAtScratch is StringOrValueAtPacked with a string whose
// escaped content is longer than scratch.Above (4 KiB by default) decoded
// into scratch instead of into memory of its own: held then says s lies in scratch, valid
// until scratch.Reset, and the caller copies what it keeps longer. The
// string is the one StringOrValueAtPacked decodes (TestScratchMatchesPacked).
func StringOrValueAtScratch(data []byte, pos, depth int, scratch *Scratch) (s string, raw []byte, isString bool, end int, ok, held bool) {
	return stringOrValueAt(data, pos, depth, true, scratch)
}

// stringOrValueAt is the StringOrValueAt family's reading: packed and
// scratch as decodeStringInto takes them.
func stringOrValueAt(data []byte, pos, depth int, packed bool, scratch *Scratch) (s string, raw []byte, isString bool, end int, ok, held bool) {
	if s, end, ok, held := decodeStringInto(data, pos, packed, scratch); ok {
		return s, data[pos:end:end], true, end, true, held
	}
	_, end, ok = SkipValue(data, pos, depth)
	if !ok {
		return "", nil, false, 0, false, false
	}
	return "", data[pos:end:end], false, end, true, false
}

// PlainStringEnd is the index of the closing quote of the JSON string
// whose content starts at data[i] when that content is plain ASCII: no
// escape, no control byte, no byte of 0x80 or more; -1 otherwise (the
// caller then reads the string its slower way). It scans as the parser
// does, a word or a vector at a time.
func PlainStringEnd(data []byte, i int) int {
	if i < 0 || i > len(data) {
		return -1
	}
	end, high := nextSpecialHigh(data, i)
	if high || end >= len(data) || data[end] != '"' {
		return -1
	}
	return end
}
