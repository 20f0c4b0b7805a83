package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bidiRunes are the Unicode bidirectional embeddings, overrides and
// isolates (U+202A-U+202E, U+2066-U+2069): shown raw, they reorder the
// text around them, so that what a reader sees is not what is there
// (Trojan Source, CVE-2021-42574).
var bidiRunes = []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069}

// TestBidiEscaped: bidi controls in a file name, a session id, a tool name
// and arguments are escaped (\u202e) in the terminal table, inspect and
// the HTML page, as U+2028 is.
func TestBidiEscaped(t *testing.T) {
	dir := t.TempDir()
	all := string(bidiRunes)
	var calls [][3]string
	for range 8 {
		calls = append(calls, [3]string{"read_file", `{"path": "a` + all + `.txt"}`, "same"})
	}
	lines := nanobotCalls(calls)
	lines[0] = strings.Replace(lines[0], `"cli:hostile"`, jsonString("cli:"+all), 1)
	name := filepath.Join(dir, "evil"+all+".jsonl")
	if err := os.WriteFile(name, linesOf(lines...), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	for _, args := range [][]string{
		{"replay", "--format", "table", "--preset", "nanobot", name},
		{"replay", "--format", "markdown", "--preset", "nanobot", name},
		{"replay", "--format", "html", "--preset", "nanobot", name},
		{"inspect", "--calls", name},
	} {
		out, errs, code := loopgate(t, args...)
		what := strings.Join(args[:3], " ")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", what, code, errs)
		}
		for _, r := range bidiRunes {
			if i := strings.IndexRune(out+errs, r); i >= 0 {
				t.Errorf("%s: %U shown raw: %q", what, r, (out + errs)[max(0, i-40):min(len(out+errs), i+40)])
				break
			}
		}
		if !strings.Contains(out, `\u202e`) {
			t.Errorf("%s: no \\u202e shown", what)
		}
	}
}
