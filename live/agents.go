package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/loopgate/loopgate/internal/agents"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Kind is what a hook event means to the guard.
type Kind uint8

const (
	// KindOther: an event the guard has no use for (answered with nothing).
	KindOther Kind = iota
	// KindPre: a tool call is about to run.
	KindPre
	// KindPost: a tool call ran; its result is in.
	KindPost
	// KindPrompt: the user sent a message (a new turn).
	KindPrompt
	// KindStart: a session starts or resumes.
	KindStart
	// KindCompact: the agent compacts its context.
	KindCompact
	// KindStop: the agent finished answering.
	KindStop
)

// Event is one hook event, whatever the agent.
type Event struct {
	Kind Kind
	// Name is the agent's own name of the event.
	Name string
	// Session is the agent's session (conversation, task) id; Agent a
	// subagent's id ("" in the main agent).
	Session, Agent string
	Tool           string
	// MCPTool is an MCP server's own name of the tool called, when the
	// event gives it apart from Tool (Gemini CLI's mcp_context): the guard
	// classes the call by it where Tool alone cannot be cut
	// (rules.MCPCallName).
	MCPTool string
	// Input is the tool's arguments as JSON (nil when absent); RawInput
	// says they are text that is not JSON.
	Input    []byte
	RawInput bool
	CallID   string
	// TurnID is the agent's own id of the turn the event belongs to
	// (Codex's turn_id, hermes' extra.turn_id): a new one starts a turn
	// even when no prompt event came.
	TurnID string
	// Request names the model request of the call when the event says so
	// (loopgate_request: the simulation's hint for transcripts whose
	// events would not).
	Request string
	// Format and Platform are the session's transcript format and
	// platform, for the rules' session variant (rules.ForSession): the
	// agent's own format, unless the simulation's hints
	// (loopgate_format, loopgate_platform) say otherwise.
	Format, Platform string
	// Result is the call's result as text; IsError whether it failed.
	Result  string
	IsError bool
	// ExitCode is a shell command's exit code where the event does not
	// give it in Result (Codex: read from the rollout, codexResultFacts);
	// 0 when unknown.
	ExitCode int
	// Prompt is the text of the user's message a prompt event carries,
	// "" when the agent sends none: the guard then takes the message to
	// name anything (scope.reset: mentioned resets everything), as replay
	// does a turn whose text its reader did not keep.
	Prompt string
	// Source of a session start (Claude Code: startup, resume, clear,
	// compact).
	Source     string
	Transcript string
	// Time the event gives, if any.
	Time time.Time
	// RunIteration is the model turn of the agent's run a Cline CLI call
	// belongs to (its tool_call's iteration, 1 for the run's first model
	// turn), 0 when the event gives none: the hook tells a new run by it
	// (newRun).
	RunIteration int
	// resultBlocks is a result given as a list of content blocks, for
	// Config.ContentText.
	resultBlocks []byte
	// outcomes: Result may be a list of per-item outcomes (the Cline
	// CLI's), read by Config.Results.Outcomes.
	outcomes bool
}

// Answer is what the guard wants the agent to do, before it is put in the
// agent's words.
type Answer struct {
	// Deny: the call does not run; Reason is what the model gets instead.
	Deny   bool
	Reason string
	// Context is added to what the model sees (a steer).
	Context string
	// Halt: the agent stops; HaltReason says why.
	Halt       bool
	HaltReason string
}

// Protocol is one agent's hook protocol: how its events read and how it
// wants to be answered.
type Protocol struct {
	Agent string
	// Format is the id of the agent's transcript format, as ingest names
	// it: rules.ForSession reads it (a preset names its own agent's tools
	// natively).
	Format string
	// PreContext: the agent's answer before a call can add context that
	// the model sees while the call still runs. Without it, a steer given
	// before the call goes with the answer after it.
	PreContext bool
	// Deferred: no answer during a turn puts text before the model (the
	// agent drops a tool hook's context): a steer waits for the next
	// prompt's answer, or goes with the reason of the next call denied,
	// whichever comes first (docs/live.md).
	Deferred bool
	parse    func(w *wire) Event
	reply    func(ev *Event, a Answer) []byte
	// resultFacts completes a result event from what the agent wrote
	// elsewhere (Codex: the exit code in its rollout); nil for most.
	resultFacts func(ev *Event)
}

// Protocols are the agents loopgate hooks into, by their canonical
// --agent name (aliases: Lookup).
var Protocols = map[string]*Protocol{
	"claude-code": {Agent: "claude-code", Format: "claude-code", PreContext: true, parse: parseClaude, reply: replyClaude},
	"codex":       {Agent: "codex", Format: "codex", PreContext: true, parse: parseClaude, reply: replyCodex, resultFacts: codexResultFacts},
	"gemini-cli":  {Agent: "gemini-cli", Format: "gemini-cli", parse: parseGemini, reply: replyGemini},
	"qwen-code":   {Agent: "qwen-code", Format: "qwen-code", PreContext: true, parse: parseQwen, reply: replyClaude},
	"hermes":      {Agent: "hermes", Format: "hermes", Deferred: true, parse: parseHermes, reply: replyHermes},
	"openhands":   {Agent: "openhands", Format: "openhands", Deferred: true, parse: parseOpenHands, reply: replyOpenHands},
	"cursor":      {Agent: "cursor", parse: parseCursor, reply: replyCursor},
	"cline":       {Agent: "cline", Format: "cline", PreContext: true, parse: parseCline, reply: replyCline},
	"opencode":    {Agent: "opencode", Format: "opencode", parse: parsePlugin, reply: replyPlugin},
	"pi":          {Agent: "pi", Format: "pi", parse: parsePlugin, reply: replyPlugin},
}

// Canonical is the canonical name of an agent name or alias ("" if none
// or if the hook does not speak to that agent): the names and their
// aliases are the command line's one list (internal/agents).
func Canonical(name string) string {
	if c, ok := agents.Canonical(name); ok && Protocols[c] != nil {
		return c
	}
	return ""
}

// Lookup is the protocol of an agent name or alias (nil if none).
func Lookup(name string) *Protocol { return Protocols[Canonical(name)] }

// AgentNames lists the agents' canonical names, sorted.
func AgentNames() []string {
	var names []string
	for n := range Protocols {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// wire is every field any agent's event may carry.
type wire struct {
	HookEventName  string           `json:"hook_event_name"`
	SessionID      string           `json:"session_id"`
	TranscriptPath string           `json:"transcript_path"`
	ToolName       string           `json:"tool_name"`
	ToolInput      jsonx.RawMessage `json:"tool_input"`
	ToolInputRaw   *string          `json:"tool_input_raw"`
	Request        string           `json:"loopgate_request"`
	Format         string           `json:"loopgate_format"`
	Platform       string           `json:"loopgate_platform"`
	ToolUseID      string           `json:"tool_use_id"`
	// Gemini CLI: an MCP tool's server and own name (McpToolContext).
	MCPContext *struct {
		ToolName string `json:"tool_name"`
	} `json:"mcp_context"`
	ToolResponse jsonx.RawMessage `json:"tool_response"`
	ToolOutput   jsonx.RawMessage `json:"tool_output"`
	Error        jsonx.RawMessage `json:"error"`
	IsError      bool             `json:"is_error"`
	// ExitCode: a shell command's exit code where the result's text does
	// not hold it (the OpenCode plugin sends its metadata.exit). Raw: an
	// agent whose event has a member of that name in another shape must
	// not make the event unreadable (the hook fails open on one).
	ExitCode  jsonx.RawMessage `json:"exit_code"`
	Prompt    string           `json:"prompt"`
	Source    string           `json:"source"`
	AgentID   string           `json:"agent_id"`
	Timestamp string           `json:"timestamp"`
	TurnID    string           `json:"turn_id"`
	// Cursor
	ConversationID string           `json:"conversation_id"`
	Command        string           `json:"command"`
	Output         jsonx.RawMessage `json:"output"`
	ResultJSON     jsonx.RawMessage `json:"result_json"`
	// OpenHands
	EventType string `json:"event_type"`
	Message   string `json:"message"`
	// hermes
	Extra map[string]jsonx.RawMessage `json:"extra"`
	// Cline
	HookName      string     `json:"hookName"`
	TaskID        string     `json:"taskId"`
	ClineCall     *clineCall `json:"tool_call"`
	ClineResult   *clineCall `json:"tool_result"`
	ParentAgentID *string    `json:"parent_agent_id"`
	// Iteration is raw: the event of another agent may give the name
	// another type, which must not make the event unreadable.
	Iteration        jsonx.RawMessage `json:"iteration"`
	PreToolUseCline  *clineTool       `json:"preToolUse"`
	PostToolUseCline *clineTool       `json:"postToolUse"`
	UserPromptCline  *struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`

	// PromptUnknown: the simulation's hint that a prompt's text is not
	// known (its transcript's reader keeps none), for an agent that sends
	// no prompt event without text (Qwen Code: parseQwen).
	PromptUnknown bool `json:"loopgate_prompt_unknown"`
}

// clineCall is the call Cline CLI's runtime hooks name (tool_call,
// tool_result): its id.
type clineCall struct {
	ID    string           `json:"id"`
	Name  string           `json:"name"`
	Input jsonx.RawMessage `json:"input"`
}

type clineTool struct {
	ToolName   string           `json:"toolName"`
	Parameters jsonx.RawMessage `json:"parameters"`
	Result     string           `json:"result"`
	Success    *bool            `json:"success"`
}

// ParseEvent reads one hook event of the agent.
func (p *Protocol) ParseEvent(raw []byte) (Event, error) {
	var w wire
	if err := json.Unmarshal(bytes.TrimSpace(raw), &w); err != nil {
		return Event{}, fmt.Errorf("hook event is not a JSON object: %v", err)
	}
	ev := p.parse(&w)
	if len(ev.Input) == 0 && w.ToolInputRaw != nil {
		ev.Input, ev.RawInput = []byte(*w.ToolInputRaw), true
	}
	if ev.Request == "" {
		ev.Request = w.Request
	}
	ev.Format, ev.Platform = firstNonEmpty(w.Format, p.Format), w.Platform
	if w.PromptUnknown {
		ev.Prompt = ""
	}
	if ev.Time.IsZero() && w.Timestamp != "" {
		if t, err := parseTimestamp(w.Timestamp); err == nil {
			ev.Time = t.UTC()
		}
	}
	switch {
	case ev.Kind == KindOther:
	case ev.Session == "":
		return ev, fmt.Errorf("%s event %q has no session id", p.Agent, ev.Name)
	case (ev.Kind == KindPre || ev.Kind == KindPost) && ev.Tool == "":
		return ev, fmt.Errorf("%s event %q has no tool name", p.Agent, ev.Name)
	}
	return ev, nil
}

// resultText is a result as the model reads it: a JSON string is its
// text, anything else its compact JSON.
func resultText(raw jsonx.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	if v, err := jsonx.Parse(raw); err == nil {
		return v.String()
	}
	return string(raw)
}

func nonNull(raw jsonx.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null" && string(raw) != `""` && string(raw) != "false"
}

func emptyOr(raw []byte) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	return raw
}

// Claude Code (and Codex, whose hooks take Claude Code's shapes):
// https://docs.claude.com/en/docs/claude-code/hooks,
// https://developers.openai.com/codex/hooks.
func parseClaude(w *wire) Event {
	ev := Event{Name: w.HookEventName, Session: w.SessionID, Agent: w.AgentID, Tool: w.ToolName,
		Input: emptyOr(w.ToolInput), CallID: w.ToolUseID, Transcript: w.TranscriptPath, Source: w.Source, TurnID: w.TurnID}
	switch w.HookEventName {
	case "PreToolUse":
		ev.Kind = KindPre
	case "PostToolUse":
		ev.Kind = KindPost
		resp := bytes.TrimSpace(w.ToolResponse)
		if len(resp) == 0 {
			resp = bytes.TrimSpace(w.ToolOutput)
		}
		ev.Result, ev.IsError = resultText(resp), w.IsError
		if n, ok := exitCode(w.ExitCode); ok {
			ev.ExitCode = n
		}
		if len(resp) > 0 && resp[0] == '[' {
			ev.resultBlocks = resp
		}
	case "PostToolUseFailure":
		ev.Kind = KindPost
		ev.Result, ev.IsError = resultText(w.Error), true
	case "UserPromptSubmit":
		// The user's text: Claude Code's "prompt" (the hooks page above);
		// Codex sends the same member (the user-prompt-submit.command.input
		// schema in the codex 0.171.0 binary: prompt, turn_id, ...).
		ev.Kind, ev.Prompt = KindPrompt, w.Prompt
	case "SessionStart":
		ev.Kind = KindStart
		if w.Source == "compact" {
			ev.Kind = KindCompact
		}
	case "PreCompact":
		ev.Kind = KindCompact
	case "Stop", "SubagentStop":
		ev.Kind = KindStop
	}
	return ev
}

// preToolAnswer writes a PreToolUse answer's hookSpecificOutput members as
// Claude Code defines them, which Codex and Qwen Code read too: a deny
// with its reason, and context for the model.
func preToolAnswer(hso map[string]any, a Answer) {
	if a.Deny {
		hso["permissionDecision"] = "deny"
		hso["permissionDecisionReason"] = a.Reason
	}
	if a.Context != "" {
		hso["additionalContext"] = a.Context
	}
}

func replyClaude(ev *Event, a Answer) []byte {
	out := map[string]any{}
	hso := map[string]any{"hookEventName": ev.Name}
	switch ev.Kind {
	case KindPre:
		preToolAnswer(hso, a)
	case KindPost, KindPrompt:
		if a.Context != "" {
			hso["additionalContext"] = a.Context
		}
	}
	if len(hso) > 1 {
		out["hookSpecificOutput"] = hso
	}
	if a.Halt {
		out["continue"] = false
		out["stopReason"] = a.HaltReason
	}
	return marshalReply(out)
}

// replyCodex answers Codex, whose parser (openai/codex
// codex-rs/hooks/src/engine/output_parser.rs, parse_pre_tool_use at
// 0ea83813) marks a PreToolUse answer holding "continue": false,
// "stopReason" or "suppressOutput" invalid and drops all of it, the deny
// included: a PreToolUse answer is a deny with its reason and context,
// nothing else. Nothing a hook answers ends a Codex turn from within it: a
// PostToolUse "continue": false only puts its reason in place of the
// tool's output (codex-rs/core/src/tools/registry.rs at 0004ad15, the
// replacement_text of should_stop), and a Stop hook's "decision": "block"
// makes the turn go on. So a halt is a deny of the halting call and of
// every call after it in the turn, each with the halt's message, and a
// halt found after a call (from its result) is that message added to the
// model's context (additionalContext, which Codex records for the model),
// the result kept.
func replyCodex(ev *Event, a Answer) []byte {
	hso := map[string]any{"hookEventName": ev.Name}
	switch ev.Kind {
	case KindPre:
		preToolAnswer(hso, a)
	case KindPost:
		ctx := a.Context
		if a.Halt {
			ctx = joinContext(ctx, a.HaltReason)
		}
		if ctx != "" {
			hso["additionalContext"] = ctx
		}
	case KindPrompt:
		if a.Context != "" {
			hso["additionalContext"] = a.Context
		}
	}
	if len(hso) == 1 {
		return nil
	}
	return marshalReply(map[string]any{"hookSpecificOutput": hso})
}

// Gemini CLI: https://geminicli.com/docs/hooks/reference (BeforeTool,
// AfterTool, BeforeAgent; no call ids: a result goes to the latest call of
// its tool still running).
func parseGemini(w *wire) Event {
	ev := Event{Name: w.HookEventName, Session: w.SessionID, Tool: w.ToolName,
		Input: emptyOr(w.ToolInput), CallID: w.ToolUseID, Transcript: w.TranscriptPath, Source: w.Source}
	if w.MCPContext != nil {
		// BeforeTool and AfterTool of an MCP tool (extractMcpContext,
		// packages/core/src/core/coreToolHookTriggers.ts at 5411f113):
		// its tool_name is the server's own name of the tool.
		ev.MCPTool = w.MCPContext.ToolName
	}
	switch w.HookEventName {
	case "BeforeTool":
		ev.Kind = KindPre
	case "AfterTool":
		ev.Kind = KindPost
		var r struct {
			LLMContent jsonx.RawMessage `json:"llmContent"`
			Error      jsonx.RawMessage `json:"error"`
		}
		if json.Unmarshal(w.ToolResponse, &r) == nil && len(r.LLMContent) > 0 {
			ev.Result, ev.IsError = resultText(r.LLMContent), nonNull(r.Error)
		} else {
			ev.Result = resultText(w.ToolResponse)
		}
	case "BeforeAgent":
		// Its "prompt" is the request's text (Gemini CLI 0.61.0:
		// GeminiClient.fireBeforeAgentHookSafe passes partToString of the
		// user's request to fireBeforeAgentEvent, bundle chunk-5FZXKDXH.js),
		// once per prompt id.
		ev.Kind, ev.Prompt = KindPrompt, w.Prompt
	case "SessionStart":
		ev.Kind = KindStart
	case "PreCompress":
		// Not a compaction: Gemini CLI 0.61.0 fires PreCompress before
		// every model request, before it checks whether the history is
		// long enough to compress (ChatCompressionService.compress calls
		// firePreCompressEvent first, packages/core/src/services/
		// chatCompressionService.ts; found by the agent lab), so it says
		// nothing of a compression that happened.
		ev.Kind = KindOther
	case "AfterAgent":
		ev.Kind = KindStop
	}
	return ev
}

func replyGemini(ev *Event, a Answer) []byte {
	out := map[string]any{}
	if a.Deny {
		out["decision"] = "deny"
		out["reason"] = a.Reason
	}
	if a.Context != "" && (ev.Kind == KindPost || ev.Kind == KindPrompt) {
		out["hookSpecificOutput"] = map[string]any{"hookEventName": ev.Name, "additionalContext": a.Context}
	}
	if a.Halt {
		out["continue"] = false
		out["stopReason"] = a.HaltReason
	}
	return marshalReply(out)
}

// hermes-agent shell hooks (NousResearch/hermes-agent agent/shell_hooks.py
// at 00067189: stdin {hook_event_name, tool_name, tool_input, session_id,
// cwd, profile, extra}, every keyword of the hook call that is not a
// top-level member landing in extra). The members of each event are those
// of website/docs/user-guide/features/hooks.md at 006a5aeb ("Shipped
// plugin-hook catalog"): pre_tool_call has task_id, tool_call_id,
// turn_id, api_request_id; post_tool_call adds result, duration_ms,
// status, error_type, error_message, and is an observer (its answer is
// ignored); pre_llm_call runs once per turn before the loop, with
// turn_id, user_message and is_first_turn, and its {"context": ...}
// answers are "joined and injected into the user message".
func parseHermes(w *wire) Event {
	ev := Event{Name: w.HookEventName, Session: w.SessionID, Tool: w.ToolName, Input: emptyOr(w.ToolInput)}
	str := func(k string) string {
		var s string
		if raw, ok := w.Extra[k]; ok && json.Unmarshal(raw, &s) != nil {
			s = resultText(raw)
		}
		return s
	}
	ev.CallID = str("tool_call_id")
	ev.TurnID = str("turn_id")
	if ev.Session == "" {
		ev.Session = str("session_id")
	}
	switch w.HookEventName {
	case "pre_tool_call":
		ev.Kind = KindPre
	case "post_tool_call":
		ev.Kind = KindPost
		ev.Result = str("result")
		ev.IsError = hermesFailed(str("status"), str("error_type"), str("error_message"))
	case "pre_llm_call":
		ev.Kind, ev.Prompt = KindPrompt, str("user_message")
	case "on_session_start":
		ev.Kind = KindStart
	}
	return ev
}

// hermesFailed reads post_tool_call's outcome: an error type or message,
// or a status other than success ("blocked" is a call a hook stopped,
// which the guard already knows as stopped).
func hermesFailed(status, errType, errMsg string) bool {
	if errType != "" || errMsg != "" {
		return true
	}
	switch strings.ToLower(status) {
	case "", "ok", "success", "completed", "blocked":
		return false
	}
	return true
}

// replyHermes: pre_tool_call blocks with {"decision": "block", "reason"}
// (shell_hooks.py _parse_pre_tool_call, the Claude Code dialect); only
// pre_llm_call's context reaches the model, at the start of the next turn
// (the protocol is Deferred); post_tool_call's answer is ignored.
func replyHermes(ev *Event, a Answer) []byte {
	return replyDeferred(ev, a, "block", "context")
}

// replyDeferred answers a Deferred protocol (hermes, OpenHands): a deny or
// halt answers the PreToolUse with {"decision": block, "reason"}, and a
// steer waits for the next prompt, whose answer carries it under
// contextKey; nothing else reaches the model.
func replyDeferred(ev *Event, a Answer, block, contextKey string) []byte {
	out := map[string]any{}
	switch ev.Kind {
	case KindPre:
		if a.Deny || a.Halt {
			out["decision"] = block
			out["reason"] = firstNonEmpty(a.Reason, a.HaltReason)
		}
	case KindPrompt:
		if a.Context != "" {
			out[contextKey] = a.Context
		}
	}
	return marshalReply(out)
}

// OpenHands (OpenHands/software-agent-sdk 1.43.1, commit 611629e6,
// openhands-sdk/openhands/sdk/hooks): types.py's HookEvent {event_type,
// tool_name, tool_input, tool_response, message, session_id, working_dir,
// metadata} on stdin, where tool_input is the action's model_dump() and
// tool_response the observation's (conversation_hooks.py); no call id.
// executor.py reads {"decision", "reason", "additionalContext",
// "continue"}; what each event does with it (conversation_hooks.py):
// PreToolUse blocks on a deny or "continue": false (the reason goes to the
// model with the rejection) and ignores additionalContext; PostToolUse's
// answer is only logged; UserPromptSubmit appends additionalContext to the
// user's message. So a steer waits for the next prompt (Deferred), and a
// halt is a deny of each call left in the turn.
func parseOpenHands(w *wire) Event {
	name := firstNonEmpty(w.EventType, w.HookEventName)
	ev := Event{Name: name, Session: w.SessionID, Tool: w.ToolName, Input: emptyOr(w.ToolInput)}
	switch name {
	case "PreToolUse":
		ev.Kind = KindPre
	case "PostToolUse":
		ev.Kind = KindPost
		var r struct {
			Content jsonx.RawMessage `json:"content"`
			Text    jsonx.RawMessage `json:"text"`
			IsError bool             `json:"is_error"`
			Error   jsonx.RawMessage `json:"error"`
			// ExitCode is a terminal command's (TerminalObservation):
			// is_error stays false for a command that ran and failed,
			// which the v1 reader reads as a failure.
			ExitCode jsonx.RawMessage `json:"exit_code"`
		}
		ev.Result = resultText(w.ToolResponse)
		if json.Unmarshal(w.ToolResponse, &r) == nil {
			if len(r.Content) > 0 {
				ev.Result = resultText(r.Content)
				if c := bytes.TrimSpace(r.Content); len(c) > 0 && c[0] == '[' {
					ev.resultBlocks = c
				}
			} else if len(r.Text) > 0 {
				ev.Result = resultText(r.Text)
			}
			ev.IsError = r.IsError || nonNull(r.Error)
			if n, ok := exitCode(r.ExitCode); ok {
				ev.ExitCode = n
				ev.IsError = ev.IsError || n != 0
			}
		}
	case "UserPromptSubmit":
		// The user's message is HookEvent.message (types.py).
		ev.Kind, ev.Prompt = KindPrompt, w.Message
	case "SessionStart":
		ev.Kind = KindStart
	case "Stop":
		ev.Kind = KindStop
	}
	return ev
}

func replyOpenHands(ev *Event, a Answer) []byte {
	return replyDeferred(ev, a, "deny", "additionalContext")
}

// Cursor (https://cursor.com/docs/agent/hooks): preToolUse/postToolUse for
// every tool, and the older beforeShellExecution/beforeMCPExecution pairs;
// answers {"permission", "agent_message", "user_message"} before a call and
// {"additional_context"} after it.
func parseCursor(w *wire) Event {
	ev := Event{Name: w.HookEventName, Session: firstNonEmpty(w.ConversationID, w.SessionID), Tool: w.ToolName,
		Input: emptyOr(w.ToolInput), CallID: w.ToolUseID}
	shell := func() {
		ev.Tool = "Shell"
		ev.Input = []byte(`{"command":` + jsonx.Quote(w.Command) + `}`)
	}
	if len(ev.Input) > 0 && ev.Input[0] == '"' {
		// beforeMCPExecution gives the arguments as a JSON string.
		var s string
		if json.Unmarshal(ev.Input, &s) == nil && jsonx.Valid([]byte(s)) {
			ev.Input = []byte(s)
		}
	}
	switch w.HookEventName {
	case "preToolUse", "beforeMCPExecution":
		ev.Kind = KindPre
	case "beforeShellExecution":
		ev.Kind = KindPre
		shell()
	case "postToolUse", "afterMCPExecution":
		ev.Kind = KindPost
		ev.Result = resultText(firstRaw(w.ToolOutput, w.ResultJSON, w.ToolResponse))
	case "postToolUseFailure":
		ev.Kind = KindPost
		ev.Result, ev.IsError = resultText(firstRaw(w.Error, w.ToolOutput)), true
	case "afterShellExecution":
		ev.Kind = KindPost
		shell()
		ev.Result = resultText(w.Output)
	case "beforeSubmitPrompt":
		// {prompt, attachments} (the hooks page above).
		ev.Kind, ev.Prompt = KindPrompt, w.Prompt
	case "sessionStart":
		ev.Kind = KindStart
	case "preCompact":
		ev.Kind = KindCompact
	case "stop":
		ev.Kind = KindStop
	}
	return ev
}

func replyCursor(ev *Event, a Answer) []byte {
	out := map[string]any{}
	switch ev.Kind {
	case KindPre:
		out["permission"] = "allow"
		if a.Deny || a.Halt {
			msg := firstNonEmpty(a.Reason, a.HaltReason)
			out["permission"] = "deny"
			out["agent_message"] = msg
			out["user_message"] = "loopgate: " + msg
		}
	case KindPost:
		if a.Context != "" {
			out["additional_context"] = a.Context
		}
	case KindPrompt:
		out["continue"] = true
	}
	return marshalReply(out)
}

// Cline (.clinerules/hooks/README.md): an executable per event, JSON with
// hookName, taskId and the event's member on stdin; {"cancel",
// "contextModification", "errorMessage"} on stdout. What Cline does with
// the answer (cline/cline apps/vscode/src/sdk/hooks-adapter.ts at
// 21cb8d25, mapStopControl): "cancel": true stops the task's run, with
// errorMessage (else contextModification) as the reason, and a cancelling
// answer's contextModification is never added as context; without
// cancel, contextModification is added to the conversation as a
// <hook_context> block, before the call (PreToolUse) or after it
// (PostToolUse). There is no per-call deny: a block, a dedup and a halt all
// cancel the run, the only answer that keeps the call from running. The
// tool's parameters come as strings (toStringRecord: a value that is not a
// string is its JSON), so an argument that is an object or a number reads
// as its JSON text in the hook.
func parseCline(w *wire) Event {
	ev := Event{Name: w.HookName, Session: w.TaskID}
	if w.ParentAgentID != nil && *w.ParentAgentID != "" {
		// A subagent's events name it, and the agent that started it.
		ev.Agent = w.AgentID
	}
	// The hook files' names (PreToolUse, ...) are what the VS Code
	// extension sends as hookName; the CLI (@cline/core 3.0.65,
	// dist/index.js) sends its runtime hook's name (tool_call, ...), and
	// the call's id in tool_call / tool_result.
	switch w.HookName {
	case "PreToolUse", "tool_call":
		ev.Kind = KindPre
		if t := w.PreToolUseCline; t != nil {
			ev.Tool, ev.Input = t.ToolName, emptyOr(t.Parameters)
		}
		if c := w.ClineCall; c != nil {
			// The CLI's tool_call carries the input as the model gave it
			// (preToolUse.parameters has every value as a string).
			ev.CallID = c.ID
			if n, err := strconv.Atoi(string(w.Iteration)); err == nil && n > 0 {
				ev.RunIteration = n
			}
			if len(emptyOr(c.Input)) > 0 {
				ev.Tool, ev.Input = firstNonEmpty(c.Name, ev.Tool), emptyOr(c.Input)
			}
		}
	case "PostToolUse", "tool_result":
		ev.Kind = KindPost
		if t := w.PostToolUseCline; t != nil {
			ev.Tool, ev.Input, ev.Result = t.ToolName, emptyOr(t.Parameters), t.Result
			ev.IsError = t.Success != nil && !*t.Success
			ev.outcomes = true
		}
		if c := w.ClineResult; c != nil {
			ev.CallID = c.ID
			if len(emptyOr(c.Input)) > 0 {
				ev.Tool, ev.Input = firstNonEmpty(c.Name, ev.Tool), emptyOr(c.Input)
			}
		}
	case "UserPromptSubmit", "prompt_submit":
		// Both send the text as userPromptSubmit.prompt (the CLI's too:
		// @cline/core 3.0.65 dist, {prompt: the user's message,
		// attachments}); TaskStart's taskMetadata holds none in the CLI.
		ev.Kind = KindPrompt
		if w.UserPromptCline != nil {
			ev.Prompt = w.UserPromptCline.Prompt
		}
	case "TaskResume", "agent_resume":
		// A resumed task is a message of unknown text: the hook's state
		// holds what the task saw before it stopped, and nothing says what
		// changed since (Cline's readers keep no text for the resumption
		// message either, "the project state may have changed", so replay
		// clears everything there too). The CLI 3.0.65 resumes a session
		// with --id, and its run then starts with agent_resume, for the
		// TaskResume files (the binary's bundled entry:
		// CLINE_HOOK_AGENT_RESUME, taskResume{taskMetadata,
		// previousState}).
		ev.Kind = KindPrompt
	case "agent_start":
		// The CLI runs its TaskStart file once per prompt, with no text
		// (taskStart{taskMetadata: {}}), and in the lab's runs of CLI
		// 3.0.65 (--json, and --acp with several prompts in one session)
		// never its UserPromptSubmit file (docs/lab.md, "Later user
		// turns"): this is the only sign of a user's message the hook
		// gets, so it is one of unknown text, which clears everything.
		// Reading it as a start would let a prompt that names a file the
		// user changed go unseen, and the hook answer a read of it from
		// before. The cline-cli reader reads the turns so too (live =
		// replay).
		ev.Kind = KindPrompt
	case "TaskStart":
		ev.Kind = KindStart
	case "PreCompact":
		ev.Kind = KindCompact
	}
	return ev
}

func replyCline(ev *Event, a Answer) []byte {
	out := map[string]any{"cancel": a.Deny || a.Halt}
	if a.Deny || a.Halt {
		out["errorMessage"] = firstNonEmpty(a.Reason, a.HaltReason)
	}
	ctx := a.Context
	if a.Deny {
		// The model learns why through the context, as the error message
		// is shown to the user.
		ctx = strings.TrimSpace(a.Reason + "\n\n" + ctx)
	}
	if ctx != "" {
		out["contextModification"] = ctx
	}
	return marshalReply(out)
}

// The plugin protocol: the OpenCode plugin and the pi extension that
// loopgate ships (live/plugins) send Claude Code's event shapes
// (PreToolUse, PostToolUse with tool_response and is_error,
// UserPromptSubmit) and act on one answer, {"block", "reason", "context",
// "halt", "halt_reason"}: block throws (OpenCode's tool.execute.before) or
// returns {block, reason} (pi's tool_call); context is appended to the
// tool's output after a call, or added to the prompt's message; halt
// aborts the agent's run (OpenCode's session.abort, pi's ctx.abort()).
func parsePlugin(w *wire) Event { return parseClaude(w) }

func replyPlugin(ev *Event, a Answer) []byte {
	out := map[string]any{}
	if ev.Kind == KindPre && (a.Deny || a.Halt) {
		out["block"] = true
		out["reason"] = firstNonEmpty(a.Reason, a.HaltReason)
	}
	if a.Context != "" {
		out["context"] = a.Context
	}
	if a.Halt {
		out["halt"] = true
		out["halt_reason"] = a.HaltReason
	}
	return marshalReply(out)
}

func marshalReply(out map[string]any) []byte {
	if len(out) == 0 {
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func firstRaw(r ...jsonx.RawMessage) jsonx.RawMessage {
	for _, x := range r {
		if len(bytes.TrimSpace(x)) > 0 {
			return x
		}
	}
	return nil
}

// exitCode reads an event's exit_code member: a whole number, or nothing
// (absent, null, or another shape, which leaves the event readable).
func exitCode(raw jsonx.RawMessage) (int, bool) {
	n, err := strconv.Atoi(string(bytes.TrimSpace(raw)))
	return n, err == nil
}
