package live

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/decisionlog"
	"github.com/loopgate/loopgate/rules"
)

// The events below are built from the agents' published hook code, field
// for field, with nothing they do not send:
//
//   - OpenHands/software-agent-sdk 1.43.1 (commit 611629e6):
//     openhands-sdk/openhands/sdk/hooks/types.py (HookEvent: event_type,
//     tool_name, tool_input, tool_response, message, session_id,
//     working_dir, metadata), conversation_hooks.py (tool_input is the
//     action's model_dump(), tool_response the observation's; no call id)
//     and tool/schema.py (an observation dumps its content blocks and
//     is_error).
//   - NousResearch/hermes-agent agent/shell_hooks.py (commit 00067189,
//     _payload_fields: tool_name, tool_input, session_id, cwd, profile,
//     extra) and website/docs/user-guide/features/hooks.md (commit
//     006a5aeb: the members each hook call passes, which land in extra).

func ohEvent(kind, tool, input, response string) string {
	resp := "null"
	if response != "" {
		resp = response
	}
	in := "null"
	if input != "" {
		in = input
	}
	name := "null"
	if tool != "" {
		name = `"` + tool + `"`
	}
	return `{"event_type":"` + kind + `","tool_name":` + name + `,"tool_input":` + in + `,"tool_response":` + resp +
		`,"message":null,"session_id":"oh-1","working_dir":"/workspace","metadata":{}}`
}

func ohPrompt(msg string) string {
	return `{"event_type":"UserPromptSubmit","tool_name":null,"tool_input":null,"tool_response":null,"message":"` + msg +
		`","session_id":"oh-1","working_dir":"/workspace","metadata":{}}`
}

// ohTerminal is a terminal action's dump and its observation's.
func ohTerminal(cmd string) string {
	return `{"kind":"TerminalAction","command":"` + cmd + `","is_input":false,"timeout":null,"reset":false}`
}

func ohObservation(text string, isError bool) string {
	return fmt.Sprintf(`{"kind":"TerminalObservation","content":[{"cache_prompt":false,"type":"text","text":%q}],"is_error":%v,"command":"x","exit_code":%d,"timeout":false}`,
		text, isError, map[bool]int{false: 0, true: 2}[isError])
}

func hermesTool(kind, turn, id, tool, args, result, status string) string {
	extra := `"task_id":"task-1","tool_call_id":"` + id + `","turn_id":"` + turn + `","api_request_id":"req-` + turn + `","middleware_trace":[]`
	if kind == "post_tool_call" {
		errType, errMsg := "null", "null"
		if status == "error" {
			errType, errMsg = `"ToolError"`, `"exit status 2"`
		}
		extra += fmt.Sprintf(`,"result":%q,"duration_ms":12,"status":%q,"error_type":%s,"error_message":%s`, result, status, errType, errMsg)
	}
	return `{"hook_event_name":"` + kind + `","tool_name":"` + tool + `","tool_input":` + args +
		`,"session_id":"h-1","cwd":"/w","profile":"default","extra":{` + extra + `}}`
}

func hermesLLM(turn string) string {
	return `{"hook_event_name":"pre_llm_call","tool_name":null,"tool_input":null,"session_id":"h-1","cwd":"/w","profile":"default",` +
		`"extra":{"task_id":"task-1","turn_id":"` + turn + `","user_message":"go on","conversation_history":[],"is_first_turn":false,"model":"m","platform":"cli","parent_session_id":null,"sender_id":null}}`
}

// step is one hook event and what its answer must (and must not) hold.
type step struct {
	name    string
	event   string
	want    []string
	wantNot []string
	empty   bool // no answer at all
}

func runSteps(t *testing.T, cfg Config, steps []step) {
	t.Helper()
	for _, s := range steps {
		r := Handle(cfg, []byte(s.event))
		if r.Stderr != "" {
			t.Fatalf("%s: %s", s.name, r.Stderr)
		}
		out := string(r.Stdout)
		if s.empty && out != "" {
			t.Errorf("%s: want no answer, got %s", s.name, out)
		}
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: answer %q lacks %q", s.name, out, w)
			}
		}
		for _, w := range s.wantNot {
			if strings.Contains(out, w) {
				t.Errorf("%s: answer %q holds %q", s.name, out, w)
			}
		}
	}
}

// failing repeats a failing call n times: the events of each call. An
// agent that shows no context after a call (Protocol.Deferred) gets no
// answer to its result (postEmpty).
func failing(n int, pre, post func(i int) string, postEmpty bool) []step {
	var steps []step
	for i := 1; i <= n; i++ {
		steps = append(steps,
			step{name: fmt.Sprintf("pre %d", i), event: pre(i), wantNot: []string{"deny", "block"}},
			step{name: fmt.Sprintf("post %d", i), event: post(i), empty: postEmpty})
	}
	return steps
}

const haltText = "Tool loop hard stop"

func TestAgentShapes(t *testing.T) {
	// The same tool failing, on another file each time (hermes-strict
	// halts it at the 8th failure; shell tools are failure-tolerant).
	ohView := func(i int) string {
		return fmt.Sprintf(`{"kind":"FileEditorAction","command":"view","path":"/a/t%d","view_range":null}`, i)
	}
	ohPre := func(i int) string { return ohEvent("PreToolUse", "file_editor", ohView(i), "") }
	ohPost := func(i int) string {
		return ohEvent("PostToolUse", "file_editor", ohView(i), ohObservation("boom", true))
	}
	hPre := func(turn string) func(int) string {
		return func(i int) string {
			return hermesTool("pre_tool_call", turn, fmt.Sprintf("call_%s_%d", turn, i), "read_file", fmt.Sprintf(`{"path":"/a/t%d"}`, i), "", "")
		}
	}
	hPost := func(turn string) func(int) string {
		return func(i int) string {
			return hermesTool("post_tool_call", turn, fmt.Sprintf("call_%s_%d", turn, i), "read_file", fmt.Sprintf(`{"path":"/a/t%d"}`, i), "Error: no such file", "error")
		}
	}
	cases := []struct {
		name, agent, preset string
		steps               []step
	}{
		{name: "openhands: a deny is a deny with its reason", agent: "openhands", preset: "nanobot",
			steps: []step{
				{name: "grep 1", event: ohEvent("PreToolUse", "grep", `{"kind":"GrepAction","pattern":"TODO","path":"/a"}`, ""), empty: true},
				{name: "grep 2", event: ohEvent("PreToolUse", "grep", `{"kind":"GrepAction","pattern":"TODO","path":"/a"}`, ""), empty: true},
				{name: "grep 3", event: ohEvent("PreToolUse", "grep", `{"kind":"GrepAction","pattern":"TODO","path":"/a"}`, ""),
					want: []string{`"decision":"deny"`, `"reason":`}, wantNot: []string{"continue"}},
			}},
		{name: "openhands: a steer waits for the next prompt's additionalContext", agent: "openhands", preset: "hermes-strict",
			steps: append(failing(4, ohPre, ohPost, true),
				step{name: "the next prompt shows the steers", event: ohPrompt("go on"), want: []string{`"additionalContext":"`, "Tool loop warning", "count=3", "count=4"}},
				step{name: "and only once", event: ohPrompt("and on"), empty: true}),
		},
		{name: "openhands: a halt denies the rest of the turn (with what waited), a new turn runs", agent: "openhands", preset: "hermes-strict",
			steps: append(append(failing(7, ohPre, ohPost, true),
				step{name: "pre 8", event: ohPre(8), empty: true},
				step{name: "post 8 (the halt: nothing the SDK reads after a call)", event: ohPost(8), empty: true},
				step{name: "after the halt", event: ohPre(9), want: []string{`"decision":"deny"`, haltText, "Tool loop warning"}, wantNot: []string{"continue"}},
				step{name: "again, without what was shown", event: ohPre(10), want: []string{`"decision":"deny"`, haltText}, wantNot: []string{"continue", "Tool loop warning"}},
				step{name: "a prompt", event: ohPrompt("go on"), empty: true},
			), step{name: "the new turn runs", event: ohPre(11), empty: true}),
		},
		{name: "hermes: a steer goes to the next pre_llm_call, a halt blocks the rest of the turn, a new turn_id runs", agent: "hermes", preset: "hermes-strict",
			steps: append(append(failing(7, hPre("t1"), hPost("t1"), true),
				step{name: "pre 8", event: hPre("t1")(8), empty: true},
				step{name: "post 8 (the halt; post_tool_call is an observer)", event: hPost("t1")(8), empty: true},
				step{name: "after the halt", event: hPre("t1")(9), want: []string{`"decision":"block"`, haltText, "Tool loop warning"}},
				step{name: "pre_llm_call of the next turn", event: hermesLLM("t2"), empty: true},
			), step{name: "the new turn runs", event: hPre("t2")(1), empty: true}),
		},
		{name: "hermes: a steer goes with the next turn's pre_llm_call context", agent: "hermes", preset: "hermes-strict",
			steps: append(failing(4, hPre("t1"), hPost("t1"), true),
				step{name: "pre_llm_call", event: hermesLLM("t2"), want: []string{`"context":"`, "Tool loop warning", "count=4"}}),
		},
		{name: "hermes: a new turn_id without pre_llm_call is a new turn", agent: "hermes", preset: "hermes-strict",
			steps: append(append(failing(7, hPre("t1"), hPost("t1"), true),
				step{name: "pre 8", event: hPre("t1")(8), empty: true},
				step{name: "post 8", event: hPost("t1")(8), empty: true},
				step{name: "after the halt", event: hPre("t1")(9), want: []string{`"decision":"block"`, haltText}},
			), step{name: "turn t2's first call runs", event: hPre("t2")(1), empty: true}),
		},
		{name: "codex: a halt never carries continue or stopReason into PreToolUse", agent: "codex", preset: "hermes-strict",
			steps: append(failing(8,
				func(i int) string {
					return fmt.Sprintf(`{"session_id":"c-1","turn_id":"u1","transcript_path":null,"cwd":"/w","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"view_image","tool_input":{"path":"/a/t%d.png"},"tool_use_id":"call_%d"}`, i, i)
				},
				func(i int) string {
					return fmt.Sprintf(`{"session_id":"c-1","turn_id":"u1","transcript_path":null,"cwd":"/w","hook_event_name":"PostToolUse","model":"m","permission_mode":"default","tool_name":"view_image","tool_input":{"path":"/a/t%d.png"},"tool_use_id":"call_%d","tool_response":"no such file","is_error":true}`, i, i)
				}, false)[:15],
				step{name: "post 8: the halt as context", event: `{"session_id":"c-1","turn_id":"u1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"view_image","tool_input":{"path":"/a/t8.png"},"tool_use_id":"call_8","tool_response":"no such file","is_error":true}`,
					want: []string{`"additionalContext"`, haltText}, wantNot: []string{"continue", "stopReason"}},
				step{name: "after the halt", event: `{"session_id":"c-1","turn_id":"u1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"view_image","tool_input":{"path":"/b.png"},"tool_use_id":"call_9"}`,
					want: []string{`"permissionDecision":"deny"`, haltText}, wantNot: []string{"continue", "stopReason"}},
				step{name: "a new turn_id", event: `{"session_id":"c-1","turn_id":"u2","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"view_image","tool_input":{"path":"/b.png"},"tool_use_id":"call_10"}`,
					empty: true},
			)},
	}
	for _, tc := range cases {
		// From checkpoints and from the log alone: the turn id and the
		// steers waiting are in both.
		for _, noSnap := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nocheckpoint=%v", tc.name, noSnap), func(t *testing.T) {
				cfg := testConfig(t, tc.agent, tc.preset)
				cfg.NoCheckpoint = noSnap
				runSteps(t, cfg, tc.steps)
			})
		}
	}
}

// TestResultsByArguments: OpenHands gives no call id; a result goes to the
// running call with its arguments, else to the first running call of its
// tool, never to the latest.
func TestResultsByArguments(t *testing.T) {
	a, b := ohTerminal("make a"), ohTerminal("make b")
	cases := []struct {
		name   string
		result string // the arguments the result carries
		call   int    // the call it must go to
	}{
		{"the second call's arguments", b, 2},
		{"the first call's arguments", a, 1},
		{"arguments of no running call: the first in call order", ohTerminal("make c"), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "openhands", "loopgate")
			for _, ev := range []string{ohEvent("PreToolUse", "terminal", a, ""), ohEvent("PreToolUse", "terminal", b, ""),
				ohEvent("PostToolUse", "terminal", tc.result, ohObservation("done", false))} {
				if r := Handle(cfg, []byte(ev)); r.Stderr != "" {
					t.Fatal(r.Stderr)
				}
			}
			got := resultCalls(t, cfg.Log)
			if len(got) != 1 || got[0] != tc.call {
				t.Errorf("result went to calls %v, want [%d]", got, tc.call)
			}
		})
	}
}

// resultCalls lists the calls the decision log's result lines went to.
func resultCalls(t *testing.T, log string) []int {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l decisionlog.Record
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Event == "result" {
			calls = append(calls, l.Call)
		}
	}
	return calls
}

// TestHermesErrorFlag: hermes' post_tool_call says a call failed with
// status, error_type and error_message; it never sends extra.error.
func TestHermesErrorFlag(t *testing.T) {
	cases := []struct {
		name, status, errType, errMsg string
		extraError                    bool
		want                          bool
	}{
		{name: "ok", status: "ok"},
		{name: "success", status: "success"},
		{name: "error status", status: "error", want: true},
		{name: "error type only", status: "ok", errType: "TimeoutError", want: true},
		{name: "error message only", errMsg: "exit status 1", want: true},
		{name: "blocked by a hook", status: "blocked"},
		{name: "extra.error is not hermes'", status: "ok", extraError: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			extra := map[string]any{"tool_call_id": "c1", "turn_id": "t1", "result": "{\"output\": \"x\"}", "status": tc.status,
				"error_type": nilIfEmpty(tc.errType), "error_message": nilIfEmpty(tc.errMsg)}
			if tc.extraError {
				extra["error"] = "boom"
			}
			raw, _ := json.Marshal(map[string]any{"hook_event_name": "post_tool_call", "tool_name": "terminal",
				"tool_input": map[string]any{"command": "ls"}, "session_id": "s", "cwd": "/", "profile": "default", "extra": extra})
			ev, err := Lookup("hermes").ParseEvent(raw)
			if err != nil {
				t.Fatal(err)
			}
			if ev.IsError != tc.want || ev.TurnID != "t1" || ev.CallID != "c1" {
				t.Errorf("IsError %v (want %v), turn %q, call %q", ev.IsError, tc.want, ev.TurnID, ev.CallID)
			}
		})
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestAgentFormats: each agent's hook runs the rules' variant replay runs
// on the agent's own transcripts (rules.ForSession of its format): hermes'
// presets name hermes' tools natively there.
func TestAgentFormats(t *testing.T) {
	r, err := rules.Preset("hermes")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		agent  string
		native bool
	}{{"hermes", true}, {"claude-code", false}, {"openhands", false}, {"gemini", false}}
	for _, tc := range cases {
		p := Lookup(tc.agent)
		if p == nil {
			t.Fatalf("%s: no protocol", tc.agent)
		}
		if got := r.ForSession(p.Format, "").Native; got != tc.native {
			t.Errorf("%s (format %q): native %v, want %v", tc.agent, p.Format, got, tc.native)
		}
	}
}

// TestSidechainScopes: Claude Code before 2.x sent no agent_id with a
// subagent's hook events and wrote its sidechain lines without agentId;
// the hook scopes those calls from the transcript as replay does (ingest's
// claudecode.go scopeOf): the chain of parentUuid links from a root line,
// named "sidechain-" and the root's first 8 letters.
func TestSidechainScopes(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"aaaaaaaa-0001","parentUuid":null,"isSidechain":true,"sessionId":"S","message":{"role":"user","content":"task A"}}`,
		`{"type":"assistant","uuid":"aaaaaaaa-0002","parentUuid":"aaaaaaaa-0001","isSidechain":true,"sessionId":"S","requestId":"req_a1","timestamp":"2026-11-25T10:00:01Z","message":{"id":"msg_a1","model":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_A1","name":"Read","input":{"file_path":"/a"}}]}}`,
		`{"type":"user","uuid":"bbbbbbbb-0001","parentUuid":null,"isSidechain":true,"sessionId":"S","message":{"role":"user","content":"task B"}}`,
		`{"type":"user","uuid":"aaaaaaaa-0003","parentUuid":"aaaaaaaa-0002","isSidechain":true,"sessionId":"S","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A1","content":"x"}]}}`,
		`{"type":"assistant","uuid":"aaaaaaaa-0004","parentUuid":"aaaaaaaa-0003","isSidechain":true,"sessionId":"S","requestId":"req_a2","timestamp":"2026-11-25T10:00:02Z","message":{"id":"msg_a2","model":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_A2","name":"Read","input":{"file_path":"/a"}}]}}`,
		`{"type":"assistant","uuid":"bbbbbbbb-0002","parentUuid":"bbbbbbbb-0001","isSidechain":true,"sessionId":"S","requestId":"req_b1","timestamp":"2026-11-25T10:00:03Z","message":{"id":"msg_b1","model":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_B1","name":"Read","input":{"file_path":"/a"}}]}}`,
		`{"type":"assistant","uuid":"cccccccc-0001","parentUuid":null,"isSidechain":false,"sessionId":"S","requestId":"req_m1","timestamp":"2026-11-25T10:00:04Z","message":{"id":"msg_m1","model":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_M1","name":"Read","input":{"file_path":"/a"}}]}}`,
		`{"type":"assistant","uuid":"dddddddd-0001","parentUuid":"cccccccc-0001","isSidechain":true,"agentId":"agent-7","sessionId":"S","requestId":"req_d1","timestamp":"2026-11-25T10:00:05Z","message":{"id":"msg_d1","model":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_D1","name":"Read","input":{"file_path":"/a"}}]}}`,
	}
	cfg := testConfig(t, "claude-code", "loopgate")
	tx := t.TempDir() + "/S.jsonl"
	if err := os.WriteFile(tx, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ id, scope string }{
		{"toolu_A1", "sidechain-aaaaaaaa"},
		{"toolu_A2", "sidechain-aaaaaaaa"},
		{"toolu_B1", "sidechain-bbbbbbbb"},
		{"toolu_M1", "main"},
		{"toolu_D1", "agent-7"},
	}
	for _, tc := range cases {
		ev := claudeEvent("PreToolUse", "S", `,"transcript_path":`+fmt.Sprintf("%q", tx)+`,"tool_name":"Read","tool_input":{"file_path":"/a"},"tool_use_id":"`+tc.id+`"`)
		if r := Handle(cfg, ev); r.Stderr != "" {
			t.Fatal(r.Stderr)
		}
	}
	got := map[string]string{}
	f, err := os.Open(cfg.Log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l decisionlog.Record
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Event == "call" {
			got[l.CallID] = l.Scope
		}
	}
	for _, tc := range cases {
		if got[tc.id] != tc.scope {
			t.Errorf("%s: scope %q, want %q", tc.id, got[tc.id], tc.scope)
		}
	}
}

// TestClineCLIShapes: the Cline CLI (@cline/core 3.0.65, dist/index.js)
// runs the same hook files as the VS Code extension but names the event by
// its runtime hook (tool_call, tool_result, prompt_submit) and gives the
// call's id; its parameters are strings (a value that is not a string is
// its JSON). A deny cancels the run (cancel: true).
func TestClineCLIShapes(t *testing.T) {
	head := `"clineVersion":"","timestamp":"2026-12-02T00:00:00Z","taskId":"conv-1","sessionContext":{"rootSessionId":"conv-1"},"workspaceRoots":["/w"],"userId":"u","agent_id":"agent-1","parent_agent_id":null`
	pre := func(i int) string {
		return fmt.Sprintf(`{%s,"hookName":"tool_call","iteration":%d,"tool_call":{"id":"tc_%d","name":"read_file","input":{"path":"/a"}},"preToolUse":{"toolName":"read_file","parameters":{"path":"/a"}}}`, head, i, i)
	}
	post := func(i int) string {
		return fmt.Sprintf(`{%s,"hookName":"tool_result","iteration":%d,"tool_result":{"id":"tc_%d","name":"read_file","input":{"path":"/a"},"output":"x","durationMs":3},"postToolUse":{"toolName":"read_file","parameters":{"path":"/a"},"result":"x","success":true,"executionTimeMs":3}}`, head, i, i)
	}
	prompt := `{` + head + `,"hookName":"prompt_submit","userPromptSubmit":{"prompt":"go on","attachments":[]}}`
	runSteps(t, testConfig(t, "cline", "nanobot"), []step{
		{name: "call 1", event: pre(1), want: []string{`"cancel":false`}},
		{name: "result 1", event: post(1)},
		{name: "call 2", event: pre(2), want: []string{`"cancel":false`}},
		{name: "result 2", event: post(2)},
		{name: "call 3: the budget cancels the run", event: pre(3), want: []string{`"cancel":true`, `"errorMessage":`}},
		{name: "a prompt", event: prompt},
		{name: "the new turn runs", event: pre(4), want: []string{`"cancel":false`}},
	})
	ev, err := Lookup("cline").ParseEvent([]byte(post(1)))
	if err != nil || ev.CallID != "tc_1" || ev.Kind != KindPost || ev.Agent != "" {
		t.Errorf("tool_result: %+v %v", ev, err)
	}
}
