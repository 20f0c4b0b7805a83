package shellcmd

import (
	"path"
	"strings"
)

// Volatile reports whether any of the paths an observation reads holds
// what running processes write while the session goes on: a log
// (app.log, server.log.1, pm2-out.log, anything under a log or logs
// folder or /var/log), a captured output (nohup.out, a background task's
// .output file), or the kernel's and devices' views (/proc, /sys, /dev,
// /run). Nothing in a transcript says when such a file changed, so a
// repeated read of it is a poll: its second look may be the one that
// shows the server's new line or the job's end, and answering it from
// the first would hide that. A real Codex session tailed a server's log
// twice with nothing between; the server had written to it.
func Volatile(paths []string) bool {
	for _, p := range paths {
		if volatilePath(p) {
			return true
		}
	}
	return false
}

// volatileRoots are the folders whose files the system itself rewrites.
var volatileRoots = []string{"/proc", "/sys", "/dev", "/run", "/var/log"}

func volatilePath(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	for _, root := range volatileRoots {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	base := path.Base(p)
	switch ext := path.Ext(base); ext {
	case ".log", ".out", ".output", ".err", ".stderr", ".stdout":
		return true
	default:
		// Rotated logs: app.log.1, app.log.2.gz.
		if strings.Contains(base, ".log.") {
			return true
		}
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if d == "log" || d == "logs" {
			return true
		}
	}
	return false
}
