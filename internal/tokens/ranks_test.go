package tokens

import (
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// TestReadRanks: the library's map, read in place, is the vocabulary that
// decoding every id gives, and the fast counter's tables give each token
// its rank.
func TestReadRanks(t *testing.T) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		c, err := tokenizer.Get(tokenizer.Encoding(name))
		if err != nil {
			t.Fatal(err)
		}
		lib := libraryVocabulary(c)
		m := map[string]uint{}
		if lib.IsValid() {
			ranks{library: lib}.each(func(tok string, rank uint32) { m[tok] = uint(rank) })
		}
		if len(m) < minTokens {
			t.Fatalf("%s: %d tokens in the library's map, want its whole vocabulary", name, len(m))
		}
		decoded, err := decodeRanks(c)
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		decoded.each(func(tok string, rank uint32) {
			count++
			if id, ok := m[tok]; !ok || uint32(id) != rank {
				t.Fatalf("%s: token %q: rank %d decoded, %d (present %v) in the map", name, tok, rank, id, ok)
			}
		})
		if count != len(m) {
			t.Errorf("%s: %d tokens decoded, %d in the map", name, count, len(m))
		}
		v := newVocabulary(ranks{library: lib})
		for tok, id := range m {
			if got := v.rank(tok); got != uint32(id) {
				t.Fatalf("%s: rank(%q) = %d, want %d", name, tok, got, id)
			}
		}
	}
	if m := libraryVocabulary(nil); m.IsValid() {
		t.Errorf("a nil codec gave a map of %d tokens", m.Len())
	}
}

// invalidUTF8Cases are texts that are not valid UTF-8: characters cut at
// each length, stray continuation bytes, overlong forms, surrogates, code
// points past U+10FFFF, and bytes that never occur in UTF-8.
var invalidUTF8Cases = []string{
	"\xff", "abc\xff\xfedef", "\x80", "a\x80\x80b", "\xc3", "caf\xc3", "\xc3(", "\xe6\x97", "\xe6\x97x", "\xf0\x9f\x98",
	"\xf0\x9f\x98 ok", "\xf0\x9f", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xe0\x9f\xbf", "\xe0\xa0", "\xed\xa0\x80",
	"\xed\x9f", "\xed\xbf\xbf", "\xf0\x80\x80\x80", "\xf0\x8f", "\xf4\x90\x80\x80", "\xf4\x8f\xbf", "\xf5\x80\x80\x80",
	"\xf8\x88\x80\x80\x80", "\xfe\xff", "\xef\xbf\xbd\xff", "日本\xe8\xaa", "\xe8\xaa語", "x\xe2\x82\xacy\xe2\x82z",
	"{\"path\": \"/tmp/\xc3\"}", "   \xff   ", "\xff\n\n\xff", "'\xffs", "12\xff34",
}

// TestReplaceInvalidUTF8: replaceInvalidUTF8 agrees with the library's own
// replacement on every case.
func TestReplaceInvalidUTF8(t *testing.T) {
	replace := libraryReplace(t)
	for _, s := range invalidUTF8Cases {
		if utf8.ValidString(s) {
			t.Fatalf("case %q is valid UTF-8", s)
		}
		if got, want := replaceInvalidUTF8(s), replace(s); got != want {
			t.Errorf("replaceInvalidUTF8(%q) = %q, the library's %q", s, got, want)
		}
	}
	if s := "valid 日本"; replaceInvalidUTF8(s) != s {
		t.Errorf("valid text changed")
	}
	// Three cut characters in a row are three replacements, a stray
	// continuation byte one more; a whole character stays.
	if got := replaceInvalidUTF8("\xe6\x97\xe6\x97\xe6\x97 \x80\xe6\x97\x80"); got != "\ufffd\ufffd\ufffd \ufffd旀" {
		t.Errorf("got %q, want three replacements, a space, one more and 旀", got)
	}
}

// FuzzReplaceInvalidUTF8: for any bytes, replaceInvalidUTF8 gives what
// the library gives.
func FuzzReplaceInvalidUTF8(f *testing.F) {
	for _, s := range invalidUTF8Cases {
		f.Add(s)
	}
	replace := libraryReplace(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := replaceInvalidUTF8(s), replace(s); got != want {
			t.Fatalf("replaceInvalidUTF8(%q) = %q, the library's %q", s, got, want)
		}
	})
}

// libraryReplace returns tiktoken-go's own replacement of invalid UTF-8,
// which it applies before counting in ErrorModeReplace and which it does
// not export: it applies the same to what Decode returns, and any bytes
// are the decoding of their single-byte tokens.
func libraryReplace(t testing.TB) func(string) string {
	t.Helper()
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var byteID [256]uint
	found := 0
	r, err := readRanks(c)
	if err != nil {
		t.Fatal(err)
	}
	r.each(func(tok string, rank uint32) {
		if len(tok) == 1 {
			byteID[tok[0]] = uint(rank)
			found++
		}
	})
	if found != 256 {
		t.Fatalf("%d single-byte tokens, want 256", found)
	}
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	return func(s string) string {
		ids := make([]uint, len(s))
		for i := 0; i < len(s); i++ {
			ids[i] = byteID[s[i]]
		}
		out, err := c.Decode(ids)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		return out
	}
}
