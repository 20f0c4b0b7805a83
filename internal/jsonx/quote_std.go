package jsonx

import (
	"strings"
	"unicode/utf8"
)

// AppendQuotedStd appends s as a JSON string literal in the bytes
// encoding/json writes with HTML escaping off (json.Encoder with
// SetEscapeHTML(false)): AppendQuoted's escapes, and besides them an
// invalid UTF-8 byte as the escape \ufffd rather than the character, and
// U+2028 and U+2029 escaped (JavaScript read them as line ends). The
// session JSON of the reports is written with it, so that it stays the
// bytes encoding/json wrote for it.
func AppendQuotedStd(buf []byte, s string) []byte {
	// Most strings have neither: checking is cheaper than walking them.
	if utf8.ValidString(s) && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029") {
		return AppendQuoted(buf, s)
	}
	buf = append(buf, '"')
	start := 0 // start of the run not yet appended
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = `\ufffd`
		case r == '\u2028':
			esc = `\u2028`
		case r == '\u2029':
			esc = `\u2029`
		default:
			i += size
			continue
		}
		buf = appendQuotedRun(buf, s[start:i])
		buf = append(buf, esc...)
		i += size
		start = i
	}
	buf = appendQuotedRun(buf, s[start:])
	return append(buf, '"')
}

// appendQuotedRun is AppendQuoted without the quotes around the string.
func appendQuotedRun(buf []byte, s string) []byte {
	if s == "" {
		return buf
	}
	n := len(buf)
	buf = AppendQuoted(buf, s)
	buf = append(buf[:n], buf[n+1:len(buf)-1]...)
	return buf
}
