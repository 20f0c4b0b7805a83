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
	"sync/atomic"

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

// New returns the counter of that name ("" means Default). A BPE counter
// builds its codec here (about 30 ms for o200k_base, once per process), so
// that a vocabulary that cannot load is an error now rather than a silent
// bytes/4 approximation reported under the BPE's name.
func New(name string) (Counter, error) {
	switch name {
	case "", O200kBase:
		return o200k.loaded()
	case Cl100kBase:
		return cl100k.loaded()
	case Chars4:
		return chars4{}, nil
	}
	return nil, fmt.Errorf("unknown tokenizer %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Approximated returns how many texts c could not count with its encoding
// and counted as bytes/4 instead (0 for chars4). Callers say so next to the
// report, whose tokenizer label is c.Name().
func Approximated(c Counter) int64 {
	if b, ok := c.(*bpe); ok {
		return b.approximated.Load()
	}
	return 0
}

// One shared counter per encoding: building a codec costs tens of
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
	// approximated counts the texts the codec failed on (see Count).
	approximated atomic.Int64
	// fast counts what it can (valid UTF-8) without the library's
	// pre-tokenizer (bpefast.go); nil where building it failed, and the
	// library counts everything.
	fast *fastBPE
}

func (b *bpe) Name() string { return b.name }

// loaded builds the codec and returns the counter, or the error that kept
// the vocabulary from loading.
func (b *bpe) loaded() (Counter, error) {
	b.once.Do(b.init)
	if b.err != nil {
		return nil, fmt.Errorf("tokenizer %s cannot be loaded: %v (--tokenizer chars4 approximates tokens as bytes/4)", b.name, b.err)
	}
	return b, nil
}

func (b *bpe) Count(text string) int {
	if text == "" {
		return 0
	}
	b.once.Do(b.init)
	if b.err != nil {
		// Only a bpe that New refused gets here.
		panic("tokens: " + b.name + " used although it failed to load: " + b.err.Error())
	}
	if b.fast != nil {
		if n, ok := b.fast.count(text); ok {
			return n
		}
	}
	return b.libraryCount(text)
}

// libraryCount counts text with tiktoken-go itself.
func (b *bpe) libraryCount(text string) int {
	n, err := b.codec.Count(text)
	if err != nil {
		// Only a regexp timeout or strict-mode UTF-8 error can get here, and
		// neither is configured. Rather than report 0 tokens, count the text
		// as bytes/4, and keep count so the CLI can say so (Approximated).
		b.approximated.Add(1)
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
	// Without the fast counter the library counts alone: slower, the same.
	b.fast, _ = newFastBPE(b.enc)
}

// chars4 approximates tokens as ceil(bytes/4) (attractor's spec and many
// tools use it; guards.md §6.2 gives its error on code, prose and JSON).
type chars4 struct{}

func (chars4) Name() string          { return Chars4 }
func (chars4) Count(text string) int { return chars4Count(text) }

func chars4Count(text string) int { return (len(text) + 3) / 4 }
