package formatcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeExpectations(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "expectations.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJudge: a listed failure passes, an unlisted one fails, a listed
// check that passes is stale and names its line, an unlisted pass is fine,
// and an entry never weighed is stale.
func TestJudge(t *testing.T) {
	p := writeExpectations(t, "# comment\n\na/b.jsonl | results | file | cut short\nc.json | format | issue 48 | no reader\nd.json | times | file | gone\n")
	x, err := LoadExpectations(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, check, failure string
		want                 string // substring of the message; "" for none
	}{
		{"a/b.jsonl", "results", "1 problem", ""},
		{"a/b.jsonl", "problems", "2 problems", "add to"},
		{"c.json", "format", "", "stale entry, remove line 4"},
		{"e.json", "format", "", ""},
	} {
		got := x.Judge(tc.file, tc.check, tc.failure)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("Judge(%s, %s, %q) = %q; want %q", tc.file, tc.check, tc.failure, got, tc.want)
		}
	}
	stale := x.Unjudged("times")
	if len(stale) != 1 || !strings.Contains(stale[0], "remove line 5") {
		t.Errorf("Unjudged = %q; want the d.json entry (line 5)", stale)
	}
	if got := x.Unjudged("format"); len(got) != 0 {
		t.Errorf("Unjudged(format) = %q; want none (c.json was weighed)", got)
	}
}

// TestLoadExpectationsRefuses: malformed lines are errors naming the line.
func TestLoadExpectationsRefuses(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"a | results | file\n", ":1: want FILE | CHECK | OWNER | REASON"},
		{"a | result | file | x\n", `:1: unknown check "result"`},
		{"a | results | bug 48 | x\n", `:1: owner "bug 48"`},
		{"a | results | issue 48 |  \n", ":1: no reason given"},
		{" | results | file | x\n", ":1: no file given"},
		{"a | results | file | x\n# c\na | results | issue 48 | y\n", ":3: a | results is already listed at line 1"},
	} {
		_, err := LoadExpectations(writeExpectations(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadExpectations(%q) = %v; want an error with %q", tc.text, err, tc.want)
		}
	}
}
