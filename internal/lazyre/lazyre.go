// Package lazyre holds regular expressions compiled at their first use
// instead of at program start: every loopgate process runs every package's
// initializers, and `loopgate hook`, which runs once per tool call of an
// agent and matches none of the transcript readers' or the redaction's
// patterns, paid for compiling them all (docs/performance.md, "The live
// hook").
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled at its first use; safe for
// concurrent use.
type Regexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// New returns the expression of pattern, compiled when first used; an
// invalid pattern panics then, as regexp.MustCompile does.
func New(pattern string) *Regexp { return &Regexp{pattern: pattern} }

// Get returns the compiled expression.
func (l *Regexp) Get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}
