package live

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// handleWithin runs Handle, failing the test instead of hanging when the
// hook blocks (a named pipe opened without O_NONBLOCK waits for a peer
// for ever).
func handleWithin(t *testing.T, cfg Config, input []byte) Reply {
	t.Helper()
	done := make(chan Reply, 1)
	go func() { done <- Handle(cfg, input) }()
	select {
	case r := <-done:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("the hook blocked (watchdog of 20 s)")
	}
	return Reply{}
}

// TestPlantedStateFiles: a link, a named pipe or another user's file
// planted where the hook keeps a session's files or its decision log is
// never written through nor waited on: the call is allowed or decided as
// usual, the file is named on stderr, and the link's target is untouched.
func TestPlantedStateFiles(t *testing.T) {
	type plant func(t *testing.T, path string, victim string)
	link := func(t *testing.T, path, victim string) {
		if err := os.Symlink(victim, path); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(t *testing.T, path, _ string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	foreign := func(t *testing.T, path, _ string) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to make a file of another user")
		}
		os.WriteFile(path, nil, 0o600)
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	where := map[string]func(cfg Config) string{
		"lock":         func(cfg Config) string { return filesOf(cfg.StateDir, "s").lock },
		"log":          func(cfg Config) string { return filesOf(cfg.StateDir, "s").log("main") },
		"checkpoint":   func(cfg Config) string { return checkpointPath(filesOf(cfg.StateDir, "s").log("main")) },
		"decision log": func(cfg Config) string { return cfg.Log },
	}
	cases := []struct {
		file  string
		plant plant
		want  string
	}{
		{"lock", link, "symbolic link"},
		{"log", link, "symbolic link"},
		{"checkpoint", link, "symbolic link"},
		{"decision log", link, "symbolic link"},
		{"lock", fifo, "named pipe"},
		{"log", fifo, "named pipe"},
		{"checkpoint", fifo, "named pipe"},
		{"decision log", fifo, "named pipe"},
		{"log", foreign, "another user"},
		{"checkpoint", foreign, "another user"},
	}
	for _, tc := range cases {
		t.Run(tc.file+" "+tc.want, func(t *testing.T) {
			cfg := testConfig(t, "claude-code", "nanobot")
			cfg.Log = filepath.Join(cfg.StateDir, "decisions.jsonl")
			if err := ensureDir(cfg.StateDir); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			os.WriteFile(victim, []byte("precious\n"), 0o600)
			path := where[tc.file](cfg)
			tc.plant(t, path, victim)
			var stderr string
			for _, in := range [][]byte{preRead("s", "t1", "/a"), postRead("s", "t1", "/a", "x")} {
				r := handleWithin(t, cfg, in)
				if r.Exit != 0 || strings.Contains(string(r.Stdout), "deny") {
					t.Errorf("want the call allowed, got exit %d %s", r.Exit, r.Stdout)
				}
				stderr += r.Stderr
			}
			if !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, filepath.Base(path)) {
				t.Errorf("stderr %q, want %q naming %s", stderr, tc.want, filepath.Base(path))
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
				t.Errorf("the link's target was written: %q", b)
			}
		})
	}
}

// TestStateDirRefused: a state directory that is a link, another user's,
// or writable by others is refused (the call allowed, the reason on
// stderr); a directory loopgate did not create keeps its mode.
func TestStateDirRefused(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) (keep string)
		want  string
	}{
		{"a link", func(t *testing.T, dir string) string {
			target := dir + ".target"
			os.Mkdir(target, 0o755)
			os.Chmod(target, 0o755)
			os.Symlink(target, dir)
			return target
		}, "symbolic link"},
		{"writable by others", func(t *testing.T, dir string) string {
			os.Mkdir(dir, 0o777)
			os.Chmod(dir, 0o777)
			return dir
		}, "writable by other users"},
		{"another user's", func(t *testing.T, dir string) string {
			if os.Geteuid() != 0 {
				t.Skip("needs root to make a directory of another user")
			}
			os.Mkdir(dir, 0o700)
			os.Chown(dir, 65534, 65534)
			return dir
		}, "another user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "claude-code", "nanobot")
			os.MkdirAll(filepath.Dir(cfg.StateDir), 0o700)
			keep := tc.setup(t, cfg.StateDir)
			before, _ := os.Stat(keep)
			r := handleWithin(t, cfg, preRead("s", "t1", "/a"))
			if len(r.Stdout) != 0 || !strings.Contains(r.Stderr, tc.want) || !strings.Contains(r.Stderr, "fails open") {
				t.Errorf("stdout %s stderr %q, want allowed and %q", r.Stdout, r.Stderr, tc.want)
			}
			after, _ := os.Stat(keep)
			if before.Mode() != after.Mode() {
				t.Errorf("%s: mode %v became %v", keep, before.Mode(), after.Mode())
			}
		})
	}
	// A private directory of the user's own with another mode (0750) is
	// used as it is.
	cfg := testConfig(t, "claude-code", "nanobot")
	os.MkdirAll(cfg.StateDir, 0o750)
	os.Chmod(cfg.StateDir, 0o750)
	r := Handle(cfg, preRead("s", "t1", "/a"))
	if r.Stderr != "" {
		t.Errorf("stderr %q", r.Stderr)
	}
	if fi, _ := os.Stat(cfg.StateDir); fi.Mode().Perm() != 0o750 {
		t.Errorf("the state directory was chmod-ed to %v", fi.Mode().Perm())
	}
}

// TestDecisionLogErrorOnce: a decision log that cannot be written
// (/dev/full) is said once per call, not once per attempt.
func TestDecisionLogErrorOnce(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	cfg := testConfig(t, "claude-code", "nanobot")
	cfg.Log = "/dev/full"
	for _, in := range [][]byte{preRead("s", "t1", "/a"), []byte("not json")} {
		r := Handle(cfg, in)
		if n := strings.Count(r.Stderr, "decision log"); n != 1 {
			t.Errorf("the decision log's error said %d times:\n%s", n, r.Stderr)
		}
	}
}
