package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExpandAgentHomes: a walk skips dot-directories (.git, .venv) but
// enters the agents' homes found below the root (a backup or a dotfiles
// repository), reading there only the session folders Locations names, and
// leaves out Claude Code's subagent metadata files and hermes' session index
// (sessions/sessions.json).
func TestExpandAgentHomes(t *testing.T) {
	root := t.TempDir()
	files := []struct {
		rel  string
		read bool
	}{
		{"a.jsonl", true},
		{".git/x.json", false},
		{".venv/lib/y.jsonl", false},
		{".hidden.jsonl", false},
		{".claude/projects/p/s.jsonl", true},
		{".claude/projects/p/s/subagents/agent-1.jsonl", true},
		{".claude/projects/p/s/subagents/agent-1.meta.json", false},
		{".claude/settings.json", false},
		{".claude/todos/t.json", false},
		{".codex/sessions/2026/01/02/rollout-1.jsonl", true},
		{".codex/archived_sessions/rollout-2.jsonl", true},
		{".codex/auth.json", false},
		{".hermes/sessions/session_x.json", true},
		{".hermes/sessions/sessions.json", false},
		{".hermes/profiles/work/sessions/sessions.json", false},
		{"backup/sessions/sessions.json", false},
		{"backup/sessions/20260510_221742_153c1741.jsonl", true},
		{".hermes/state.db", true},
		{".hermes/profiles/work/sessions/s.jsonl", true},
		{".hermes/profiles/work/config.json", false},
		{".hermes/hermes-agent/package.json", false},
		{".config/claude/projects/p/s.jsonl", false},
		{".pi/agent/sessions/x.jsonl", true},
		{".pi/other.json", false},
		{".openhands/conversations/c1/events/0.json", false},
		{".qwen/projects/c/chats/x.jsonl", true},
		{".qwen/settings.json", false},
		{".qwen/tmp/h/chats/session-2025-11-04T18-17-q1.json", true},
		{".qwen/tmp/h/logs.json", false},
		{".cline/data/tasks/t1/api_conversation_history.json", true},
		{"proj/.claude/projects/q/s.jsonl", true},
		{"proj/.claude/projects/q/.cache/z.jsonl", false},
	}
	var want []string
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.read {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	got := Expand([]string{root}, func(p Problem) { t.Errorf("problem: %v", p) })
	if !slices.Equal(got, want) {
		t.Errorf("walk read\n%q\nwant\n%q", got, want)
	}
	// Named explicitly, a skipped file is read.
	meta := filepath.Join(root, ".claude/projects/p/s/subagents/agent-1.meta.json")
	if got := Expand([]string{meta}, func(Problem) {}); !slices.Equal(got, []string{meta}) {
		t.Errorf("explicit file: got %q", got)
	}
	index := filepath.Join(root, ".hermes/sessions/sessions.json")
	if got := Expand([]string{index}, func(Problem) {}); !slices.Equal(got, []string{index}) {
		t.Errorf("explicit hermes index: got %q", got)
	}
}

// TestClineCLIPlace: the Cline CLI's sessions folder is where ~/.cline (or
// $CLINE_DIR) says, and only its messages files are read there.
func TestClineCLIPlace(t *testing.T) {
	home := t.TempDir()
	moved := t.TempDir()
	for _, dir := range []string{filepath.Join(home, ".cline", "data", "sessions", "s1"), filepath.Join(moved, "data", "sessions", "s1")} {
		for _, f := range []string{"s1.messages.json", "s1.json"} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name, clineDir string
		want           string
	}{
		{"default home", "", filepath.Join(home, ".cline", "data", "sessions", "s1", "s1.messages.json")},
		{"CLINE_DIR", moved, filepath.Join(moved, "data", "sessions", "s1", "s1.messages.json")},
	}
	for _, tc := range tests {
		getenv := func(k string) string {
			if k == "CLINE_DIR" {
				return tc.clineDir
			}
			return ""
		}
		var got []string
		for _, p := range Places([]string{"cline"}, home, getenv) {
			if p.Location.Env == "CLINE_DIR" {
				got = append(got, p.Files(func(pr Problem) { t.Errorf("%s: problem %v", tc.name, pr) })...)
			}
		}
		if !slices.Equal(got, []string{tc.want}) {
			t.Errorf("%s: read %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCopilotPlaces: both of Copilot CLI's session folders are read for
// --agent copilot-cli, each for its own files only: the events logs of
// session-state/<id>/ and the older history-session-state/ documents.
func TestCopilotPlaces(t *testing.T) {
	home := t.TempDir()
	want := []string{
		filepath.Join(home, ".copilot", "history-session-state", "session_a1_1761144582422.json"),
		filepath.Join(home, ".copilot", "session-state", "a2", "events.jsonl"),
	}
	others := []string{
		filepath.Join(home, ".copilot", "history-session-state", "notes.json"),
		filepath.Join(home, ".copilot", "session-state", "a2", "workspace.yaml"),
	}
	for _, p := range append(append([]string{}, want...), others...) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, p := range Places([]string{"copilot-cli"}, home, func(string) string { return "" }) {
		got = append(got, p.Files(func(pr Problem) { t.Errorf("problem %v", pr) })...)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
}
