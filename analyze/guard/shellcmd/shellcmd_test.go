package shellcmd

import (
	"slices"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

func TestClassify(t *testing.T) {
	const unknown = "?"
	cases := []struct {
		cmd, cwd string
		// acts: "" observes; "?" acts with unknown reach; else the
		// written paths, space-separated.
		acts string
		// reads: the paths an observation names; all: ReadsAll.
		reads []string
		all   bool
	}{
		{cmd: "cat README.md", reads: []string{"README.md"}},
		{cmd: "cat a.txt b.txt | head -n 20", reads: []string{"a.txt", "b.txt", "20"}},
		{cmd: "sed -n '1,240p' pkg/x.go", cwd: "/w/repo", reads: []string{"/w/repo/1,240p", "/w/repo/pkg/x.go"}},
		{cmd: "cd src && ls", reads: []string{"src"}},
		{cmd: "cd /abs && cat f", reads: []string{"/abs/f"}},
		{cmd: "ls", all: true},
		{cmd: "rg -n foo", reads: []string{"foo"}, all: true},
		{cmd: "rg -n foo pkg cmd", reads: []string{"foo", "pkg", "cmd"}},
		{cmd: "grep -rn foo src", reads: []string{"foo", "src"}},
		{cmd: "grep foo a.go", reads: []string{"foo", "a.go"}},
		{cmd: "find . -name '*.go'", all: true},
		{cmd: "find src -name '*.go' -type f", reads: []string{"src"}},
		{cmd: "git status --short", all: true},
		// git reads its repository whole, wherever its root is.
		{cmd: "git -C sub diff HEAD", all: true},
		{cmd: "git status --short", cwd: "/w", all: true},
		// The directory the command starts in is read whole (a relative
		// path written may be under it); one it moved to, by its path.
		{cmd: "ls", cwd: "/w", all: true},
		{cmd: "rg -n foo .", cwd: "/w", reads: []string{"/w/foo"}, all: true},
		{cmd: "cd /x && ls", cwd: "/w", reads: []string{"/x"}},
		{cmd: "ls src", cwd: "/w", reads: []string{"/w/src"}},
		{cmd: "git --no-pager log --oneline -5", all: true},
		{cmd: "wc -l src/*.go", reads: []string{"src"}},
		{cmd: "cat $FILE", all: true},
		{cmd: "echo hello; pwd", reads: nil},
		{cmd: "cat f 2>/dev/null || echo missing", reads: []string{"f"}},
		{cmd: "cat f 2>&1 | tail -5", reads: []string{"f"}},
		{cmd: "jq .name package.json", reads: []string{".name", "package.json"}},
		{cmd: "awk '{print $1}' data.csv", reads: []string{"{print $1}", "data.csv"}},
		{cmd: "timeout 10 cat f", reads: []string{"f"}},
		{cmd: "bash -lc 'cat f'", reads: []string{"f"}},
		// A quote escaped by a backslash is the quote (an argument vector
		// read as one command writes its quotes so); other backslashes
		// stay (PowerShell's paths).
		{cmd: `bash -lc 'cat '\''a b'\'''`, reads: []string{"a b"}},
		{cmd: `cat \'a\' "b \"c\""`, reads: []string{"'a'", `b "c"`}},
		{cmd: `echo x > \'f\'`, acts: "'f'"},
		{cmd: "[ -f go.mod ] && cat go.mod", reads: []string{"go.mod"}},
		{cmd: "find . -name x | xargs grep foo", reads: []string{"foo"}, all: true},
		{cmd: "wc -l < in.txt", reads: []string{"in.txt"}},
		{cmd: "cat $(ls | head -1)", all: true},

		{cmd: `Get-Content -Raw app\main.py`, cwd: `C:\w\backend`, reads: []string{"C:/w/backend/app/main.py"}},
		{cmd: "Get-ChildItem -Force", all: true},
		// type prints its file in PowerShell (Get-Content's alias).
		{cmd: `type app\src\a.ts`, cwd: `g:\w`, reads: []string{"g:/w/app/src/a.ts"}},
		{cmd: "echo x > f", acts: "f"},
		{cmd: "echo x >> logs/out.txt", cwd: "/w", acts: "/w/logs/out.txt"},
		{cmd: "cat a | tee b", acts: "b"},
		{cmd: "sed -i 's/a/b/' f.go", acts: "s/a/b f.go"},
		{cmd: "sed -n 'w out' f", acts: unknown},
		{cmd: "rm -rf build", acts: "build"},
		{cmd: "mv a b", acts: "a b"},
		{cmd: "mkdir -p x/y && touch x/y/z", acts: "x/y x/y/z"},
		{cmd: "cat > f <<'EOF'\nhello\nEOF", acts: "f"},
		{cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch\nEOF", acts: "src/a.go"},
		{cmd: "echo x > $OUT", acts: unknown},
		{cmd: "find . -name '*.tmp' -delete", acts: unknown},
		{cmd: "find . -exec rm {} ;", acts: unknown},
		{cmd: "awk '{print > \"out\"}' f", acts: unknown},
		{cmd: "sort -o out in", acts: unknown},
		{cmd: "tail -f server.log", acts: unknown},
		{cmd: "go test ./...", acts: unknown},
		{cmd: "npm install", acts: unknown},
		{cmd: "python3 script.py", acts: unknown},
		{cmd: "git commit -m x", acts: unknown},
		{cmd: "git checkout main", acts: unknown},
		{cmd: "git branch -D old", acts: unknown},
		{cmd: "sleep 5 && cat log", acts: unknown},
		{cmd: "cat f &", acts: unknown},
		{cmd: "curl -s http://localhost:8080/health", acts: unknown},
		{cmd: "f() { cat x; }; f", acts: unknown},
		{cmd: "cat 'unterminated", acts: unknown},
		{cmd: "", acts: unknown},
		{cmd: "$CMD file", acts: unknown},
		{cmd: "cat f > /dev/null", reads: []string{"f"}},
		{cmd: "sudo cat f", acts: unknown},
		{cmd: "Remove-Item -Recurse build", acts: "build"},
		{cmd: "@'\nx\n'@ | Set-Content a.py", acts: unknown},
	}
	for _, c := range cases {
		got := Classify(c.cmd, c.cwd)
		switch c.acts {
		case "":
			if got.Acts {
				t.Errorf("%q: acts (%+v), want an observation", c.cmd, got)
				continue
			}
			if !slices.Equal(got.Reads, c.reads) || got.ReadsAll != c.all {
				t.Errorf("%q: reads %q all %v, want %q all %v", c.cmd, got.Reads, got.ReadsAll, c.reads, c.all)
			}
		case unknown:
			if !got.Acts || !got.Unknown {
				t.Errorf("%q: %+v, want an act of unknown reach", c.cmd, got)
			}
		default:
			want := splitFields(c.acts)
			if !got.Acts || got.Unknown || !slices.Equal(got.Writes, want) {
				t.Errorf("%q: %+v, want an act writing %q", c.cmd, got, want)
			}
		}
	}
}

func splitFields(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func TestOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"src/a.go", "src/a.go", true},
		{"src/a.go", "/repo/src/a.go", true},
		{"a.go", "/repo/src/a.go", true},
		{"src", "/repo/src/a.go", true},
		{"/repo/src", "/repo/src/a.go", true},
		{"/repo/src/a.go", "/repo/src", true},
		{"/repo/src/a.go", "/repo/src/b.go", false},
		{"src/a.go", "src/b.go", false},
		{"/repo/a", "/other/a", false},
		{"../x", "/repo/y", true},
		{".", "/repo/y", true},
		{"", "x", true},
		{"src/*.go", "/repo/src/a.go", true},
		{"docs/x.md", "/repo/src/a.go", false},
		{"~/proj/a.md", "/h/proj/a.md", true},
		{`C:\w\repo\API_tests\t.py`, "C:/w/repo/API_tests/t.py", true},
		{`C:\w\repo\a.py`, "repo/b.py", false},
		// A relative path that goes on from an absolute directory may be
		// under it (Codex's workdir reads, apply_patch's relative files).
		{"/repo/src", "src/a.go", true},
		{"src/a.go", "/repo/src", true},
		{"/repo/src/lib", "src/lib/a.go", true},
		{"/repo/src", "lib/a.go", false},
		{"/repo/src/a.go", "src/b.go", false},
	}
	for _, c := range cases {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Overlap(c.b, c.a); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}

func TestFromCall(t *testing.T) {
	cases := []struct {
		tool, args string
		shell      bool
		ok, acts   bool
		reads      []string
	}{
		{tool: "Bash", args: `{"command":"cat a"}`, ok: true, reads: []string{"a"}},
		{tool: "exec_command", args: `{"cmd":"cat a","workdir":"/w"}`, ok: true, reads: []string{"/w/a"}},
		{tool: "shell", args: `{"command":["bash","-lc","cat a"],"workdir":"/w"}`, ok: true, reads: []string{"/w/a"}},
		{tool: "shell", args: `{"command":["cat","a b"]}`, ok: true, reads: []string{"a b"}},
		{tool: "shell", args: `{"command":["bash","-lc","sed -n '1,5p' 'my notes.md'"],"workdir":"/w"}`, ok: true, reads: []string{"/w/1,5p", "/w/my notes.md"}},
		{tool: "terminal", args: `{"command":"cat a","background":true}`, ok: true, acts: true},
		{tool: "execute_bash", args: `{"command":"q","is_input":"true"}`, ok: true, acts: true},
		{tool: "Bash", args: `{"description":"no command"}`, ok: true, acts: true},
		{tool: "mytool", args: `{"command":"cat a"}`, shell: true, ok: true, reads: []string{"a"}},
		{tool: "run_commands", args: `{"commands":["cat a","ls b"]}`, ok: true, reads: []string{"a", "b"}},
		{tool: "run_commands", args: `{"commands":["cat a","echo x > a"]}`, ok: true, acts: true},
		{tool: "run_commands", args: `{"commands":"cat a"}`, ok: true, acts: true},
		{tool: "Read", args: `{"file_path":"a"}`},
		// Gemini CLI 0.61.0's run_shell_command: dir_path, is_background.
		{tool: "run_shell_command", args: `{"command":"cat a","description":"d","dir_path":"/w"}`, ok: true, reads: []string{"/w/a"}},
		{tool: "run_shell_command", args: `{"command":"cat a","is_background":true}`, ok: true, acts: true},
		{tool: "run_shell_command", args: `{"command":"cat a","is_background":false}`, ok: true, reads: []string{"a"}},
		// Qwen Code 0.24.4's run_shell_command: directory, is_background.
		{tool: "run_shell_command", args: `{"command":"cat a","directory":"/w","is_background":false}`, ok: true, reads: []string{"/w/a"}},
		{tool: "run_shell_command", args: `{"command":"cat a","directory":"/w","is_background":true}`, ok: true, acts: true},
		// Claude Code's Bash in the background.
		{tool: "Bash", args: `{"command":"cat a","run_in_background":true}`, ok: true, acts: true},
		// Codex: exec_command's shell names the shell, not the command;
		// local_shell's call is its action, with working_directory.
		{tool: "exec_command", args: `{"cmd":"cat a","shell":"bash","login":true,"workdir":"/w"}`, ok: true, reads: []string{"/w/a"}},
		{tool: "local_shell", args: `{"type":"exec","command":["bash","-lc","cat a"],"working_directory":"/w","timeout_ms":1000}`, ok: true, reads: []string{"/w/a"}},
		{tool: "shell_command", args: `{"command":"cat a","workdir":"/w"}`, ok: true, reads: []string{"/w/a"}},
		// OpenCode 1.18.33's bash: workdir; pi 0.73.1's bash.
		{tool: "bash", args: `{"command":"cat a","workdir":"/w","timeout":1000,"description":"d"}`, ok: true, reads: []string{"/w/a"}},
		{tool: "bash", args: `{"command":"cat a","timeout":5}`, ok: true, reads: []string{"a"}},
		// Cline's execute_command.
		{tool: "execute_command", args: `{"command":"cat a","requires_approval":false}`, ok: true, reads: []string{"a"}},
		// Codex's shell on Windows: PowerShell's -Command read as bash -c's.
		{tool: "shell", args: `{"command":["powershell.exe","-Command","Get-Content 'CHARTER.md'"],"workdir":"C:\\w"}`, ok: true, reads: []string{"C:/w/CHARTER.md"}},
		{tool: "shell", args: `{"command":["C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe","-NoProfile","-Command","Get-Content a | Select-Object -First 5"]}`, ok: true, reads: []string{"a", "5"}},
		{tool: "shell", args: `{"command":["pwsh","-c","Get-Content","a"]}`, ok: true, reads: []string{"a"}},
		{tool: "shell", args: `{"command":["powershell.exe","-Command","Set-Content a x"]}`, ok: true, acts: true},
		{tool: "shell", args: `{"command":["powershell.exe","-Command","npm install -g x"]}`, ok: true, acts: true},
		{tool: "shell", args: `{"command":["powershell.exe","-File","s.ps1"]}`, ok: true, acts: true},
		{tool: "shell", args: `{"command":["powershell.exe","Get-Content a"]}`, ok: true, acts: true},
		{tool: "shell", args: `{"command":["powershell.exe","-Command"]}`, ok: true, acts: true},
	}
	for _, c := range cases {
		v, err := jsonx.ParseString(c.args)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := FromCall(c.tool, c.shell, v)
		if ok != c.ok || got.Acts != c.acts || !slices.Equal(got.Reads, c.reads) {
			t.Errorf("FromCall(%s, %s) = %+v, %v; want ok %v acts %v reads %q", c.tool, c.args, got, ok, c.ok, c.acts, c.reads)
		}
	}
}

func TestPatchPaths(t *testing.T) {
	p := "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b/c.go\n*** Move to: b/d.go\n@@\n*** Delete File: e\n*** End Patch"
	if got, want := PatchPaths(p), []string{"a.txt", "b/c.go", "b/d.go", "e"}; !slices.Equal(got, want) {
		t.Errorf("PatchPaths = %q, want %q", got, want)
	}
}
