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

// TestSecretsInNamesRedacted: a secret pasted into a rules file's name or
// a gate case's name is redacted in every output that shows the name:
// replay, compare and sweep (table, markdown, HTML data and <title>,
// JSON, CSV), the gate's summary, JUnit, SARIF and --github lines, and
// rules check; --no-redact shows it (so that the test can fail).
func TestSecretsInNamesRedacted(t *testing.T) {
	const secret = "ghp_R9ulesNameSecret0123456789abcdefABCD"
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(dir, "read-loop.jsonl")
	os.WriteFile(transcript, src, 0o644)
	preset, _, _ := loopgate(t, "rules", "print", "--preset", "nanobot")
	named := func(name string) string {
		lines := strings.Split(preset, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "name:") {
				lines[i] = "name: " + jsonString(name)
			}
		}
		f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")[:6]+".yaml")
		os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644)
		return f
	}
	rulesFile := named("deploy token " + secret)
	other := named("other rules")
	gateFile := filepath.Join(dir, "g.gate.yaml")
	os.WriteFile(gateFile, []byte("rules: "+filepath.Base(rulesFile)+"\ntokenizer: chars4\nsnapshots: false\ncases:\n  - {name: 'case with "+secret+"', transcript: read-loop.jsonl, expect: {blocked: 99}}\n"), 0o644)
	junit, sarif := filepath.Join(dir, "j.xml"), filepath.Join(dir, "s.sarif")
	runs := [][]string{
		{"rules", "check", rulesFile},
		{"gate", gateFile, "--junit", junit, "--sarif", sarif, "--sarif-decisions", "--github"},
		{"gate", gateFile, "--format", "html"},
	}
	for _, f := range []string{"table", "json", "markdown", "html"} {
		runs = append(runs, []string{"replay", "--rules", rulesFile, "--tokenizer", "chars4", "--format", f, transcript})
	}
	for _, f := range []string{"table", "json", "csv", "markdown", "html"} {
		runs = append(runs, []string{"compare", "--rules", rulesFile, "--rules", other, "--tokenizer", "chars4", "--format", f, transcript},
			[]string{"sweep", "--rules", rulesFile, "--vary", "tools.class:read.block_at=2,3", "--tokenizer", "chars4", "--format", f, transcript})
	}
	show := func(args ...string) string {
		out, errs, _ := loopgate(t, args...)
		if args[0] == "gate" && args[2] == "--junit" {
			j, _ := os.ReadFile(junit)
			s, _ := os.ReadFile(sarif)
			out += string(j) + string(s)
		}
		return out + errs
	}
	for _, args := range runs {
		out := show(args...)
		what := strings.Join(args[:min(len(args), 5)], " ")
		if i := strings.Index(out, secret); i >= 0 {
			t.Errorf("%s shows the secret: %q", what, out[max(0, i-60):i])
		}
		// Where --no-redact shows the name, the redacted output shows
		// the redaction (rules check has no --no-redact).
		if args[0] == "rules" || strings.Contains(show(append(args, "--no-redact")...), secret) {
			if !strings.Contains(out, "[REDACTED:") {
				t.Errorf("%s shows no redaction marker", what)
			}
		} else if args[0] != "sweep" {
			t.Errorf("%s --no-redact does not show the name: the check cannot fail", what)
		}
	}
}
