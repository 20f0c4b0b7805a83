package analyze

import (
	"strings"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/internal/tokens"
)

// Savings: the tokens a guard's stop would have kept out of the model's
// context, counted with the session's calibrated bytes per token
// (calibrate.go) or the tokenizer, through a memo (TokenCache).

// TokenCache counts tokens with a memo, so that a block message repeated on
// every stopped call is tokenized once, and so that a result repeated in a
// loop (the very thing loopgate looks for) is tokenized once however large
// it is. One cache per goroutine: it lives as long as its worker, across
// the sessions and files the worker replays.
type TokenCache struct {
	Counter tokens.Counter
	// memo holds the counts of short texts by their text.
	memo map[string]int
	// bigMemo holds the counts of texts over maxTextMemo bytes by a
	// 64-bit hash and the length of the text: holding the texts
	// themselves as keys would keep every large result alive.
	bigMemo map[bigKey]int
	// rules is a cache of what the guards work out from these rules alone,
	// shared by the runs of this TokenCache's goroutine under the same,
	// unchanging rules (set by sessionRunner.run, or by the first Run).
	rules *replayfast.RuleCache
	// scratch is Run's per-session working memory, kept for the next run
	// of this goroutine: a replay runs one session after another, and each
	// grew these from nothing before.
	scratch runScratch
	// estimated counts the texts Counter counted by an estimate
	// (tokens.Estimates), so that a replay can say how many of them each
	// session had (the replay cache keeps it per session).
	estimated int64
}

// bigKey identifies a large text in TokenCache.bigMemo.
type bigKey struct {
	hash uint64
	size int
}

// maxTextMemo is the longest text memoized by its text; longer ones are
// memoized by hash. maxMemoEntries bounds each memo: a memo that fills up
// is started again (the texts repeated in a loop come close together).
const (
	maxTextMemo    = 4096
	maxMemoEntries = 100000
)

// NewTokenCache wraps a counter.
func NewTokenCache(c tokens.Counter) *TokenCache {
	return &TokenCache{Counter: c, memo: map[string]int{}, bigMemo: map[bigKey]int{}}
}

// Count returns the number of tokens of s.
func (tc *TokenCache) Count(s string) int {
	if s == "" {
		return 0
	}
	if len(s) > maxTextMemo {
		return tc.countBig(s, guard.HashString(s))
	}
	if n, ok := tc.memo[s]; ok {
		return n
	}
	n := tc.count(s)
	if len(tc.memo) >= maxMemoEntries {
		tc.memo = map[string]int{}
	}
	// The memo outlives the session, and s may be a view into a block of
	// many results (jsonx.StringOrValueAtPacked): kept as it is, it would
	// keep them all.
	tc.memo[strings.Clone(s)] = n
	return n
}

// countBig counts a text over maxTextMemo bytes whose hash is known.
func (tc *TokenCache) countBig(s string, hash uint64) int {
	k := bigKey{hash, len(s)}
	if n, ok := tc.bigMemo[k]; ok {
		return n
	}
	n := tc.count(s)
	if len(tc.bigMemo) >= maxMemoEntries || tc.bigMemo == nil {
		tc.bigMemo = map[bigKey]int{}
	}
	tc.bigMemo[k] = n
	return n
}

// count is Counter.Count, counting the texts it estimates.
func (tc *TokenCache) count(s string) int {
	if tokens.Estimates(tc.Counter, len(s)) {
		tc.estimated++
	}
	return tc.Counter.Count(s)
}

// resultTokens counts a call's result once. A large result is memoized by
// the hash Prepare already took of it, when its normalized form is the
// text itself (most results: nothing of the agent's own guard to remove).
//
// A result held as its head alone (PreparedSession.cut) is read whole
// again from p's file: the tokenizer counts the whole.
func (tc *TokenCache) resultTokens(c *PreparedCall, p *PreparedSession) int {
	if c.resultTokens < 0 {
		r := c.Event.Result
		if c.Event.ResultBytes > len(r) && p != nil {
			r = p.wholeResult(&c.Event)
		}
		if len(r) > maxTextMemo && c.resultIsNormalized {
			c.resultTokens = tc.countBig(r, c.Event.ResultHash)
		} else {
			c.resultTokens = tc.Count(r)
		}
	}
	return c.resultTokens
}

// sessionTokens counts tokens for one session: with its calibrated ratio
// when it has one, else with the tokenizer.
type sessionTokens struct {
	tc            *TokenCache
	bytesPerToken float64
	// p is the session, whose cut results are read whole again to be
	// counted by the tokenizer (nil: none is cut).
	p *PreparedSession
}

func (st sessionTokens) count(s string) int64 {
	if st.bytesPerToken > 0 {
		return st.calibrated(len(s))
	}
	return int64(st.tc.Count(s))
}

// calibrated counts n bytes with the session's bytes per token.
func (st sessionTokens) calibrated(n int) int64 {
	if n == 0 {
		return 0
	}
	return max(int64(float64(n)/st.bytesPerToken+0.5), 1)
}

func (st sessionTokens) result(c *PreparedCall) int64 {
	if st.bytesPerToken > 0 {
		return st.calibrated(max(len(c.Event.Result), c.Event.ResultBytes))
	}
	return int64(st.tc.resultTokens(c, st.p))
}
