package guard

// Scenarios of the shipped guards' own unit tests, replayed under their
// presets (rules/presets/*.yaml). Each test names the upstream test it
// follows; the fixtures are loopgate's own, and the expected verdicts come
// from the upstream assertion, read through the preset's mapping (a
// detection that stops the call is a block, one that ends the run a halt).
// docs/rules.md lists the upstream tests ported, skipped and not
// replayable.

import (
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// withSet returns a preset with some keys changed, as a user's rules file
// extending it would (an upstream test that builds its guard with another
// limit).
func withSet(t *testing.T, name string, kv ...string) *rules.Rules {
	t.Helper()
	r := preset(t, name)
	for i := 0; i+1 < len(kv); i += 2 {
		if err := r.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// repeatSteps is n calls of one tool with the same arguments and result.
func repeatSteps(tool, args string, n int, wants map[int]string) []step {
	var out []step
	for i := 1; i <= n; i++ {
		out = append(out, step{user: i == 1, tool: tool, args: args, result: "same", want: wants[i]})
	}
	return out
}

// cycleSteps repeats a pattern of argument texts of one tool n times in
// all, each call returning its own text.
func cycleSteps(tool string, pattern []string, n int, wants map[int]string) []step {
	var out []step
	for i := 1; i <= n; i++ {
		a := pattern[(i-1)%len(pattern)]
		out = append(out, step{user: i == 1, tool: tool, args: a, result: "r" + a, want: wants[i]})
	}
	return out
}

// TestGeminiToolCallLoop follows loopDetectionService.test.ts, "Tool Call
// Loop Detection" and "Strike Management" (google-gemini/gemini-cli @
// 5411f113): the 5th identical call is the first detection (blocked, with
// the feedback of client.ts's _recoverFromLoop); the next one keeping the
// loop is the second (the turn ends).
func TestGeminiToolCallLoop(t *testing.T) {
	r := preset(t, "gemini-cli")
	a := `{"param":"value"}`
	// "should not detect a loop for fewer than TOOL_CALL_LOOP_THRESHOLD
	// identical calls" and "should detect a loop on the
	// TOOL_CALL_LOOP_THRESHOLD-th identical call"; "should increment strike
	// count for repeated detections": after clearDetection the next
	// identical call is strike 2.
	check(t, r, append(repeatSteps("testTool", a, 5, map[int]string{5: "block:pattern:1"}),
		step{tool: "testTool", args: a, result: "same", want: "halt:pattern:2"}))
	outs := run(t, r, repeatSteps("testTool", a, 5, nil))
	if msg := outs[4].strongest().Message; !strings.HasPrefix(msg, `System: Potential loop detected. Details: Repeated tool call: testTool with arguments {"param":"value"}. Please take a step back`) {
		t.Errorf("feedback text: %q", msg)
	}
	// "should not detect a loop for different tool calls".
	var mixed []step
	for i := 0; i < 3; i++ {
		mixed = append(mixed,
			step{user: i == 0, tool: "testTool", args: `{"param":"value1"}`, result: "1"},
			step{tool: "testTool", args: `{"param":"value2"}`, result: "2"},
			step{tool: "anotherTool", args: `{"param":"value1"}`, result: "3"})
	}
	check(t, r, mixed)
	// "should detect an alternating tool call loop (cycle of length 2)":
	// the 10th call completes 5 laps of A B.
	ab := []string{`{"file_path":"loop_a.txt"}`, `{"file_path":"loop_b.txt"}`}
	check(t, r, cycleSteps("read_file", ab, 10, map[int]string{10: "block:pattern:1"}))
	// "should detect a cyclic tool call loop of length 3": the 15th.
	abc := append(ab, `{"file_path":"loop_c.txt"}`)
	check(t, r, cycleSteps("read_file", abc, 15, map[int]string{15: "block:pattern:1"}))
	// "should detect a cyclic tool call loop of length 5": the 25th.
	five := []string{`{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`, `{"id":5}`}
	check(t, r, cycleSteps("t", five, 25, map[int]string{25: "block:pattern:1"}))
	// "should not detect loops for non-looping alternating sequences that
	// vary": A B A B C A B A B.
	vary := cycleSteps("read_file", ab, 4, nil)
	vary = append(vary, step{tool: "read_file", args: abc[2], result: "c"})
	vary = append(vary, cycleSteps("read_file", ab, 4, nil)...)
	vary[5].user = false
	check(t, r, vary)
	// reset(promptId) at a new prompt clears the history and the strikes.
	check(t, r, append(repeatSteps("testTool", a, 4, nil), repeatSteps("testTool", a, 5, map[int]string{5: "block:pattern:1"})...))
	// JSON.stringify keeps member order: a reordered object is another key.
	check(t, r, []step{
		{user: true, tool: "t", args: `{"a":1,"b":2}`, result: "x"},
		{tool: "t", args: `{"b":2,"a":1}`, result: "x"},
		{tool: "t", args: `{"a":1,"b":2}`, result: "x"},
		{tool: "t", args: `{"b":2,"a":1}`, result: "x"},
		{tool: "t", args: `{"a":1,"b":2}`, result: "x"},
	})
}

// TestOpenCodeDoomLoop follows processor.ts's doom loop check (sst/opencode
// @ 31e22f65; OpenCode has no unit test of it): the last 3 parts of the
// current assistant message are identical tool calls -> the doom_loop
// permission asks, reported as a block.
func TestOpenCodeDoomLoop(t *testing.T) {
	r := preset(t, "opencode")
	a := `{"filePath":"/a.ts"}`
	// Three identical calls in one response: the third asks.
	check(t, r, []step{
		{user: true, tool: "read", args: a, result: "x"},
		{tool: "read", args: a, result: "x"},
		{tool: "read", args: a, result: "x", want: "block:consecutive:3"},
		{tool: "read", args: a, result: "x", want: "block:consecutive:4", round: true},
	})
	// One per response: each response is a new assistant message.
	check(t, r, []step{
		{user: true, tool: "read", args: a, result: "x", round: true},
		{tool: "read", args: a, result: "x", round: true},
		{tool: "read", args: a, result: "x", round: true},
	})
	// JSON.stringify: member order counts.
	check(t, r, []step{
		{user: true, tool: "edit", args: `{"a":1,"b":2}`, result: "x"},
		{tool: "edit", args: `{"b":2,"a":1}`, result: "x"},
		{tool: "edit", args: `{"a":1,"b":2}`, result: "x"},
	})
}

// TestGooseRepetitionInspector follows Goose's
// test_repetition_inspector_denies_after_exceeding_and_resets_on_param_change
// (read in a later copy of Goose's tests), which builds the inspector with
// max_repetitions 2.
func TestGooseRepetitionInspector(t *testing.T) {
	r := withSet(t, "goose", "detectors.consecutive.block_at", "3")
	v1, v2 := `{"id":123}`, `{"id":456}`
	check(t, r, []step{
		{user: true, tool: "fetch_user", args: v1, result: "u"},
		{tool: "fetch_user", args: v1, result: "u"},
		{tool: "fetch_user", args: v1, want: "block:consecutive:3", msg: "Tool 'fetch_user' has exceeded maximum repetitions"},
		{tool: "fetch_user", args: v2, result: "w"},
		{tool: "fetch_user", args: v2, result: "w"},
		{tool: "fetch_user", args: v2, want: "block:consecutive:3"},
		// A denied call did not advance the count: denied again, count 3.
		{tool: "fetch_user", args: v2, want: "block:consecutive:3"},
	})
	// The preset's own limit: the 6th identical call is denied.
	check(t, preset(t, "goose"), repeatSteps("developer__shell", `{"command":"ls"}`, 6, map[int]string{6: "block:consecutive:6"}))
}

// TestRooToolRepetitionDetector follows ToolRepetitionDetector.spec.ts
// (RooCodeInc/Roo-Code @ cb836567).
func TestRooToolRepetitionDetector(t *testing.T) {
	r := preset(t, "roo-code")
	a := `{"path":"a.ts"}`
	// "should allow first 3 calls but block on the 4th call for limit 3
	// (default)"; "should require reaching the limit again after reset".
	check(t, r, repeatSteps("read_file", a, 8, map[int]string{4: "block:consecutive:4", 8: "block:consecutive:4"}))
	// "should include tool name in the error message".
	outs := run(t, r, repeatSteps("read_file", a, 4, nil))
	if msg := outs[3].strongest().Message; !strings.Contains(msg, "Tool call repetition limit reached for read_file. Please try a different approach.") {
		t.Errorf("message %q", msg)
	}
	// "should reset counter after blocking and allow new attempts" (limit 2).
	check(t, withSet(t, "roo-code", "detectors.consecutive.block_at", "3"),
		repeatSteps("tool", `{"x":"tool-name"}`, 4, map[int]string{3: "block:consecutive:3"}))
	// "should reset the counter when different tool calls are made".
	check(t, r, []step{
		{user: true, tool: "read_file", args: a, result: "x"},
		{tool: "read_file", args: a, result: "x"},
		{tool: "read_file", args: a, result: "x"},
		{tool: "list_files", args: a, result: "y"},
		{tool: "read_file", args: a, result: "x"},
	})
	// "should treat tools with same parameters in different order as
	// identical" and "should handle different tool names with identical
	// serialized JSON".
	check(t, r, []step{
		{user: true, tool: "t", args: `{"a":"1","b":"2"}`, result: "x"},
		{tool: "t", args: `{"b":"2","a":"1"}`, result: "x"},
		{tool: "u", args: `{"a":"1","b":"2"}`, result: "x"},
		{tool: "t", args: `{"a":"1","b":"2"}`, result: "x"},
		{tool: "t", args: `{"b":"2","a":"1"}`, result: "x"},
		{tool: "t", args: `{"a":"1","b":"2"}`, result: "x"},
		{tool: "t", args: `{"a":"1","b":"2"}`, want: "block:consecutive:4"},
	})
	// "should treat different slice offsets as distinct read_file calls".
	check(t, r, []step{
		{user: true, tool: "read_file", args: `{"path":"a","offset":1}`, result: "x"},
		{tool: "read_file", args: `{"path":"a","offset":2}`, result: "x"},
		{tool: "read_file", args: `{"path":"a","offset":1}`, result: "x"},
		{tool: "read_file", args: `{"path":"a","offset":2}`, result: "x"},
	})
	// The detector lives with the task: a user message does not reset it.
	steps := repeatSteps("read_file", a, 4, map[int]string{4: "block:consecutive:4"})
	steps[2].user = true
	check(t, r, steps)
}

// TestKiloBrowserScrollExempt follows Kilo Code's isBrowserScrollAction
// (mcowger/kilocode @ fec2c0f1; Roo Code's d4a16f469c test "should not
// count browser scroll actions"): scrolls are neither counted nor break a
// run.
func TestKiloBrowserScrollExempt(t *testing.T) {
	r := preset(t, "kilo-code")
	scroll := `{"action":"scroll_down"}`
	check(t, r, repeatSteps("browser_action", scroll, 6, nil))
	a := `{"path":"a.ts"}`
	check(t, r, []step{
		{user: true, tool: "read_file", args: a, result: "x"},
		{tool: "read_file", args: a, result: "x"},
		{tool: "browser_action", args: scroll, result: "page"},
		{tool: "read_file", args: a, result: "x"},
		{tool: "read_file", args: a, want: "block:consecutive:4"},
	})
	// Other browser actions count as in roo-code.
	check(t, r, repeatSteps("browser_action", `{"action":"click","coordinate":"1,1"}`, 4, map[int]string{4: "block:consecutive:4"}))
}

// TestClineLoopDetection follows Cline's SDK LoopDetectionTracker and the
// orchestrator's inspectLoopForToolCall (cline/cline @ 21cb8d25): the
// soft notice at exactly 3, the stop from 5.
func TestClineLoopDetection(t *testing.T) {
	r := preset(t, "cline")
	a := `{"paths":["a.ts"]}`
	check(t, r, repeatSteps("read_files", a, 5, map[int]string{
		3: "steer:consecutive:3", 5: "halt:consecutive:5",
	}))
	outs := run(t, r, repeatSteps("read_files", a, 5, nil))
	if got, want := outs[4].strongest().Message, "Detected 5 consecutive identical calls to `read_files`; stopping to avoid a loop."; got != want {
		t.Errorf("hard stop text %q, want %q", got, want)
	}
	// The signature sorts keys at every level.
	check(t, r, []step{
		{user: true, tool: "t", args: `{"a":{"x":1,"y":2}}`, result: "x"},
		{tool: "t", args: `{"a":{"y":2,"x":1}}`, result: "x"},
		{tool: "t", args: `{"a":{"x":1,"y":2}}`, result: "x", want: "steer:consecutive:3"},
	})
}

// TestClineMistakeLimit follows the orchestrator's turn-finished rule and
// MistakeTracker.record (cline/cline @ 21cb8d25): a response whose calls
// all failed is a mistake, a productive one resets, the 3rd in a row stops
// the run (the CLI's default limit).
func TestClineMistakeLimit(t *testing.T) {
	r := preset(t, "cline")
	fail := func(user bool, args string, want string) step {
		return step{user: user, tool: "run_commands", args: args, result: "Error: boom", failed: true, round: true, want: want}
	}
	check(t, r, []step{
		fail(true, `{"c":"1"}`, ""),
		fail(false, `{"c":"2"}`, ""),
		fail(false, `{"c":"3"}`, "halt:failed_rounds:3"),
	})
	check(t, r, []step{
		fail(true, `{"c":"1"}`, ""),
		fail(false, `{"c":"2"}`, ""),
		{tool: "read_files", args: `{"p":"a"}`, result: "ok", round: true},
		fail(false, `{"c":"3"}`, ""),
		fail(false, `{"c":"4"}`, ""),
		// A response with a failure and a success is productive.
		{tool: "run_commands", args: `{"c":"5"}`, result: "Error", failed: true},
		{tool: "read_files", args: `{"p":"b"}`, result: "ok", round: true},
		fail(false, `{"c":"6"}`, ""),
	})
}

// stuckSteps are OpenHands command actions: a CmdRunAction and its
// observation as a shell call and its result.
func ohCmd(user bool, cmd, out string, failed bool, want string) step {
	return step{user: user, tool: "execute_bash", args: `{"command":"` + cmd + `"}`, result: out, failed: failed, want: want}
}

// TestOpenHandsStuckDetector follows tests/unit/controller/test_is_stuck.py
// (All-Hands-AI/OpenHands @ 156d0686).
func TestOpenHandsStuckDetector(t *testing.T) {
	headless := withSet(t, "openhands", "scope.reset", "session")
	interactive := preset(t, "openhands")
	// test_is_stuck_repeating_action_observation (headless): four "ls"
	// pairs, a user message among them, stuck at the 4th.
	check(t, headless, []step{
		ohCmd(true, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, ""),
		ohCmd(true, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, "halt:stuck:4"),
	})
	// test_interactive_mode_resets_after_user_message: after the user
	// message only the later pairs count: not stuck at 2, stuck at 4.
	check(t, interactive, []step{
		ohCmd(true, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, "halt:stuck:4"),
		ohCmd(true, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, ""),
		ohCmd(false, "ls", "", false, "halt:stuck:4"),
	})
	// test_is_stuck_repeating_action_error: the same command failing
	// (errors not necessarily the same), stuck at the 3rd.
	check(t, headless, []step{
		ohCmd(true, "invalid_command", "Command not found", true, ""),
		ohCmd(false, "invalid_command", "Command still not found or another error", true, ""),
		ohCmd(true, "invalid_command", "Different error", true, "halt:stuck:3"),
	})
	// test_is_stuck_repeating_action_observation_pattern: a command and a
	// file read alternating with the same results, stuck at the 6th.
	read := func(want string) step {
		return step{tool: "str_replace_editor", args: `{"command":"view","path":"a.txt"}`, result: "content", want: want}
	}
	check(t, headless, []step{
		ohCmd(true, "ls", "a.txt", false, ""), read(""),
		ohCmd(false, "ls", "a.txt", false, ""), read(""),
		ohCmd(false, "ls", "a.txt", false, ""), read("halt:stuck:6"),
	})
	// test_is_stuck_not_stuck: different commands and results.
	check(t, headless, []step{
		ohCmd(true, "ls", "a", false, ""),
		ohCmd(false, "pwd", "/", false, ""),
		ohCmd(false, "ls", "a", false, ""),
		ohCmd(false, "cat a", "x", false, ""),
		ohCmd(false, "ls", "a", false, ""),
		ohCmd(false, "pwd", "/", false, ""),
	})
	// CmdOutputObservation compares command and exit code, not output.
	check(t, interactive, []step{
		ohCmd(true, "pytest", "1 failed at 10:01", true, ""),
		ohCmd(false, "pytest", "1 failed at 10:02", true, ""),
		ohCmd(false, "pytest", "1 failed at 10:03", true, "halt:stuck:3"),
	})
	check(t, interactive, []step{
		ohCmd(true, "date", "10:01", false, ""),
		ohCmd(false, "date", "10:02", false, ""),
		ohCmd(false, "date", "10:03", false, ""),
		ohCmd(false, "date", "10:04", false, "halt:stuck:4"),
	})
}

// TestClaudeCodeReadDedup: Claude Code's Read answers an unchanged file's
// repeated Read with its stub (the rule as observed; Claude Code publishes
// no source or tests).
func TestClaudeCodeReadDedup(t *testing.T) {
	r := preset(t, "claude-code")
	stub := "Wasted call — file unchanged since your last Read. Refer to that earlier tool_result instead."
	a := `{"file_path":"/p/a.go"}`
	check(t, r, []step{
		{user: true, tool: "Read", args: a, result: "1\tpackage a"},
		{tool: "Read", args: a, want: "dedup:dedup:2", msg: stub},
		// offset 1 is the default: the same range.
		{tool: "Read", args: `{"file_path":"/p/a.go","offset":1}`, want: "dedup:dedup:3"},
		// Another range is read.
		{tool: "Read", args: `{"file_path":"/p/a.go","offset":10,"limit":5}`, result: "10\tx"},
		// An edit of the file: the next Read runs.
		{tool: "Edit", args: `{"file_path":"/p/a.go","old_string":"a","new_string":"b"}`, result: "ok"},
		{tool: "Read", args: a, result: "1\tpackage b"},
		{tool: "Read", args: a, want: "dedup"},
		// A shell command may change any file.
		{tool: "Bash", args: `{"command":"gofmt -w ."}`, result: ""},
		{tool: "Read", args: a, result: "1\tpackage b"},
		// A new user message does not forget the reads.
		{user: true, tool: "Read", args: a, want: "dedup"},
	})
	// A failed Read records nothing.
	check(t, r, []step{
		{user: true, tool: "Read", args: `{"file_path":"/nope"}`, result: "File does not exist.", failed: true},
		{tool: "Read", args: `{"file_path":"/nope"}`, result: "File does not exist.", failed: true},
	})
}

// TestQwenCode follows Qwen Code's read-file.ts fast path and
// fileReadCache.test.ts (QwenLM/qwen-code), and its loop service's
// always-on consecutive guard.
func TestQwenCode(t *testing.T) {
	r := preset(t, "qwen-code")
	a := `{"file_path":"/p/a.ts"}`
	check(t, r, []step{
		{user: true, tool: "read_file", args: a, result: "x"},
		// A ranged read is never answered from the cache, and does not
		// disarm the whole read.
		{tool: "read_file", args: `{"file_path":"/p/a.ts","offset":0,"limit":10}`, result: "x"},
		{tool: "read_file", args: `{"file_path":"/p/a.ts","offset":0,"limit":10}`, result: "x"},
		{tool: "read_file", args: a, want: "dedup:dedup:2"},
		// recordWrite: a write disarms the placeholder until the next read.
		{tool: "write_file", args: `{"file_path":"/p/a.ts","content":"y"}`, result: "ok"},
		{tool: "read_file", args: a, result: "y"},
		{tool: "read_file", args: a, want: "dedup"},
	})
	// The always-on guard: the 5th identical call in a row ends the turn.
	check(t, r, repeatSteps("run_shell_command", `{"command":"ls"}`, 5, map[int]string{5: "halt:consecutive:5"}))
	// The heuristic tier is off as shipped (skipLoopDetection defaults to
	// true): an A/B alternation is not stopped.
	ab := []string{`{"command":"ls"}`, `{"command":"pwd"}`}
	check(t, r, cycleSteps("run_shell_command", ab, 12, nil))
}
