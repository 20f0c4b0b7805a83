package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// at80 runs the CLI in-process on an 80-column terminal ($COLUMNS) and
// returns stdout and stderr.
func at80(t *testing.T, args ...string) (string, string) {
	t.Helper()
	t.Setenv("COLUMNS", "80")
	t.Setenv("NO_COLOR", "1")
	var out, errb bytes.Buffer
	run(append([]string{"loopgate"}, args...), &out, &errb)
	return out.String(), errb.String()
}

// overLines are the lines of text wider than width runes.
func overLines(text string, width int) []string {
	var over []string
	for l := range strings.SplitSeq(text, "\n") {
		if utf8.RuneCountInString(l) > width {
			over = append(over, l)
		}
	}
	return over
}

// subcommands are the command names a help text lists under COMMANDS.
func subcommands(help string) []string {
	_, list, ok := strings.Cut(help, "COMMANDS:\n")
	if !ok {
		return nil
	}
	var names []string
	for l := range strings.SplitSeq(list, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(l, "   ") {
			break
		}
		if strings.HasPrefix(l, "    ") { // a description's wrapped line
			continue
		}
		names = append(names, strings.TrimSuffix(f[0], ","))
	}
	return names
}

// TestHelpAt80Columns renders the help of the app and of every command and
// subcommand at 80 columns: no line is wider.
func TestHelpAt80Columns(t *testing.T) {
	var walk func(path []string)
	seen := 0
	walk = func(path []string) {
		out, _ := at80(t, append(path, "--help")...)
		seen++
		if !strings.Contains(out, "USAGE:") {
			t.Fatalf("%v --help printed no help:\n%s", path, out)
		}
		if over := overLines(out, 80); len(over) > 0 {
			t.Errorf("loopgate %s --help: %d line(s) over 80 columns:\n%s", strings.Join(path, " "), len(over), strings.Join(over, "\n"))
		}
		for _, sub := range subcommands(out) {
			walk(append(append([]string(nil), path...), sub))
		}
	}
	walk(nil)
	if seen < 15 {
		t.Errorf("only %d help texts seen: the COMMANDS lists were not followed", seen)
	}
}

// TestOutputsAt80Columns renders every command's human output (tables,
// gate cases, problems on both streams) at 80 columns: no line is wider,
// and each output still says what it must.
func TestOutputsAt80Columns(t *testing.T) {
	agentHome(t)
	// A file with problems, named long, so that its problem lines must wrap.
	dir := t.TempDir()
	broken := filepath.Join(dir, "a-rather-long-folder-name-for-a-session-file", "0123456789abcdef-broken-session.jsonl")
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-11-01T09:00:00Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant", this line is not JSON at all and its reader says so at some length`,
		`{"type":"user","sessionId":"s1","uuid":"u2","parentUuid":"u1","timestamp":"2026-11-01T09:00:01Z","message":{"role":"user","content":"again"}}`,
	}
	if err := os.WriteFile(broken, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string // in stdout
	}{
		{"replay", []string{"replay", "-f", "table", "fixtures/demo", "--by", "day"}, "Timelines"},
		{"replay problems", []string{"replay", "-f", "table", broken}, "Problems"},
		{"inspect problems", []string{"inspect", broken}, "Problems"},
		{"compare", []string{"compare", "-f", "table", "--preset", "loopgate,nanobot,hermes", "fixtures/demo"}, "Tokens saved"},
		{"sweep", []string{"sweep", "-f", "table", "--vary", "detectors.repeat.block_at=2,3,5", "fixtures/demo"}, "Pareto"},
		{"inspect", []string{"inspect", "--calls", "fixtures/demo"}, "Calls #1"},
		{"where", []string{"where"}, "~/.claude/projects  1 file"},
		{"where sources", []string{"where", "--sources"}, "claude-code"},
		{"formats", []string{"formats"}, "detected:"},
		{"gate failing", []string{"gate", "fixtures/gate/failing.gate.yaml"}, "FAIL"},
		{"gate passing", []string{"gate", "fixtures/gate/passing.gate.yaml"}, "PASS"},
		{"explain", []string{"explain", "fixtures/subagents/7c1d-2e9a.jsonl", "--session", "7c1d-2e9a/a7f3", "--call", "2"}, "call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut := at80(t, tt.args...)
			if !strings.Contains(out, tt.want) {
				t.Fatalf("stdout does not say %q:\n%s\nstderr:\n%s", tt.want, out, errOut)
			}
			for stream, text := range map[string]string{"stdout": out, "stderr": errOut} {
				if over := overLines(text, 80); len(over) > 0 {
					t.Errorf("%s: %d line(s) over 80 columns:\n%s", stream, len(over), strings.Join(over, "\n"))
				}
			}
		})
	}
}
