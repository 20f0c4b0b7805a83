package report

// Numbers as the text reports write them.

import (
	"strconv"
	"strings"
)

// Thousands writes n with thousands separators (12,345).
func Thousands(n int64) string { return thousands(n) }

// thousands formats n with comma separators: 1234567 → "1,234,567".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// percent shows a ratio that may be null (no denominator) as "n/a".
func percent(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*p*100, 'f', 1, 64) + "%"
}
