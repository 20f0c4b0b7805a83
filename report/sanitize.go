package report

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopgate/loopgate/analyze"
)

// Text from a transcript (tool names, session ids, file names, arguments,
// problem messages) is untrusted: it may hold ESC, BEL and other control
// characters that a terminal obeys (OSC 52 clipboard writes, window titles,
// ESC[2J, OSC 8 links) and line breaks that start a line of their own, where
// a CI runner reads "::warning::..." or "::error file=...::" as a workflow
// command. Every human-readable output (tables, inspect, gate text, problem
// lines, progress) passes such text through Sanitize first; machine formats
// (JSON, SARIF, XML) escape it by their own rules.

// Sanitize returns s with every control character written as an escape that
// shows what it was and does nothing: C0 controls and DEL as \x1b, \x07,
// \x7f (line breaks and tabs as \n, \r, \t), C1 controls (U+0080-U+009F,
// which some terminals read as ESC sequences) as \u009b, the Unicode line
// and paragraph separators as \u2028 and \u2029, and invalid UTF-8 bytes as
// \xff. Text with none of these is returned as is, without allocating.
// The result holds no byte below 0x20 and no DEL, so it can neither move the
// cursor, nor end a line, nor open an escape sequence.
func Sanitize(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				writeControl(&b, c)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHexByte(&b, `\x`, c)
		case isUnsafeRune(r):
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte Sanitize changes, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isUnsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// isUnsafeRune: the C1 controls, the two Unicode line breaks, and the
// bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069), which reorder the text shown around them so that it
// reads as other than it is (Trojan Source, CVE-2021-42574).
func isUnsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || isBidiControl(r)
}

func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// escapeBidiJSON writes the bidi controls inside the strings of a JSON
// text as the six characters \u202e, which the page shows as they are:
// their UTF-8 bytes (E2 80 AA-AE, E2 81 A6-A9) occur nowhere else in JSON.
func escapeBidiJSON(data []byte) []byte {
	if !bytes.Contains(data, []byte{0xe2, 0x80}) && !bytes.Contains(data, []byte{0xe2, 0x81}) {
		return data
	}
	out := make([]byte, 0, len(data)+64)
	for i := 0; i < len(data); i++ {
		if data[i] == 0xe2 && i+2 < len(data) {
			if r, size := utf8.DecodeRune(data[i:]); size == 3 && isBidiControl(r) {
				out = append(out, `\u`...)
				out = fmt.Appendf(out, "%04x", r)
				i += 2
				continue
			}
		}
		out = append(out, data[i])
	}
	return out
}

func writeControl(b *strings.Builder, c byte) {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		writeHexByte(b, `\x`, c)
	}
}

func writeHexByte(b *strings.Builder, prefix string, c byte) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// SafeLine is Sanitize for text that starts a line of output (a file name
// at the head of a problem line): GuardLine of the escaped text.
func SafeLine(s string) string { return GuardLine(Sanitize(s)) }

// GuardLine keeps a line of output from being read as a GitHub Actions
// workflow command: a line that starts with "::" (the runner trims leading
// white space before it looks) gets its first colon written as `\:`. The
// line's own escapes (colors) are left alone; its untrusted parts must
// have been through Sanitize, so that it is one line.
func GuardLine(s string) string {
	t := strings.TrimLeft(s, " ")
	if strings.HasPrefix(t, "::") {
		return s[:len(s)-len(t)] + `\:` + t[1:]
	}
	return s
}

// XMLText replaces what XML 1.0 cannot hold (control characters other than
// tab, line feed and carriage return; U+FFFE, U+FFFF; invalid UTF-8) with
// U+FFFD, as encoding/xml does in attributes; its CDATA sections write text
// as it is, and one such character made a JUnit file unreadable.
func XMLText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError:
			return '\uFFFD'
		}
		return r
	}, s)
}

// sanitizeForText escapes the untrusted text of a prepared report (a copy:
// see prepared) for the text formats: table and markdown. Arguments have
// their white space folded first, as the tables always showed them.
func sanitizeForText(rep *analyze.Report) {
	rep.Rules.Name, rep.Rules.Source = Sanitize(rep.Rules.Name), Sanitize(rep.Rules.Source)
	if len(rep.Rules.NotChecked) > 0 {
		nc := make([]string, len(rep.Rules.NotChecked))
		for i, t := range rep.Rules.NotChecked {
			nc[i] = Sanitize(t)
		}
		rep.Rules.NotChecked = nc
	}
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		for _, f := range []*string{&s.File, &s.ID, &s.Format, &s.Agent, &s.Selector, &s.Parent, &s.Model} {
			*f = Sanitize(*f)
		}
		for j := range s.Decisions {
			d := &s.Decisions[j]
			for _, f := range []*string{&d.CallID, &d.Tool, &d.Class, &d.Detector, &d.Message, &d.Native} {
				*f = Sanitize(*f)
			}
			d.Args = Sanitize(AbbreviateArgs(d.Args, 0))
		}
	}
	for i := range rep.Tools {
		rep.Tools[i].Tool, rep.Tools[i].Class = Sanitize(rep.Tools[i].Tool), Sanitize(rep.Tools[i].Class)
	}
	for i := range rep.Problems {
		rep.Problems[i].File, rep.Problems[i].Message = Sanitize(rep.Problems[i].File), Sanitize(rep.Problems[i].Message)
	}
}
