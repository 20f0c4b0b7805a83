package jsonx

import "unicode/utf8"

// ValidUTF8 reports whether data is valid UTF-8, as utf8.Valid does. Every
// line a reader takes in is checked (ingest.LineReader), and nearly all of
// a transcript is ASCII: the vector scan passes the ASCII bytes 64 at a
// time where utf8.Valid takes 8, and utf8.Valid checks the rest from the
// first byte of 0x80 or more.
func ValidUTF8(data []byte) bool {
	if useVector && len(data) >= 64 {
		data = data[indexHighAVX2(data):]
	}
	return utf8.Valid(data)
}
