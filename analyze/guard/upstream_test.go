package guard

// Tests written from the upstream sources each preset reproduces (issue
// 22, section 1). Each quotes the upstream line it checks; the expected
// verdicts follow from that line, not from loopgate's output.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// forSession returns a preset's rules as replay runs them on a session of
// this format and platform.
func forSession(t *testing.T, name, format, platform string) rules.SessionRules {
	t.Helper()
	return preset(t, name).ForSession(format, platform)
}

// TestHermesClassifyToolFailure checks hermes' failure reading,
// agent/tool_guardrails.py classify_tool_failure (@06c25ac9; the June
// build @25568f9f without the refusal test):
//
//	if tool_name == "terminal":
//	    data = safe_json_loads(result)
//	    exit_code = data.get("exit_code") if isinstance(data, dict) else None
//	    return (True, ...) if exit_code is not None and exit_code != 0 else (False, "")
//	...
//	lower = result[:500].lower()
//	return (True, " [error]") if '"error"' in lower or '"failed"' in lower or result.startswith("Error") else (False, "")
func TestHermesClassifyToolFailure(t *testing.T) {
	long := strings.Repeat("x", 600) + `"error"`
	for _, c := range []struct {
		tool, result string
		terminal     bool
		june, newest bool
	}{
		// terminal: only a JSON exit_code present and not 0.
		{"terminal", "Error: command not found", true, false, false},
		{"terminal", `{"error": "no exit code"}`, true, false, false},
		{"terminal", `{"exit_code": 0, "status": "failed", "error": "output"}`, true, false, false},
		{"terminal", `{"exit_code": 2}`, true, true, true},
		{"terminal", `{"output": "", "exit_code": -1, "error": "timeout"}`, true, true, true},
		{"terminal", `{"exit_code": null, "error": "x"}`, true, false, false},
		// Other tools: "error" / "failed" with the quotes, lower-cased, in
		// the first 500 characters, or a text starting with Error.
		{"read_file", `{"error": "File not found"}`, false, true, true},
		{"task_list", `{"status": "FAILED"}`, false, true, true},
		{"read_file", "Error: no such file", false, true, true},
		{"read_file", "error: no such file", false, false, false},
		{"read_file", "ERROR no such file", false, false, false},
		{"read_file", "the build failed", false, false, false},
		{"read_file", long, false, false, false},
		// file_mutation_result_landed: a landed write is never a failure.
		{"write_file", `{"bytes_written": 10, "output": {"error": "old"}}`, false, false, false},
		{"patch", `{"success": true, "diff": {"status": "failed"}}`, false, false, false},
		// memory: `data.get("success") is False and "exceed the limit" in data.get("error", "")`.
		{"memory", `{"success": false, "error": "would exceed the limit"}`, false, true, true},
		// is_guardrail_refusal (newest only): "A harness REFUSAL of a
		// redundant call ... carries "error" ... but nothing failed".
		{"read_file", `{"guardrail_refusal": true, "error": "do not retry"}`, false, true, false},
		{"read_file", `{"guardrail_refusal": "yes", "error": "unavailable"}`, false, true, true},
		// hermes' own notes appended in the transcript are not the tool's output.
		{"read_file", "all good\n\n[Tool loop warning: x; count=2; \"error\"]", false, false, false},
	} {
		if got := hermesFailed(c.tool, c.result, c.terminal, false); got != c.june {
			t.Errorf("June: %s %q failed = %v, want %v", c.tool, c.result, got, c.june)
		}
		if got := hermesFailed(c.tool, c.result, c.terminal, true); got != c.newest {
			t.Errorf("newest: %s %q failed = %v, want %v", c.tool, c.result, got, c.newest)
		}
	}
}

// TestHermesTerminalFailuresInReplay: on a hermes transcript the hermes
// presets read a terminal result as hermes does, whatever the transcript's
// own error flag says: two identical "Error: ..." texts are no repeated
// failure, two identical non-zero exit codes are.
func TestHermesTerminalFailuresInReplay(t *testing.T) {
	for _, name := range []string{"hermes", "hermes-2026-06"} {
		sr := forSession(t, name, "hermes-gateway", "cli")
		if !sr.Native || sr.Unattended {
			t.Fatalf("%s on hermes-gateway/cli: %+v, want native and attended", name, sr)
		}
		cmd := `{"command":"make"}`
		check(t, sr.Rules, []step{
			{user: true, tool: "terminal", args: cmd, result: "Error: make not found", failed: true},
			{tool: "terminal", args: cmd, result: "Error: make not found", failed: true},
			{tool: "terminal", args: cmd, result: `{"error": "boom"}`},
			{tool: "terminal", args: cmd, result: `{"error": "boom"}`},
		})
		check(t, sr.Rules, []step{
			{user: true, tool: "terminal", args: cmd, result: `{"output": "", "exit_code": 2}`},
			{tool: "terminal", args: cmd, result: `{"output": "", "exit_code": 2}`, want: "steer:failure:2"},
		})
	}
}

// TestHermesResultHash: `_result_hash`:
//
//	parsed = safe_json_loads(result or "")
//	if parsed is None:
//	    return _sha256(result or "")
//	...
//	return _sha256(_canonical_json(parsed))
//
// with _canonical_json = json.dumps(value, ensure_ascii=False,
// sort_keys=True, separators=(",", ":"), default=str).
func TestHermesResultHash(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"a": 1, "b": [2, 3]}`, `{"b":[2,3],"a":1}`, true},
		{`{"n": 1e2}`, `{"n": 100.0}`, true},
		{`{"n": 100}`, `{"n": 100.0}`, false},
		{"plain text", "plain text\n", false}, // no trimming
		{"plain text", " plain text", false},
		{"same", "same", true},
		{"out\n\n[hermes note: this is the 3rd consecutive identical call to x]", "out", true},
	} {
		for _, newest := range []bool{false, true} {
			if got := hermesResultHash("read_file", c.a, newest, HashString) == hermesResultHash("read_file", c.b, newest, HashString); got != c.same {
				t.Errorf("newest=%v: %q vs %q same = %v, want %v", newest, c.a, c.b, got, c.same)
			}
		}
	}
	// _without_execute_code_metadata (newest only): "Only these known
	// locations in execute_code's own result shape are dropped".
	a := `{"output": "1", "duration_seconds": 0.5, "kernel": {"execution_count": 3, "id": "k"}}`
	b := `{"output": "1", "duration_seconds": 0.9, "kernel": {"execution_count": 4, "id": "k"}}`
	if hermesResultHash("execute_code", a, true, HashString) != hermesResultHash("execute_code", b, true, HashString) {
		t.Error("newest: execute_code bookkeeping changes the hash")
	}
	if hermesResultHash("execute_code", a, false, HashString) == hermesResultHash("execute_code", b, false, HashString) {
		t.Error("June: execute_code bookkeeping ignored, but that build hashed it")
	}
	if hermesResultHash("terminal", a, true, HashString) == hermesResultHash("terminal", b, true, HashString) {
		t.Error("the execute_code clean-up applied to another tool")
	}
}

// TestHermesReadFileKey: file_tools keys a read on ("read", path, offset,
// limit), from `def read_file_tool(path: str, offset: int = 1, limit: int
// = 500, ...)`: a read that leaves the defaults out and one that writes
// them are the same read.
func TestHermesReadFileKey(t *testing.T) {
	for _, name := range []string{"hermes", "hermes-2026-06", "hermes-strict"} {
		r := preset(t, name)
		key := func(args string) string {
			v, err := jsonx.ParseString(args)
			if err != nil {
				t.Fatal(err)
			}
			k, _ := callKey(r, "read_file", v, true, args)
			return k
		}
		if a, b := key(`{"path":"/a.py"}`), key(`{"path":"/a.py","offset":1,"limit":500}`); a != b {
			t.Errorf("%s: %s and %s differ", name, a, b)
		}
		if a, b := key(`{"path":"/a.py"}`), key(`{"path":"/a.py","offset":2}`); a == b {
			t.Errorf("%s: offset 2 is the default read: %s", name, a)
		}
		check(t, r, []step{
			{user: true, tool: "read_file", args: `{"path":"/a.py"}`, result: "1"},
			{tool: "read_file", args: `{"path":"/a.py","offset":1,"limit":500}`, result: "2"},
			{tool: "read_file", args: `{"path":"/a.py","limit":500}`, result: "3", want: "steer:consecutive:3"},
		})
	}
}

// TestHermesRefusalsAreNoFailures: the newest file_tools marks its refusal
// (`**{GUARDRAIL_REFUSAL_KEY: True}`), and classify_tool_failure skips it:
// "counting it lets the cheap refusal feed the streak that fires the next,
// harder one". The June build counted it.
func TestHermesRefusalsAreNoFailures(t *testing.T) {
	read := `{"path":"/a.py"}`
	steps := func() []step {
		return []step{
			{user: true, tool: "read_file", args: read, result: "c"},
			{tool: "read_file", args: read, result: "c"},
			{tool: "read_file", args: read, result: "c"},
			{tool: "read_file", args: read, result: "c"},
			{tool: "read_file", args: read, result: "c"},
		}
	}
	outs := run(t, preset(t, "hermes"), steps())
	if b := outs[3].before; b.Action != Block || !strings.HasSuffix(b.Message, `"already_read": 4, "guardrail_refusal": true}`) {
		t.Errorf("newest 4th read: %+v, want the marked BLOCKED refusal", b)
	}
	if a := outs[4].after; a.Detector == "failure" {
		t.Errorf("newest: a refusal counted as a failure: %+v", a)
	}
	outs = run(t, preset(t, "hermes-2026-06"), steps())
	if a := outs[4].after; a.Action != Steer || a.Detector != "failure" || a.Count != 2 {
		t.Errorf("June: 2nd refusal after verdict %+v, want the failure warning (refusals were failures)", a)
	}
	// A refusal already in a hermes transcript is no failure either.
	sr := forSession(t, "hermes", "hermes-snapshot", "")
	refusal := `{"error": "BLOCKED: You have read this exact file region 4 times in a row.", "path": "/a.py", "guardrail_refusal": true}`
	check(t, sr.Rules, []step{
		{user: true, tool: "read_file", args: `{"path":"/b"}`, result: refusal},
		{tool: "read_file", args: `{"path":"/b"}`, result: refusal, want: "steer:no_progress:2"},
	})
}

// TestHermesProgressReset: "A successful call to one of these marks
// progress for every failing signature still counted this turn: the next
// retry is a new experiment (edit -> re-run), not a replay":
//
//	if tool_name in PROGRESS_RESET_TOOL_NAMES or file_mutation_result_landed(tool_name, result):
//	    self._progress_since_failure.update(dict.fromkeys(self._exact_failure_counts, True))
//	    self._same_tool_failure_counts.clear()
func TestHermesProgressReset(t *testing.T) {
	fail := step{tool: "skill_view", args: `{"name":"x"}`, result: `{"error": "not found"}`}
	var steps []step
	for i := 0; i < 5; i++ {
		steps = append(steps, fail)
	}
	steps[0].user = true
	steps = append(steps,
		step{tool: "write_file", args: `{"path":"/s","content":"x"}`, result: `{"bytes_written": 1}`},
		// No longer a replay: it runs, and its failure is the 1st again.
		step{tool: fail.tool, args: fail.args, result: fail.result},
		step{tool: fail.tool, args: fail.args, result: fail.result, want: "steer:failure:2"},
	)
	outs := run(t, preset(t, "hermes-strict"), steps)
	if b := outs[6].before; b.Action.Stops() {
		t.Errorf("hermes-strict: retry after a successful write blocked: %+v", b)
	}
	if a := outs[7].after; a.Detector != "failure" || a.Count != 2 {
		t.Errorf("hermes-strict: failure count after the reset: %+v, want 2", a)
	}
	// The June build has no progress reset: the 6th identical call is blocked.
	outs = run(t, preset(t, "hermes-strict-2026-06"), steps)
	if b := outs[6].before; b.Action != Block || b.Detector != "failure" {
		t.Errorf("hermes-strict-2026-06: retry after a write: %+v, want the exact-failure block", b)
	}
}

// TestHermesFailureTolerantTools: "same_tool_failure (DIFFERENT commands)
// never halts these":
//
//	FAILURE_TOLERANT_TOOL_NAMES = frozenset({
//	    "terminal", "execute_code", "process_manage", "process", "browser_navigate", "web_extract",
//	})
func TestHermesFailureTolerantTools(t *testing.T) {
	sr := forSession(t, "hermes-strict", "hermes-gateway", "cli")
	halts := func(tool, result string) bool {
		var steps []step
		for i := 1; i <= 8; i++ {
			steps = append(steps, step{tool: tool, args: fmt.Sprintf(`{"arg":"n%d"}`, i), result: result})
		}
		steps[0].user = true
		outs := run(t, sr.Rules, steps)
		return outs[7].after.Action == Halt
	}
	for _, tool := range []string{"terminal", "execute_code", "process_manage", "process", "browser_navigate", "web_extract"} {
		result := `{"error": "failed"}`
		if tool == "terminal" {
			result = `{"exit_code": 1}`
		}
		if halts(tool, result) {
			t.Errorf("%s halted after 8 failures; it is failure-tolerant", tool)
		}
	}
	if !halts("skill_manage", `{"error": "failed"}`) {
		t.Error("skill_manage did not halt after 8 failures")
	}
}

// TestHermesStallGuard: observe_call's streak and cycle notices.
//
//	STALL_GUARD_IDENTICAL_CALL_THRESHOLD = 3
//	_IDENTICAL_CALL_NOTICE = ("[hermes note: this is the {ordinal} consecutive identical call to "
//	    "{tool_name} with identical arguments returning the same result. ...")
//	STALL_GUARD_REPEATABLE_TOOLS = frozenset({"process_manage"})
func TestHermesStallGuard(t *testing.T) {
	sr := forSession(t, "hermes", "hermes-gateway", "cli")
	note := func(ordinal string) string {
		return "[hermes note: this is the " + ordinal + " consecutive identical call to terminal with identical arguments returning the same result. Do not repeat it — change arguments, use a different tool, or proceed with what you have.]"
	}
	ls := `{"command":"ls"}`
	check(t, sr.Rules, []step{
		{user: true, tool: "terminal", args: ls, result: "a"},
		{tool: "terminal", args: ls, result: "a"},
		{tool: "terminal", args: ls, result: "a", want: "steer:stall:3", msg: note("3rd")},
		{tool: "terminal", args: ls, result: "a", want: "steer:stall:4", msg: note("4th")},
		// A different result starts a new streak.
		{tool: "terminal", args: ls, result: "b"},
		{tool: "terminal", args: ls, result: "b"},
		// Pollers never get the notice.
		{tool: "process_manage", args: `{"action":"poll"}`, result: "running"},
		{tool: "process_manage", args: `{"action":"poll"}`, result: "running"},
		{tool: "process_manage", args: `{"action":"poll"}`, result: "running"},
	})
	// A cycle A,B,A,B,A,B with identical results: 3 laps of period 2.
	a, b := `{"command":"make"}`, `{"command":"cat log"}`
	cycle := "[hermes note: the last 3 rounds repeated the same cycle of 2 tool calls (ending with terminal) with identical arguments and identical results. Do not repeat the batch — change arguments, use a different tool, or proceed with what you have.]"
	check(t, sr.Rules, []step{
		{user: true, tool: "terminal", args: a, result: "x"},
		{tool: "terminal", args: b, result: "y"},
		{tool: "terminal", args: a, result: "x"},
		{tool: "terminal", args: b, result: "y"},
		{tool: "terminal", args: a, result: "x"},
		{tool: "terminal", args: b, result: "y", want: "steer:stall:3", msg: cycle},
	})
	// With hard stops (hermes-strict): halt at no_progress_block_after (5).
	strict := forSession(t, "hermes-strict", "hermes-gateway", "cli")
	var steps []step
	for i := 1; i <= 5; i++ {
		steps = append(steps, step{tool: "terminal", args: ls, result: "a"})
	}
	steps[0].user = true
	steps[2].want, steps[3].want, steps[4].want = "steer:stall:3", "steer:stall:4", "halt:stall:5"
	check(t, strict.Rules, steps)
}

// TestHermesLoopCaps: per-turn caps "fire regardless of
// hard_stop_enabled"; `_DEFAULT_MAX_WEB_SEARCHES_PER_TURN = 50`, checked
// "BEFORE the call, so the (cap+1)-th is refused".
func TestHermesLoopCaps(t *testing.T) {
	var steps []step
	for i := 1; i <= 52; i++ {
		steps = append(steps, step{tool: "web_search", args: fmt.Sprintf(`{"query":"q%d"}`, i), result: fmt.Sprintf("r%d", i)})
	}
	steps[0].user = true
	steps[50].want = "block:cap:50"
	steps[50].msgHas = "this turn has already made 50 web searches, the per-turn limit."
	steps[51].want = "block:cap:50"
	check(t, preset(t, "hermes"), steps)
	// Per turn: a new user message starts again.
	outs := run(t, preset(t, "hermes"), append(steps, step{user: true, tool: "web_search", args: `{"query":"new"}`}))
	if b := outs[52].before; b.Action.Stops() {
		t.Errorf("cap carried over a user message: %+v", b)
	}
}

// TestHermesSubagentCap: `_subagent_spawn_count`: "“len(tasks)“ for a
// non-empty batch, else 1; control actions 0", and the cap check
// `if cap and count >= cap:` before the call, `admitted = min(count,
// available)` after it.
func TestHermesSubagentCap(t *testing.T) {
	batch := func(n int) string {
		tasks := make([]string, n)
		for i := range tasks {
			tasks[i] = fmt.Sprintf(`{"goal":"g%d"}`, i)
		}
		return `{"tasks":[` + strings.Join(tasks, ",") + `]}`
	}
	check(t, preset(t, "hermes"), []step{
		{user: true, tool: "delegate_task", args: batch(30), result: "ok"},
		{tool: "delegate_task", args: batch(15), result: "ok"},
		// 45 spawned: a batch of 10 runs (5 admitted), then the cap is full.
		{tool: "delegate_task", args: batch(10), result: "ok"},
		{tool: "delegate_task", args: `{"action":"list"}`, result: "ok"},
		{tool: "delegate_task", args: `{"action":" STOP "}`, result: "ok"},
		{tool: "delegate_task", args: `{"goal":"one more"}`, want: "block:cap:50", msgHas: "this turn has already spawned 50 subagents"},
	})
}

// TestHermesUnattended: "hard stops are opt-in on interactive platforms,
// default on for unattended gateway/cron platforms":
//
//	_ATTENDED_PLATFORMS = frozenset({"cli", "tui", "desktop", "acp", "subagent", "api_server"})
//	if not isinstance(platform, str) or not platform.strip():
//	    return False
func TestHermesUnattended(t *testing.T) {
	for _, c := range []struct {
		platform   string
		unattended bool
	}{
		{"cli", false}, {"tui", false}, {"api_server", false}, {"", false}, {"  ", false},
		{"telegram", true}, {"cron", true}, {"Discord", true},
	} {
		sr := forSession(t, "hermes", "hermes-gateway", c.platform)
		if sr.Unattended != c.unattended {
			t.Errorf("platform %q: unattended %v, want %v", c.platform, sr.Unattended, c.unattended)
		}
		want := "hermes"
		if c.unattended {
			want = "hermes-strict"
		}
		if sr.Rules.Name != want || !sr.Native {
			t.Errorf("platform %q: rules %s (native %v), want %s native", c.platform, sr.Rules.Name, sr.Native, want)
		}
	}
	if sr := forSession(t, "hermes-2026-06", "hermes-gateway", "telegram"); sr.Unattended {
		t.Error("the June build had no unattended hard stop")
	}
}

// TestNanobotLookupSignature: nanobot/utils/runtime.py @3852956a7:
//
//	url = str(arguments.get("url") or "").strip()
//	if url:
//	    return f"web_fetch:{url.lower()}"
//	...
//	query = str(arguments.get("query") or arguments.get("search_term") or "").strip()
func TestNanobotLookupSignature(t *testing.T) {
	r := preset(t, "nanobot")
	never := func(tool, args string) {
		t.Helper()
		check(t, r, []step{{user: true, tool: tool, args: args}, {tool: tool, args: args}, {tool: tool, args: args}, {tool: tool, args: args}})
	}
	never("web_fetch", `{"url":"   "}`)
	never("web_fetch", `{"url":""}`)
	never("web_fetch", `{"prompt":"x"}`)
	never("web_fetch", `{"url":0}`)
	// `query or search_term`: a blank query is truthy, so search_term is
	// never looked at, and the stripped query is empty.
	never("web_search", `{"query":"  ","search_term":"x"}`)
	never("web_search", `["not a dict"]`)
	// A truthy url that is not text is counted by its str().
	check(t, r, []step{
		{user: true, tool: "web_fetch", args: `{"url":5}`},
		{tool: "web_fetch", args: `{"url":5}`},
		{tool: "web_fetch", args: `{"url":5}`, want: "block:repeat:3"},
	})
	// An empty query falls back to search_term.
	check(t, r, []step{
		{user: true, tool: "web_search", args: `{"query":"","search_term":"Go"}`},
		{tool: "web_search", args: `{"search_term":"go "}`},
		{tool: "web_search", args: `{"query":"GO"}`, want: "block:repeat:3"},
	})
}

// TestNanobotNumbers: PR #3701 (f8dc9cd6c) local_tool_call_signature:
//
//	normalized_args = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
//
// of arguments json.loads parsed: 1e2, 1E2 and 100.0 are the float 100.0;
// 100 is the int 100, another value.
func TestNanobotNumbers(t *testing.T) {
	r := preset(t, "nanobot")
	check(t, r, []step{
		{user: true, tool: "read_file", args: `{"path":"a","limit":1e2}`},
		{tool: "read_file", args: `{"path":"a","limit":100}`},
		{tool: "read_file", args: `{"limit":1E2,"path":"a"}`},
		{tool: "read_file", args: `{"path":"a","limit":100}`},
		{tool: "read_file", args: `{"path":"a","limit":100.0}`, want: "block:repeat:3"},
		{tool: "read_file", args: `{"path":"a","limit":100}`, want: "block:repeat:3"},
	})
}

// TestNanobotNativeToolNames: PR #3701 guards exactly
// `if tool_name not in {"read_file", "list_dir", "glob", "grep"}: return None`.
// On nanobot's own sessions that is all it covers; on other agents'
// sessions the read class carries it to their readers.
func TestNanobotNativeToolNames(t *testing.T) {
	three := func(tool string) []step {
		args := `{"path":"/a"}`
		return []step{{user: true, tool: tool, args: args}, {tool: tool, args: args}, {tool: tool, args: args, want: "block:repeat:3"}}
	}
	never := func(tool string) []step {
		s := three(tool)
		s[2].want = ""
		return s
	}
	sr := forSession(t, "nanobot", "nanobot", "")
	if !sr.Native {
		t.Fatal("nanobot sessions under nanobot are not native")
	}
	for _, tool := range []string{"read_file", "list_dir", "glob", "grep"} {
		check(t, sr.Rules, three(tool))
	}
	for _, tool := range []string{"mcp_filesystem_read_file", "find_files", "Read", "search_files"} {
		check(t, sr.Rules, never(tool))
	}
	// Elsewhere (a Claude Code session): translated through classes.
	other := forSession(t, "nanobot", "claude-code", "")
	if other.Native {
		t.Fatal("a claude-code session under nanobot is native")
	}
	check(t, other.Rules, three("Read"))
	check(t, other.Rules, three("mcp_filesystem_read_file"))
}

// TestPiNativeToolNames: pi looks thresholds up by exact name,
// `config.thresholds[event.toolName] ?? config.thresholds.default`
// (loop-guard.ts), with `DEFAULT_THRESHOLDS = { fetch_content: 2, ...,
// bash: 5, default: 3 }`. A synthetic pi session: "fetch" is no pi tool,
// so it gets the default 3 (steer at 4), while through classes it is a
// web_fetch like fetch_content (steer at 3).
func TestPiNativeToolNames(t *testing.T) {
	steps := func(tool string, steerAt int) []step {
		var s []step
		for i := 1; i <= steerAt; i++ {
			s = append(s, step{tool: tool, args: `{"url":"u"}`})
		}
		s[0].user = true
		s[steerAt-1].want = fmt.Sprintf("steer:repeat:%d", steerAt)
		return s
	}
	native := forSession(t, "pi-loopguard", "pi", "")
	if !native.Native {
		t.Fatal("pi sessions under pi-loopguard are not native")
	}
	check(t, native.Rules, steps("fetch", 4))
	check(t, native.Rules, steps("fetch_content", 3))
	check(t, native.Rules, steps("bash", 6))
	classes := forSession(t, "pi-loopguard", "codex", "")
	check(t, classes.Rules, steps("fetch", 3))
}

// TestPiWindowResetSilentWithoutSteers: README: "If there were steered
// keys (repeated calls), a steering message announces the reset; otherwise
// it happens silently."
func TestPiWindowResetSilentWithoutSteers(t *testing.T) {
	A := `{"url":"A"}`
	check(t, preset(t, "pi-loopguard"), []step{
		{user: true, tool: "fetch_content", args: A, at: time.Second},
		{tool: "fetch_content", args: A, at: 10 * time.Second},
		{tool: "fetch_content", args: A, at: 200 * time.Second},
		{tool: "fetch_content", args: A, at: 210 * time.Second},
	})
}

// TestHermesGuardrailsHashRawArguments: tool_guardrails' signature is
// ToolCallSignature.from_call(tool_name, args), whose args_hash is the
// sha256 of json.dumps(args, sort_keys=True) of the arguments as the model
// wrote them; the read_file defaults (offset 1, limit 500) belong to
// file_tools' consecutive-read key only. Three reads of one file region
// written three ways are three signatures to idempotent_no_progress (no
// steer at the second), and one read to the read/search guard (its
// warning at the third).
func TestHermesGuardrailsHashRawArguments(t *testing.T) {
	for _, name := range []string{"hermes-2026-06", "hermes", "hermes-strict-2026-06"} {
		check(t, preset(t, name), []step{
			{user: true, tool: "read_file", args: `{"path":"/a.py"}`, result: "same"},
			{tool: "read_file", args: `{"path":"/a.py","offset":1}`, result: "same"},
			{tool: "read_file", args: `{"path":"/a.py","offset":1,"limit":500}`, result: "same", want: "steer:consecutive:3"},
		})
		// Written the same way twice, it is one signature again.
		check(t, preset(t, name), []step{
			{user: true, tool: "read_file", args: `{"path":"/a.py","offset":1}`, result: "same"},
			{tool: "read_file", args: `{"offset":1,"path":"/a.py"}`, result: "same", want: "steer:no_progress:2"},
		})
		// repeated_exact_failure_warning hashes the same signature.
		check(t, preset(t, name), []step{
			{user: true, tool: "read_file", args: `{"path":"/nope"}`, result: `{"error": "not found"}`},
			{tool: "lookup", args: `{}`, result: "ok"},
			{tool: "read_file", args: `{"path":"/nope","limit":500}`, result: `{"error": "not found"}`},
			{tool: "read_file", args: `{"path":"/nope","limit":500}`, result: `{"error": "not found"}`, want: "steer:failure:2"},
		})
	}
}
