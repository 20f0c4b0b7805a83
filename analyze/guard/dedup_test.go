package guard

import (
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// dedupRules are the loopgate preset's dedup with a short pointer_within
// (10 tokens: 40 bytes of arguments and results), no reset at a
// compaction, and results kept up to 16 bytes.
func dedupRules(t *testing.T, pointerWithin int) *rules.Rules {
	t.Helper()
	r, err := rules.Parse([]byte(`
name: dedup-test
scope:
  reset: session
  reset_on_compaction: false
  write_clears_reads:
    invalidate: path
    readers: [class:read, class:search, class:list, class:shell]
detectors:
  dedup:
    only: [class:read, class:search, class:list, class:shell]
    ignore_failures: true
    pointer_within: `+strconv.Itoa(pointerWithin)+`
    max_result_bytes: 16
    message: "earlier result:\n{result}"
    pointer_message: "above, {tokens_since} tokens back"
`), "dedup-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDedupAnswers: a repeated observation with nothing between is
// answered with the earlier result, or a pointer to it while it is still
// in the model's context; never across a write to what it observed.
func TestDedupAnswers(t *testing.T) {
	read := `{"path":"/a.go"}` // 16 bytes
	long := strings.Repeat("x", 100)
	cases := []struct {
		name          string
		pointerWithin int
		steps         []step
	}{
		{"nothing between: the earlier result", 0, []step{
			{user: true, tool: "read_file", args: read, result: "v1"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:2", msg: "earlier result:\nv1"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:3", msg: "earlier result:\nv1"},
		}},
		{"nothing between, close: a pointer", 10, []step{
			{user: true, tool: "read_file", args: read, result: "v1"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:2", msg: "above, 0 tokens back"},
		}},
		{"a write to the path between: runs", 10, []step{
			{user: true, tool: "read_file", args: read, result: "v1"},
			{tool: "write_file", args: `{"path":"/a.go","content":"2"}`, result: "ok"},
			{tool: "read_file", args: read, result: "v2"},
			{tool: "read_file", args: read, result: "v2", want: "dedup:dedup:2", msgHas: "above"},
		}},
		{"a shell command writing the path between: runs", 0, []step{
			{user: true, tool: "terminal", args: `{"command":"cat /a.go"}`, result: "v1"},
			{tool: "terminal", args: `{"command":"echo 2 > /a.go"}`, result: ""},
			{tool: "terminal", args: `{"command":"cat /a.go"}`, result: "2"},
		}},
		{"a write to another path between: answered", 0, []step{
			{user: true, tool: "read_file", args: read, result: "v1"},
			{tool: "write_file", args: `{"path":"/b.go","content":"2"}`, result: "ok"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:2", msg: "earlier result:\nv1"},
		}},
		{"a compaction between: the full result, not a pointer", 1000, []step{
			{user: true, tool: "read_file", args: read, result: "v1"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:2", msgHas: "above"},
			{compaction: true, tool: "read_file", args: read, result: "v1", want: "dedup:dedup:3", msg: "earlier result:\nv1"},
			// The full answer put it in the context again.
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:4", msgHas: "above"},
		}},
		{"far back: the full result, then a pointer to that answer", 10, []step{
			{user: true, tool: "read_file", args: read, result: "v1"},
			{tool: "grep", args: `{"pattern":"x"}`, result: long},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:2", msg: "earlier result:\nv1"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:3", msgHas: "above"},
		}},
		{"a result too long to keep: pointed at, never repeated", 10, []step{
			{user: true, tool: "read_file", args: read, result: long},
			{tool: "read_file", args: read, result: long, want: "dedup:dedup:2", msgHas: "above"},
			{tool: "grep", args: `{"pattern":"x"}`, result: long},
			{tool: "read_file", args: read, result: long},
		}},
		{"a failure is never answered", 0, []step{
			{user: true, tool: "read_file", args: read, result: "Error: busy", failed: true},
			{tool: "read_file", args: read, result: "v1"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup", msg: "earlier result:\nv1"},
		}},
		{"an interrupted call, no result: the next runs, and is then the source", 0, []step{
			{user: true, tool: "read_file", args: read, noResult: true},
			{tool: "read_file", args: read, result: "v1"},
			{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:3", msg: "earlier result:\nv1"},
		}},
		{"a log, written by running processes: a poll, never answered", 0, []step{
			{user: true, tool: "terminal", args: `{"command":"tail -n 200 logs/pm2-out.log"}`, result: "v1"},
			{tool: "terminal", args: `{"command":"tail -n 200 logs/pm2-out.log"}`, result: "v2"},
			{tool: "read_file", args: `{"path":"/srv/app.log"}`, result: "v1"},
			{tool: "read_file", args: `{"path":"/srv/app.log"}`, result: "v1"},
		}},
		{"a command that acts is never answered", 0, []step{
			{user: true, tool: "terminal", args: `{"command":"make"}`, result: "ok"},
			{tool: "terminal", args: `{"command":"make"}`, result: "ok"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, dedupRules(t, tc.pointerWithin), tc.steps)
		})
	}
}

// TestDedupAnswersMissing: with answer_missing, a read that failed because
// the path does not exist is answered like a result while nothing that may
// create the path came between; any other failure, and a failure of a
// tool not selected, runs again.
func TestDedupAnswersMissing(t *testing.T) {
	r, err := rules.Parse([]byte(`
name: missing-test
scope:
  reset: session
  write_clears_reads:
    invalidate: path
    readers: [class:read, class:search, class:list, class:shell]
detectors:
  dedup:
    only: [class:read, class:search, class:list, class:shell, class:web_fetch]
    ignore_failures: true
    answer_missing: [class:read, class:list, class:shell]
    message: "earlier result:\n{result}"
`), "missing-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	read := `{"path":"/w/a.go"}`
	missing := "Error: File not found: /w/a.go"
	fetch := `{"url":"https://example.com/x"}`
	cases := []struct {
		name  string
		steps []step
	}{
		{"a missing file, nothing between: answered", []step{
			{user: true, tool: "read_file", args: read, result: missing, failed: true},
			{tool: "read_file", args: read, result: missing, failed: true, want: "dedup:dedup:2", msg: "earlier result:\n" + missing},
		}},
		{"a reading shell command on a missing path: answered", []step{
			{user: true, tool: "terminal", args: `{"command":"cat /w/a.go"}`, result: "cat: /w/a.go: No such file or directory", failed: true},
			{tool: "terminal", args: `{"command":"cat /w/a.go"}`, result: "cat: /w/a.go: No such file or directory", failed: true, want: "dedup:dedup:2"},
		}},
		{"a write creating the path between: runs", []step{
			{user: true, tool: "read_file", args: read, result: missing, failed: true},
			{tool: "write_file", args: `{"path":"/w/a.go","content":"v1"}`, result: "ok"},
			{tool: "read_file", args: read, result: "v1"},
		}},
		{"an act of unknown reach between: runs", []step{
			{user: true, tool: "read_file", args: read, result: missing, failed: true},
			{tool: "terminal", args: `{"command":"make gen"}`, result: "ok"},
			{tool: "read_file", args: read, result: "v1"},
		}},
		{"a write to another path between: answered", []step{
			{user: true, tool: "read_file", args: read, result: missing, failed: true},
			{tool: "write_file", args: `{"path":"/w/b.go","content":"v1"}`, result: "ok"},
			{tool: "read_file", args: read, result: missing, failed: true, want: "dedup:dedup:2"},
		}},
		{"a pattern that does not parse: answered", []step{
			{user: true, tool: "terminal", args: `{"command":"rg -n 'a\\q' src"}`, result: "rg: regex parse error:\n    (?:a\\q)\nerror: unrecognized escape sequence", failed: true},
			{tool: "terminal", args: `{"command":"rg -n 'a\\q' src"}`, result: "rg: regex parse error:\n    (?:a\\q)\nerror: unrecognized escape sequence", failed: true, want: "dedup:dedup:2"},
		}},
		{"a search that found nothing: answered", []step{
			{user: true, tool: "terminal", args: `{"command":"grep -n x /w/a.go"}`, result: `{"output": "", "exit_code": 1, "error": null}`, failed: true},
			{tool: "terminal", args: `{"command":"grep -n x /w/a.go"}`, result: `{"output": "", "exit_code": 1, "error": null}`, failed: true, want: "dedup:dedup:2"},
		}},
		{"a search that found nothing, then a write to its path: runs", []step{
			{user: true, tool: "terminal", args: `{"command":"grep -n x /w/a.go"}`, result: "Exit code 1", failed: true},
			{tool: "write_file", args: `{"path":"/w/a.go","content":"x"}`, result: "ok"},
			{tool: "terminal", args: `{"command":"grep -n x /w/a.go"}`, result: "1:x"},
		}},
		{"a shell failure with no output and no exit code (a timeout, for all it says) runs again", []step{
			{user: true, tool: "terminal", args: `{"command":"cat /w/a.go"}`, result: "", failed: true},
			{tool: "terminal", args: `{"command":"cat /w/a.go"}`, result: "v1"},
		}},
		{"a program that is not installed runs again (the user may install it)", []step{
			{user: true, tool: "terminal", args: `{"command":"rg x /w"}`, result: "bash: line 1: rg: command not found", failed: true},
			{tool: "terminal", args: `{"command":"rg x /w"}`, result: "/w/a.go:1:x"},
		}},
		{"another failure (a busy file) runs again", []step{
			{user: true, tool: "read_file", args: read, result: "Error: resource busy", failed: true},
			{tool: "read_file", args: read, result: "v1"},
		}},
		{"a denied read runs again", []step{
			{user: true, tool: "read_file", args: read, result: "Permission to read /w/a.go was denied by the user", failed: true},
			{tool: "read_file", args: read, result: "v1"},
		}},
		{"a failed fetch is not selected: runs again", []step{
			{user: true, tool: "web_fetch", args: fetch, result: "Error: HTTP 404 file not found", failed: true},
			{tool: "web_fetch", args: fetch, result: "page"},
		}},
		{"a missing-file text that did not fail is an ordinary result", []step{
			{user: true, tool: "read_file", args: read, result: "No such file or directory"},
			{tool: "read_file", args: read, result: "No such file or directory", want: "dedup:dedup:2"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, r, tc.steps) })
	}
}

func TestSaysMissing(t *testing.T) {
	for _, tc := range []struct {
		result string
		want   bool
	}{
		{"Error: File not found: src/a.go", true},
		{`{"error": "File not found: src/a.go", "similar_files": []}`, true},
		{"Error: Directory not found: src", true},
		{"cat: a.go: No such file or directory", true},
		{"Error: ENOENT: no such file or directory, open 'a.go'", true},
		{"File does not exist.", true},
		{"The path /w/a.go does not exist. Please provide a valid path.", true},
		{"Error: HTTP 503 Service Unavailable", false},
		{"Error: Permission denied when reading file: a.go", false},
		{"Terminal environment unavailable: could not stat a.go. Retry shortly.", false},
		{"Property 'x' does not exist on type 'Y'.", false},
		// Past the window: a long output that mentions it late says
		// nothing about the path the call names.
		{strings.Repeat("x", missingWindow) + "no such file or directory", false},
	} {
		if got := saysMissing(tc.result); got != tc.want {
			t.Errorf("saysMissing(%.60q) = %v, want %v", tc.result, got, tc.want)
		}
	}
}

func TestSaysStable(t *testing.T) {
	codexHeader := func(code string) string { return "Exit code: " + code + "\nWall time: 0.2 seconds\nOutput:\n" }
	for _, tc := range []struct {
		name   string
		result string
		shell  bool
		want   bool
	}{
		{"a missing path", "cat: a.go: No such file or directory", true, true},
		{"rg on Windows, a missing path", "rg: src\\main.tsx: The system cannot find the file specified. (os error 2)", true, true},
		{"PowerShell, a missing path", "Get-Content : Cannot find path 'G:\\w\\a.md' because it does not exist.\r\nAt line:1 char:1", true, true},
		{"rg, a pattern that does not parse", codexHeader("1") + "rg: regex parse error:\n    (?:a\\q)\n", true, true},
		{"PowerShell, a line that does not parse", "The string is missing the terminator: \".\r\n    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException", true, true},
		{"bash, a line that does not parse", "bash: -c: line 1: syntax error near unexpected token `)'", true, true},
		{"grep, a pattern that does not parse", "grep: Unmatched ( or \\(", true, true},
		{"PowerShell, no such program", "sed : The term 'sed' is not recognized as the name of a cmdlet, function, script file, or operable program.", true, false},
		{"bash, no such program", "bash: line 1: rg: command not found", true, false},
		{"Codex's header, exit code 1, no output", codexHeader("1"), true, true},
		{"unified exec, exit code 1, no output", "Chunk ID: 3f\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\n", true, true},
		{"Claude Code's Bash, exit code 1, no output", "Exit code 1", true, true},
		{"pi's bash, exit code 1, no output", "(no output)\n\nCommand exited with code 1", true, true},
		{"Cline CLI, exit code 1, no output", "[Command exited with code 1]", true, true},
		{"Gemini CLI 0.61, exit code 1, no output", "<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 15178\n</untrusted_context>", true, true},
		{"Qwen Code, exit code 1, no output", "Command: cat a 2> /dev/null\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: (none)", true, true},
		{"Gemini CLI, exit code 1 with output", "Output: cat: a: No such file\nExit Code: 1\nProcess Group PGID: 7", true, false},
		{"Gemini CLI, exit code 2, no output", "Output: (empty)\nExit Code: 2\nProcess Group PGID: 7", true, false},
		{"Qwen Code, an error beside", "Command: x\nDirectory: (root)\nOutput: (empty)\nError: spawn ENOENT\nExit Code: 1\nSignal: (none)", true, false},
		{"pi's bash, exit code 2, no output", "(no output)\n\nCommand exited with code 2", true, false},
		{"hermes' terminal, exit code 1, no output", `{"output": "", "exit_code": 1, "error": null}`, true, true},
		{"Codex's structured output, exit code 1, no output", `{"output":"","metadata":{"exit_code":1,"duration_seconds":0.2}}`, true, true},
		{"exit code 1 of a tool that is no shell", "Exit code 1", false, false},
		{"exit code 1 with output", codexHeader("1") + "warning: x\n", true, false},
		{"exit code 2, no output", codexHeader("2"), true, false},
		{"a timeout, no output", codexHeader("124"), true, false},
		{"a timeout, structured", `{"output":"command timed out after 2005 milliseconds\n","metadata":{"exit_code":124,"duration_seconds":2.0}}`, true, false},
		{"hermes' terminal, exit code 1 with output", `{"output": "fatal: x", "exit_code": 1, "error": null}`, true, false},
		{"hermes' terminal, exit code 1 and an error", `{"output": "", "exit_code": 1, "error": "sandbox denied"}`, true, false},
		{"no text at all", "", true, false},
		{"a denied permission", "Error: Permission denied when reading file: a.go", true, false},
		{"a busy environment", "Terminal environment unavailable: could not stat a.go. Retry shortly.", true, false},
		{"a TypeScript error", "Property 'x' does not exist on type 'Y'.", true, false},
	} {
		ev := &CallEvent{Result: tc.result}
		if got := saysStable(ev, tc.shell); got != tc.want {
			t.Errorf("%s: saysStable(%.60q) = %v, want %v", tc.name, tc.result, got, tc.want)
		}
	}
	// No output and the exit code 1 learnt apart (Codex's hook, OpenCode's
	// metadata); another exit code, or none, says nothing.
	for _, tc := range []struct {
		result string
		exit   int
		want   bool
	}{{"", 1, true}, {"(no output)", 1, true}, {"", 124, false}, {"(no output)", 0, false}, {"", 0, false}} {
		if got := saysStable(&CallEvent{Result: tc.result, ExitCode: tc.exit}, true); got != tc.want {
			t.Errorf("saysStable(%q, exit code %d) = %v, want %v", tc.result, tc.exit, got, tc.want)
		}
	}
	// Only a result known whole can be seen to be empty.
	if saysStable(&CallEvent{Result: "Exit code 1", ResultBytes: 4000}, true) {
		t.Error("a result's head taken for the whole result")
	}
}

func TestDedupSettingsChecked(t *testing.T) {
	for _, bad := range []string{"pointer_within: -1", "max_result_bytes: -5", "answer_missing: [class:nope]"} {
		_, err := rules.Parse([]byte("name: x\ndetectors:\n  dedup:\n    "+bad+"\n"), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), strings.SplitN(bad, ":", 2)[0]) {
			t.Errorf("%s: got %v, want an error naming the key", bad, err)
		}
	}
}

// TestResetMentioned: under scope.reset: mentioned a user's message
// clears the observations of the paths it names and keeps the others; a
// message whose text is not known clears everything, and so does any
// message for what is not a file observation.
func TestResetMentioned(t *testing.T) {
	r, err := rules.Parse([]byte(`
name: mentioned
scope:
  reset: mentioned
  write_clears_reads:
    invalidate: path
    readers: [class:read, class:search, class:list, class:shell]
detectors:
  dedup:
    only: [class:read, class:search, class:list, class:shell, class:web_search]
    ignore_failures: true
`), "mentioned.yaml")
	if err != nil {
		t.Fatal(err)
	}
	read := `{"path":"/w/src/a.go"}`
	web := `{"query":"go maps"}`
	check(t, r, []step{
		{user: true, tool: "read_file", args: read, result: "v1"},
		{tool: "web_search", args: web, result: "r1"},
		// Names another file: the read is answered, the search is not.
		{prompt: "now look at b.go and docs/x.md / then stop...", tool: "read_file", args: read, result: "v1", want: "dedup:dedup"},
		{tool: "web_search", args: web, result: "r2"},
		// Names the file (by its name): it runs.
		{prompt: "I saved `a.go`, read it again.", tool: "read_file", args: read, result: "v2"},
		{tool: "read_file", args: read, result: "v2", want: "dedup:dedup"},
		// A message whose text is not known: everything runs.
		{user: true, tool: "read_file", args: read, result: "v2"},
		// A search of the working directory observes what it does not
		// name: any message clears it.
		{tool: "grep", args: `{"pattern":"x"}`, result: "m1"},
		{prompt: "thanks", tool: "grep", args: `{"pattern":"x"}`, result: "m1"},
		{tool: "read_file", args: read, result: "v2", want: "dedup:dedup"},
	})
	if _, err := rules.Parse([]byte("name: x\nscope:\n  reset: mentioned\n"), "x.yaml"); err == nil || !strings.Contains(err.Error(), "invalidate: path") {
		t.Errorf("reset: mentioned without invalidate: path: %v", err)
	}
}

func TestMentionedPaths(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"see src/x.go, and README.md.", "src/x.go README.md"},
		{"A / B ... ./ ~/", ""},
		{"look at (C:\\repo\\a.py) again!", `C:\repo\a.py`},
		{"version 2 of the plan", ""},
	} {
		if got := strings.Join(MentionedPaths(tc.text), " "); got != tc.want {
			t.Errorf("MentionedPaths(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestDedupToolsByName: under the loopgate preset a tool in no class list
// whose name starts with a verb that reads is answered when it repeats
// with nothing between; a tool nothing says the reach of (class other,
// write_clears_reads.clear_all) clears every count, so the read after it
// runs; a read whose name says its result changes by itself (a status)
// is a poll and always runs.
func TestDedupToolsByName(t *testing.T) {
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	schema := `{"table":"users"}`
	cases := []struct {
		name  string
		steps []step
	}{
		{"an MCP read repeated: answered", []step{
			{user: true, tool: "mcp__db__get_schema", args: schema, result: "id int"},
			{tool: "mcp__db__get_schema", args: schema, result: "id int", want: "dedup:dedup"},
		}},
		{"an unknown tool between: runs", []step{
			{user: true, tool: "read_mapping", args: `{"id":"t1"}`, result: "a->b"},
			{tool: "edit_mapping", args: `{"id":"t1","to":"c"}`, result: "ok"},
			{tool: "read_mapping", args: `{"id":"t1"}`, result: "a->c"},
			{tool: "read_mapping", args: `{"id":"t1"}`, result: "a->c", want: "dedup:dedup"},
		}},
		{"an unknown tool between, even naming another path: runs", []step{
			{user: true, tool: "read_file", args: `{"path":"/w/a.go"}`, result: "v1"},
			{tool: "apply_template", args: `{"path":"/w/b.go"}`, result: "ok"},
			{tool: "read_file", args: `{"path":"/w/a.go"}`, result: "v2"},
		}},
		{"another read between: answered", []step{
			{user: true, tool: "getNodeTree", args: `{"node":"1:2"}`, result: "frame"},
			{tool: "read_file", args: `{"path":"/w/a.go"}`, result: "v1"},
			{tool: "getNodeTree", args: `{"node":"1:2"}`, result: "frame", want: "dedup:dedup"},
		}},
		{"a status: a poll, never answered", []step{
			{user: true, tool: "get_preview_status", args: `{"id":"p"}`, result: "building"},
			{tool: "get_preview_status", args: `{"id":"p"}`, result: "building"},
		}},
		{"a user message clears a read of unknown reach", []step{
			{user: true, tool: "get_schema", args: schema, result: "id int"},
			{prompt: "look at b.go", tool: "get_schema", args: schema, result: "id int, name text"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, r, tc.steps) })
	}
}

// TestOtherAgentCall: a call of another agent of the session (a subagent
// working beside this one) counts nothing here, but what it changed is
// changed for this agent too: its write clears this agent's observations
// of the path, as this agent's own write would; its reads clear nothing.
func TestOtherAgentCall(t *testing.T) {
	r := preset(t, "loopgate")
	ls := `{"command":"ls /w/out"}`
	cases := []struct {
		name  string
		steps []step
	}{
		{"a sibling writes into the listed directory: the listing runs", []step{
			{user: true, tool: "Bash", args: ls, result: ""},
			{other: true, tool: "Write", args: `{"file_path":"/w/out/a.txt","content":"x"}`},
			{tool: "Bash", args: ls, result: "a.txt"},
		}},
		{"a sibling runs a command of unknown reach: the listing runs", []step{
			{user: true, tool: "Bash", args: ls, result: ""},
			{other: true, tool: "Bash", args: `{"command":"make gen"}`},
			{tool: "Bash", args: ls, result: "a.txt"},
		}},
		{"a sibling's write whose path was not kept (its arguments cut): the listing runs", []step{
			{user: true, tool: "Bash", args: ls, result: ""},
			{other: true, tool: "Write", args: `{}`},
			{tool: "Bash", args: ls, result: "a.txt"},
		}},
		{"a sibling's command too long to keep: the listing runs", []step{
			{user: true, tool: "Bash", args: ls, result: ""},
			{other: true, tool: "Bash", args: `{"description":"gen"}`},
			{tool: "Bash", args: ls, result: "a.txt"},
		}},
		{"a sibling writes elsewhere: the listing is answered", []step{
			{user: true, tool: "Bash", args: ls, result: ""},
			{other: true, tool: "Write", args: `{"file_path":"/w/src/b.go","content":"x"}`},
			{tool: "Bash", args: ls, result: "", want: "dedup"},
		}},
		{"a sibling reads the directory: the listing is answered, and the sibling's call is not counted", []step{
			{user: true, tool: "Bash", args: ls, result: ""},
			{other: true, tool: "Bash", args: ls},
			{other: true, tool: "Bash", args: ls},
			{tool: "Bash", args: ls, result: "", want: "dedup:dedup:2"},
		}},
		{"before the first observation a sibling's write clears nothing to come", []step{
			{user: true, other: true, tool: "Write", args: `{"file_path":"/w/out/a.txt","content":"x"}`},
			{tool: "Bash", args: ls, result: "a.txt"},
			{tool: "Bash", args: ls, result: "a.txt", want: "dedup"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, r, tc.steps)
		})
	}
}

// TestActsForOthers: the calls the live hook tells an agent's siblings of
// are those whose OtherAgentCall may clear something under the rules.
func TestActsForOthers(t *testing.T) {
	cases := []struct {
		preset, tool, args string
		want               bool
	}{
		{"loopgate", "Write", `{"file_path":"/w/a.txt","content":"x"}`, true},
		{"loopgate", "Edit", `{"file_path":"/w/a.txt","old_string":"a","new_string":"b"}`, true},
		{"loopgate", "Bash", `{"command":"make gen"}`, true},
		{"loopgate", "Bash", `{"command":"ls /w/out"}`, false},
		{"loopgate", "Read", `{"file_path":"/w/a.txt"}`, false},
		{"loopgate", "some_app_tool", `{}`, true}, // class other: unknown reach
		// No write clears reads under nanobot's rules: nothing to tell.
		{"nanobot", "Write", `{"file_path":"/w/a.txt","content":"x"}`, false},
	}
	for _, tc := range cases {
		r := preset(t, tc.preset)
		ev := &CallEvent{Tool: tc.tool, ArgsRaw: tc.args, ArgsOK: true}
		if got := ActsForOthers(r, ev); got != tc.want {
			t.Errorf("%s: ActsForOthers(%s %s) = %v, want %v", tc.preset, tc.tool, tc.args, got, tc.want)
		}
	}
}
