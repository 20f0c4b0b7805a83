package tokens

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/tiktoken-go/tokenizer"
)

// fastAndLibrary returns the loaded counter of an encoding and the
// library's own codec, in the error mode tiktoken uses by default: the
// reference every count here is compared with.
func fastAndLibrary(t testing.TB, name string) (*bpe, tokenizer.Codec) {
	t.Helper()
	c, err := New(name)
	if err != nil {
		t.Fatal(err)
	}
	b := c.(*bpe)
	if err := b.wait(); err != nil {
		t.Fatal(err)
	}
	if b.fast == nil {
		t.Fatalf("%s: the fast counter was not built", name)
	}
	return b, libraryCodec(t, name)
}

// libraryCodec is tiktoken-go's codec of an encoding in ErrorModeReplace.
func libraryCodec(t testing.TB, name string) tokenizer.Codec {
	t.Helper()
	lib, err := tokenizer.Get(tokenizer.Encoding(name))
	if err != nil {
		t.Fatal(err)
	}
	lib.SetErrorMode(tokenizer.ErrorModeReplace)
	return lib
}

// checkSame fails when loopgate's count of text and tiktoken-go's differ,
// or when the fast counter declines valid UTF-8.
func checkSame(t testing.TB, b *bpe, lib tokenizer.Codec, text string) {
	t.Helper()
	want, err := lib.Count(text)
	if err != nil {
		t.Fatalf("tiktoken-go: %q: %v", clip(text), err)
	}
	if _, ok := b.fast.count(text); !ok && utf8.ValidString(text) {
		t.Fatalf("%s: the fast counter declined valid UTF-8 %q", b.name, clip(text))
	}
	if got := b.countWhole(text); got != want {
		t.Fatalf("%s: %q: %d tokens, tiktoken-go %d", b.name, clip(text), got, want)
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// splitCases are texts that exercise each alternative of the split
// patterns and the backtracking between them.
var splitCases = []string{
	"hello world", "Hello, World!", "HELLO world", "HTTPServer", "iPhone", "McDonald's",
	"don't I'll we've they're I'M SHE'S 'd 'LL 'Re", "it\u017fs'\u017f",
	"x = 12345678; y=3.14159", "١٢٣٤ ٥٦", "Ⅻ ⅷ", "½¾",
	"  leading", "trailing  ", "a  b   c", "\t\tindent", "line\nnext", "cr\r\nlf", "\n\n\n", " \n \n ",
	"mixed \t\n  spaces\n\t x", "end with space ", " ", "\u00a0nbsp\u2003em\u3000ideo",
	"!!!", " !!!", "a/b/c", "path/to/file.go\n", "x///\n\r", "...\r\n/", "?!\n/\n",
	"e\u0301 combining", "\u0301\u0301 marks first", "\u0301a", "ǅungla ǈ ǋ", "ʰʲ modifier", "漢字かなカナ", "한국어 텍스트",
	"Ελληνικά ΚΕΦΑΛΑΙΑ", "кириллица ПРОПИСНЫЕ", "עברית", "العربية", "हिन्दी", "ไทย",
	"emoji 😀👍🏽 ❤️", "🇫🇷🇩🇪", "\u200bzero\u200dwidth", "tab\tsep\tvalues\t1\t2",
	`{"path": "/etc/hosts", "offset": 1, "limit": 500}`, "<tool_response>{\"ok\": true}</tool_response>",
	strings.Repeat("a", 200), strings.Repeat("ab", 300), strings.Repeat("😀", 100), strings.Repeat(" ", 150) + "x",
	strings.Repeat("0123456789", 30), strings.Repeat("\n", 90) + "y", strings.Repeat("-=", 120),
	"A1b2C3", "x1y22z333w4444", "'s", "'", "''", "'''s", "a'", "a''b", "a'sb", "Z'LLama",
}

// TestSplitMatchesRegexp: on each text the hand-written split counts what
// tiktoken-go counts, for both encodings.
func TestSplitMatchesRegexp(t *testing.T) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		b, lib := fastAndLibrary(t, name)
		for _, text := range splitCases {
			checkSame(t, b, lib, text)
			checkSame(t, b, lib, text+" tail")
			checkSame(t, b, lib, "head "+text)
		}
	}
}

// samplePrefix is how much of each real sample file the comparison reads:
// the library counter is slow, and the samples beside the repository
// grew to tens of megabytes, past go test's time limit.
const samplePrefix = 256 << 10

// TestCountMatchesTiktokenOnCorpus: every text of a generated corpus of
// every format (each line: results, arguments and messages in each
// format's framing), and the lines of the real samples beside the
// repository when present, get the same count from both counters. Each
// sample file is compared under one vocabulary, the files shared out
// between the two in turn, on the lines of its first samplePrefix bytes.
func TestCountMatchesTiktokenOnCorpus(t *testing.T) {
	files, err := corpusgen.GenerateInMemory(128<<10, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	// The two vocabularies are compared at once (parallel subtests of a
	// group that returns when both have): tiktoken-go's counter is most
	// of this test's time, and each vocabulary has its own counters.
	var texts atomic.Int64
	t.Run("vocabularies", func(t *testing.T) {
		for vi, name := range []string{O200kBase, Cl100kBase} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				b, lib := fastAndLibrary(t, name)
				for _, f := range files {
					for _, line := range strings.Split(string(f.Data), "\n") {
						checkSame(t, b, lib, line)
						texts.Add(1)
					}
				}
				samples := filepath.Join("..", "..", "..", "shared", "samples")
				if testing.Short() {
					t.Log("-short: the real samples are not compared, the generated corpus is")
					return
				}
				if _, err := os.Stat(samples); err != nil {
					t.Logf("%s absent: the real samples are not compared", samples)
					return
				}
				n := 0
				filepath.WalkDir(samples, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return nil
					}
					n++
					if n%2 != vi {
						return nil // the other vocabulary's file
					}
					data, err := os.ReadFile(p)
					if err != nil || len(data) > 8<<20 {
						return nil
					}
					if len(data) > samplePrefix {
						data = data[:samplePrefix]
					}
					for _, line := range strings.Split(string(data), "\n") {
						checkSame(t, b, lib, line)
						texts.Add(1)
					}
					return nil
				})
			})
		}
	})
	t.Logf("%d texts compared", texts.Load())
}

// FuzzCountMatchesTiktoken: for any text, valid UTF-8 or not, loopgate's
// count and tiktoken-go's agree.
func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range splitCases {
		f.Add(s)
	}
	for _, s := range invalidUTF8Cases {
		f.Add(s)
	}
	o200k, o200kLib := fastAndLibrary(f, O200kBase)
	cl100k, cl100kLib := fastAndLibrary(f, Cl100kBase)
	f.Fuzz(func(t *testing.T, text string) {
		checkSame(t, o200k, o200kLib, text)
		checkSame(t, cl100k, cl100kLib, text)
	})
}

// BenchmarkCount compares the fast counter with tiktoken-go's on the lines
// of a generated corpus (MB/s in the benchmark's output).
func BenchmarkCount(b *testing.B) {
	files, err := corpusgen.GenerateInMemory(128<<10, 64<<10)
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	size := 0
	for _, f := range files {
		for _, l := range strings.Split(string(f.Data), "\n") {
			lines = append(lines, l)
			size += len(l)
		}
	}
	for _, name := range []string{O200kBase, Cl100kBase} {
		bp, lib := fastAndLibrary(b, name)
		b.Run(name+"/fast", func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				for _, l := range lines {
					bp.fast.count(l)
				}
			}
		})
		b.Run(name+"/tiktoken-go", func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				for _, l := range lines {
					lib.Count(l)
				}
			}
		})
	}
}

// TestPackKey: packKey's word reads agree with packing byte by byte, for
// every length it packs, and keys that differ only in trailing zero bytes
// still differ by length in the vocabulary.
func TestPackKey(t *testing.T) {
	text := "\x00\x01abcdefghijklmnopqrst\xff\xfe"
	for start := 0; start < 3; start++ {
		for n := 0; n <= maxPacked; n++ {
			s := text[start : start+n]
			var want [2]uint64
			for i := 0; i < n; i++ {
				want[i/8] |= uint64(s[i]) << (8 * (i % 8))
			}
			if lo, hi := packKey(s); lo != want[0] || hi != want[1] {
				t.Errorf("packKey(%q) = %#x, %#x; want %#x, %#x", s, lo, hi, want[0], want[1])
			}
		}
	}
	byRank := make([]string, 16)
	byRank[7], byRank[8], byRank[9], byRank[10] = "a", "a\x00", strings.Repeat("x", 20), "a"
	byRank[11], byRank[12], byRank[13], byRank[14] = "abcdefgh", "abcdefghi", "abcdefghi\x00", strings.Repeat("y", 16)
	byRank[15] = "abcdefghi"
	v := newVocabulary(ranks{byID: byRank})
	for tok, want := range map[string]uint32{
		"a": 7, "a\x00": 8, "a\x00\x00": noRank, strings.Repeat("x", 20): 9, "b": noRank,
		"abcdefgh": 11, "abcdefgh\x00": noRank, "abcdefghi": 12, "abcdefghi\x00": 13, "abcdefghi\x00\x00": noRank,
		strings.Repeat("y", 16): 14, strings.Repeat("y", 15): noRank, strings.Repeat("y", 17): noRank,
	} {
		if got := v.rank(tok); got != want {
			t.Errorf("rank(%q) = %d, want %d", tok, got, want)
		}
	}
}

// BenchmarkO200kMisses counts 4 MiB of made-up words, in pieces of 60 KB:
// nearly every piece misses the piece cache and is merged against the
// vocabulary, so this is the speed of the vocabulary's look-ups (random
// identifiers, hashes and base64 in results count like this).
func BenchmarkO200kMisses(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./"
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		for n := 3 + r.Intn(14); n > 0; n-- {
			sb.WriteByte(letters[r.Intn(len(letters))])
		}
		sb.WriteByte(' ')
	}
	text := sb.String()
	var parts []string
	for len(text) >= 60_000 {
		parts, text = append(parts, text[:60_000]), text[60_000:]
	}
	c, _ := New(O200kBase)
	c.Count("warm up")
	b.SetBytes(int64(len(parts) * 60_000))
	for b.Loop() {
		for _, p := range parts {
			c.Count(p)
		}
	}
}
