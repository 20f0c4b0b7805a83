package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallFileSafety: hook install on a settings file that is a link
// (dotfiles) writes through to the link's target and keeps the link; on a
// read-only file it refuses naming the mode; a link planted where the
// backup goes is never written through; settings with a key twice or
// several YAML documents are refused with the line.
func TestInstallFileSafety(t *testing.T) {
	const cmd = "/opt/bin/loopgate hook --agent claude-code"
	const settings = `{"model": "opus"}`
	type env struct{ home, path, other string }
	cases := []struct {
		name  string
		agent string
		setup func(t *testing.T, e env)
		check func(t *testing.T, e env, in *Install, err error)
	}{
		{"settings a link", "claude-code", func(t *testing.T, e env) {
			os.WriteFile(e.other, []byte(settings), 0o640)
			os.Symlink(e.other, e.path)
		}, func(t *testing.T, e env, in *Install, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(e.path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced by a file")
			}
			if b, _ := os.ReadFile(e.other); !strings.Contains(string(b), cmd) || !strings.Contains(string(b), "opus") {
				t.Errorf("the link's target was not written through: %s", b)
			}
			if fi, _ := os.Stat(e.other); fi.Mode().Perm() != 0o640 {
				t.Errorf("the target's mode %v changed", fi.Mode().Perm())
			}
		}},
		{"settings a dangling link", "claude-code", func(t *testing.T, e env) {
			os.Symlink(e.other, e.path)
		}, func(t *testing.T, e env, in *Install, err error) {
			if err == nil || !strings.Contains(err.Error(), "link") {
				t.Errorf("err %v, want a dangling link refused", err)
			}
			if _, err := os.Stat(e.other); err == nil {
				t.Error("the dangling link's target was created")
			}
		}},
		{"read-only settings", "claude-code", func(t *testing.T, e env) {
			os.WriteFile(e.path, []byte(settings), 0o444)
			os.Chmod(e.path, 0o444)
		}, func(t *testing.T, e env, in *Install, err error) {
			if err == nil || !strings.Contains(err.Error(), "0444") {
				t.Errorf("err %v, want a refusal naming mode 0444", err)
			}
			if b, _ := os.ReadFile(e.path); string(b) != settings {
				t.Errorf("the read-only file was replaced: %s", b)
			}
		}},
		{"backup a link", "claude-code", func(t *testing.T, e env) {
			os.WriteFile(e.path, []byte(settings), 0o644)
			os.WriteFile(e.other, []byte("precious"), 0o600)
			os.Symlink(e.other, e.path+".loopgate.bak")
		}, func(t *testing.T, e env, in *Install, err error) {
			if b, _ := os.ReadFile(e.other); string(b) != "precious" {
				t.Errorf("the backup was written through the link: %q", b)
			}
			if err == nil {
				if b, _ := os.ReadFile(e.path + ".loopgate.bak"); string(b) != settings {
					t.Errorf("backup holds %q", b)
				}
			}
		}},
		{"hooks twice in JSON", "claude-code", func(t *testing.T, e env) {
			os.WriteFile(e.path, []byte("{\n  \"hooks\": {},\n  \"model\": \"opus\",\n  \"hooks\": {\"Stop\": []}\n}\n"), 0o644)
		}, func(t *testing.T, e env, in *Install, err error) {
			if err == nil || !strings.Contains(err.Error(), ":4:") || !strings.Contains(err.Error(), `"hooks"`) {
				t.Errorf("err %v, want the second \"hooks\" refused at line 4", err)
			}
		}},
		{"an event twice in JSON", "claude-code", func(t *testing.T, e env) {
			os.WriteFile(e.path, []byte("{\"hooks\": {\n\"Stop\": [],\n\"Stop\": []}}\n"), 0o644)
		}, func(t *testing.T, e env, in *Install, err error) {
			if err == nil || !strings.Contains(err.Error(), ":3:") || !strings.Contains(err.Error(), `"Stop"`) {
				t.Errorf("err %v, want the second \"Stop\" refused at line 3", err)
			}
		}},
		{"hooks twice in YAML", "hermes", func(t *testing.T, e env) {
			os.WriteFile(e.path, []byte("hooks: {}\nmodel: x\nhooks:\n  pre_tool_call: []\n"), 0o644)
		}, func(t *testing.T, e env, in *Install, err error) {
			if err == nil || !strings.Contains(err.Error(), ":3:") || !strings.Contains(err.Error(), "hooks") {
				t.Errorf("err %v, want the second hooks refused at line 3", err)
			}
		}},
		{"two YAML documents", "hermes", func(t *testing.T, e env) {
			os.WriteFile(e.path, []byte("model: x\n---\nhooks: {}\n"), 0o644)
		}, func(t *testing.T, e env, in *Install, err error) {
			if err == nil || !strings.Contains(err.Error(), "document") || !strings.Contains(err.Error(), ":2:") {
				t.Errorf("err %v, want the second document refused at its line", err)
			}
			if b, _ := os.ReadFile(e.path); !strings.Contains(string(b), "---") {
				t.Errorf("the file was rewritten: %s", b)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path, _ := SettingsPath(tc.agent, "user", home, "")
			os.MkdirAll(filepath.Dir(path), 0o755)
			e := env{home: home, path: path, other: filepath.Join(t.TempDir(), "dotfiles-settings")}
			tc.setup(t, e)
			in, err := InstallHooks(tc.agent, "user", home, "", strings.Replace(cmd, "claude-code", tc.agent, 1), false, false)
			tc.check(t, e, in, err)
		})
	}
}
