package report

// Text cut to fit a report's line or column.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// AbbreviateArgs makes argument text fit one line of a report: every run of
// white space (line breaks included) becomes one space, leading and trailing
// space goes, and text longer than max characters (runes) is cut so that,
// with its final "…", it is max characters long. max < 1 means no cut. It
// stops reading at the cut, so a huge argument costs only max characters.
func AbbreviateArgs(raw string, max int) string {
	var b strings.Builder
	n := 0 // runes written
	space := false
	for _, r := range raw {
		if unicode.IsSpace(r) {
			space = n > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if max > 0 && n+need > max {
			return keepRunes(b.String(), max-1) + "…"
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// keepRunes returns the first n runes of s, trailing space trimmed.
func keepRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			s = s[:pos]
			break
		}
		i++
	}
	return strings.TrimRight(s, " ")
}

// cutLeft keeps the end of s (a path) within max runes, "…" first.
func cutLeft(s string, max int) string {
	if max < 2 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-max+1:])
}

// cutRight keeps the start of s within max runes, "…" last.
func cutRight(s string, max int) string {
	if max < 2 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}
