package shellcmd

import "testing"

func TestVolatile(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"logs/pm2-out.log", true},
		{"/srv/app/server.log", true},
		{"app.log.1", true},
		{"build/app.log.2.gz", true},
		{"nohup.out", true},
		{"/tmp/claude-1000/tasks/b81e2.output", true},
		{"var/log/syslog", true}, // a log folder, wherever it is
		{"/var/log/syslog", true},
		{"/proc/meminfo", true},
		{"/run/app.pid", true},
		{`C:\app\logs\today.txt`, true},
		{"log/2026-12-03.txt", true},
		// Agents' state folders in a home, which running agents rewrite.
		{"/home/u/.codex/skills.json", true},
		{"/Users/u/.claude/settings.json", true},
		{`C:\Users\u\.gemini\settings.json`, true},
		{"~/.claude/todos/a.json", true},
		{"/" + "root/.qwen/settings.json", true},           // the superuser's home
		{"/home/u/work/.claude/commands/review.md", false}, // a project's own
		{"/home/u/.config/hypr/hypridle.conf", false},
		{"/home/u/.codexrc", false},
		{"src/logger.go", false},
		{"src/log.go", false},
		{"catalog/items.json", false},
		{"README.md", false},
		{"/etc/hosts", false},
		{"", false},
		{".", false},
	} {
		if got := Volatile([]string{tc.path}); got != tc.want {
			t.Errorf("Volatile(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if !Volatile([]string{"README.md", "logs/a.txt"}) {
		t.Error("one volatile path among others: want volatile")
	}
	if Volatile(nil) {
		t.Error("no paths: want not volatile")
	}
}
