package ingest

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// transcriptSuffixes are the file endings read when walking a directory.
var transcriptSuffixes = []string{".jsonl", ".json", ".jsonl.gz", ".json.gz", ".traj", ".traj.gz"}

// IsTranscriptName reports whether a file found in a directory walk is read:
// a JSON or JSONL file (maybe gzipped), a known agent database
// (database.go), or Aider's chat history (a dot-file read by its name).
func IsTranscriptName(name string) bool {
	for _, s := range transcriptSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return name == AiderHistoryName || isDatabaseName(name)
}

// Expand turns the command line's paths into the list of files to read, in
// a deterministic order: each argument in the order given, each directory
// walked recursively in lexical order. Dot-files and dot-directories inside a
// walked directory are skipped (.git, .venv, ...), except the agents' own
// homes (AgentHomeDir: .claude, .codex, ... in a backup or a dotfiles
// repository), as are files of other endings and files an agent writes
// beside its transcripts (NotTranscript); a file named explicitly is always
// read. Symbolic links to files are followed; links to
// directories are not (so a link loop cannot trap the walk). Problems (a path
// that does not exist, an unreadable directory) are reported, not fatal.
func Expand(paths []string, problem func(Problem)) []string {
	return expandMatching(paths, IsTranscriptName, problem)
}

// expandMatching is Expand reading, inside walked directories, the files
// whose name match accepts.
func expandMatching(paths []string, match func(name string) bool, problem func(Problem)) []string {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, root := range paths {
		if root == "-" {
			add(root)
			continue
		}
		info, err := os.Stat(root)
		if err != nil {
			problem(Problem{File: root, Message: "cannot read path: " + errorText(err)})
			continue
		}
		if info.Mode()&fs.ModeDevice != 0 {
			// A device given by name is never a transcript, and some never
			// end (/dev/zero, /dev/urandom): refused as the walk refuses
			// them. Pipes are read (a shell's <(zcat ...)).
			problem(Problem{File: root, Message: "not read: " + kindOf(info.Mode()) + ", not a regular file (pipe its content to standard input, -, to read it)"})
			continue
		}
		if !info.IsDir() {
			add(root)
			continue
		}
		var found []string
		homes := map[string]string{} // agent homes entered -> their dot-directory's name
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				problem(Problem{File: p, Message: "cannot read: " + errorText(err)})
				if d != nil && d.IsDir() && p != root {
					return fs.SkipDir
				}
				return nil
			}
			name := d.Name()
			if p != root && strings.HasPrefix(name, ".") && !(name == AiderHistoryName && !d.IsDir()) {
				if d.IsDir() {
					if AgentHomeDir(name) {
						homes[p] = name
						return nil
					}
					return fs.SkipDir
				}
				return nil
			}
			// Inside an agent's home only its session folders are read.
			for h := filepath.Dir(p); len(h) >= len(root) && h != filepath.Dir(h); h = filepath.Dir(h) {
				if home, ok := homes[h]; ok {
					if rel, err := filepath.Rel(h, p); err == nil && !inAgentHome(home, rel, d.IsDir()) {
						if d.IsDir() {
							return fs.SkipDir
						}
						return nil
					}
					break
				}
			}
			if d.IsDir() {
				return nil
			}
			if !match(name) || ReadWithAnother(p) || NotTranscript(p) {
				return nil // not a transcript, or read with another file
			}
			if d.Type()&fs.ModeSymlink != 0 {
				target, err := os.Stat(p)
				if err != nil {
					problem(Problem{File: p, Message: "cannot follow link: " + errorText(err)})
					return nil
				}
				if !target.Mode().IsRegular() {
					// Links to directories are not followed (a walk
					// cannot loop); say so, since the name promises a
					// transcript.
					problem(Problem{File: p, Message: "not read: a link to " + kindOf(target.Mode()) + ", not to a regular file"})
					return nil
				}
			} else if !d.Type().IsRegular() {
				problem(Problem{File: p, Message: "not read: " + kindOf(d.Type()) + ", not a regular file"})
				return nil
			}
			found = append(found, p)
			return nil
		})
		if err != nil {
			problem(Problem{File: root, Message: "cannot walk directory: " + errorText(err)})
		}
		sort.Strings(found)
		for _, p := range found {
			add(p)
		}
	}
	return files
}

// kindOf names a file type for a problem message.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file"
	}
}

// CheckMatch says why a path a pattern matched (a gate file's glob) is not
// read, as a walk would refuse it, or "" when it is read: a device, named
// pipe or socket is refused, and so is a symbolic link to one, a link to a
// directory, and a link whose target lies outside the directory tree root
// (the gate file's directory). A directory is read (walked), a regular file
// too.
func CheckMatch(p, root string) string {
	info, err := os.Lstat(p)
	if err != nil {
		return "cannot read path: " + errorText(err)
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		if info.IsDir() || info.Mode().IsRegular() {
			return ""
		}
		return "not read: " + kindOf(info.Mode()) + ", not a regular file"
	}
	target, err := os.Stat(p)
	if err != nil {
		return "cannot follow link: " + errorText(err)
	}
	if !target.Mode().IsRegular() {
		return "not read: a link to " + kindOf(target.Mode()) + ", not to a regular file"
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "cannot follow link: " + errorText(err)
	}
	top, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "cannot read path: " + errorText(err)
	}
	if !within(resolved, top) {
		return "not read: a link to a file outside " + root + " (" + resolved + ")"
	}
	return ""
}

// within reports whether path p lies in the directory tree dir (both
// absolute or both relative to the same directory, links resolved).
func within(p, dir string) bool {
	absP, err1 := filepath.Abs(p)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(absDir, absP)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// generalHomes are the dot-directories of Locations' homes that are not an
// agent's own: the XDG base folders (.config/claude, .local/share/opencode)
// hold every program's files, and walking them would read every program's
// JSON as a transcript.
var generalHomes = map[string]bool{".config": true, ".local": true}

// agentHomeDirs are the dot-directories a walk enters, each with the
// session folders inside it that it reads (Locations' Dirs under the rest of
// the home: .claude reads projects, .codex sessions and archived_sessions,
// .hermes sessions, profiles/*/sessions and state.db, .pi agent/sessions,
// ...; not a location loopgate lists but does not read, Unread), so that a home's other files (settings, caches, hermes' own clone
// of its repository) are not taken for transcripts. Cline's ~/.cline is
// walked whole (nil), as it was before its Location named the CLI 3.x's
// sessions folder: older layouts (data/tasks) are read too.
var agentHomeDirs = func() map[string][]string {
	whole := map[string]bool{".cline": true}
	dirs := map[string][]string{".cline": nil}
	for _, l := range Locations {
		if l.Unread != "" {
			continue // a layout loopgate would misread (OpenHands' event files)
		}
		for _, h := range l.Homes {
			first, rest, _ := strings.Cut(filepath.ToSlash(h), "/")
			if !strings.HasPrefix(first, ".") || generalHomes[first] || whole[first] {
				continue
			}
			for _, d := range l.Dirs {
				dirs[first] = append(dirs[first], path.Join(rest, d))
			}
		}
	}
	return dirs
}()

// AgentHomeDir reports whether a dot-directory met in a walk is an agent's
// home, which the walk enters although it skips other dot-directories.
func AgentHomeDir(name string) bool {
	_, ok := agentHomeDirs[name]
	return ok
}

// inAgentHome reports whether a walk reads rel, a path inside the agent
// home home (its dot-directory's name): a folder on the way to one of the
// home's session folders or inside one, a file inside one (or the file a
// Dirs entry names, state.db).
func inAgentHome(home, rel string, dir bool) bool {
	patterns, ok := agentHomeDirs[home]
	if !ok || patterns == nil {
		return true
	}
	elems := strings.Split(filepath.ToSlash(rel), "/")
	for _, p := range patterns {
		want := strings.Split(p, "/")
		n := min(len(elems), len(want))
		matched := true
		for i := 0; i < n && matched; i++ {
			matched, _ = path.Match(want[i], elems[i])
		}
		if matched && (len(elems) >= len(want) || dir) {
			return true
		}
	}
	return false
}

// NotTranscript reports a file a walk finds among transcripts that is known
// to hold none: Claude Code writes subagents/agent-<id>.meta.json (the
// subagent's agentType, description, model, ...) beside each subagent's
// agent-<id>.jsonl, read with that transcript (claudecode_meta.go); Kimi
// CLI its wire log and subagents' meta.json beside each context.jsonl
// (kimiCompanion); hermes' gateway its session index sessions/sessions.json
// beside the transcripts (hermesSessionIndex). Named explicitly, such a
// file is still read (Claude Code's is then one problem saying what it is).
func NotTranscript(path string) bool {
	return claudeMetaID(path) != "" || claudeWorkflowJournal(path) || kimiCompanion(path) || hermesSessionIndex(path)
}
