package shellcmd

import (
	"reflect"
	"testing"
)

// plainCases are commands the plain reading takes (plain true) or leaves
// to the parser.
var plainCases = []struct {
	cmd, cwd string
	plain    bool
}{
	{cmd: "ls -la src", plain: true},
	{cmd: "ls", cwd: "/w/repo", plain: true},
	{cmd: "wc -l web/components/a.toml", plain: true},
	{cmd: "cd web && npm test | tail -n 20", plain: true},
	{cmd: "cd /abs && cat f", plain: true},
	{cmd: "cd sub && cat f", cwd: "/w", plain: true},
	{cmd: "git status --short; git diff HEAD~1", plain: false}, // "~"
	{cmd: "git -C sub diff HEAD", plain: true},
	{cmd: "git commit -m x", plain: true},
	{cmd: "echo hello; pwd", plain: true},
	{cmd: "make build || echo failed", plain: true},
	{cmd: "ls -la tests | head -n 44", plain: true},
	{cmd: "rm -rf build dist", plain: true},
	{cmd: "sed -i s/a/b/ f.txt", plain: true},
	{cmd: "sed -n 1,20p f.go", plain: true},
	{cmd: "timeout 10 cat f", plain: true},
	{cmd: "env A=1 cat f", plain: true},
	{cmd: "bash -c ls", plain: true},
	{cmd: "find . -name x -delete", plain: true},
	{cmd: "tail -f log.txt", plain: true},
	{cmd: "python -m pytest tests/unit", plain: true},
	{cmd: "go test ./...", plain: true},
	{cmd: "ls\tsrc", plain: true},
	{cmd: "ls\npwd", plain: true},
	{cmd: "ls  -la   src ", plain: true},
	{cmd: "apply_patch", plain: true},
	{cmd: "cd", plain: true},
	{cmd: "cd -", plain: true},
	{cmd: "uniq a b", plain: true},
	{cmd: "cat a.txt b.txt | head -n 20", plain: true},
	// Left to the parser.
	{cmd: "A=1 make"},
	{cmd: "A=1"},
	{cmd: "export A=1"},
	{cmd: "local a"},
	{cmd: "let a=1"},
	{cmd: "time ls"},
	{cmd: "if true; then ls; fi"},
	{cmd: "for f in a b; do cat f; done"},
	{cmd: "while true; do ls; done"},
	{cmd: "function f"},
	{cmd: "coproc ls"},
	{cmd: "ls &"},
	{cmd: "ls & pwd"},
	{cmd: "ls |& tee f"},
	{cmd: "ls;"},
	{cmd: "ls\n"},
	{cmd: ";ls"},
	{cmd: "ls ;; pwd"},
	{cmd: "ls | | pwd"},
	{cmd: "ls &&"},
	{cmd: "| ls"},
	{cmd: "cat 'a b'"},
	{cmd: `cat "a"`},
	{cmd: `cat a\ b`},
	{cmd: "cat $F"},
	{cmd: "cat *.go"},
	{cmd: "cat a > b"},
	{cmd: "cat < a"},
	{cmd: "ls # comment"},
	{cmd: "echo {a,b}"},
	{cmd: "cat ~/f"},
	{cmd: "(cd a && ls)"},
	{cmd: "! ls"},
	{cmd: "ls [ab]"},
	{cmd: "cat é"},
}

// TestPlainMatchesParser: the plain reading takes the commands it should,
// and what it gives for them is what the parser gives.
func TestPlainMatchesParser(t *testing.T) {
	for _, c := range plainCases {
		got, ok := classifyPlain(c.cmd, c.cwd)
		if ok != c.plain {
			t.Errorf("classifyPlain(%q): plain %v, want %v", c.cmd, ok, c.plain)
			continue
		}
		if !ok {
			continue
		}
		if want := classifyParsed(c.cmd, c.cwd); !sameCommand(got, want) {
			t.Errorf("classifyPlain(%q, %q) = %+v, the parser's %+v", c.cmd, c.cwd, got, want)
		}
	}
}

// FuzzPlainMatchesParser: whatever the command, when the plain reading
// takes it, it reads what the parser reads.
func FuzzPlainMatchesParser(f *testing.F) {
	for _, c := range plainCases {
		f.Add(c.cmd, c.cwd)
	}
	f.Fuzz(func(t *testing.T, cmd, cwd string) {
		got, ok := classifyPlain(cmd, cwd)
		if !ok {
			return
		}
		if want := classifyParsed(cmd, cwd); !sameCommand(got, want) {
			t.Errorf("classifyPlain(%q, %q) = %+v, the parser's %+v", cmd, cwd, got, want)
		}
	})
}

// sameCommand compares two readings, nil lists and empty ones apart.
func sameCommand(a, b Command) bool { return reflect.DeepEqual(a, b) }
