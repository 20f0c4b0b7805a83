package report

import (
	"encoding/xml"
	"regexp"
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

// FuzzXMLText: what XMLText leaves, written as a JUnit failure body
// (CDATA), always parses.
func FuzzXMLText(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b[2J\x00\x07", "]]>", "\uFFFE\uFFFF", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		b.WriteString("<a>")
		if err := xml.NewEncoder(&b).EncodeElement(struct {
			Text string `xml:",cdata"`
		}{XMLText(s)}, xml.StartElement{Name: xml.Name{Local: "f"}}); err != nil {
			t.Fatal(err)
		}
		b.WriteString("</a>")
		var v struct{}
		if err := xml.Unmarshal([]byte(b.String()), &v); err != nil {
			t.Fatalf("XMLText(%q) does not parse: %v", s, err)
		}
	})
}

// FuzzMarkdownCode: a code span of any text is one line that opens and
// closes with the same fence and holds no control character, so nothing
// in it is read as HTML, a link or an image.
func FuzzMarkdownCode(f *testing.F) {
	for _, s := range []string{"", "<img src=x>", "![](http://e)", "a`b``c", "`", "x\n<details>", "|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := mdCode(s)
		checkSafe(t, s, out)
		if out == "-" { // nothing to show
			return
		}
		n := 0
		for n < len(out) && out[n] == '`' {
			n++
		}
		fence := out[:n]
		if n == 0 || !strings.HasSuffix(out, fence) || strings.Contains(out[n:len(out)-n], fence) {
			t.Fatalf("mdCode(%q) = %q: not one code span", s, out)
		}
		text := mdText(s)
		checkSafe(t, s, text)
		// Escaped characters (\[, \], \\) are text; what is left must
		// open nothing.
		unescaped := regexp.MustCompile(`\\.`).ReplaceAllString(text, "")
		for _, bad := range []string{"<", "](", "!["} {
			if strings.Contains(unescaped, bad) {
				t.Fatalf("mdText(%q) = %q holds %q", s, text, bad)
			}
		}
	})
}
