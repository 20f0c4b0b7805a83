package shellcmd

import "strings"

// Most shell commands an agent runs are plain: words of letters, digits and
// a few punctuation marks, run one after the other or piped ("ls -la src",
// "go test ./...", "cd web && npm test | tail -n 20"). Bash reads such a
// command as its words split on blanks, so it is read here without
// mvdan.cc/sh's parser, whose syntax tree cost more than the rest of
// reading the command. Anything else (quotes, escapes, expansions, globs,
// redirections, background jobs, comments, assignments, keywords and
// declarations) goes to the parser: the plain reading must give what the
// parser's gives, word for word (FuzzPlainMatchesParser checks it).

// plainByte marks the bytes a plain word may hold: none of them is special
// to bash outside a word's start ("=" only in an assignment, which the
// first word of a command may not hold here).
var plainByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "-_./:,@%+=" {
		t[c] = true
	}
	return t
}()

// plainKeywords are the words bash (and mvdan.cc/sh's bash syntax) reads
// as something else than a program in a command's first word: reserved
// words, and the builtins it parses as clauses of their own.
var plainKeywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true,
	"for": true, "select": true, "while": true, "until": true, "do": true, "done": true,
	"in": true, "function": true, "time": true, "coproc": true,
	"declare": true, "local": true, "export": true, "readonly": true, "typeset": true,
	"nameref": true, "let": true,
}

// classifyPlain reads a plain command; ok is false when the command is
// not plain (the parser reads it then).
func classifyPlain(command, cwd string) (c Command, ok bool) {
	if !plainFirst(command) {
		return Command{}, false
	}
	// The paths read are views of the command's text: of a copy, which
	// the memo may keep, not of the transcript's memory.
	command = strings.Clone(command)
	w := walker{cwd: cleanDir(cwd)}
	w.start = w.cwd
	var words [8]string
	args := words[:0]
	start := -1 // of the word being read
	// end closes the simple command read so far: false when it is empty
	// or not plain.
	end := func() bool {
		if len(args) == 0 || plainKeywords[args[0]] {
			return false
		}
		for i := 0; i < len(args[0]); i++ {
			if args[0][i] == '=' {
				return false
			}
		}
		lit := make([]bool, len(args))
		for i := range lit {
			lit[i] = true
		}
		w.hdoc = ""
		w.program(args, lit, 0)
		args = words[:0]
		return true
	}
	for i := 0; i < len(command); i++ {
		b := command[i]
		if plainByte[b] {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			args = append(args, command[start:i])
			start = -1
		}
		switch b {
		case ' ', '\t':
		case ';', '\n':
			if !end() {
				return Command{}, false
			}
		case '|', '&':
			// "|", "||" and "&&" join commands; "&" alone runs one in the
			// background, and "|&" pipes its errors: the parser's.
			switch {
			case b == '|' && i+1 < len(command) && command[i+1] == '|',
				b == '&' && i+1 < len(command) && command[i+1] == '&':
				i++
			case b == '&' || i+1 < len(command) && command[i+1] == '&':
				return Command{}, false
			}
			if !end() {
				return Command{}, false
			}
		default:
			return Command{}, false
		}
	}
	if start >= 0 {
		args = append(args, command[start:])
	}
	if !end() {
		return Command{}, false
	}
	return w.result(), true
}

// plainFirst reports whether every byte of command may be in a plain
// command, before any copy is made.
func plainFirst(command string) bool {
	for i := 0; i < len(command); i++ {
		switch b := command[i]; {
		case plainByte[b], b == ' ', b == '\t', b == ';', b == '\n', b == '|', b == '&':
		default:
			return false
		}
	}
	return true
}
