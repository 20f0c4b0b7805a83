package analyze

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/loopgate/loopgate/analyze/guard"
)

// countingCounter counts chars4 and how many texts it was asked to count.
type countingCounter struct{ calls int }

func (c *countingCounter) Name() string { return "counting" }
func (c *countingCounter) Count(s string) int {
	c.calls++
	return (len(s) + 3) / 4
}

// TestTokenCacheCountsEachTextOnce: a text is tokenized once per worker
// whatever its size (before, results over 4 KB were tokenized again on
// every repeat of a loop), and distinct texts of one size are not
// confused.
func TestTokenCacheCountsEachTextOnce(t *testing.T) {
	big := strings.Repeat("x", 80<<10)
	other := strings.Repeat("y", 80<<10)
	cases := []struct {
		name  string
		texts []string
		calls int
	}{
		{"short repeated", []string{"ok", "ok", "ok"}, 1},
		{"large repeated", []string{big, big, big, big}, 1},
		{"two large of one size", []string{big, other, big, other}, 2},
		{"mixed", []string{"a", big, "a", other, big}, 3},
	}
	for _, tc := range cases {
		cc := &countingCounter{}
		cache := NewTokenCache(cc)
		for _, s := range tc.texts {
			if got, want := cache.Count(s), (len(s)+3)/4; got != want {
				t.Errorf("%s: Count = %d, want %d", tc.name, got, want)
			}
		}
		if cc.calls != tc.calls {
			t.Errorf("%s: the counter was called %d times, want %d", tc.name, cc.calls, tc.calls)
		}
	}
}

// TestResultTokensMemoByResultHash: results of calls in different
// sessions share one count when the hash Prepare took is of the text
// itself.
func TestResultTokensMemoByResultHash(t *testing.T) {
	big := strings.Repeat("line of output\n", 1000)
	cc := &countingCounter{}
	cache := NewTokenCache(cc)
	for i := 0; i < 5; i++ {
		c := &PreparedCall{Event: guard.CallEvent{Result: big, ResultHash: guard.HashString(big)}, resultTokens: -1, resultIsNormalized: true}
		if got := cache.resultTokens(c, nil); got != (len(big)+3)/4 {
			t.Fatalf("resultTokens = %d", got)
		}
	}
	// A call whose hash is of another (normalized) text is counted by its
	// own text, not under that hash.
	c := &PreparedCall{Event: guard.CallEvent{Result: big + "!", ResultHash: guard.HashString(big)}, resultTokens: -1}
	if got := cache.resultTokens(c, nil); got != (len(big)+1+3)/4 {
		t.Errorf("a result whose normalized form differs got %d tokens", got)
	}
	if cc.calls != 2 {
		t.Errorf("the counter was called %d times, want 2", cc.calls)
	}
}

// TestTokenCacheKeepsCopies: the memo, which outlives a session, keys a
// short text by a copy of it, not by the text handed in: a tool result
// may be a view into a block of many (jsonx.StringOrValueAtPacked), which
// a key would keep alive.
func TestTokenCacheKeepsCopies(t *testing.T) {
	block := strings.Repeat("result text ", 1000)
	view := block[120:180]
	cache := NewTokenCache(&countingCounter{})
	cache.Count(view)
	if len(cache.memo) != 1 {
		t.Fatalf("memo holds %d texts, want 1", len(cache.memo))
	}
	for k := range cache.memo {
		if k != view {
			t.Fatalf("memo key %q, want %q", k, view)
		}
		if unsafe.StringData(k) == unsafe.StringData(view) {
			t.Fatal("the memo keys the text handed in, not a copy: it keeps the whole block alive")
		}
	}
}
