// Package tokens counts tokens for loopgate's savings figures (docs/cli.md,
// "What the numbers mean"). It puts the tokenizer library behind a small
// interface so that analyze can count with a real BPE encoding (o200k_base,
// the default, or cl100k_base) or with the fast chars4 approximation, and so
// that the library can be swapped after measuring it.
//
// Everything here works offline: tiktoken-go/tokenizer compiles its
// vocabularies into the binary. The counter's tables built from them are
// kept in a cache file that later processes read instead (cache.go).
package tokens

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

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

// New returns the counter of that name ("" means Default), or an error
// naming the known counters. A BPE counter starts loading its vocabulary on
// a goroutine of its own (once per process: BenchmarkLoad, and
// BenchmarkLoadCached from the cache file; docs/performance.md)
// and New returns at once: a run reads its first
// files meanwhile, and a run that counts nothing never waits. The first
// Count waits for the load.
//
// New refuses an unknown name at once. The load itself cannot fail with
// tiktoken-go v0.10.0, whose Get fails only for an encoding it does not
// know; should it fail anyway (a changed library), Count panics with the
// reason rather than report a bytes/4 estimate under the BPE's name.
func New(name string) (Counter, error) {
	switch name {
	case "", O200kBase:
		return o200k.start(), nil
	case Cl100kBase:
		return cl100k.start(), nil
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

// Estimated returns how many texts c counted by an estimate: those over
// 4 MiB, whose count is scaled from their first and last 512 KiB (0 for
// chars4, which is an estimate of every text anyway). Callers say so next
// to the report.
func Estimated(c Counter) int64 {
	if b, ok := c.(*bpe); ok {
		return b.estimated.Load()
	}
	return 0
}

// Estimates reports whether c counts a text of n bytes by an estimate,
// one that Estimated counts.
func Estimates(c Counter, n int) bool {
	_, ok := c.(*bpe)
	return ok && n > estimateAbove
}

// One shared counter per encoding: loading one costs tens of milliseconds
// and the library's vocabulary is shared anyway.
var (
	o200k  = &bpe{name: O200kBase, enc: tokenizer.O200kBase}
	cl100k = &bpe{name: Cl100kBase, enc: tokenizer.Cl100kBase}
)

// bpe counts with a tiktoken encoding: with the fast counter (bpefast.go)
// once it is built, else with the library.
//
// Concurrency: the fast counter only reads its tables, and lends each
// count its own scratch from pools. tokenizer v0.10.0's codec.Codec, used
// only where the fast counter could not be built, only reads its
// vocabulary map and its regexp2 split pattern during Count (regexp2.Regexp
// documents itself as safe for concurrent use; it pools its runners), and
// its only mutable field, the error mode, is set once before the codec is
// published. Both are therefore shared without a lock;
// TestConcurrentCount checks this under -race.
type bpe struct {
	name string
	enc  tokenizer.Encoding
	// starting starts the load on a goroutine of its own, once; loading
	// is the load itself, which Count waits for.
	starting, loading sync.Once
	// err is why the load failed (nil once it succeeded).
	err error
	// fromLibrary is set when the fast counter's tables were built from
	// the library rather than read from the cache (cache.go).
	fromLibrary bool
	// fast counts every text; nil only where it could not be built, and
	// then codec counts every text (slower, the same counts).
	fast  *fastBPE
	codec tokenizer.Codec
	// approximated counts the texts the codec failed on (see Count).
	approximated atomic.Int64
	// estimated counts the texts too long to count whole (see Count).
	estimated atomic.Int64
}

func (b *bpe) Name() string { return b.name }

// start starts loading b in the background, once, and returns it.
func (b *bpe) start() Counter {
	b.starting.Do(func() { go b.wait() })
	return b
}

// wait loads b, or waits for the load under way, and returns why it
// failed (nil when it loaded).
func (b *bpe) wait() error {
	b.loading.Do(b.load)
	return b.err
}

func (b *bpe) Count(text string) int {
	if text == "" {
		return 0
	}
	if err := b.wait(); err != nil {
		// Never a silent bytes/4 under the BPE's name (New's comment).
		panic("tokens: " + err.Error())
	}
	if len(text) > estimateAbove {
		// Counting it all would take seconds per MiB; the count is
		// estimated from its two ends (Estimated says how many).
		b.estimated.Add(1)
		head, tail := text[:cutBefore(text, estimateSample)], text[len(text)-estimateSample:]
		tail = tail[runeStart(tail):]
		n := b.countChunks(head) + b.countChunks(tail)
		return int(float64(n) * float64(len(text)) / float64(len(head)+len(tail)))
	}
	return b.countChunks(text)
}

// countWhole counts text in one piece.
func (b *bpe) countWhole(text string) int {
	if b.fast == nil {
		return b.libraryCount(text)
	}
	if n, ok := b.fast.count(text); ok {
		return n
	}
	// Not valid UTF-8 (a character cut by truncation): the library, in
	// the error mode tiktoken uses by default, replaces each maximal
	// invalid subpart with U+FFFD and counts the result, and so does this.
	n, _ := b.fast.count(replaceInvalidUTF8(text))
	return n
}

// Long texts are counted in chunks: the library's time and memory grow
// faster than the length of a run without spaces (docs/performance.md,
// "The tokenizer"), and the fast counter's
// merge state for one piece is about twenty bytes per byte, kept for the
// next pieces. A chunk of 16 KiB costs little whatever it holds. A chunk
// ends before a space that follows a word, where the encodings'
// pre-tokenizers split anyway, so text with spaces counts as it would
// whole; a run without any is cut where the chunk is full, which may
// differ from its whole count by a token per cut.
const (
	chunkAbove = 64 << 10 // texts up to this size are counted whole
	chunkSize  = 16 << 10
	// Texts over estimateAbove are estimated: their first and last
	// estimateSample bytes are counted and the count scaled to the length.
	estimateAbove  = 4 << 20
	estimateSample = 512 << 10
)

// countChunks counts text whole, or in chunks when it is long.
func (b *bpe) countChunks(text string) int {
	if len(text) <= chunkAbove {
		return b.countWhole(text)
	}
	total := 0
	for len(text) > 0 {
		piece := text[:cutBefore(text, chunkSize)]
		text = text[len(piece):]
		total += b.countWhole(piece)
	}
	return total
}

// cutBefore is where a chunk of at most size bytes of text ends: before
// the last space that follows a non-space, else at a rune boundary.
func cutBefore(text string, size int) int {
	if len(text) <= size {
		return len(text)
	}
	for i := size; i > size/2; i-- {
		if text[i] == ' ' && text[i-1] != ' ' && text[i-1] != '\n' && text[i-1] != '\t' {
			return i
		}
	}
	i := size
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	if i == 0 {
		return size
	}
	return i
}

// runeStart is the index of the first rune start in s (0 when s starts
// with one).
func runeStart(s string) int {
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return 0
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

// load builds the fast counter from the library's vocabulary, or keeps the
// library's codec where the fast counter cannot be built.
func (b *bpe) load() {
	defer func() {
		// On the background goroutine a panic would end the process with
		// the library's stack; Count reports it instead, when counting.
		if p := recover(); p != nil {
			b.fast, b.codec = nil, nil
			b.err = b.loadError(fmt.Errorf("%v", p))
		}
	}()
	if pieceEnd, err := splitOf(b.enc); err == nil {
		if v, ok := loadCachedVocabulary(b.name); ok {
			// The library's vocabulary and split pattern are never built.
			b.fast = &fastBPE{ranks: v, pieceEnd: pieceEnd}
			return
		}
	}
	c, err := tokenizer.Get(b.enc)
	if err != nil {
		b.err = b.loadError(err)
		return
	}
	if f, err := newFastBPE(b.enc, c); err == nil {
		// The codec (its split pattern, and the table Decode builds) is
		// dropped: the fast counter counts every text.
		b.fast, b.fromLibrary = f, true
		// Written within the load, which the first count waits for: a
		// write left to run after it lost the race with the end of a
		// short run, every run. It costs a few milliseconds once (a miss
		// only); errors are ignored, as a read-only home must not fail a
		// run.
		_ = saveCachedVocabulary(b.name, &f.ranks)
		return
	}
	// Transcripts may hold invalid UTF-8 (a cut multi-byte character);
	// count it as tiktoken does by default, with U+FFFD replacements.
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	b.codec = c
}

func (b *bpe) loadError(err error) error {
	return fmt.Errorf("tokenizer %s cannot be loaded: %v (--tokenizer chars4 approximates tokens as bytes/4)", b.name, err)
}

// chars4 approximates tokens as ceil(bytes/4) (attractor's spec and many
// tools use it; guards.md §6.2 gives its error on code, prose and JSON).
type chars4 struct{}

func (chars4) Name() string          { return Chars4 }
func (chars4) Count(text string) int { return chars4Count(text) }

func chars4Count(text string) int { return (len(text) + 3) / 4 }
