package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// evilText is what a transcript may hold to take over a terminal, a CI log
// or a pull request: an OSC 52 clipboard write, a screen clear, a line
// break starting a GitHub workflow command, a C1 CSI, and markdown that
// loads images, makes links and swallows the rest of a page.
const evilText = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\n::warning::pwned\r\u009b31m<img src=https://evil.example/x.png>![x](https://evil.example/y)[l](https://evil.example)<details>"

// writeEvilTranscript writes a nanobot session whose id, tool name and an
// orphan result's call id hold evilText, under a file name holding escapes
// and a line break; the tool is called five times, so the guard blocks it.
func writeEvilTranscript(t *testing.T, dir string) string {
	t.Helper()
	tool := "read" + evilText
	lines := []string{`{"_type": "metadata", "key": ` + jsonString("cli:"+evilText) + `, "created_at": "2026-10-14T09:00:00", "updated_at": "2026-10-14T09:30:00", "metadata": {}, "last_consolidated": 0}`,
		`{"role": "user", "content": "Check.", "timestamp": "2026-10-14T09:00:01"}`}
	for i := range 5 {
		id := fmt.Sprintf("call_%d", i+1)
		lines = append(lines,
			fmt.Sprintf(`{"role": "assistant", "content": "", "tool_calls": [{"id": %s, "type": "function", "function": {"name": %s, "arguments": %s}}], "timestamp": "2026-10-14T10:00:%02d"}`,
				jsonString(id), jsonString(tool), jsonString(`{"path": "`+strings.ReplaceAll(evilText, `"`, "")+`"}`), i),
			fmt.Sprintf(`{"role": "tool", "tool_call_id": %s, "name": %s, "content": "same", "timestamp": "2026-10-14T10:00:%02d"}`, jsonString(id), jsonString(tool), i))
	}
	lines = append(lines, `{"role": "tool", "tool_call_id": `+jsonString("orphan"+evilText)+`, "name": "x", "content": "late", "timestamp": "2026-10-14T10:01:00"}`,
		`{"role": "assistant", "content": "Done.", "timestamp": "2026-10-14T11:00:00"}`)
	name := filepath.Join(dir, "evil\x1b[31m\n::warning::file.jsonl")
	if err := os.WriteFile(name, linesOf(lines...), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	return name
}

// checkNoInjection fails when out holds a control character other than a
// line break, a C1 control, or a line that a runner reads as a workflow
// command (our own --github annotations excepted: ownCommands).
func checkNoInjection(t *testing.T, what, out string, ownCommands bool) {
	t.Helper()
	for i, r := range out {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			t.Errorf("%s: holds %U at byte %d: %q", what, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(l, "::") {
			continue
		}
		if !ownCommands || strings.HasPrefix(l, "::warning::pwned") || strings.HasPrefix(l, "::warning::file") {
			t.Errorf("%s: a line starts a workflow command: %q", what, line)
		}
	}
}

// stripCodeSpans removes markdown code spans from a line.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		fence := line[i:n]
		end := strings.Index(line[n:], fence)
		if end < 0 {
			b.WriteString(line[i:])
			return b.String()
		}
		line = line[n+end+len(fence):]
	}
}

// TestNoInjectionThroughReports: text from a transcript and its file name
// reaches no output raw: every human-readable output shows control
// characters escaped, no line starts a workflow command (with or without
// --github), the JUnit file parses, and markdown (replay's and the step
// summary) holds no HTML, image or link outside code spans.
func TestNoInjectionThroughReports(t *testing.T) {
	dir := t.TempDir()
	file := writeEvilTranscript(t, dir)
	for _, args := range [][]string{
		{"replay", "--format", "table", "--color", "never", "--tokenizer", "chars4", "--max-decisions", "0"},
		{"replay", "--format", "markdown", "--tokenizer", "chars4"},
		{"replay", "--format", "table", "--color", "always", "--tokenizer", "chars4"},
		{"replay", "--format", "table", "--no-redact", "--tokenizer", "chars4"},
		{"inspect", "--format", "table", "--calls"},
		{"inspect", "--format", "table", "--calls", "--no-redact"},
		{"compare", "--format", "table", "--strict", "--tokenizer", "chars4", "--preset", "nanobot"},
		{"sweep", "--format", "table", "--strict", "--tokenizer", "chars4", "--preset", "nanobot", "--vary", "detectors.repeat.block_at=2,3"},
	} {
		out, stderr, code := loopgate(t, append(args, file)...)
		what := strings.Join(args, " ")
		if code == exitUsage && !strings.Contains(what, "--strict") {
			t.Errorf("%s: exit %d: %s", what, code, stderr)
		}
		if !strings.Contains(out+stderr, `\x1b`) {
			t.Errorf("%s: the escaped text is not shown:\n%s%s", what, out, stderr)
		}
		if strings.Contains(what, "always") {
			// Our own colors are escapes; the transcript's are not.
			out = regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(out, "")
		}
		checkNoInjection(t, what+" (stdout)", out, false)
		checkNoInjection(t, what+" (stderr)", stderr, false)
		if args[1] == "markdown" {
			for _, line := range strings.Split(out, "\n") {
				rest := stripCodeSpans(line)
				for _, bad := range []string{"<img", "<details", "![", "](http"} {
					if strings.Contains(rest, bad) {
						t.Errorf("%s: %q outside a code span: %q", what, bad, line)
					}
				}
			}
		}
	}

	// The gate: a snapshot recorded under one preset, then compared under
	// another, so that the failures quote the diff (tool names, ids).
	gateFile := filepath.Join(dir, "g.gate.yaml")
	writeGate := func(preset string) {
		os.WriteFile(gateFile, []byte("preset: "+preset+"\ntokenizer: chars4\ncases:\n  - {name: evil, transcript: 'evil*', expect: {problems: 1}}\n"), 0o644)
	}
	writeGate("nanobot")
	if _, stderr, code := gate(t, gateFile, "--update"); code != exitOK {
		t.Fatalf("--update: exit %d %s", code, stderr)
	}
	writeGate("pi-loopguard")
	junit := filepath.Join(dir, "junit.xml")
	summary := filepath.Join(dir, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	for _, github := range []bool{false, true} {
		args := []string{gateFile, "--junit", junit}
		if github {
			args = append(args, "--github")
		}
		out, stderr, code := gate(t, args...)
		if code != exitFindings || !strings.Contains(out, "snapshot") {
			t.Fatalf("gate %v: exit %d, no snapshot diff\n%s%s", args, code, out, stderr)
		}
		checkNoInjection(t, fmt.Sprintf("gate --github=%v (stdout)", github), out, github)
		checkNoInjection(t, fmt.Sprintf("gate --github=%v (stderr)", github), stderr, false)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Errorf("the JUnit file does not parse: %v\n%s", err, data)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	checkNoInjection(t, "step summary", string(md), false)
	for _, line := range strings.Split(string(md), "\n") {
		rest := stripCodeSpans(line)
		for _, bad := range []string{"<img", "<details", "![", "](http"} {
			if strings.Contains(rest, bad) {
				t.Errorf("step summary: %q outside a code span: %q", bad, line)
			}
		}
	}
}
