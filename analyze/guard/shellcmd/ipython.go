package shellcmd

import "strings"

// IPythonTools are the tools that run a cell of Python in the agent's
// IPython kernel, argument code: OpenHands' run_ipython (CodeAct's
// IPythonRunCellAction in trajectories) and execute_ipython_cell (its
// function-calling name). Python may do anything, so a cell acts with
// unknown reach unless it is only calls of OpenHands' agentskills whose
// effect is known (ipythonSkills).
var IPythonTools = map[string]bool{"run_ipython": true, "execute_ipython_cell": true}

// ipythonSkill is what one agentskills function does with its arguments:
// observe reads (else it writes), path is the index of the argument naming
// the file it reads or writes (-1: none), all says it reads what it does not
// name (a directory walked).
type ipythonSkill struct {
	observe bool
	path    int
	all     bool
}

// ipythonSkills are the agentskills functions a cell may call and stay
// known, from openhands/runtime/plugins/agent_skills/file_ops/file_ops.py
// (OpenHands/OpenHands d074f47c428b6dbd0a9669f9b2112444f68eb80d): open_file
// (path, line_number, context_lines) reads a file; search_file
// (search_term, file_path) one file, or the open one when no path is given;
// search_dir (search_term, dir_path) and find_file (file_name, dir_path)
// walk a directory. goto_line and scroll_* read the open file at a line
// that earlier calls moved: they are left out (unknown). The editing skills
// of the releases before file_editor (edit_file_by_replace,
// insert_content_at_line, append_file, create_file: agentskills'
// file_ops.py before it moved to the editor) write their first argument.
var ipythonSkills = map[string]ipythonSkill{
	"open_file":              {observe: true, path: 0},
	"search_file":            {observe: true, path: 1},
	"search_dir":             {observe: true, path: 1, all: true},
	"find_file":              {observe: true, path: 1, all: true},
	"edit_file_by_replace":   {path: 0},
	"insert_content_at_line": {path: 0},
	"append_file":            {path: 0},
	"create_file":            {path: 0},
}

// FromIPython reads a cell of Python: known agentskills calls only (one a
// statement, their arguments literals) observe or act on the paths they
// name; anything else acts with unknown reach.
func FromIPython(code string) Command {
	unknown := Command{Acts: true, Unknown: true}
	stmts, ok := pythonCalls(code)
	if !ok || len(stmts) == 0 {
		return unknown
	}
	var c Command
	for _, st := range stmts {
		sk, known := ipythonSkills[st.name]
		if !known {
			return unknown
		}
		var p string
		if sk.path >= 0 && sk.path < len(st.args) {
			s, isString := pythonString(st.args[sk.path])
			if !isString {
				return unknown // a path built at run time
			}
			p = s
		}
		switch {
		case sk.observe:
			if p == "" || sk.all {
				c.ReadsAll = true
			}
			if p != "" {
				c.Reads = append(c.Reads, clean(p))
			}
		case p == "":
			return unknown
		default:
			c.Acts = true
			c.Writes = append(c.Writes, clean(p))
		}
	}
	if c.Acts {
		c.Reads, c.ReadsAll = nil, false
	}
	return c
}

// pythonCall is one statement of a cell that is a call of a plain name:
// name(args...), each argument's source text.
type pythonCall struct {
	name string
	args []string
}

// pythonCalls splits a cell into its statements, each a call of a plain
// name; false when a statement is anything else (an assignment, an
// import, a call of a call's result) or the text does not scan (an
// unclosed string or bracket). Keyword arguments are dropped: the
// positional ones are counted as the signature's first parameters.
func pythonCalls(code string) ([]pythonCall, bool) {
	var out []pythonCall
	rest := code
	for {
		rest = strings.TrimLeft(rest, " \t\r\n;")
		if rest == "" {
			return out, true
		}
		if rest[0] == '#' {
			_, rest, _ = strings.Cut(rest, "\n")
			continue
		}
		i := pythonName(rest)
		name := rest[:i]
		rest = strings.TrimLeft(rest[i:], " \t")
		if name == "" || rest == "" || rest[0] != '(' {
			return nil, false
		}
		args, n, ok := pythonArgs(rest)
		if !ok {
			return nil, false
		}
		positional := args[:0]
		for _, a := range args {
			if !pythonKeyword(a) {
				positional = append(positional, a)
			}
		}
		out = append(out, pythonCall{name, positional})
		rest = strings.TrimLeft(rest[n:], " \t")
		if rest != "" && rest[0] != '\n' && rest[0] != '\r' && rest[0] != ';' && rest[0] != '#' {
			return nil, false // a call of the result, an operator: not a plain call
		}
	}
}

// pythonArgs reads the parenthesized argument list at the start of s: the
// top-level arguments' texts (trimmed) and the length read.
func pythonArgs(s string) ([]string, int, bool) {
	var args []string
	depth, start := 0, 1
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\'', '"':
			end, ok := pythonStringEnd(s, i)
			if !ok {
				return nil, 0, false
			}
			i = end - 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" {
					args = append(args, a)
				}
				return args, i + 1, true
			}
		case ',':
			if depth == 1 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, 0, false
}

// pythonStringEnd returns the index just past the string literal opening
// at s[i] (single or triple quoted, backslash escapes).
func pythonStringEnd(s string, i int) (int, bool) {
	q := s[i : i+1]
	if strings.HasPrefix(s[i:], q+q+q) {
		q = q + q + q
	}
	for j := i + len(q); j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if strings.HasPrefix(s[j:], q) {
			return j + len(q), true
		}
		if len(q) == 1 && s[j] == '\n' {
			return 0, false
		}
	}
	return 0, false
}

// pythonString returns the value of an argument that is one plain string
// literal without escapes ('p', "p"); false for anything else.
func pythonString(arg string) (string, bool) {
	if len(arg) < 2 || (arg[0] != '\'' && arg[0] != '"') || arg[len(arg)-1] != arg[0] {
		return "", false
	}
	v := arg[1 : len(arg)-1]
	if strings.ContainsAny(v, `\'"`) {
		return "", false
	}
	return v, true
}

// pythonKeyword reports whether an argument is a keyword argument
// (name=value, not name==value).
func pythonKeyword(arg string) bool {
	i := pythonName(arg)
	rest := strings.TrimLeft(arg[i:], " \t")
	return i > 0 && strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==")
}

// pythonName returns the length of the identifier s starts with.
func pythonName(s string) int {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return i
}
