package live

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// A settings file that already holds the user's own hooks (and a hook of
// loopgate's own event names), in the agent's own shape.
var userSettings = map[string]string{
	"claude-code": `{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/usr/local/bin/audit.sh"}]}],"Notification":[{"hooks":[{"type":"command","command":"notify-send hi"}]}]},"permissions":{"allow":["Read"]}}`,
	"codex":       `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"python3 check.py","timeout":30}]}]}}`,
	"gemini":      `{"theme":"dark","hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"./guard.sh","name":"guard"}]}]},"tools":{"enableHooks":true}}`,
	"cursor":      `{"version":1,"hooks":{"afterFileEdit":[{"command":"./format.sh"}],"preToolUse":[{"command":"./policy.sh","matcher":"Shell"}]}}`,
	"qwen-code":   `{"general":{"vimMode":true},"hooks":{"PreToolUse":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"./guard.sh","timeout":5}]}]}}`,
	"openhands":   `{"stop":[{"matcher":"*","hooks":[{"type":"command","command":".openhands/hooks/on_stop.sh","timeout":600}]}]}`,
}

// TestInstallRoundTrip: install adds loopgate's entries after the user's
// own (kept as they were, member order included), backs the file up, is
// idempotent, and uninstall gives back exactly the original settings.
func TestInstallRoundTrip(t *testing.T) {
	const cmd = "/opt/bin/loopgate hook --agent AGENT --preset hermes"
	for agent, original := range userSettings {
		t.Run(agent, func(t *testing.T) {
			home, path := userSettingsFile(t, agent, original)
			command := strings.Replace(cmd, "AGENT", agent, 1)

			dry, err := InstallHooks(agent, "user", home, "", command, false, true)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != original || dry.Backup != "" {
				t.Fatal("the dry run wrote")
			}
			in, err := InstallHooks(agent, "user", home, "", command, false, false)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(in.Backup); string(b) != original {
				t.Errorf("backup %q holds %q", in.Backup, b)
			}
			installed, _ := os.ReadFile(path)
			if !bytes.Equal(installed, dry.Content) {
				t.Error("the dry run showed other settings than install wrote")
			}
			if n := strings.Count(string(installed), command); n != len(in.Events) {
				t.Errorf("%d loopgate entries, want one per event (%d)\n%s", n, len(in.Events), installed)
			}
			// Every original hook command is still there.
			for _, c := range []string{"audit.sh", "notify-send hi", "check.py", "guard.sh", "format.sh", "policy.sh", "on_stop.sh"} {
				if strings.Contains(original, c) && !strings.Contains(string(installed), c) {
					t.Errorf("%s lost", c)
				}
			}
			again, err := InstallHooks(agent, "user", home, "", command, false, false)
			if err != nil || again.Changed {
				t.Errorf("install twice: changed %v, %v", again.Changed, err)
			}
			if _, err := InstallHooks(agent, "user", home, "", "", true, false); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(path)
			if canonical(t, after) != canonical(t, []byte(original)) {
				t.Errorf("uninstall left\n%s\nwant\n%s", after, original)
			}
		})
	}
}

// TestInstallOwnBinaryReplaces: installing the hook's own binary where
// `loopgate hook` was installed replaces loopgate's entries (one per event,
// the new command), and uninstall then gives back the original settings.
func TestInstallOwnBinaryReplaces(t *testing.T) {
	for agent, original := range userSettings {
		t.Run(agent, func(t *testing.T) {
			home, path := userSettingsFile(t, agent, original)
			old := "/opt/bin/loopgate hook --agent " + agent
			own := "/opt/bin/loopgate-hook --agent " + agent + " --preset hermes"
			if _, err := InstallHooks(agent, "user", home, "", old, false, false); err != nil {
				t.Fatal(err)
			}
			in, err := InstallHooks(agent, "user", home, "", own, false, false)
			if err != nil || !in.Changed {
				t.Fatalf("install over loopgate hook: changed %v, %v", in.Changed, err)
			}
			installed, _ := os.ReadFile(path)
			if n := strings.Count(string(installed), own); n != len(in.Events) || strings.Contains(string(installed), old) {
				t.Errorf("%d entries of loopgate-hook for %d events, loopgate hook's left: %v\n%s", n, len(in.Events), strings.Contains(string(installed), old), installed)
			}
			if _, err := InstallHooks(agent, "user", home, "", "", true, false); err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadFile(path); canonical(t, after) != canonical(t, []byte(original)) {
				t.Errorf("uninstall left\n%s\nwant\n%s", after, original)
			}
		})
	}
}

// userSettingsFile writes the agent's user settings, original, in a new
// home, and returns the home and the file's path.
func userSettingsFile(t *testing.T, agent, original string) (home, path string) {
	t.Helper()
	home = t.TempDir()
	path, _ = SettingsPath(agent, "user", home, "")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, path
}

// canonical is a JSON text in compact form, member order kept.
func canonical(t *testing.T, b []byte) string {
	v, err := jsonx.Parse(b)
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v.String()
}

func TestInstallHermesYAML(t *testing.T) {
	home := t.TempDir()
	path, _ := SettingsPath("hermes", "user", home, "")
	os.MkdirAll(filepath.Dir(path), 0o755)
	original := "# my hermes\nmodel:\n  default: gpt-5 # the good one\nhooks:\n  pre_tool_call:\n    - command: ~/bin/guard.py\n      matcher: terminal\n"
	os.WriteFile(path, []byte(original), 0o644)
	if _, err := InstallHooks("hermes", "user", home, "", "loopgate hook --agent hermes", false, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	for _, want := range []string{"# my hermes", "# the good one", "guard.py", "post_tool_call:", "command: loopgate hook --agent hermes"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if _, err := InstallHooks("hermes", "user", home, "", "", true, false); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if strings.Contains(string(got), "loopgate") || !strings.Contains(string(got), "guard.py") || strings.Contains(string(got), "post_tool_call") {
		t.Errorf("uninstall left\n%s", got)
	}
}

func TestInstallCline(t *testing.T) {
	home := t.TempDir()
	dir, _ := SettingsPath("cline", "user", home, "")
	if _, err := InstallHooks("cline", "user", home, "", "loopgate hook --agent cline", false, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "PreToolUse"))
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("PreToolUse script: %v %v", fi, err)
	}
	// A script of the user's own is never overwritten nor removed.
	os.WriteFile(filepath.Join(dir, "TaskStart"), []byte("#!/bin/sh\necho mine\n"), 0o755)
	if _, err := InstallHooks("cline", "user", home, "", "loopgate hook --agent cline", false, false); err == nil {
		t.Error("install over the user's own script")
	}
	if _, err := InstallHooks("cline", "user", home, "", "", true, false); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "PreToolUse")); !os.IsNotExist(err) {
		t.Error("uninstall kept loopgate's PreToolUse script")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "TaskStart")); string(b) != "#!/bin/sh\necho mine\n" {
		t.Error("the user's script changed")
	}
}

func TestIsHookCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/loopgate hook --agent claude-code --preset hermes": true,
		"'/home/a b/loopgate' hook --agent=cursor":                         true,
		"lg hook --agent gemini":                                           true,
		"loopgate replay --preset hermes":                                  false,
		"/usr/local/bin/audit.sh hook --agent":                             false,
		"other hook --agent nobody":                                        false,
		"/usr/local/bin/loopgate-hook --agent codex --preset hermes":       true,
		"'/opt/my tools/loopgate-hook' --agent=cline":                      true,
		`C:\tools\loopgate-hook.exe --agent qwen-code`:                     true,
		"/usr/local/bin/loopgate-hook --preset hermes":                     false,
		"/usr/local/bin/loopgate-hook --agent nobody":                      false,
		"/usr/local/bin/not-loopgate-hook --agent codex":                   false,
	} {
		if got := IsHookCommand(cmd); got != want {
			t.Errorf("IsHookCommand(%q) = %v", cmd, got)
		}
	}
}

// TestInstallPlugins: OpenCode's plugin and pi's extension are written
// with the hook command in them, never over a file of the user's, and
// removed by uninstall.
func TestInstallPlugins(t *testing.T) {
	cases := []struct {
		agent, path string
		want        []string // in the written file
	}{
		{"opencode", ".config/opencode/plugins/loopgate.js", []string{`"tool.execute.before"`, `"tool.execute.after"`, `throw new Error`}},
		{"pi", ".pi/agent/extensions/loopgate.ts", []string{`pi.on("tool_call"`, `pi.on("tool_result"`, `block: true`}},
	}
	const command = `/opt/my loopgate/loopgate hook --agent AGENT --preset "hermes"`
	for _, tc := range cases {
		t.Run(tc.agent, func(t *testing.T) {
			home := t.TempDir()
			cmd := strings.Replace(command, "AGENT", tc.agent, 1)
			in, err := InstallHooks(tc.agent, "user", home, "", cmd, false, false)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(home, tc.path)
			if in.File != path {
				t.Errorf("file %s, want %s", in.File, path)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			quoted := `"/opt/my loopgate/loopgate hook --agent ` + tc.agent + ` --preset \"hermes\""`
			for _, w := range append(tc.want, quoted, pluginMarker) {
				if !bytes.Contains(b, []byte(w)) {
					t.Errorf("the plugin lacks %s", w)
				}
			}
			if bytes.Contains(b, []byte("__LOOPGATE_")) || !bytes.Contains(b, []byte(`HOOK_URL = ""`)) {
				t.Error("the command was not written in, or a URL was")
			}
			if in2, err := InstallHooks(tc.agent, "user", home, "", cmd, false, false); err != nil || in2.Changed {
				t.Errorf("install again: changed %v, %v", in2 != nil && in2.Changed, err)
			}
			if _, err := InstallHooks(tc.agent, "user", home, "", "", true, false); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Error("uninstall kept the plugin")
			}
			// A file of the user's by that name is never replaced nor removed.
			os.WriteFile(path, []byte("export const Mine = async () => ({})\n"), 0o644)
			if _, err := InstallHooks(tc.agent, "user", home, "", cmd, false, false); err == nil {
				t.Error("install over the user's file")
			}
			InstallHooks(tc.agent, "user", home, "", "", true, false)
			if b, _ := os.ReadFile(path); string(b) != "export const Mine = async () => ({})\n" {
				t.Error("the user's file changed")
			}
			// Installed with --http: the URL and the token written in, the
			// file its owner's alone; the command install replaces it.
			os.Remove(path)
			url := HookURL("127.0.0.1:7433", tc.agent)
			if _, err := InstallHTTPHooks(tc.agent, "user", home, "", url, "c0ffee", false); err != nil {
				t.Fatal(err)
			}
			b, _ = os.ReadFile(path)
			if !bytes.Contains(b, []byte(`HOOK_URL = "`+url+`"`)) || !bytes.Contains(b, []byte(`TOKEN = "c0ffee"`)) || bytes.Contains(b, []byte("__LOOPGATE_")) {
				t.Errorf("the URL or the token was not written in:\n%s", b)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("the plugin holding the token has mode %04o", fi.Mode().Perm())
			}
			if in, err := InstallHooks(tc.agent, "user", home, "", cmd, false, false); err != nil || !in.Changed {
				t.Errorf("the command install over the HTTP one: changed %v, %v", in != nil && in.Changed, err)
			}
		})
	}
}

// TestInstallRetiredEvents: an entry of loopgate's in an event it no
// longer answers (Gemini CLI's PreCompress) goes at install and uninstall;
// the user's own entries there stay.
func TestInstallRetiredEvents(t *testing.T) {
	old := `{"hooks":{"PreCompress":[{"hooks":[{"type":"command","command":"/opt/loopgate hook --agent gemini","timeout":10000}]},{"hooks":[{"type":"command","command":"./mine.sh"}]}]}}`
	for _, remove := range []bool{false, true} {
		home := t.TempDir()
		path, _ := SettingsPath("gemini", "user", home, "")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(old), 0o644)
		if _, err := InstallHooks("gemini", "user", home, "", "/opt/loopgate hook --agent gemini-cli", remove, false); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte("--agent gemini\"")) || !bytes.Contains(b, []byte("./mine.sh")) {
			t.Errorf("remove=%v: %s", remove, b)
		}
		if !remove && !bytes.Contains(b, []byte(`"BeforeTool"`)) {
			t.Errorf("install: %s", b)
		}
	}
}

// TestInstallBackupsKept: the backup of the settings before loopgate
// survives an install with another command and an uninstall; uninstall
// keeps its own copy of what it changed.
func TestInstallBackupsKept(t *testing.T) {
	for _, agent := range []string{"claude-code", "hermes"} {
		t.Run(agent, func(t *testing.T) {
			home := t.TempDir()
			path, _ := SettingsPath(agent, "user", home, "")
			original := userSettings[agent]
			if agent == "hermes" {
				original = "model: m\nhooks:\n  pre_tool_call:\n    - command: audit.sh\n"
			}
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(original), 0o644)
			first, err := InstallHooks(agent, "user", home, "", "/opt/bin/loopgate hook --agent "+agent, false, false)
			if err != nil {
				t.Fatal(err)
			}
			// Installing again with other flags changes loopgate's entries.
			second, err := InstallHooks(agent, "user", home, "", "/opt/bin/loopgate hook --agent "+agent+" --preset hermes", false, false)
			if err != nil || !second.Changed {
				t.Fatalf("second install: changed %v, %v", second.Changed, err)
			}
			installed, _ := os.ReadFile(path)
			un, err := InstallHooks(agent, "user", home, "", "", true, false)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(first.Backup); string(b) != original {
				t.Errorf("install's backup %s holds\n%s\nwant the settings before loopgate\n%s", first.Backup, b, original)
			}
			if un.Backup == first.Backup {
				t.Fatalf("uninstall backed up to install's backup %s", un.Backup)
			}
			if b, _ := os.ReadFile(un.Backup); string(b) != string(installed) {
				t.Errorf("uninstall's backup %s holds\n%s\nwant the settings it changed\n%s", un.Backup, b, installed)
			}
		})
	}
}
