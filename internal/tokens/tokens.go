// Package tokens counts tokens for loopgate's savings figures (DESIGN.md
// "What a replay measures"). It puts the tokenizer library behind a small
// interface so that analyze can count with a real BPE encoding (o200k_base,
// the default, or cl100k_base) or with the fast chars4 approximation, and so
// that the library can be swapped after measuring it.
//
// Everything here works offline: tiktoken-go/tokenizer compiles its
// vocabularies into the binary.
package tokens

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Counter counts the tokens of a text. Implementations are safe for
// concurrent use by several goroutines.
type Counter interface {
	// Name is the encoding name, as accepted by New and shown in reports.
	Name() string
	// Count returns the number of tokens of text.
	Count(text string) int
}

// Encoding names accepted by New.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
	Chars4     = "chars4"
	// Default is the counter used when none is named.
	Default = O200kBase
)

// Names lists the counters New accepts, default first.
func Names() []string { return []string{O200kBase, Cl100kBase, Chars4} }

// New returns the counter of that name ("" means Default). The BPE
// vocabularies are large Go maps, so a BPE counter builds its codec on its
// first Count, not here: a run that never counts pays nothing.
func New(name string) (Counter, error) {
	switch name {
	case "", O200kBase:
		return o200k, nil
	case Cl100kBase:
		return cl100k, nil
	case Chars4:
		return chars4{}, nil
	}
	return nil, fmt.Errorf("unknown tokenizer %q (known: %s)", name, strings.Join(Names(), ", "))
}

// One shared lazily-built counter per encoding: building a codec costs tens of
// milliseconds and the vocabulary is shared anyway.
var (
	o200k  = &bpe{name: O200kBase, enc: tokenizer.O200kBase}
	cl100k = &bpe{name: Cl100kBase, enc: tokenizer.Cl100kBase}
)

// bpe counts with a tiktoken encoding.
//
// Concurrency: tokenizer v0.10.0's codec.Codec only reads its vocabulary map
// and its regexp2 split pattern during Count (regexp2.Regexp documents itself
// as safe for concurrent use; it pools its runners), and its only mutable
// field, the error mode, is set once before the codec is published. One codec
// is therefore shared without a lock; TestConcurrentCount checks this under
// -race.
type bpe struct {
	name  string
	enc   tokenizer.Encoding
	once  sync.Once
	codec tokenizer.Codec
	err   error
}

func (b *bpe) Name() string { return b.name }

func (b *bpe) Count(text string) int {
	if text == "" {
		return 0
	}
	b.once.Do(b.init)
	if b.err != nil {
		return chars4Count(text)
	}
	n, err := b.codec.Count(text)
	if err != nil {
		// Only a regexp timeout or strict-mode UTF-8 error can get here, and
		// neither is configured; fall back rather than report 0 tokens.
		return chars4Count(text)
	}
	return n
}

func (b *bpe) init() {
	c, err := tokenizer.Get(b.enc)
	if err != nil {
		b.err = err
		return
	}
	// Transcripts may hold invalid UTF-8 (a cut multi-byte character);
	// count it as tiktoken does by default, with U+FFFD replacements.
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	b.codec = c
}

// chars4 approximates tokens as ceil(bytes/4) (attractor's spec and many
// tools use it; guards.md §6.2 gives its error on code, prose and JSON).
type chars4 struct{}

func (chars4) Name() string          { return Chars4 }
func (chars4) Count(text string) int { return chars4Count(text) }

func chars4Count(text string) int { return (len(text) + 3) / 4 }
