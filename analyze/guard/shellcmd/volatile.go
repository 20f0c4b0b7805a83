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
// /run), and the state folders of coding agents in a home (agentHomes).
// Nothing in a transcript says when such a file changed, so a
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

// agentHomes are the folders in a user's home where coding agents keep
// their state, which they rewrite while they run: their settings, skill
// and plugin registries, task lists, plans, histories and transcripts.
// Another session of the same agent, or another agent, may be running
// beside this one and leave no trace in its transcript: in a real Claude
// Code session, ~/.codex/skills.json gained an entry between two reads of
// it in one turn, and nothing the session did wrote it.
var agentHomes = []string{".claude", ".codex", ".gemini", ".qwen", ".hermes", ".copilot",
	".kimi", ".cursor", ".nanobot", ".openhands", ".cline", ".kilocode", ".roo", ".pi"}

// inAgentHome reports whether p (lower-cased, with forward slashes) lies
// in an agent's state folder right under a home: "~", a user's folder
// under Linux's, macOS's or Windows' folder of homes, or root's home. A
// project's own .claude folder (its commands, its settings) is not one.
func inAgentHome(p string) bool {
	const rootHome = "/root" // the superuser's home
	rest, ok := "", false
	switch {
	case strings.HasPrefix(p, "~/"):
		rest, ok = p[2:], true
	case strings.HasPrefix(p, rootHome+"/"):
		rest, ok = p[len(rootHome)+1:], true
	default:
		for _, home := range []string{"/home/", "/users/", "c:/users/"} {
			if r, found := strings.CutPrefix(p, home); found {
				if i := strings.IndexByte(r, '/'); i > 0 {
					rest, ok = r[i+1:], true
				}
				break
			}
		}
	}
	if !ok {
		return false
	}
	top, _, _ := strings.Cut(rest, "/")
	for _, h := range agentHomes {
		if top == h {
			return true
		}
	}
	return false
}

func volatilePath(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	for _, root := range volatileRoots {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	if inAgentHome(p) {
		return true
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
