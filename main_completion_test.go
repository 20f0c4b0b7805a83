package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completionScript is, for each shell, a script that loads `loopgate
// completion SHELL` and prints what the shell would offer for the words
// typed so far (WORDS, the last one being completed), one per line. bash's
// and zsh's completion functions are called as the shell calls them on TAB
// (COMP_WORDS/COMP_CWORD; words/CURRENT, with zsh's compadd and _files
// stood in for, since they need a terminal); fish answers `complete -C`
// itself. An offer of file names prints FILES (zsh) or the names (fish);
// bash's empty reply leaves them to -o default.
var completionScript = map[string]func(words []string) string{
	"bash": func(words []string) string {
		return `source <(loopgate completion bash) || exit 9
COMP_WORDS=(` + strings.Join(words, " ") + `); COMP_CWORD=$((${#COMP_WORDS[@]}-1))
_loopgate; printf '%s\n' "${COMPREPLY[@]}"`
	},
	"zsh": func(words []string) string {
		return `compdef() { :; }
compadd() { [[ $1 == -a ]] && print -rl -- ${(P)2}; }
_files() { print FILES; }
source <(loopgate completion zsh) || exit 9
words=(` + strings.Join(words, " ") + `); CURRENT=${#words}
_loopgate | while read -r w; do [[ $w == ${words[CURRENT]}* ]] && print -r -- $w; done; true`
	},
	"fish": func(words []string) string {
		line := strings.ReplaceAll(strings.Join(words, " "), `""`, "")
		return `loopgate completion fish | source; or exit 9
complete -C '` + line + `' | string replace -r '\t.*' ''; true`
	},
}

// TestShellCompletion runs each shell's script in a real bash, zsh and
// fish (those installed here; .ci/run installs all three) and checks what
// it offers.
func TestShellCompletion(t *testing.T) {
	bin, _ := builtLoopgate(t)
	cases := []struct {
		words    string // the words typed, the last one being completed
		want     []string
		wantNot  []string
		wantNone bool // nothing of loopgate's: the shell completes file names
	}{
		{words: `loopgate replay --preset ""`, want: []string{"loopgate", "nanobot", "pi-loopguard"}},
		{words: `loopgate compare --preset hermes-`, want: []string{"hermes-dedup", "hermes-strict"}, wantNot: []string{"nanobot"}},
		{words: `loopgate re`, want: []string{"replay"}, wantNot: []string{"compare", "__complete"}},
		{words: `loopgate replay --to`, want: []string{"--tokenizer", "--tool"}},
		{words: `loopgate replay --tokenizer ""`, want: []string{"o200k_base", "chars4"}},
		{words: `loopgate replay -f ""`, want: []string{"json", "jsonl", "markdown", "html"}},
		{words: `loopgate replay --input-format claude`, want: []string{"claude-code"}},
		{words: `loopgate hook install --agent cl`, want: []string{"claude-code"}},
		{words: `loopgate rules p`, want: []string{"print"}},
		// After a value flag's value, a path is expected: no candidates
		// of loopgate's, so the shell completes file names.
		{words: `loopgate replay --preset nanobot fix`, wantNone: true},
	}
	// The shells run in parallel: each case is a process of its own.
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("%s is not installed", shell)
			}
			for _, tc := range cases {
				cmd := exec.Command(shell, "-c", completionScript[shell](strings.Fields(tc.words)))
				cmd.Dir = t.TempDir() // file names offered come from an empty folder
				os.WriteFile(filepath.Join(cmd.Dir, "fixed.txt"), nil, 0o644)
				cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", tc.words, err, out)
				}
				got := strings.Fields(string(out))
				has := map[string]bool{}
				for _, g := range got {
					has[g] = true
				}
				if tc.wantNone {
					for _, g := range got {
						if g != "FILES" && g != "fixed.txt" {
							t.Errorf("%s: offered %v, want file names only", tc.words, got)
							break
						}
					}
				}
				for _, w := range tc.want {
					if !has[w] {
						t.Errorf("%s: offered %v, want %s among them", tc.words, got, w)
					}
				}
				for _, w := range tc.wantNot {
					if has[w] {
						t.Errorf("%s: offered %v, which should not hold %s", tc.words, got, w)
					}
				}
			}
		})
	}
}

// TestCompletionScripts: every shell's script is printed, and a shell
// that is installed here accepts its syntax; an unknown shell is a usage
// error.
func TestCompletionScripts(t *testing.T) {
	bin, _ := builtLoopgate(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, err := exec.Command(bin, "completion", shell).Output()
		if err != nil || !strings.Contains(string(out), "__complete") {
			t.Errorf("completion %s: %v\n%s", shell, err, out)
			continue
		}
		if _, err := exec.LookPath(shell); err != nil {
			t.Logf("%s is not installed: its script's syntax is not checked", shell)
			continue
		}
		f := filepath.Join(t.TempDir(), "script")
		os.WriteFile(f, out, 0o644)
		if msg, err := exec.Command(shell, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("%s -n rejects its script: %v\n%s", shell, err, msg)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}} {
		err := exec.Command(bin, args...).Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit 2", args, err)
		}
	}
}

// TestManPage: the manual page is roff for section 1 and documents every
// visible command.
func TestManPage(t *testing.T) {
	bin, _ := builtLoopgate(t)
	out, err := exec.Command(bin, "man").Output()
	if err != nil {
		t.Fatal(err)
	}
	page := string(out)
	if !strings.Contains(page, ".TH loopgate 1") {
		t.Errorf("not a section 1 page:\n%.300s", page)
	}
	for _, cmd := range []string{"replay", "compare", "sweep", "gate", "hook", "completion"} {
		if !strings.Contains(page, "\n.SS "+cmd) && !strings.Contains(page, "\n.SH "+cmd) && !strings.Contains(page, cmd+"\n") {
			t.Errorf("the page does not document %s", cmd)
		}
	}
	if strings.Contains(page, "__complete") {
		t.Errorf("the page documents the hidden __complete command")
	}
}
