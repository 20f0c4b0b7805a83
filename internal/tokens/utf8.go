package tokens

import (
	"strings"
	"unicode/utf8"
)

// replaceInvalidUTF8 returns s with each maximal subpart of an ill-formed
// sequence replaced by U+FFFD: the practice the Unicode Standard recommends
// (chapter 3, "U+FFFD Substitution of Maximal Subparts"), which Python's
// bytes.decode(errors="replace") follows, and with it tiktoken's default
// and tiktoken-go's ErrorModeReplace (codec.go: replaceUTF8). A truncated
// character is one replacement, not one per byte; a stray byte is one.
// strings.ToValidUTF8 differs: it replaces a whole run of invalid bytes
// with a single replacement. FuzzReplaceInvalidUTF8 holds this to the
// library's.
func replaceInvalidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var out strings.Builder
	out.Grow(len(s) + 2*utf8.UTFMax)
	valid := 0 // s[valid:i] is well-formed and not yet written
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n > 1 {
			i += n
			continue
		}
		out.WriteString(s[valid:i])
		out.WriteRune(utf8.RuneError)
		i += maximalSubpart(s[i:])
		valid = i
	}
	out.WriteString(s[valid:])
	return out.String()
}

// maximalSubpart is the length of the longest start of s that could begin
// a well-formed UTF-8 sequence (Unicode's table of well-formed byte
// sequences), at least 1. s starts with an ill-formed sequence.
func maximalSubpart(s string) int {
	// size is the length a sequence led by s[0] has; the second byte's
	// range is narrower than the others' after E0, ED, F0 and F4 (no
	// overlong forms, no surrogates, nothing past U+10FFFF).
	size, second := 0, [2]byte{0x80, 0xBF}
	switch lead := s[0]; {
	case lead >= 0xC2 && lead <= 0xDF:
		size = 2
	case lead >= 0xE0 && lead <= 0xEF:
		size = 3
		if lead == 0xE0 {
			second[0] = 0xA0
		} else if lead == 0xED {
			second[1] = 0x9F
		}
	case lead >= 0xF0 && lead <= 0xF4:
		size = 4
		if lead == 0xF0 {
			second[0] = 0x90
		} else if lead == 0xF4 {
			second[1] = 0x8F
		}
	default:
		return 1 // a continuation byte, C0, C1 or F5-FF: never a lead
	}
	if len(s) < 2 || s[1] < second[0] || s[1] > second[1] {
		return 1
	}
	k := 2
	for k < size && k < len(s) && s[k] >= 0x80 && s[k] <= 0xBF {
		k++
	}
	return k
}
