package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
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
	// Input is the tool's arguments as JSON (nil when absent); RawInput
	// says they are text that is not JSON.
	Input    []byte
	RawInput bool
	CallID   string
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
	// Source of a session start (Claude Code: startup, resume, clear,
	// compact).
	Source     string
	Transcript string
	// Time the event gives, if any.
	Time time.Time
	// resultBlocks is a result given as a list of content blocks, for
	// Config.ContentText.
	resultBlocks []byte
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
	parse      func(w *wire) Event
	reply      func(ev *Event, a Answer) []byte
}

// Protocols are the agents loopgate hooks into, by --agent name.
var Protocols = map[string]*Protocol{
	"claude-code": {Agent: "claude-code", Format: "claude-code", PreContext: true, parse: parseClaude, reply: replyClaude},
	"codex":       {Agent: "codex", PreContext: true, parse: parseClaude, reply: replyClaude},
	"gemini":      {Agent: "gemini", parse: parseGemini, reply: replyGemini},
	"hermes":      {Agent: "hermes", parse: parseHermes, reply: replyHermes},
	"openhands":   {Agent: "openhands", parse: parseOpenHands, reply: replyOpenHands},
	"cursor":      {Agent: "cursor", parse: parseCursor, reply: replyCursor},
	"cline":       {Agent: "cline", PreContext: true, parse: parseCline, reply: replyCline},
}

// AgentNames lists the agents, sorted.
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
	ToolResponse   jsonx.RawMessage `json:"tool_response"`
	ToolOutput     jsonx.RawMessage `json:"tool_output"`
	Error          jsonx.RawMessage `json:"error"`
	IsError        bool             `json:"is_error"`
	Prompt         string           `json:"prompt"`
	Source         string           `json:"source"`
	AgentID        string           `json:"agent_id"`
	Timestamp      string           `json:"timestamp"`
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
	HookName         string     `json:"hookName"`
	TaskID           string     `json:"taskId"`
	PreToolUseCline  *clineTool `json:"preToolUse"`
	PostToolUseCline *clineTool `json:"postToolUse"`
	UserPromptCline  *struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
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
		Input: emptyOr(w.ToolInput), CallID: w.ToolUseID, Transcript: w.TranscriptPath, Source: w.Source}
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
		if len(resp) > 0 && resp[0] == '[' {
			ev.resultBlocks = resp
		}
	case "PostToolUseFailure":
		ev.Kind = KindPost
		ev.Result, ev.IsError = resultText(w.Error), true
	case "UserPromptSubmit":
		ev.Kind = KindPrompt
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

func replyClaude(ev *Event, a Answer) []byte {
	out := map[string]any{}
	hso := map[string]any{"hookEventName": ev.Name}
	switch ev.Kind {
	case KindPre:
		if a.Deny {
			hso["permissionDecision"] = "deny"
			hso["permissionDecisionReason"] = a.Reason
		}
		if a.Context != "" {
			hso["additionalContext"] = a.Context
		}
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

// Gemini CLI: https://geminicli.com/docs/hooks/reference (BeforeTool,
// AfterTool, BeforeAgent; no call ids: a result goes to the latest call of
// its tool still running).
func parseGemini(w *wire) Event {
	ev := Event{Name: w.HookEventName, Session: w.SessionID, Tool: w.ToolName,
		Input: emptyOr(w.ToolInput), CallID: w.ToolUseID, Transcript: w.TranscriptPath, Source: w.Source}
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
		ev.Kind = KindPrompt
	case "SessionStart":
		ev.Kind = KindStart
	case "PreCompress":
		ev.Kind = KindCompact
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

// hermes-agent shell hooks (hooks: in ~/.hermes/config.yaml; agent/
// shell_hooks.py): pre_tool_call may block with {"decision": "block",
// "reason": ...}; the result of a call and its id come in "extra".
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
	if ev.Session == "" {
		ev.Session = str("session_id")
	}
	switch w.HookEventName {
	case "pre_tool_call":
		ev.Kind = KindPre
	case "post_tool_call":
		ev.Kind = KindPost
		ev.Result = str("result")
		ev.IsError = nonNull(w.Extra["error"])
	case "on_session_start":
		ev.Kind = KindStart
	}
	return ev
}

func replyHermes(ev *Event, a Answer) []byte {
	out := map[string]any{}
	if a.Deny || a.Halt {
		out["decision"] = "block"
		out["reason"] = firstNonEmpty(a.Reason, a.HaltReason)
	}
	if a.Context != "" && ev.Kind != KindPre {
		out["context"] = a.Context
	}
	return marshalReply(out)
}

// OpenHands (openhands-sdk/openhands/sdk/hooks: HookEvent on stdin,
// {"decision", "reason", "additionalContext", "continue"} on stdout; no call
// ids).
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
		}
		ev.Result = resultText(w.ToolResponse)
		if json.Unmarshal(w.ToolResponse, &r) == nil {
			if len(r.Content) > 0 {
				ev.Result = resultText(r.Content)
			} else if len(r.Text) > 0 {
				ev.Result = resultText(r.Text)
			}
			ev.IsError = r.IsError || nonNull(r.Error)
		}
	case "UserPromptSubmit":
		ev.Kind = KindPrompt
	case "SessionStart":
		ev.Kind = KindStart
	case "Stop":
		ev.Kind = KindStop
	}
	return ev
}

func replyOpenHands(ev *Event, a Answer) []byte {
	out := map[string]any{}
	if a.Deny {
		out["decision"] = "deny"
		out["reason"] = a.Reason
	}
	if a.Context != "" {
		out["additionalContext"] = a.Context
	}
	if a.Halt {
		out["continue"] = false
		out["reason"] = firstNonEmpty(a.Reason, a.HaltReason)
	}
	return marshalReply(out)
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
		ev.Kind = KindPrompt
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
// "contextModification", "errorMessage"} on stdout.
func parseCline(w *wire) Event {
	ev := Event{Name: w.HookName, Session: w.TaskID}
	switch w.HookName {
	case "PreToolUse":
		ev.Kind = KindPre
		if t := w.PreToolUseCline; t != nil {
			ev.Tool, ev.Input = t.ToolName, emptyOr(t.Parameters)
		}
	case "PostToolUse":
		ev.Kind = KindPost
		if t := w.PostToolUseCline; t != nil {
			ev.Tool, ev.Input, ev.Result = t.ToolName, emptyOr(t.Parameters), t.Result
			ev.IsError = t.Success != nil && !*t.Success
		}
	case "UserPromptSubmit":
		ev.Kind = KindPrompt
	case "TaskStart", "TaskResume":
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
