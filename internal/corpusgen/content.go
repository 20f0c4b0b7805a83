package corpusgen

import (
	"math"
	"math/rand/v2"
	"strings"
)

// This file makes up the text of prompts, file contents, command output and
// web pages. Everything is drawn from a vocabulary written for this package
// and a pool of lines built once from the seed, so results of any size are
// cheap to produce and the same seed gives the same text.

var vocab = strings.Fields(`config parser token buffer cache index router handler session
worker queue batch stream record schema column table query filter mapper reducer
client server socket header payload retry backoff timeout deadline context cancel
logger metric gauge counter histogram span trace sampler exporter plugin module
package import export build deploy release version branch commit merge rebase
patch diff hunk line offset limit cursor page window frame layout widget button
render update state store action effect reducer selector thunk saga promise future
channel mutex lock guard barrier signal event emitter listener callback closure
tensor matrix vector scalar kernel layer weight bias gradient optimizer epoch
garden cactus basil fern orchid tulip meadow river canyon harbor lantern compass`)

var fileDirs = []string{"src", "internal/store", "pkg/api", "cmd/server", "lib", "app", "scripts", "docs", "tests", "web/components"}
var fileExts = []string{"go", "py", "ts", "md", "yaml", "rs", "js", "toml"}
var hosts = []string{"docs.example.com", "blog.example.org", "wiki.example.net", "api.example.io", "news.example.com"}

var promptHeads = []string{
	"Why does %s fail on the %s path?",
	"Refactor the %s so the %s is injected.",
	"Find where %s handles the %s and explain it.",
	"Add a test for %s covering the %s case.",
	"Look up how other projects configure %s with %s.",
	"The %s keeps timing out when the %s is large; investigate.",
	"Summarize the recent changes to %s and the %s.",
	"Fix the flaky test around %s and %s.",
}

var finals = []string{
	"Done. The %s now passes and the %s is covered.",
	"I found the cause: the %s was not reset before the %s ran.",
	"Here is the summary: %s changed, %s is unchanged.",
	"The %s is configured in one place; the %s reads it at start-up.",
}

// pool is the shared, read-only source of made-up text.
type pool struct {
	lines []string
}

func newPool(seed int64) *pool {
	r := rand.New(rand.NewPCG(uint64(seed), 0x706f6f6c))
	p := &pool{lines: make([]string, 4096)}
	for i := range p.lines {
		p.lines[i] = makeLine(r)
	}
	return p
}

func word(r *rand.Rand) string { return vocab[r.IntN(len(vocab))] }

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func makeLine(r *rand.Rand) string {
	w1, w2, w3 := word(r), word(r), word(r)
	switch r.IntN(9) {
	case 0:
		return "func " + w1 + title(w2) + "(" + w3 + " *" + title(w1) + ") error {"
	case 1:
		return "\treturn " + w1 + "." + title(w2) + "(" + w3 + ")"
	case 2:
		return "\tif err := " + w1 + ".Close(); err != nil {"
	case 3:
		return "// " + title(w1) + " keeps the " + w2 + " and the " + w3 + " in step."
	case 4:
		return "2026-03-14 10:21:0" + string(rune('0'+r.IntN(10))) + " INFO " + w1 + " " + w2 + " ready (" + w3 + ")"
	case 5:
		return "\t" + w1 + " := make(map[string]" + title(w2) + ", " + string(rune('1'+r.IntN(9))) + ")"
	case 6:
		return "def " + w1 + "_" + w2 + "(self, " + w3 + "):"
	case 7:
		return "  - " + w1 + ": " + w2 + "-" + w3
	default:
		return "}"
	}
}

// text returns about n bytes of lines from the pool, joined by newlines.
func (p *pool) text(r *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n + 100)
	i := r.IntN(len(p.lines))
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.lines[i])
		i = (i + 1 + r.IntN(3)) % len(p.lines)
	}
	s := b.String()
	if len(s) > n && n > 8 {
		s = s[:n]
	}
	return s
}

// numbered returns about n bytes of lines, each prefixed by its number and a
// separator such as "|" (hermes) or "| " (nanobot), and the line count.
func (p *pool) numbered(r *rand.Rand, n int, sep string, from int) (string, int) {
	var b strings.Builder
	b.Grow(n + 100)
	i := r.IntN(len(p.lines))
	count := 0
	for b.Len() < n || count == 0 {
		if count > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(itoa(from + count))
		b.WriteString(sep)
		b.WriteString(p.lines[i])
		i = (i + 1 + r.IntN(3)) % len(p.lines)
		count++
	}
	return b.String(), count
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func randString(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// logUniform draws an integer in [lo, hi] with a log-uniform distribution:
// many small values, a long tail.
func logUniform(r *rand.Rand, lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	ll, lh := math.Log(float64(lo)), math.Log(float64(hi))
	v := int64(math.Exp(ll + r.Float64()*(lh-ll)))
	if v < lo {
		v = lo
	}
	if v > hi {
		v = hi
	}
	return v
}
