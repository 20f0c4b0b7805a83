package main

import (
	"os/exec"
	"strings"
	"testing"
)

// onATerminal runs loopgate with args under a pseudo-terminal (util-linux's
// script, as a user's shell runs it), and returns what the terminal showed,
// standard output and error together, and the exit code.
func onATerminal(t *testing.T, args ...string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) is not installed: no pseudo-terminal to run under")
	}
	bin, _ := builtLoopgate(t)
	line := bin
	for _, a := range args {
		line += " '" + a + "'"
	}
	cmd := exec.Command("script", "-qec", line, "/dev/null")
	cmd.Env = append(cmd.Environ(), "COLUMNS=100", "NO_COLOR=1")
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n"), code
}

// TestOnATerminal: what a user at a terminal sees. Input problems are
// listed once, in the report's table, and only counted on standard error;
// an HTML report is refused on a terminal with the way to write it to a
// file, rather than dumped as markup.
func TestOnATerminal(t *testing.T) {
	out, code := onATerminal(t, "replay", "fixtures/ingest/claude-code/session.jsonl")
	if code != 0 {
		t.Errorf("replay: exit %d\n%s", code, out)
	}
	if n := strings.Count(out, "toolu_zz has no matching call"); n != 1 {
		t.Errorf("a problem shows %d times on the terminal, want once:\n%s", n, out)
	}
	out, code = onATerminal(t, "replay", "-f", "html", "fixtures/demo")
	if code == 0 || strings.Contains(out, "<html") || !strings.Contains(out, "--output") {
		t.Errorf("replay -f html on a terminal: exit %d, want a refusal naming --output and no page:\n%.500s", code, out)
	}
}
