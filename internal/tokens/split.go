package tokens

import (
	"unicode"
	"unicode/utf8"
)

// This file splits text into the pieces that o200k_base and cl100k_base
// encode one by one, exactly as their split patterns do in tiktoken (and in
// tiktoken-go, which runs them through regexp2), but by hand: one pass, no
// backtracking engine, no conversion of the text to runes. The patterns:
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
//	|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Every character starts a match of one alternative or another (letters and
// marks the letter alternatives, numbers the number one, white space the
// last three, anything else the punctuation one), so the pieces tile the
// text and each piece ends where the first alternative that matches at its
// start ends. Each function below works out, from the pattern's greedy
// quantifiers and the backtracking they allow, where that is. \s is
// unicode.IsSpace and the categories are the unicode package's, as in
// regexp2. The text must be valid UTF-8 (the caller falls back otherwise).
// TestSplitMatchesRegexp and FuzzCountMatchesTiktoken hold the result to
// the library's token for token.

// Character class bits.
const (
	clsLetter  = 1 << iota // \p{L}
	clsNumber              // \p{N}
	clsMark                // \p{M}
	clsUpper               // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLower               // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clsSpace               // \s
	clsNewline             // [\r\n]
	clsNever               // DEL: matched by no alternative in tiktoken-go (slowClass)
)

// asciiClass holds the classes of the ASCII characters.
var asciiClass [128]uint8

func init() {
	for r := rune(0); r < 128; r++ {
		asciiClass[r] = slowClass(r)
	}
}

func slowClass(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsLetter(r):
		c |= clsLetter
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) {
			c |= clsUpper
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) {
			c |= clsLower
		}
	case unicode.Is(unicode.M, r):
		c |= clsMark | clsUpper | clsLower
	case unicode.Is(unicode.N, r):
		c |= clsNumber
	}
	if unicode.IsSpace(r) {
		c |= clsSpace
	}
	if r == '\r' || r == '\n' {
		c |= clsNewline
	}
	if r == 0x7f {
		// The code regexp2cg generated for tiktoken-go tests ASCII
		// characters against bitmaps that leave out DEL in both
		// [^\r\n\p{L}\p{N}] and [^\s\p{L}\p{N}], so no alternative matches
		// it: the search skips it, and it counts no token. Counted as the
		// library counts.
		c |= clsNever
	}
	return c
}

// classAt returns the classes of the character at i and its size.
//
// The loops that scan runs of characters test for ASCII themselves and
// call nonASCIIClassAt only for other characters: classAt is just over the
// inliner's budget, and a call per character was a tenth of the counter's
// time (a CPU profile), while most of a transcript is ASCII.
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	return nonASCIIClassAt(s, i)
}

func nonASCIIClassAt(s string, i int) (uint8, int) {
	r, n := utf8.DecodeRuneInString(s[i:])
	return slowClass(r), n
}

// notLetterNumberNewline is [^\r\n\p{L}\p{N}].
func notLetterNumberNewline(c uint8) bool {
	return c&(clsLetter|clsNumber|clsNewline|clsNever) == 0
}

// punctuation is [^\s\p{L}\p{N}].
func punctuation(c uint8) bool { return c&(clsSpace|clsLetter|clsNumber|clsNever) == 0 }

// skipUnmatched returns where the next piece of s starts at or after i:
// DEL is in no piece (see clsNever).
func skipUnmatched(s string, i int) int {
	for i < len(s) && s[i] == 0x7f {
		i++
	}
	return i
}

func o200kPieceEnd(s string, i int) int {
	c0, n0 := classAt(s, i)
	// The two letter alternatives, each first with the optional leading
	// character taken, then without it.
	if notLetterNumberNewline(c0) && i+n0 < len(s) {
		if e := upperThenLower(s, i+n0); e >= 0 {
			return contraction(s, e)
		}
	}
	if e := upperThenLower(s, i); e >= 0 {
		return contraction(s, e)
	}
	if notLetterNumberNewline(c0) && i+n0 < len(s) {
		if e := upperRun(s, i+n0); e >= 0 {
			return contraction(s, e)
		}
	}
	if e := upperRun(s, i); e >= 0 {
		return contraction(s, e)
	}
	if c0&clsNumber != 0 {
		return numbers(s, i)
	}
	if e := punctuationRun(s, i, c0, "\r\n/"); e >= 0 {
		return e
	}
	return spaces(s, i)
}

func cl100kPieceEnd(s string, i int) int {
	if e := contraction(s, i); e > i {
		return e
	}
	c0, n0 := classAt(s, i)
	if notLetterNumberNewline(c0) && i+n0 < len(s) {
		if e := letters(s, i+n0); e > i+n0 {
			return e
		}
	}
	if e := letters(s, i); e > i {
		return e
	}
	if c0&clsNumber != 0 {
		return numbers(s, i)
	}
	if e := punctuationRun(s, i, c0, "\r\n"); e >= 0 {
		return e
	}
	return spaces(s, i)
}

// upperThenLower matches [upper]*[lower]+ at i, greedily with the
// backtracking the pattern allows, and returns its end, or -1. The upper
// run is taken whole; when the character after it is not lower, the
// pattern gives back characters of the run until the one given back is
// itself lower (\p{Lm}, \p{Lo} and \p{M} are in both classes), and the
// match ends after it.
func upperThenLower(s string, i int) int {
	j, lastLower := i, -1
	for j < len(s) {
		c, n := uint8(0), 1
		if b := s[j]; b < utf8.RuneSelf {
			c = asciiClass[b]
		} else {
			c, n = nonASCIIClassAt(s, j)
		}
		if c&clsUpper == 0 {
			break
		}
		j += n
		if c&clsLower != 0 {
			lastLower = j
		}
	}
	if j < len(s) {
		if c, _ := classAt(s, j); c&clsLower != 0 {
			return run(s, j, clsLower)
		}
	}
	return lastLower
}

// upperRun matches [upper]+[lower]* at i, or returns -1.
func upperRun(s string, i int) int {
	j := run(s, i, clsUpper)
	if j == i {
		return -1
	}
	return run(s, j, clsLower)
}

// letters matches \p{L}* at i.
func letters(s string, i int) int { return run(s, i, clsLetter) }

// run returns the end of the characters of class cls from i on.
func run(s string, i int, cls uint8) int {
	for i < len(s) {
		c, n := uint8(0), 1
		if b := s[i]; b < utf8.RuneSelf {
			c = asciiClass[b]
		} else {
			c, n = nonASCIIClassAt(s, i)
		}
		if c&cls == 0 {
			break
		}
		i += n
	}
	return i
}

// numbers matches \p{N}{1,3} at i (the character at i is a number).
func numbers(s string, i int) int {
	for k := 0; k < 3 && i < len(s); k++ {
		c, n := uint8(0), 1
		if b := s[i]; b < utf8.RuneSelf {
			c = asciiClass[b]
		} else {
			c, n = nonASCIIClassAt(s, i)
		}
		if c&clsNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// punctuationRun matches " ?[^\s\p{L}\p{N}]+[tail]*" at i, or returns -1.
func punctuationRun(s string, i int, c0 uint8, tail string) int {
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		if c, _ := classAt(s, i+1); punctuation(c) {
			j = i + 1
		}
	}
	if j == i && !punctuation(c0) {
		return -1
	}
	for j < len(s) {
		c, n := uint8(0), 1
		if b := s[j]; b < utf8.RuneSelf {
			c = asciiClass[b]
		} else {
			c, n = nonASCIIClassAt(s, j)
		}
		if !punctuation(c) {
			break
		}
		j += n
	}
	for j < len(s) && indexByte(tail, s[j]) {
		j++
	}
	return j
}

func indexByte(set string, b byte) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == b {
			return true
		}
	}
	return false
}

// spaces matches the white-space alternatives at i (the character at i is
// white space): \s*[\r\n]+ when the run of white space holds a \r or \n;
// else \s+(?!\S), which ends before the run's last character unless the
// run is one character or ends the text; else \s+.
//
// Where \s*[\r\n]+ ends follows tiktoken-go, not the pattern: the
// pattern's greedy \s* gives characters back from the end of the run, so
// the match would end after the run's last \r or \n; the code regexp2cg
// generated for tiktoken-go instead resumes at the run's first \r or \n
// (helpers.IndexOfAny2 where a greedy loop calls for the last index), so
// the match ends after the \r and \n that follow the first one. " \n \n"
// is two pieces there (" \n", " \n"). Counting as the library does keeps
// loopgate's counts identical to tiktoken-go's; they can differ from
// OpenAI's tiktoken by a token on such runs.
func spaces(s string, i int) int {
	j, firstNewline, lastStart, count := i, -1, i, 0
	for j < len(s) {
		c, n := uint8(0), 1
		if b := s[j]; b < utf8.RuneSelf {
			c = asciiClass[b]
		} else {
			c, n = nonASCIIClassAt(s, j)
		}
		if c&clsSpace == 0 {
			break
		}
		if c&clsNewline != 0 && firstNewline < 0 {
			firstNewline = j
		}
		lastStart = j
		j += n
		count++
	}
	switch {
	case count == 0: // not white space: cannot happen, but never loop
		_, n := classAt(s, i)
		return i + n
	case firstNewline >= 0:
		e := firstNewline
		for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
			e++
		}
		return e
	case j == len(s) || count < 2:
		return j
	default:
		return lastStart
	}
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i and returns its
// end, or i when there is none. Case-insensitive as regexp2 compiles it: the
// letter after the apostrophe may be upper or lower case, and 's also
// matches the long s (U+017F), which folds to s.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	}
	if len(s) >= i+3 && s[i+1:i+3] == "\u017f" {
		return i + 3
	}
	return i
}
