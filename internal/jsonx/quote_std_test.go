package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdQuote is encoding/json's encoding of s with HTML escaping off, the
// reference AppendQuotedStd must match.
func stdQuote(t testing.TB, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestAppendQuotedStd(t *testing.T) {
	for _, s := range []string{
		"", "plain", `"quoted" \ back`, "<b>&amp;</b>", "\b\f\n\r\t\x00\x1f\x7f",
		"line\u2028sep\u2029para", "bad \xff byte", "\xc3", "\xe2\x80", "é ü 日本 🙂",
		"\u2028", "\xff\u2029\xfe", "a\u2028\"\xff\n",
	} {
		got := AppendQuotedStd([]byte("prefix"), s)
		if want := append([]byte("prefix"), stdQuote(t, s)...); !bytes.Equal(got, want) {
			t.Errorf("AppendQuotedStd(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzAppendQuotedStd(f *testing.F) {
	f.Add("a\u2028b\xffc<>&\"\\\n\x00\x7f\u00e9")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendQuotedStd(nil, s), stdQuote(t, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendQuotedStd(%q) = %q, encoding/json %q", s, got, want)
		}
	})
}
