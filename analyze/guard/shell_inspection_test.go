package guard

import (
	"strconv"
	"strings"
	"testing"
)

// TestQwenShellInspection follows loopDetectionService.test.ts, "Shell
// Command Stagnation (Always-On Circuit Breaker)" (QwenLM/qwen-code @
// 00aa71b4a0a3), under the qwen-code preset with the shell_inspection
// detector turned on for run_shell_command (the preset does not turn it
// on yet). Each case is the upstream test of the same name; the commands
// are its own, the call that trips upstream's check halts here. Not
// ported: the retry and in-session disable tests (a transcript has
// neither event).
func TestQwenShellInspection(t *testing.T) {
	r := withSet(t, "qwen-code", "detectors.shell_inspection.only", "[run_shell_command]")
	variants := []string{
		"git status --short",
		"git diff --stat",
		"git ls-files --modified",
		"git status --porcelain=v1",
		"git diff --name-only HEAD",
		"git -C . status --short",
		"git --no-pager diff --stat",
	}
	cases := []struct {
		name     string
		commands []string
		// interrupt, when set, is a read_file call after this many
		// commands.
		interrupt int
		halts     bool
	}{
		{name: "halts repeated git inspection command variants", commands: []string{
			"git status --short",
			"git status --short && git diff --stat",
			"git diff --name-only HEAD",
			"git status --porcelain=v1",
			"git diff --stat HEAD",
			"git -C . status --short",
			"git --no-pager diff --stat",
			"git ls-files --modified",
		}, halts: true},
		{name: "resets the streak when a non-inspection tool call interrupts the run",
			commands: append(append([]string{}, variants...), variants...), interrupt: len(variants)},
		{name: "does not bucket compound commands that also write to the repository",
			commands: numbered(8, "git add file-{i}.txt && git status --short && git commit -m progress-{i}")},
		{name: "does not bucket shell chains that include non-git commands",
			commands: numbered(8, "git status --short && npm test -- --runInBand={i}")},
		{name: "does not halt repeated non-git shell commands",
			commands: numbered(10, "npm test -- --runInBand={i}")},
		{name: "halts newline-separated git inspection command variants", commands: []string{
			"git diff --stat\ngit status --short",
			"git diff --name-only HEAD\ngit ls-files --modified",
			"git --no-pager diff --stat\ngit status --porcelain=v1",
			"git diff --stat HEAD\ngit ls-files --others",
			"git diff --name-only\ngit status --short",
			"git diff --stat\ngit -C . status --short",
			"git --no-pager diff --stat\ngit ls-files --modified",
			"git diff --name-only HEAD\ngit status --short",
		}, halts: true},
		{name: "does not halt file-specific git diff review commands", commands: []string{
			"git status --short", "git diff --stat",
			"git diff -- src/a.ts", "git diff -- src/b.ts", "git diff -- src/c.ts",
			"git diff -- src/d.ts", "git diff -- src/e.ts", "git diff -- src/f.ts",
		}},
		{name: "does not halt file-specific git diff review commands without -- separator", commands: []string{
			"git status --short", "git diff --stat",
			"git diff src/a.ts", "git diff src/b.ts", "git diff src/c.ts",
			"git diff src/d.ts", "git diff src/e.ts", "git diff src/f.ts",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var steps []step
			for i, cmd := range c.commands {
				if c.interrupt > 0 && i == c.interrupt {
					steps = append(steps, step{tool: "read_file", args: `{"absolute_path":"/repo/README.md"}`, result: "readme"})
				}
				args := `{"command":` + strconv.Quote(cmd) + `,"description":"Inspect repository changes"}`
				s := step{user: i == 0, tool: "run_shell_command", args: args, result: "out " + strconv.Itoa(i)}
				if c.halts && i == len(c.commands)-1 {
					s.want = "halt:shell_inspection:8"
				}
				steps = append(steps, s)
			}
			check(t, r, steps)
		})
	}
}

// numbered is n commands from a pattern whose {i} is the index.
func numbered(n int, pattern string) []string {
	var out []string
	for i := range n {
		out = append(out, strings.ReplaceAll(pattern, "{i}", strconv.Itoa(i)))
	}
	return out
}

// TestGitOverviewOnly: the reading of one command, part by part.
func TestGitOverviewOnly(t *testing.T) {
	cases := map[string]bool{
		"git status":                        true,
		"GIT Status --short":                true,
		"git -C /repo --no-pager diff":      true,
		"git diff HEAD~2 --stat":            true,
		"git diff @^ main..feature":         true,
		"git diff 0123abcd":                 true,
		"git diff --":                       true,
		"git status; git ls-files | cat":    false, // cat is another command
		"git status || git diff --stat":     true,
		"git diff main":                     false, // a branch name is read as a path
		"git diff -- a.go":                  false,
		"git log --oneline":                 false,
		"git add . && git status":           false,
		"  ":                                false,
		"gitstatus":                         false,
		"git statusx":                       false,
		"git diff HEAD -- src":              false,
		"git status & git diff --name-only": true,
	}
	for cmd, want := range cases {
		if got := gitOverviewOnly(cmd); got != want {
			t.Errorf("gitOverviewOnly(%q) = %v, want %v", cmd, got, want)
		}
	}
}
