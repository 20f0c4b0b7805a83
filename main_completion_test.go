package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBashCompletion sources `loopgate completion bash` in a real bash and
// asks its completion function what it offers, as bash does on TAB: the
// words typed so far in COMP_WORDS, the cursor's word in COMP_CWORD.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	bin, _ := builtLoopgate(t)
	for _, tc := range []struct {
		words    string // COMP_WORDS, the last one being completed
		want     []string
		wantNot  []string
		wantNone bool
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
		// After a value flag's value, a path is expected: no candidates,
		// so bash completes file names.
		{words: `loopgate replay --preset nanobot fix`, wantNone: true},
	} {
		script := `source <(loopgate completion bash) || exit 9
COMP_WORDS=(` + tc.words + `); COMP_CWORD=$((${#COMP_WORDS[@]}-1))
_loopgate; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command("bash", "-c", script)
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
		if tc.wantNone && len(got) > 0 {
			t.Errorf("%s: offered %v, want nothing (file names)", tc.words, got)
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
