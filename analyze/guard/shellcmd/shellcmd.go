// Package shellcmd says what an agent's shell command does to the files
// it names: a command made only of programs known to read (cat, ls, grep,
// git status, ...) with no output redirection observes the paths it names;
// any other command acts, on the paths it names when its writes are plain
// (a redirection to a file, tee, sed -i, rm, mv, cp, touch, mkdir) and on
// anything at all otherwise. The truth of a replay (analyze) and the
// guard's path invalidation (scope.write_clears_reads.invalidate: path)
// read commands here, so that both call the same commands observations
// (docs/rules.md, "Shell commands: observe or act").
//
// Commands are parsed with mvdan.cc/sh's parser (bash syntax): quoting,
// here-documents, command substitution and redirections read wrong by a
// hand-made splitter would make a writing command look like a reading
// one. A command that does not parse acts, with unknown reach.
package shellcmd

import (
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Command is what a shell command does.
type Command struct {
	// Acts: the command may change something. An observation (Acts
	// false) only reads.
	Acts bool
	// Unknown: it acts on paths it does not name (a build, a script, an
	// interpreter, a package manager): everything it might have read may
	// have changed.
	Unknown bool
	// Writes are the paths an acting command names as written (when not
	// Unknown): redirection targets, tee's files, sed -i's files, rm's,
	// mv's and cp's destinations, touch, mkdir.
	Writes []string
	// Reads are the paths an observation names (cleaned, relative to the
	// directory the command starts in when relative); ReadsAll says it
	// also reads what it does not name (a search of the working
	// directory, a path built at run time, the repository for git
	// status), so any act may change its result.
	Reads    []string
	ReadsAll bool
}

// Observes reports whether the command only reads.
func (c Command) Observes() bool { return !c.Acts }

// maxCommand bounds the command text parsed: a longer command (a script
// pasted whole) acts, with unknown reach.
const maxCommand = 64 << 10

// Classify reads a shell command. cwd is the directory it starts in as
// the call gives it (Codex's workdir), "" when the call does not say.
// What it returns is shared with other calls for the same command (memo.go):
// its lists are read, not changed.
func Classify(command, cwd string) Command {
	if len(command) > maxCommand || strings.TrimSpace(command) == "" {
		return Command{Acts: true, Unknown: true}
	}
	// A plain command is read in less time than the memo takes to look
	// it up and keep it: only what the parser reads is remembered.
	if c, ok := classifyPlain(command, cwd); ok {
		return c
	}
	if c, ok := memo.get(command, cwd); ok {
		return c
	}
	return memo.put(command, cwd, classifyParsed(command, cwd))
}

// classify is Classify without the memo.
func classify(command, cwd string) Command {
	if c, ok := classifyPlain(command, cwd); ok {
		return c
	}
	return classifyParsed(command, cwd)
}

// classifyParsed reads a command with the bash parser.
func classifyParsed(command, cwd string) Command {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(command), "")
	parsers.Put(p)
	if err != nil {
		return Command{Acts: true, Unknown: true}
	}
	w := walker{cwd: cleanDir(cwd)}
	w.start = w.cwd
	w.stmts(f.Stmts, 0)
	return w.result()
}

// parsers are bash parsers for reuse: a new one is a few kilobytes to
// allocate and clear for each command, and mvdan.cc/sh's Parser may parse
// again once a parse is done (its Parse resets it; the tree it returned
// stays the caller's).
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// maxDepth bounds nested shells (bash -c "bash -c ...") and substitutions.
const maxDepth = 8

// walker collects what a command's statements do.
type walker struct {
	cwd string // "" for unknown, else a cleaned directory ("." at start)
	// start is the directory the command starts in, as cwd is at first.
	start string
	cmd   Command
	// hdoc is the literal here-document of the statement being read
	// (apply_patch's patch).
	hdoc string
}

func (w *walker) result() Command {
	c := w.cmd
	if c.Acts {
		c.Reads, c.ReadsAll = nil, false
		if c.Unknown {
			c.Writes = nil
		}
		return c
	}
	c.Writes = nil
	return c
}

// unknown marks the command as acting on anything.
func (w *walker) unknown() { w.cmd.Acts, w.cmd.Unknown = true, true }

func (w *walker) write(p string) {
	w.cmd.Acts = true
	p = beforeGlob(p)
	if p == "" || p == "." || p == "/" {
		w.cmd.Unknown = true
		return
	}
	w.cmd.Writes = append(w.cmd.Writes, p)
}

func (w *walker) read(p string) {
	p = beforeGlob(p)
	if p == "" || p == "." || p == "/" || p == w.start {
		// The directory the command starts in is read whole (readDir).
		w.cmd.ReadsAll = true
		return
	}
	if !slices.Contains(w.cmd.Reads, p) {
		w.cmd.Reads = append(w.cmd.Reads, p)
	}
}

func (w *walker) stmts(list []*syntax.Stmt, depth int) {
	for _, s := range list {
		w.stmt(s, depth)
	}
}

func (w *walker) stmt(s *syntax.Stmt, depth int) {
	if s == nil {
		return
	}
	if depth > maxDepth || s.Background || s.Coprocess || s.Disown {
		// A command left running in the background goes on changing
		// things after the call returns.
		w.unknown()
		return
	}
	w.hdoc = ""
	for _, r := range s.Redirs {
		w.redirect(r, depth)
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
			if text, ok := w.word(r.Hdoc, depth); ok {
				w.hdoc = text
			}
		}
	}
	switch c := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		w.call(c, depth)
	case *syntax.BinaryCmd:
		w.stmt(c.X, depth)
		w.stmt(c.Y, depth)
	case *syntax.Subshell:
		saved := w.cwd
		w.stmts(c.Stmts, depth+1)
		w.cwd = saved
	case *syntax.Block:
		w.stmts(c.Stmts, depth+1)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, depth+1)
			w.stmts(ic.Then, depth+1)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, depth+1)
		w.stmts(c.Do, depth+1)
	case *syntax.ForClause:
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			for _, item := range wi.Items {
				w.substitutions(item, depth)
			}
		}
		// The loop variable names paths the command cannot see.
		w.cmd.ReadsAll = true
		w.stmts(c.Do, depth+1)
	case *syntax.CaseClause:
		w.substitutions(c.Word, depth)
		for _, it := range c.Items {
			w.stmts(it.Stmts, depth+1)
		}
	case *syntax.TimeClause:
		w.stmt(c.Stmt, depth)
	case *syntax.DeclClause:
		// export, local, declare, readonly: they set variables in the
		// shell only; their values may run substitutions.
		for _, a := range c.Args {
			if a.Value != nil {
				w.substitutions(a.Value, depth)
			}
		}
	case *syntax.TestClause:
		// [[ -f x ]]: it looks at the paths it names.
		syntax.Walk(c, func(n syntax.Node) bool {
			if wd, ok := n.(*syntax.Word); ok {
				if p, lit := w.word(wd, depth); lit {
					if !strings.HasPrefix(p, "-") {
						w.read(w.abs(p))
					}
				} else {
					w.cmd.ReadsAll = true
				}
				return false
			}
			return true
		})
	default:
		// Functions, arithmetic, coprocesses, let: not worth knowing.
		w.unknown()
	}
}

// redirect reads a redirection: input from a file reads it, output to a
// file writes it; /dev/null and the standard streams are neither.
func (w *walker) redirect(r *syntax.Redirect, depth int) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			w.substitutions(r.Hdoc, depth)
		}
		return
	case syntax.WordHdoc:
		w.substitutions(r.Word, depth)
		return
	case syntax.DplIn, syntax.DplOut:
		// 2>&1, >&2, <&0: a descriptor, not a file; "&>file" is RdrAll.
		if p, lit := w.word(r.Word, depth); lit && (p == "-" || isDigits(p)) {
			return
		}
	}
	p, lit := w.word(r.Word, depth)
	if lit && (p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty") {
		return
	}
	if r.Op == syntax.RdrIn {
		if lit {
			w.read(w.abs(p))
		} else {
			w.cmd.ReadsAll = true
		}
		return
	}
	if !lit {
		w.unknown()
		return
	}
	w.write(w.abs(p))
}

// call reads one simple command.
func (w *walker) call(c *syntax.CallExpr, depth int) {
	for _, a := range c.Assigns {
		if a.Value != nil {
			w.substitutions(a.Value, depth)
		}
	}
	if len(c.Args) == 0 {
		return // VAR=value: the shell's own variable
	}
	args := make([]string, 0, len(c.Args))
	lit := make([]bool, 0, len(c.Args))
	for _, a := range c.Args {
		s, ok := w.word(a, depth)
		args, lit = append(args, s), append(lit, ok)
	}
	if !lit[0] {
		w.unknown() // $CMD: a program chosen at run time
		return
	}
	w.program(args, lit, depth)
}

// word returns a word's text when it is known before the command runs
// (literal, quoted, no expansion); command substitutions in it are walked
// as commands of their own.
func (w *walker) word(wd *syntax.Word, depth int) (string, bool) {
	if wd == nil {
		return "", false
	}
	var b strings.Builder
	ok := w.parts(&b, wd.Parts, depth)
	return b.String(), ok
}

func (w *walker) parts(b *strings.Builder, parts []syntax.WordPart, depth int) bool {
	return w.partsIn(b, parts, depth, false)
}

// partsIn is parts of a word, or of a double-quoted string in it (dbl).
func (w *walker) partsIn(b *strings.Builder, parts []syntax.WordPart, depth int, dbl bool) bool {
	ok := true
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeQuotes(x.Value, dbl))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if !w.partsIn(b, x.Parts, depth, true) {
				ok = false
			}
		case *syntax.CmdSubst:
			w.stmts(x.Stmts, depth+1)
			ok = false
		case *syntax.ProcSubst:
			w.stmts(x.Stmts, depth+1)
			ok = false
		default:
			// $VAR, $((...)), ${...}, globs of other shells.
			ok = false
		}
	}
	return ok
}

// unescapeQuotes is a literal's text with the backslashes that escape a
// quote taken out, as bash takes them out: \' and \" outside quotes, \"
// inside double quotes. The parser keeps a literal as written; its other
// backslashes are left as they stand, because a PowerShell command read
// here (Codex on Windows) writes its paths with them (app\main.py), and
// a quote is never part of such a path. An argument vector read as one
// command (argvText) writes a quote in a word as an escaped quote between
// two single-quoted parts: Codex's shell tool runs ["bash", "-lc", "cat 'a b'"], which reads the file
// "a b", not the two files "'a" and "b'".
func unescapeQuotes(lit string, dbl bool) string {
	if !strings.Contains(lit, `\`) {
		return lit
	}
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		if lit[i] == '\\' && i+1 < len(lit) && (lit[i+1] == '"' || lit[i+1] == '\'' && !dbl) {
			i++
		}
		b.WriteByte(lit[i])
	}
	return b.String()
}

// substitutions walks the command substitutions of a word.
func (w *walker) substitutions(wd *syntax.Word, depth int) {
	if wd != nil {
		var b strings.Builder
		w.parts(&b, wd.Parts, depth)
	}
}

// abs places a path the command names: relative paths under the
// command's directory when it is known.
func (w *walker) abs(p string) string {
	if p == "" {
		return ""
	}
	// A Windows path (PowerShell, cmd): its separators are read as "/".
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(p, "~") {
		// The home directory is not known here: "~/x" is "x" under some
		// directory, which the path tests treat as relative.
		p = strings.TrimLeft(strings.TrimPrefix(p, "~"), "/")
		if p == "" {
			return ""
		}
		return path.Clean(p)
	}
	if path.IsAbs(p) || w.cwd == "" {
		return path.Clean(p)
	}
	return path.Join(w.cwd, p)
}

func cleanDir(d string) string {
	if d == "" {
		return "."
	}
	d = strings.ReplaceAll(d, `\`, "/")
	if strings.HasPrefix(d, "~") {
		return ""
	}
	return path.Clean(d)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// beforeGlob returns the directory above a path's first component with a
// glob character ("src/*.go" is "src"), or the path itself.
func beforeGlob(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p
	}
	j := strings.LastIndexByte(p[:i], '/')
	if j < 0 {
		return ""
	}
	if j == 0 {
		return "/"
	}
	return p[:j]
}
