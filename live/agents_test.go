package live

import (
	"fmt"
	"strings"
	"testing"
)

// TestProtocols drives nanobot's budget (the 3rd identical read in a turn
// is blocked) through each agent's own event shapes, and checks the deny
// in the agent's own words (each agent's source is quoted in docs/live.md):
//
//	Gemini CLI BeforeTool: `decision`: Set to "deny" (or "block") ... `reason`: Required if denied.
//	Cursor: "permission": "allow" | "deny" | "ask", "agent_message": shown to the model.
//	OpenHands: if "decision" in output_data ... elif decision_str == "deny": ... blocked = True
//	Cline: "cancel": boolean // Required: false to continue, true to block execution
//	hermes: {"decision": "block", "reason":  "Forbidden command"}   # Claude-Code-style
func TestProtocols(t *testing.T) {
	cases := []struct {
		agent      string
		pre, post  string // %d: the call's number
		prompt     string
		deny       []string
		allowEmpty bool // an allowed call gets no answer at all
	}{
		{agent: "codex",
			pre:    `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"read_file","tool_input":{"path":"a"},"tool_use_id":"c%d"}`,
			post:   `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"read_file","tool_input":{"path":"a"},"tool_use_id":"c%d","tool_response":"x"}`,
			prompt: `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"hi"}`,
			deny:   []string{`"permissionDecision":"deny"`}, allowEmpty: true},
		{agent: "gemini",
			pre:    `{"hook_event_name":"BeforeTool","session_id":"s","timestamp":"2026-11-25T10:00:0%dZ","tool_name":"read_file","tool_input":{"absolute_path":"/a"}}`,
			post:   `{"hook_event_name":"AfterTool","session_id":"s","tool_name":"read_file","tool_input":{"absolute_path":"/a"},"tool_response":{"llmContent":"x%d","returnDisplay":"x"}}`,
			prompt: `{"hook_event_name":"BeforeAgent","session_id":"s","prompt":"hi"}`,
			deny:   []string{`"decision":"deny"`, `"reason":`}, allowEmpty: true},
		{agent: "cursor",
			pre:    `{"hook_event_name":"preToolUse","conversation_id":"s","generation_id":"g","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_use_id":"c%d"}`,
			post:   `{"hook_event_name":"postToolUse","conversation_id":"s","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_use_id":"c%d","tool_output":"x"}`,
			prompt: `{"hook_event_name":"beforeSubmitPrompt","conversation_id":"s","prompt":"hi"}`,
			deny:   []string{`"permission":"deny"`, `"agent_message":`}},
		{agent: "openhands",
			pre:    `{"event_type":"PreToolUse","session_id":"s","tool_name":"grep","tool_input":{"pattern":"TODO","path":"/a"},"metadata":{"n":%d}}`,
			post:   `{"event_type":"PostToolUse","session_id":"s","tool_name":"grep","tool_input":{"pattern":"TODO","path":"/a"},"tool_response":{"content":"x%d"}}`,
			prompt: `{"event_type":"UserPromptSubmit","session_id":"s","message":"hi"}`,
			deny:   []string{`"decision":"deny"`, `"reason":`}, allowEmpty: true},
		{agent: "cline",
			pre:    `{"clineVersion":"3","hookName":"PreToolUse","timestamp":"%d","taskId":"s","preToolUse":{"toolName":"read_file","parameters":{"path":"/a"}}}`,
			post:   `{"clineVersion":"3","hookName":"PostToolUse","timestamp":"%d","taskId":"s","postToolUse":{"toolName":"read_file","parameters":{"path":"/a"},"result":"x","success":true}}`,
			prompt: `{"clineVersion":"3","hookName":"UserPromptSubmit","taskId":"s","userPromptSubmit":{"prompt":"hi"}}`,
			deny:   []string{`"cancel":true`, `"errorMessage":`}},
		{agent: "hermes",
			pre:  `{"hook_event_name":"pre_tool_call","session_id":"s","tool_name":"read_file","tool_input":{"path":"/a"},"extra":{"n":%d}}`,
			post: `{"hook_event_name":"post_tool_call","session_id":"s","tool_name":"read_file","tool_input":{"path":"/a"},"extra":{"result":"x%d"}}`,
			deny: []string{`"decision":"block"`, `"reason":`}, allowEmpty: true},
	}
	for _, tc := range cases {
		t.Run(tc.agent, func(t *testing.T) {
			cfg := testConfig(t, tc.agent, "nanobot")
			for i := 1; i <= 3; i++ {
				pre := Handle(cfg, []byte(fmt.Sprintf(tc.pre, i)))
				if pre.Stderr != "" || pre.Exit != 0 {
					t.Fatalf("call %d: %q exit %d", i, pre.Stderr, pre.Exit)
				}
				denied := true
				for _, w := range tc.deny {
					denied = denied && strings.Contains(string(pre.Stdout), w)
				}
				if denied != (i == 3) {
					t.Fatalf("call %d: answer %s (want a deny only at the 3rd)", i, pre.Stdout)
				}
				if i < 3 {
					if tc.allowEmpty && len(pre.Stdout) != 0 {
						t.Errorf("call %d: allowed with %s", i, pre.Stdout)
					}
					if r := Handle(cfg, []byte(fmt.Sprintf(tc.post, i))); r.Stderr != "" {
						t.Fatalf("post %d: %s", i, r.Stderr)
					}
				}
			}
			if tc.prompt == "" {
				return
			}
			// A new turn resets nanobot's budget.
			Handle(cfg, []byte(tc.prompt))
			if pre := Handle(cfg, []byte(fmt.Sprintf(tc.pre, 4))); strings.Contains(string(pre.Stdout), tc.deny[0]) {
				t.Errorf("denied after a new prompt: %s", pre.Stdout)
			}
		})
	}
}

// TestSteerAndHalt: a steer reaches the model as context (Claude Code's
// additionalContext before the call; Gemini's AfterTool additionalContext,
// as its BeforeTool has none), and a halt uses the agent's own stop
// ("continue": false).
func TestSteerAndHalt(t *testing.T) {
	// hermes-strict: the same tool failing 8 times in a turn halts it;
	// failures of one call are steered before that.
	cfg := testConfig(t, "claude-code", "hermes-strict")
	var last Reply
	steered := false
	for i := 1; i <= 8; i++ {
		in := fmt.Sprintf(`,"tool_name":"Read","tool_input":{"file_path":"/x/%d"},"tool_use_id":"b%d"`, i, i)
		if r := Handle(cfg, claudeEvent("PreToolUse", "h", in)); strings.Contains(string(r.Stdout), "deny") {
			t.Fatalf("call %d denied: %s", i, r.Stdout)
		}
		last = Handle(cfg, claudeEvent("PostToolUseFailure", "h", in+`,"error":"exit status 2"`))
		steered = steered || strings.Contains(string(last.Stdout), `"additionalContext"`)
	}
	if !strings.Contains(string(last.Stdout), `"continue":false`) || !strings.Contains(string(last.Stdout), `"stopReason"`) {
		t.Errorf("8th failure: want a halt, got %s", last.Stdout)
	}
	if !steered {
		t.Error("no failure was steered before the halt")
	}
	// The next call of the halted turn is not run, and the model is told
	// the halt's message again.
	r := Handle(cfg, claudeEvent("PreToolUse", "h", `,"tool_name":"Read","tool_input":{"file_path":"/x"},"tool_use_id":"r1"`))
	if !strings.Contains(string(r.Stdout), `"permissionDecision":"deny"`) || !strings.Contains(string(r.Stdout), "hard stop") {
		t.Errorf("call after the halt: %s", r.Stdout)
	}
	// A new prompt starts a new turn.
	Handle(cfg, claudeEvent("UserPromptSubmit", "h", `,"prompt":"go on"`))
	if r := Handle(cfg, claudeEvent("PreToolUse", "h", `,"tool_name":"Read","tool_input":{"file_path":"/x"},"tool_use_id":"r2"`)); len(r.Stdout) != 0 {
		t.Errorf("new turn: %s", r.Stdout)
	}

	// Gemini: a steer goes with the AfterTool answer.
	g := testConfig(t, "gemini", "hermes-strict")
	var out string
	for i := 1; i <= 3; i++ {
		pre := fmt.Sprintf(`{"hook_event_name":"BeforeTool","session_id":"g","tool_name":"run_shell_command","tool_input":{"command":"make"}}`)
		Handle(g, []byte(pre))
		post := `{"hook_event_name":"AfterTool","session_id":"g","tool_name":"run_shell_command","tool_input":{"command":"make"},"tool_response":{"llmContent":"boom","error":{"message":"exit 2"}}}`
		out += string(Handle(g, []byte(post)).Stdout)
	}
	if !strings.Contains(out, `"additionalContext"`) || !strings.Contains(out, `"hookEventName":"AfterTool"`) {
		t.Errorf("gemini: no steer after repeated failures: %s", out)
	}
}
