package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// guideCommands reads docs/guides.md: each journey's title, and the
// loopgate commands of its sh blocks, comments left out.
func guideCommands(t *testing.T) (journeys []string, commands map[string][]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("docs", "guides.md"))
	if err != nil {
		t.Fatal(err)
	}
	commands = map[string][]string{}
	journey, inBlock := "", false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			journey = strings.TrimPrefix(line, "## ")
			journeys = append(journeys, journey)
		case line == "```sh":
			inBlock = true
		case line == "```":
			inBlock = false
		case inBlock:
			cmd, _, _ := strings.Cut(line, " #")
			if cmd = strings.TrimSpace(cmd); cmd != "" {
				commands[journey] = append(commands[journey], cmd)
			}
		}
	}
	return journeys, commands
}

// TestGuides runs every journey of docs/guides.md as written, in a
// folder of its own where fixtures/ is the repository's, with a home of
// its own (the live hook writes the agent's settings there). What a step
// must show is checked after it; "go install . ./cmd/loopgate-hook" is the
// one step not run (the hook's settings name this test's binary instead).
func TestGuides(t *testing.T) {
	journeys, commands := guideCommands(t)
	if len(journeys) != 6 {
		t.Fatalf("docs/guides.md has %d journeys, want 6: %v", len(journeys), journeys)
	}
	fixtures, err := filepath.Abs("fixtures")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.Symlink(fixtures, filepath.Join(work, "fixtures")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	home := fakeHome(t)
	copyFixture(t, filepath.Join(fixtures, "subagents", "7c1d-2e9a.jsonl"), filepath.Join(home, ".claude", "projects", "-w-app", "7c1d-2e9a.jsonl"))
	t.Chdir(work)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("COLUMNS", "100")

	// exits are the steps that do not exit 0; want, what a step's
	// standard output or error must hold; after, what a user does next
	// that is not a command (an edit).
	exits := map[string]int{"loopgate gate --update golden/": exitFindings}
	want := map[string][]string{
		"loopgate where --agent claude-code":                                                     {".claude/projects"},
		"loopgate replay fixtures/subagents --session 7c1d-2e9a/a7f3":                            {`"selector": "7c1d-2e9a/a7f3"`, "kept 1 of 3 sessions"},
		"loopgate explain fixtures/subagents/7c1d-2e9a.jsonl --session 7c1d-2e9a/a7f3 --call 2":  {"session 7c1d-2e9a/a7f3,", "-> dedup"},
		"loopgate sweep fixtures/demo --vary detectors.repeat.block_at=2..4":                     {`"base": true`, "turns it on"},
		"loopgate rules check ours.rules.yaml":                                                   {"ok"},
		"loopgate gate init fixtures/replay --preset nanobot --output golden/loopgate.gate.yaml": {"edit the expectation at"},
		"loopgate gate --update golden/":                                                         {"snapshot written", "edit the expectation at golden/loopgate.gate.yaml:"},
		"loopgate hook install --agent claude-code --dry-run":                                    {"dry run", "hook"},
		"loopgate hook simulate --agent claude-code fixtures/subagents":                          {"7c1d-2e9a"},
		"loopgate replay --format html fixtures/demo > replay.html":                              {},
		"loopgate merge part1.jsonl part2.jsonl":                                                 {`"summary"`},
	}
	ran := map[string]bool{}
	gateUpdates := 0
	for _, j := range journeys {
		for i := 0; i < len(commands[j]); i++ {
			cmd := commands[j][i]
			if cmd == "go install . ./cmd/loopgate-hook" {
				continue
			}
			fields := strings.Fields(cmd)
			if fields[0] != "loopgate" {
				t.Fatalf("%s: %q is not a loopgate command", j, cmd)
			}
			args, outFile := fields[1:], ""
			if n := len(args); n >= 2 && args[n-2] == ">" {
				args, outFile = args[:n-2], args[n-1]
			}
			var out, errb bytes.Buffer
			code := run(append([]string{"loopgate"}, args...), &out, &errb)
			ran[cmd] = true
			wantCode := exits[cmd]
			if cmd == "loopgate gate --update golden/" {
				gateUpdates++
				if gateUpdates == 2 {
					wantCode = exitOK
				}
			}
			if code != wantCode {
				t.Errorf("%s: %s: exit %d, want %d\n%s%s", j, cmd, code, wantCode, out.String(), errb.String())
			}
			both := out.String() + errb.String()
			// A terminal of 100 columns wraps long lines: words are looked
			// for across the line breaks.
			flat := strings.Join(strings.Fields(both), " ")
			for _, w := range want[cmd] {
				if gateUpdates == 2 && (strings.HasPrefix(w, "edit the") || w == "snapshot written") {
					continue
				}
				if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
					t.Errorf("%s: %s: no %q in\n%s", j, cmd, w, both)
				}
			}
			if outFile != "" {
				if err := os.WriteFile(outFile, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if cmd == "loopgate gate --update golden/" && gateUpdates == 1 {
				// The user edits the expectation the failure names.
				editExpectation(t, both)
				// The journey's next step is the same command again.
				commands[j] = append(commands[j], cmd)
			}
		}
	}
	for cmd := range want {
		if !ran[cmd] {
			t.Errorf("docs/guides.md no longer runs %q", cmd)
		}
	}
	if gateUpdates != 2 {
		t.Errorf("gate --update ran %d times, want 2 (fail, edit, pass)", gateUpdates)
	}
	// What the journeys left behind.
	if b, err := os.ReadFile("replay.html"); err != nil || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("<!DOCTYPE html>")) || regexp.MustCompile(`(src|href)="https?:`).Match(b) {
		t.Errorf("replay.html is not a self-contained page (%v)", err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	if b, err := os.ReadFile(settings); err != nil || strings.Contains(string(b), "loopgate") {
		t.Errorf("after uninstall, %s still names loopgate (%v):\n%s", settings, err, b)
	}
}

// editExpectation sets the expectation a gate failure names
// ("edit the expectation at FILE:LINE") to what the replay found.
func editExpectation(t *testing.T, failure string) {
	t.Helper()
	m := regexp.MustCompile(`harmful: expected 0, got (\d+)  \(([^:]+):(\d+)\)`).FindStringSubmatch(failure)
	if m == nil {
		t.Fatalf("the gate's failure names no harmful expectation:\n%s", failure)
	}
	b, err := os.ReadFile(m[2])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	n := 0
	for _, c := range m[3] {
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > len(lines) || !strings.Contains(lines[n-1], "harmful: 0") {
		t.Fatalf("%s:%d is not the harmful: 0 line: %q", m[2], n, lines[n-1])
	}
	lines[n-1] = strings.Replace(lines[n-1], "harmful: 0", "harmful: "+m[1], 1)
	if err := os.WriteFile(m[2], []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
