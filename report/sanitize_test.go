package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"", ""},
		{"read_file", "read_file"},
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`},
		{"\x1b[2J", `\x1b[2J`},
		{"a\nb\r\tc", `a\nb\r\tc`},
		{"x\n::warning::owned", `x\n::warning::owned`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"ls\u2028ep\u2029", `ls\u2028ep\u2029`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"héllo wörld ✓", "héllo wörld ✓"},
	} {
		if got := Sanitize(c.in); got != c.want {
			t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSafeLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"::warning::x", `\::warning::x`},
		{"  ::error file=a::b", `  \::error file=a::b`},
		{"a ::warning::x", "a ::warning::x"},
		{"f.jsonl:3: fine", "f.jsonl:3: fine"},
		{"\n::warning::x", `\n::warning::x`},
	} {
		if got := SafeLine(c.in); got != c.want {
			t.Errorf("SafeLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// checkSafe fails when out holds a control character, a DEL, a C1 control,
// a Unicode line break or invalid UTF-8.
func checkSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 {
			t.Fatalf("Sanitize(%q) = %q: holds %U", in, out, r)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "a\x1b[31mred", "\n::warning::x", "\xff\xfe", "\u009b", "tab\there", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		checkSafe(t, s, out)
		// Text with nothing to escape is kept as is; escaping is stable.
		if firstUnsafe(s) < 0 && out != s {
			t.Fatalf("Sanitize changed safe text %q to %q", s, out)
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize is not stable: %q then %q", out, again)
		}
		line := SafeLine(s)
		checkSafe(t, s, line)
		if strings.HasPrefix(strings.TrimLeft(line, " "), "::") {
			t.Fatalf("SafeLine(%q) = %q starts a workflow command", s, line)
		}
	})
}
