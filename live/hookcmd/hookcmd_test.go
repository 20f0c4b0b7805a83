package hookcmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestMainCommandLines: what loopgate-hook does with each kind of command
// line. It never exits with a status that blocks the call (Claude Code
// and Gemini CLI block on 2) on its own failure, and it reads the event
// (an agent writing it must not see a broken pipe).
func TestMainCommandLines(t *testing.T) {
	state := t.TempDir()
	event := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_use_id":"t1"}`
	for _, tc := range []struct {
		args               string
		stdout, stderr     string // substrings; "" wants it empty
		drained, stateMade bool
	}{
		{args: "--version", stdout: "loopgate-hook go"},
		{args: "--help", stdout: "usage: loopgate-hook --agent AGENT"},
		{args: "hook --agent claude-code", stderr: "cannot read the command line", drained: true},
		{args: "--agent claude-code --bogus x", stderr: "allowed: the hook fails open", drained: true},
		{args: "--agent nobody", stderr: "--agent must be one of", drained: true},
		{args: "--agent claude-code --preset nope", stderr: "allowed: the hook fails open", drained: true},
		{args: "--agent claude-code --rules /nonexistent.yaml", stderr: "cannot open the rules file", drained: true},
		{args: "--agent claude-code --state-dir STATE", drained: true, stateMade: true},
	} {
		t.Run(tc.args, func(t *testing.T) {
			args := append([]string{"loopgate-hook"}, strings.Fields(strings.ReplaceAll(tc.args, "STATE", state))...)
			in := strings.NewReader(event)
			var out, errOut bytes.Buffer
			if code := Main(args, in, &out, &errOut); code != 0 {
				t.Errorf("exit %d", code)
			}
			for _, c := range []struct{ name, got, want string }{{"stdout", out.String(), tc.stdout}, {"stderr", errOut.String(), tc.stderr}} {
				if c.want == "" && c.got != "" || !strings.Contains(c.got, c.want) {
					t.Errorf("%s %q, want %q", c.name, c.got, c.want)
				}
			}
			if drained := in.Len() == 0; drained != tc.drained {
				t.Errorf("event read: %v, want %v", drained, tc.drained)
			}
			if tc.stateMade {
				if m, _ := filepath.Glob(filepath.Join(state, "s-*.log")); len(m) == 0 {
					t.Error("the call left no session log in the state directory")
				}
			}
		})
	}
}

// TestVersionLineIsTheBuild: the line install compares names this build.
func TestVersionLineIsTheBuild(t *testing.T) {
	if v := VersionLine(); !strings.HasPrefix(v, "loopgate-hook go") || strings.Contains(v, "\n") {
		t.Errorf("VersionLine() = %q", v)
	}
}
