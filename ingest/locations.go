package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Location is where an agent keeps its sessions by default: the folders a
// reading command searches when it is given no PATH (docs/cli.md
// "Discovery"). A format added later adds one entry to Locations.
type Location struct {
	// Agent names the agent, as --agent takes it ("claude-code", "codex").
	Agent string
	// Env is the environment variable that moves the agent's home; when it
	// is set, Homes are not used and Dirs are taken under its value (and
	// EnvDir, when the variable names a folder above the home, as
	// $XDG_DATA_HOME does).
	Env    string
	EnvDir string
	// Homes are the agent's default homes, relative to the user's home
	// directory (".codex"), used when Env is unset or empty.
	Homes []string
	// Dirs are the session folders inside a home ("sessions"); a folder may
	// hold a * that matches one path element ("profiles/*/sessions"). An
	// entry may also name a file ("state.db"), read when it exists.
	Dirs []string
	// Names are the file name patterns (path.Match) read inside a folder;
	// nil reads the transcript endings a directory walk reads (.json,
	// .jsonl and their .gz).
	Names []string
	// Source cites where the agent's code or documentation sets these
	// paths.
	Source string
	// Unread, when not empty, says why loopgate lists the location but does
	// not read it (a layout no reader reads yet).
	Unread string
}

// Locations is the registry of the agents' default session folders, one
// entry per agent and layout. Each entry's Source names the upstream code
// the paths were taken from.
var Locations = []Location{
	{
		Agent: "claude-code",
		Env:   "CLAUDE_CONFIG_DIR",
		// ~/.config/claude is where Claude Code 1.0.30 moved its data;
		// ccusage, which reads the same files, searches both.
		Homes:  []string{".claude", ".config/claude"},
		Dirs:   []string{"projects"},
		Source: "https://github.com/ryoppippi/ccusage/blob/main/docs/guide/directory-detection.md and environment-variables.md: CLAUDE_CONFIG_DIR, else ~/.config/claude/projects and ~/.claude/projects",
	},
	{
		Agent:  "codex",
		Env:    "CODEX_HOME",
		Homes:  []string{".codex"},
		Dirs:   []string{"sessions", "archived_sessions"},
		Source: "openai/codex codex-rs find_codex_home (CODEX_HOME, else ~/.codex); codex-rs rollout module: SESSIONS_SUBDIR = \"sessions\", ARCHIVED_SESSIONS_SUBDIR = \"archived_sessions\"",
	},
	{
		Agent: "hermes",
		Env:   "HERMES_HOME",
		Homes: []string{".hermes"},
		// Only the session folders: ~/.hermes also holds the installer's
		// clone of hermes-agent, whose JSON files are no transcripts.
		Dirs:   []string{"sessions", "profiles/*/sessions"},
		Source: "NousResearch/hermes-agent hermes_constants.get_hermes_home (HERMES_HOME, else ~/.hermes); run_agent.py _save_session_log and gateway/session.py write $HERMES_HOME/sessions/ (docs/formats/hermes.md)",
	},
	{
		Agent: "nanobot",
		Homes: []string{".nanobot"},
		// The default workspace's sessions (v0.1.4 on), and the folder
		// of v0.1.3 and of main since commit b34f1bd0e (one folder per
		// workspace id inside).
		Dirs:   []string{"workspace/sessions", "sessions"},
		Source: "HKUDS/nanobot get_workspace_path (default ~/.nanobot/workspace) and its SessionManager (<workspace>/sessions; ~/.nanobot/sessions before v0.1.4 and on main since b34f1bd0e) (docs/formats/nanobot.md)",
	},
	{
		Agent:  "hermes",
		Env:    "HERMES_HOME",
		Homes:  []string{".hermes"},
		Dirs:   []string{"state.db", "profiles/*/state.db"},
		Source: "hermes-agent hermes_state.py SessionDB: $HERMES_HOME/state.db (docs/formats/locations.md, docs/formats/hermes.md)",
	},
	{
		Agent:  "opencode",
		Env:    "XDG_DATA_HOME",
		EnvDir: "opencode",
		Homes:  []string{".local/share/opencode"},
		Dirs:   []string{"opencode.db", "storage/session"},
		Source: "OpenCode's data folder, xdg-basedir data/opencode: opencode.db and the older storage/session/*/*.json (docs/formats/locations.md)",
	},
	{
		Agent:  "pi",
		Homes:  []string{".pi/agent"},
		Dirs:   []string{"sessions"},
		Source: "pi coding agent: ~/.pi/agent/sessions/ (docs/formats/locations.md)",
	},
	{
		Agent:  "gemini-cli",
		Homes:  []string{".gemini"},
		Dirs:   []string{"tmp/*/chats"},
		Source: "Gemini CLI chat recordings: ~/.gemini/tmp/<project hash>/chats/ (docs/formats/locations.md)",
	},
	{
		Agent: "cline",
		// VS Code's user folder on Linux and macOS; the task folders
		// hold other JSON files (ui_messages.json), so only the
		// conversation is read.
		Homes:  []string{".config/Code/User/globalStorage", "Library/Application Support/Code/User/globalStorage"},
		Dirs:   []string{"saoudrizwan.claude-dev/tasks", "rooveterinaryinc.roo-cline/tasks"},
		Names:  []string{"api_conversation_history.json"},
		Source: "Cline and Roo Code task folders in VS Code's globalStorage (docs/formats/locations.md)",
	},
	{
		Agent: "cline",
		Env:   "CLINE_DIR",
		Homes: []string{".cline"},
		Dirs:  []string{"data/sessions"},
		// Each session folder also holds <id>.json, the session's
		// metadata (provider, status, the path of its messages).
		Names:  []string{"*.messages.json"},
		Source: "Cline CLI 3.0.65 (npm cline, its binary's bundled @cline/shared paths): sessions in $CLINE_SESSION_DATA_DIR, else $CLINE_DATA_DIR/sessions, else ($CLINE_DIR, else ~/.cline)/data/sessions, <id>/<id>.messages.json (docs/formats/cline-cli.md)",
	},
	{
		Agent:  "kimi-cli",
		Env:    "KIMI_SHARE_DIR",
		Homes:  []string{".kimi"},
		Dirs:   []string{"sessions"},
		Names:  []string{"context.jsonl"},
		Source: "Kimi CLI: $KIMI_SHARE_DIR (default ~/.kimi)/sessions/*/*/context.jsonl (docs/formats/locations.md)",
	},
	{
		Agent: "qwen-code",
		Homes: []string{".qwen"},
		Dirs:  []string{"projects/*/chats"},
		// The chats folder also holds <session>.runtime.json status files.
		Names:  []string{"*.jsonl"},
		Source: "QwenLM/qwen-code packages/core/src/config/storage.ts and services/sessionService.ts: <Storage.getProjectDir()>/chats/<session id>.jsonl, project dirs under ~/.qwen/projects",
	},
	{
		Agent: "qwen-code",
		// Older Qwen Code kept Gemini CLI's whole-file recordings (read by
		// the gemini-cli format); the project folder also holds logs.json
		// and checkpoint-<tag>.json, which are not sessions of their own.
		Homes:  []string{".qwen"},
		Dirs:   []string{"tmp/*/chats"},
		Names:  []string{"session-*.json"},
		Source: "QwenLM/qwen-code packages/vscode-ide-companion/src/services/qwenSessionReader.ts (1aeacaff): ~/.qwen/tmp/<project hash>/chats/session-*.json",
	},
	{
		Agent: "kilo-code",
		// Kilo Code is a Roo Code fork: its VS Code extension keeps tasks
		// as Roo's do, which the cline format reads.
		Homes:  []string{".config/Code/User/globalStorage", "Library/Application Support/Code/User/globalStorage"},
		Dirs:   []string{"kilocode.kilo-code/tasks"},
		Names:  []string{"api_conversation_history.json"},
		Source: "Kilo Code's extension source src/extension.ts (extension id kilocode.kilo-code, as its walkthrough id kilocode.kilo-code#kiloCodeWalkthrough names it); tasks/<id>/api_conversation_history.json as Roo Code's",
	},
	{
		Agent:  "kimi-code",
		Env:    "KIMI_CODE_HOME",
		Homes:  []string{".kimi-code"},
		Dirs:   []string{"sessions"},
		Names:  []string{"wire.jsonl"},
		Source: "MoonshotAI/kimi-code agent-core-v2 app/bootstrap/bootstrap.ts (KIMI_CODE_HOME, else ~/.kimi-code); apps/vis/server/src/lib/session-store.ts: sessions/<bucket>/<session>/agents/<agent>/wire.jsonl",
	},
	{
		Agent:  "copilot-cli",
		Homes:  []string{".copilot"},
		Dirs:   []string{"session-state"},
		Names:  []string{"events.jsonl"},
		Source: "GitHub Copilot CLI: ~/.copilot/session-state/*/events.jsonl (docs/formats/locations.md)",
	},
	{
		// Its older releases kept one JSON document per session there
		// (format copilot-cli-history; real files of October 2025).
		Agent:  "copilot-cli",
		Homes:  []string{".copilot"},
		Dirs:   []string{"history-session-state"},
		Names:  []string{"session_*.json"},
		Source: "GitHub Copilot CLI, older releases: ~/.copilot/history-session-state/session_<id>_<ms>.json (docs/formats/copilot.md)",
	},
	{
		Agent:  "openhands",
		Homes:  []string{".openhands"},
		Dirs:   []string{"conversations"},
		Source: "All-Hands-AI/OpenHands openhands-cli/openhands_cli/locations.py: PERSISTENCE_DIR = ~/.openhands, CONVERSATIONS_DIR = conversations",
		Unread: "OpenHands keeps one JSON file per event there, which loopgate would read as sessions of one event each; give a saved trajectory (save_trajectory_path) as a PATH",
	},
}

// LocationAgents lists the agent names of Locations, each once, in order.
func LocationAgents() []string {
	var names []string
	for _, l := range Locations {
		if !slices.Contains(names, l.Agent) {
			names = append(names, l.Agent)
		}
	}
	return names
}

// Place is one folder of a Location resolved on this machine.
type Place struct {
	Location *Location
	// Path is the folder (or file); Exists says whether it is here.
	Path   string
	Exists bool
	// From says where the folder came from: "$CODEX_HOME" or "~".
	From string
}

// Places resolves the locations of the named agents (all when agents is
// empty) for a user whose home directory is home, reading environment
// variables with getenv. Folders given twice (a variable pointing at the
// default home) are listed once.
func Places(agents []string, home string, getenv func(string) string) []Place {
	var out []Place
	seen := map[string]bool{}
	for i := range Locations {
		l := &Locations[i]
		if len(agents) > 0 && !slices.Contains(agents, l.Agent) {
			continue
		}
		type base struct{ dir, from string }
		var bases []base
		if l.Env != "" {
			if v := getenv(l.Env); v != "" {
				bases = append(bases, base{filepath.Join(v, l.EnvDir), "$" + l.Env})
			}
		}
		if len(bases) == 0 && home != "" {
			for _, h := range l.Homes {
				bases = append(bases, base{filepath.Join(home, h), "~"})
			}
		}
		for _, b := range bases {
			for _, d := range l.Dirs {
				pattern := filepath.Join(b.dir, filepath.FromSlash(d))
				paths := []string{pattern}
				if strings.Contains(d, "*") {
					paths, _ = filepath.Glob(pattern)
					if len(paths) == 0 {
						paths = []string{pattern} // listed as absent
					}
				}
				for _, p := range paths {
					if seen[p] {
						continue
					}
					seen[p] = true
					st, err := os.Stat(p)
					out = append(out, Place{Location: l, Path: p, Exists: err == nil && (st.IsDir() || st.Mode().IsRegular()), From: b.from})
				}
			}
		}
	}
	return out
}

// Matches reports whether a file found in this place's folder is read.
func (l *Location) Matches(name string) bool {
	if len(l.Names) == 0 {
		return IsTranscriptName(name)
	}
	for _, pat := range l.Names {
		if ok, _ := filepath.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// Files lists the files of an existing place that its location reads, as
// Expand walks a directory (lexical order, dot-files skipped).
func (p Place) Files(problem func(Problem)) []string {
	if !p.Exists || p.Location.Unread != "" {
		return nil
	}
	if st, err := os.Stat(p.Path); err == nil && !st.IsDir() {
		return []string{p.Path} // a location naming a file
	}
	return expandMatching([]string{p.Path}, p.Location.Matches, problem)
}
