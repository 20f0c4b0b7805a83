package shellcmd

import (
	"path"
	"slices"
	"strings"
)

// The programs a command may be made of and still observe, and the ones
// whose writes are plain. A program in neither list acts, with unknown
// reach: an interpreter, a build, a test run, a package manager, git's
// commands that change the work tree, curl, sleep (waiting on something
// else that runs).

// readers are programs that only read; every literal argument that is not
// an option is taken as a path read (a pattern or a count taken as a path
// only makes the command look at more than it does, which invalidates it
// more often, never less). The value says whether the program reads the
// working directory when it names no path (ls, find, rg).
var readers = map[string]bool{
	"cat": false, "tac": false, "head": false, "tail": false, "nl": false, "less": false, "more": false,
	"bat": false, "batcat": false,
	"ls": true, "tree": true, "du": true, "exa": true, "eza": true,
	"grep": false, "egrep": false, "fgrep": false, "rg": true, "ag": true, "ack": true,
	"find": true, "fd": true,
	"wc": false, "stat": false, "file": false, "realpath": false, "readlink": false,
	"cut": false, "column": false, "diff": false, "cmp": false, "comm": false,
	"od": false, "hexdump": false, "strings": false, "rev": false, "fold": false, "fmt": false,
	"paste": false, "join": false, "jq": false,
	"md5sum": false, "sha1sum": false, "sha256sum": false, "sha512sum": false, "cksum": false,
	"test": false, "[": false,
	"sed": false, "awk": false, "gawk": false, "mawk": false, "sort": false, "uniq": false,
	"tokei": true, "cloc": false,
	// PowerShell's reading cmdlets and their aliases (Codex on Windows
	// runs its shell_command through PowerShell); cmdlet names are
	// matched lower-cased.
	"get-content": false, "gc": false, "get-childitem": true, "gci": true, "dir": true,
	"select-string": false, "sls": false, "test-path": false, "get-item": false,
	"resolve-path": false, "select-object": false, "measure-object": false,
	"format-table": false, "format-list": false, "sort-object": false,
	// type is bash's builtin that says what a name is, reading nothing,
	// but PowerShell's (and cmd's) prints a file (Get-Content's alias):
	// read as a reader of the paths it names, true of both (a name taken
	// as a path only makes the command look at more).
	"type": false,
}

// texts are programs whose arguments are text, not paths, and that read
// nothing but their standard input: they observe nothing by name.
var texts = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true, "pwd": true,
	"basename": true, "dirname": true, "seq": true, "expr": true, "tr": true,
	"whoami": true, "id": true, "uname": true, "hostname": true, "nproc": true,
	"which": true, "set": true,
}

// writers are programs that change only the paths they name: every literal
// argument that is not an option is taken as written.
var writers = map[string]bool{
	"rm": true, "rmdir": true, "mkdir": true, "touch": true, "tee": true, "cp": true, "mv": true,
	"ln": true, "chmod": true, "chown": true, "chgrp": true, "truncate": true, "unlink": true,
	// PowerShell's.
	"set-content": true, "add-content": true, "out-file": true, "new-item": true,
	"remove-item": true, "copy-item": true, "move-item": true, "tee-object": true,
}

// gitReaders are git's subcommands that only read the repository.
var gitReaders = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "ls-files": true,
	"ls-tree": true, "rev-parse": true, "cat-file": true, "grep": true, "describe": true,
	"shortlog": true, "rev-list": true, "merge-base": true, "name-rev": true,
	"for-each-ref": true, "count-objects": true, "check-ignore": true, "whatchanged": true,
}

// program reads one simple command: args[0] is the program (literal),
// lit[i] says whether args[i] is known before the command runs.
func (w *walker) program(args []string, lit []bool, depth int) {
	name := path.Base(args[0])
	if strings.Contains(name, "-") {
		name = strings.ToLower(name) // a PowerShell cmdlet
	}
	rest, restLit := args[1:], lit[1:]
	switch {
	case name == "cd":
		w.cd(rest, restLit)
	case name == "pushd" || name == "popd":
		w.cwd = ""
	case name == "bash" || name == "sh" || name == "zsh" || name == "dash":
		w.nested(rest, restLit, depth)
	case powerShells[exeName(args[0])]:
		w.powerShell(rest, restLit, depth)
	case name == "timeout" || name == "nice" || name == "env" || name == "command" || name == "xargs" || name == "stdbuf":
		w.wrapper(name, rest, restLit, depth)
	case name == "git":
		w.git(rest, restLit)
	case name == "apply_patch" || name == "applypatch":
		w.patch()
	case texts[name]:
	case writers[name]:
		w.writer(rest, restLit)
	case name == "sed" && sedInPlace(rest):
		// sed -i edits its files in place (the script taken as a path
		// too: a path more only invalidates more).
		if slices.ContainsFunc(rest, sedWrites) {
			w.unknown()
			return
		}
		w.writer(rest, restLit)
	default:
		dflt, ok := readers[name]
		if !ok || !w.readOnly(name, rest) {
			w.unknown()
			return
		}
		w.reader(name, rest, restLit, dflt)
	}
}

// readOnly reports whether a reader's options keep it from writing.
func (w *walker) readOnly(name string, args []string) bool {
	for _, a := range args {
		switch name {
		case "find":
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
				return false
			}
		case "sed":
			if sedWrites(a) {
				return false
			}
		case "awk", "gawk", "mawk":
			// Output to a file or a command, system(), a program file or
			// an in-place edit.
			if strings.ContainsAny(a, ">|") || strings.Contains(a, "system") || a == "-f" || a == "-i" {
				return false
			}
		case "sort":
			if a == "-o" || strings.HasPrefix(a, "--output") || strings.HasPrefix(a, "-o") {
				return false
			}
		case "tail":
			// Following a file waits for something else to write it.
			if a == "-f" || a == "-F" || strings.HasPrefix(a, "--follow") || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "fF") {
				return false
			}
		case "jq":
			if a == "-i" || a == "--in-place" {
				return false
			}
		}
	}
	if name == "uniq" {
		// uniq IN OUT writes OUT.
		n := 0
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				n++
			}
		}
		return n < 2
	}
	return true
}

// sedInPlace reports whether sed's options edit files in place.
func sedInPlace(args []string) bool {
	for _, a := range args {
		if a == "-i" || strings.HasPrefix(a, "--in-place") || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") {
			return true
		}
	}
	return false
}

// sedWrites reports whether a sed argument may hold a script that writes a
// file (w, W) or runs a command (e): a file named like that only makes the
// command act.
func sedWrites(a string) bool {
	for i := 0; i < len(a); i++ {
		c := a[i]
		if c != 'w' && c != 'W' && c != 'e' {
			continue
		}
		before := i == 0 || strings.ContainsRune("/;{} \t\n0123456789$", rune(a[i-1]))
		after := i+1 == len(a) || strings.ContainsRune(" \t\n;}", rune(a[i+1]))
		if before && after {
			return true
		}
	}
	return false
}

// reader takes a read-only program's paths.
func (w *walker) reader(name string, args []string, lit []bool, readsDir bool) {
	named := false
	for i, a := range args {
		if !lit[i] {
			w.cmd.ReadsAll = true
			named = true
			continue
		}
		if name == "find" && (strings.HasPrefix(a, "-") || a == "(" || a == "!") {
			break // the expression starts
		}
		if strings.HasPrefix(a, "-") && a != "-" || name == "[" && a == "]" {
			continue
		}
		named = true
		if a != "-" {
			w.read(w.abs(a))
		}
	}
	// A search names its pattern first: rg PATTERN reads the directory.
	patternFirst := name == "rg" || name == "ag" || name == "ack" || name == "grep" || name == "egrep" || name == "fgrep"
	if readsDir || patternFirst && recursive(args) {
		if !named || patternFirst && countPlain(args, lit) < 2 {
			w.readDir()
		}
	}
}

// recursive reports whether grep's options search directories.
func recursive(args []string) bool {
	for _, a := range args {
		if a == "-r" || a == "-R" || a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR") {
			return true
		}
	}
	return false
}

func countPlain(args []string, lit []bool) int {
	n := 0
	for i, a := range args {
		if !lit[i] || !strings.HasPrefix(a, "-") || a == "-" {
			n++
		}
	}
	return n
}

// readDir reads the command's directory: everything, when it is the
// directory the command starts in (its workdir: an agent's shell runs its
// commands in the session's directory, which its edits name their files
// relative to, so a relative path written may be under it), or not known.
// A directory the command moved to (cd DIR) is read by its path.
func (w *walker) readDir() {
	if w.cwd == "" || w.cwd == "." || w.cwd == w.start {
		w.cmd.ReadsAll = true
		return
	}
	w.read(w.cwd)
}

// writer takes a plain writer's paths.
func (w *walker) writer(args []string, lit []bool) {
	for i, a := range args {
		if !lit[i] {
			w.unknown()
			return
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		w.write(w.abs(a))
	}
	w.cmd.Acts = true
}

// cd moves the command's directory.
func (w *walker) cd(args []string, lit []bool) {
	for i, a := range args {
		if lit[i] && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		if !lit[i] || a == "-" || strings.HasPrefix(a, "~") || w.cwd == "" && !path.IsAbs(a) {
			w.cwd = ""
			return
		}
		w.cwd = w.abs(a)
		return
	}
	w.cwd = "" // cd alone: the home directory
}

// nested reads bash -c 'COMMAND' (and -lc, -ec): its command is read as
// part of this one. A script run by name acts with unknown reach.
func (w *walker) nested(args []string, lit []bool, depth int) {
	for i, a := range args {
		if !lit[i] {
			break
		}
		if strings.HasPrefix(a, "-") && strings.Contains(a, "c") && !strings.HasPrefix(a, "--") {
			if i+1 < len(args) && lit[i+1] && depth < maxDepth {
				inner := Classify(args[i+1], w.cwd)
				w.merge(inner)
				return
			}
			break
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
	}
	w.unknown()
}

// powerShells are PowerShell's programs, as exeName gives them: Codex on
// Windows runs its shell tool's commands as ["powershell.exe", "-Command",
// COMMAND] (real rollouts of Codex 0.121 show it).
var powerShells = map[string]bool{"powershell": true, "pwsh": true}

// exeName is a program's name without its directory (either separator) and
// without .exe, lower-cased: C:\Windows\...\powershell.exe is powershell.
func exeName(prog string) string {
	if i := strings.LastIndexAny(prog, `/\`); i >= 0 {
		prog = prog[i+1:]
	}
	prog = strings.ToLower(prog)
	return strings.TrimSuffix(prog, ".exe")
}

// powerShell reads powershell -Command COMMAND: the words after -Command
// (PowerShell joins them with spaces) are read as part of this command, as
// bash -c's are, with the cmdlets the readers and writers name. Options
// that only set up the session may come before it; any other option (a
// script by -File, an -EncodedCommand) or no -Command acts with unknown
// reach.
func (w *walker) powerShell(args []string, lit []bool, depth int) {
	for i := 0; i < len(args); i++ {
		if !lit[i] {
			break
		}
		switch strings.ToLower(args[i]) {
		case "-noprofile", "-nop", "-nologo", "-noninteractive", "-noni":
			continue
		case "-executionpolicy", "-ep", "-ex":
			i++ // its value
			continue
		case "-command", "-c":
			words := args[i+1:]
			if len(words) == 0 || depth >= maxDepth || slices.Contains(lit[i+1:], false) {
				break
			}
			w.merge(Classify(strings.Join(words, " "), w.cwd))
			return
		}
		break
	}
	w.unknown()
}

// merge adds what a nested command does.
func (w *walker) merge(c Command) {
	if c.Acts {
		w.cmd.Acts = true
		if c.Unknown {
			w.cmd.Unknown = true
		}
		w.cmd.Writes = append(w.cmd.Writes, c.Writes...)
		return
	}
	for _, p := range c.Reads {
		w.read(p)
	}
	if c.ReadsAll {
		w.cmd.ReadsAll = true
	}
}

// wrapper reads a program that runs another: timeout 10 cat f, env X=1
// ls, xargs grep x, command -v go.
func (w *walker) wrapper(name string, args []string, lit []bool, depth int) {
	i := 0
	// Options and the wrapper's own operands before the program.
	for i < len(args) {
		a := args[i]
		if !lit[i] {
			w.unknown()
			return
		}
		switch {
		case name == "env" && strings.Contains(a, "=") && !strings.HasPrefix(a, "-"):
			i++
			continue
		case name == "command" && (a == "-v" || a == "-V"):
			return // looks a program up
		case strings.HasPrefix(a, "-"):
			if takesValue(name, a) {
				i++
			}
			i++
			continue
		}
		break
	}
	if name == "timeout" && i < len(args) {
		i++ // the duration
	}
	if i >= len(args) {
		if name == "xargs" {
			return // xargs alone echoes its input
		}
		return // env alone prints the environment
	}
	if name == "xargs" {
		// The program gets paths the command cannot see.
		w.cmd.ReadsAll = true
	}
	w.program(args[i:], lit[i:], depth)
}

// takesValue reports whether a wrapper's option takes the next word.
func takesValue(name, opt string) bool {
	switch name {
	case "timeout":
		return opt == "-s" || opt == "-k" || opt == "--signal" || opt == "--kill-after"
	case "nice":
		return opt == "-n"
	case "env":
		return opt == "-u" || opt == "-C" || opt == "--unset" || opt == "--chdir"
	case "xargs":
		return opt == "-n" || opt == "-I" || opt == "-P" || opt == "-L" || opt == "-d" || opt == "-s" || opt == "-a" || opt == "-E"
	}
	return false
}

// git reads git's global options and its subcommand.
func (w *walker) git(args []string, lit []bool) {
	i := 0
	for i < len(args) {
		if !lit[i] {
			w.unknown()
			return
		}
		a := args[i]
		switch {
		case a == "-C" && i+1 < len(args):
			if !lit[i+1] {
				w.unknown()
				return
			}
			w.cwd = w.abs(args[i+1])
			i += 2
			continue
		case a == "-c" || a == "--git-dir" || a == "--work-tree":
			i += 2
			continue
		case strings.HasPrefix(a, "-"):
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return // git alone prints its help
	}
	sub, rest := args[i], args[i+1:]
	ok := gitReaders[sub]
	switch sub {
	case "branch", "tag", "remote", "stash", "worktree", "config":
		ok = gitListing(sub, rest)
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "--output") || a == "-o" && sub == "diff" {
			ok = false
		}
	}
	if !ok {
		w.unknown()
		return
	}
	// What git reads is the repository as a whole, wherever its root
	// is above the directory: everything.
	w.cmd.ReadsAll = true
}

// gitListing reports whether a git subcommand that may also change things
// only lists them here.
func gitListing(sub string, rest []string) bool {
	plain := 0
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") {
			plain++
		}
	}
	switch sub {
	case "branch", "tag":
		for _, a := range rest {
			if a == "-d" || a == "-D" || a == "-m" || a == "-M" || a == "-c" || a == "-C" || a == "--delete" || a == "-f" {
				return false
			}
		}
		return plain == 0 || hasAny(rest, "--list", "-l", "--contains", "--merged", "--no-merged", "--points-at")
	case "remote":
		return plain == 0 || len(rest) > 0 && (rest[0] == "show" || rest[0] == "get-url")
	case "stash", "worktree":
		return len(rest) > 0 && rest[0] == "list"
	case "config":
		return hasAny(rest, "--get", "--get-all", "--list", "-l", "--get-regexp")
	}
	return false
}

func hasAny(list []string, xs ...string) bool {
	for _, a := range list {
		for _, x := range xs {
			if a == x {
				return true
			}
		}
	}
	return false
}

// patch reads apply_patch run through the shell with its patch in a
// here-document (Codex): it touches the files the patch names.
func (w *walker) patch() {
	if w.hdoc == "" {
		w.unknown()
		return
	}
	paths := PatchPaths(w.hdoc)
	if len(paths) == 0 {
		w.unknown()
		return
	}
	for _, p := range paths {
		w.write(w.abs(p))
	}
}

// PatchPaths returns the files an apply_patch patch (Codex's format:
// "*** Add File: P", "*** Update File: P", "*** Delete File: P", "*** Move
// to: P") names, in order.
func PatchPaths(patch string) []string {
	var out []string
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimSpace(line)
		for _, h := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if p, ok := strings.CutPrefix(line, h); ok {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}
