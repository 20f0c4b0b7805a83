package tokens

import (
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// prose is n bytes of words, punctuation, numbers and line breaks.
func prose(n int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	words := []string{"the", "guard", "blocked", "read_file", "call", "3", "times;", "it's", "42.5", "(again)", "\n", "\n\n", "  ", "naïve", "日本語", "https://example.com/a?b=c", "{\"path\":", "\"x\"}"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		if r.Intn(5) > 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestChunkedCountIsExactOnProse: a long text with spaces counts the same
// in chunks as whole.
func TestChunkedCountIsExactOnProse(t *testing.T) {
	c, err := New(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	lib := libraryCodec(t, O200kBase)
	for seed := int64(1); seed <= 3; seed++ {
		text := prose(300<<10, seed)
		whole, err := lib.Count(text)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Count(text); got != whole {
			t.Errorf("seed %d: %d tokens in chunks, %d whole", seed, got, whole)
		}
	}
}

// TestHugeTextWithoutSpaces: a text of 64 MiB without a space is counted
// with bounded memory (chunks, then an estimate from its ends), the count
// is close to the per-chunk rate, and Estimated says it was estimated.
func TestHugeTextWithoutSpaces(t *testing.T) {
	c, err := New(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("x7Kq", 16<<20) // 64 MiB
	sample, _ := libraryCodec(t, O200kBase).Count(text[:chunkSize])
	before := Estimated(c)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	n := c.Count(text)
	runtime.ReadMemStats(&m1)
	if Estimated(c) != before+1 {
		t.Errorf("Estimated went from %d to %d, want one more", before, Estimated(c))
	}
	want := float64(sample) * float64(len(text)) / chunkSize
	if float64(n) < 0.99*want || float64(n) > 1.01*want {
		t.Errorf("%d tokens, want about %.0f", n, want)
	}
	// Everything allocated (the peak is less): a whole count allocated
	// about 38 bytes per byte, 2.4 GB here.
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 256<<20 {
		t.Errorf("counting allocated %d MiB, want at most 256", alloc>>20)
	}
	// Under the estimate's threshold, a text without spaces is counted
	// in chunks, every byte of it.
	mid := strings.Repeat("a", 1<<20)
	if got := c.Count(mid); got < (1<<20)/8-64 || got > (1<<20)/8+64 || Estimated(c) != before+1 {
		t.Errorf("1 MiB of a: %d tokens (estimated %d times)", got, Estimated(c)-before)
	}
}

func TestCutBefore(t *testing.T) {
	for _, c := range []struct {
		text string
		size int
		want int
	}{
		{"hello world again", 100, 17},
		{"hello world again", 13, 11},
		{"aaaaaaaaaaaaaaaa", 8, 8},
		{"aaaaaaa日本", 8, 7}, // not inside a rune
	} {
		if got := cutBefore(c.text, c.size); got != c.want {
			t.Errorf("cutBefore(%q, %d) = %d, want %d", c.text, c.size, got, c.want)
		}
	}
}
