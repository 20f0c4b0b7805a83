package ingest

// GitHub Copilot CLI session logs: ~/.copilot/session-state/<session id>/
// events.jsonl, one session event per line {type, data, id, parentId,
// timestamp, agentId?}, the events the Copilot SDK documents
// (github/copilot-sdk, nodejs/src/generated/session-events.ts; ephemeral
// events such as assistant.usage and deltas are not written to disk).
// Docs: docs/formats/copilot.md.
//
// Readings taken:
//   - user.message opens a turn; assistant.message is a request (chunks of
//     one model call share data.apiCallId and are one request), its
//     data.toolRequests the calls; tool.execution_complete gives the result
//     of data.toolCallId (result.content, or error.message when success is
//     false: an error).
//   - Events with an agentId come from a sub-agent: each sub-agent is a
//     session of its own (agent = agentId, parent = the session id). The
//     events of a task-tool sub-agent carry data.parentToolCallId (the
//     main agent's call that started it; session-events.ts marks it
//     deprecated in favour of agentId, and builds still write it): without
//     an agentId, that call id names the sub-agent.
//   - session.compaction_complete marks the scope's next turn as compacted.
//   - No per-request usage is on disk (assistant.usage is ephemeral); the
//     assistant message's outputTokens alone is not kept as usage. The
//     session's totals are: session.shutdown's data.tokenDetails
//     ({input, output, cache_read, cache_write}: {tokenCount}, "session-wide
//     per-token-type accumulated token counts", ShutdownData in
//     session-events.ts, github/copilot-sdk at cc0438d), sub-agents
//     included; they go on the main agent's last request (copilotTotals).
//   - Event types that carry nothing of the conversation (session
//     metadata, intents, hooks, ...) are read and left; a note counts
//     events of types this reader does not know.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatCopilot = "copilot-cli"

func init() {
	register(&Format{
		ID:        formatCopilot,
		Text:      true,
		Family:    "copilot",
		Reads:     "GitHub Copilot CLI session events `~/.copilot/session-state/<id>/events.jsonl`.",
		Detection: "First record has `type`, `data`, `id`, `parentId` and `timestamp`, its type a Copilot event (`session.*`, `user.*`, `assistant.*`, `tool.*`).",
		Priority:  29,
		Sniff: func(h *Head) bool {
			if h.Array || !h.Has("type", "data", "id", "parentId", "timestamp") {
				return false
			}
			t := h.String("type")
			for _, p := range []string{"session.", "user.", "assistant.", "tool."} {
				if strings.HasPrefix(t, p) {
					return true
				}
			}
			return false
		},
		ParseLines: parseCopilot,
	})
}

type copilotEvent struct {
	Type      string           `json:"type"`
	Data      jsonx.RawMessage `json:"data"`
	Timestamp string           `json:"timestamp"`
	AgentID   string           `json:"agentId"`
}

type copilotData struct {
	SessionID        string `json:"sessionId"`
	ParentToolCallID string `json:"parentToolCallId"`
	TokenDetails     map[string]struct {
		TokenCount int64 `json:"tokenCount"`
	} `json:"tokenDetails"`
	SelectedModel string `json:"selectedModel"`
	Content       string `json:"content"`
	// TransformedContent is the text the CLI made of a user.message for
	// the model (copilotNudge).
	TransformedContent string `json:"transformedContent"`
	// Attachments of a user.message: the files the user attached
	// ({"type": "file", "path", "displayName"}, seen in real events.jsonl).
	Attachments []struct {
		Path string `json:"path"`
	} `json:"attachments"`
	ReasoningText string `json:"reasoningText"`
	APICallID     string `json:"apiCallId"`
	Model         string `json:"model"`
	ToolRequests  []struct {
		ToolCallID string           `json:"toolCallId"`
		Name       string           `json:"name"`
		Arguments  jsonx.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID string `json:"toolCallId"`
	Success    *bool  `json:"success"`
	Result     *struct {
		Content string `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// copilotQuiet are event types that carry nothing a replay reads.
var copilotQuiet = map[string]bool{
	"session.start": true, "session.resume": true, "session.idle": true, "session.info": true,
	"session.warning": true, "session.error": true, "session.model_change": true, "session.mode_changed": true,
	"session.title_changed": true, "session.plan_changed": true, "session.todos_changed": true,
	"session.workspace_file_changed": true, "session.handoff": true, "session.truncation": true,
	"session.snapshot_rewind": true, "session.shutdown": true, "session.usage_checkpoint": true,
	"session.context_changed": true, "session.usage_info": true, "session.context_cleared": true,
	"session.compaction_start": true, "session.task_complete": true, "session.permissions_changed": true,
	"session.session_limits_changed": true, "session.remote_steerable_changed": true,
	"session.schedule_created": true, "session.schedule_cancelled": true, "session.schedule_rearmed": true,
	"session.autopilot_objective_changed": true, "pending_messages.modified": true,
	"assistant.turn_start": true, "assistant.turn_end": true, "assistant.intent": true,
	"assistant.reasoning": true, "assistant.message_start": true, "assistant.idle": true,
	"assistant.server_tool_progress": true, "model.call_failure": true, "abort": true,
	"tool.user_requested": true, "tool.execution_start": true, "tool.execution_progress": true,
	"tool_search.activated": true, "skill.invoked": true, "subagent.started": true, "subagent.completed": true,
}

type copilotScope struct {
	b       *convBuilder
	s       *Session
	lastAPI string // apiCallId of the last request
}

func parseCopilot(lr *LineReader, h *Head, out *Sink) {
	mainID := parentDirName(h.Path)
	if mainID == "" {
		mainID = fileStem(h.Name)
	}
	scopes := map[string]*copilotScope{}
	var order []string
	scope := func(agent string, line int) *copilotScope {
		if sc, ok := scopes[agent]; ok {
			return sc
		}
		s := &Session{Format: formatCopilot, ID: mainID, Line: line}
		if agent != "" {
			s.Agent, s.Parent = agent, mainID
		}
		sc := &copilotScope{b: newConvBuilder(s, out), s: s}
		if agent != "" {
			sc.b.where = "sub-agent " + agent + ": "
		}
		scopes[agent] = sc
		order = append(order, agent)
		return sc
	}
	unknown := map[string]int{}
	model := ""
	var totals *Usage // the latest session.shutdown's token totals
	eachJSONLine(lr, h, out, func(line []byte, n int) {
		var e copilotEvent
		var d copilotData
		if err := jsonx.Unmarshal(line, &e); err != nil {
			out.Problemf(n, "not a Copilot session event: %s; skipped", decodeErr(err))
			return
		}
		if len(e.Data) > 0 {
			if err := jsonx.Unmarshal(e.Data, &d); err != nil {
				out.Problemf(n, "%s event: data of an unexpected shape (%s); skipped", e.Type, decodeErr(err))
				return
			}
		}
		t := isoTime(e.Timestamp)
		if e.AgentID == "" {
			e.AgentID = d.ParentToolCallID
		}
		switch e.Type {
		case "session.start":
			if d.SessionID != "" {
				mainID = d.SessionID
				for _, sc := range scopes {
					if sc.s.Agent == "main" || sc.s.Agent == "" {
						sc.s.ID = mainID
					} else {
						sc.s.ID, sc.s.Parent = mainID, mainID
					}
				}
			}
			model = d.SelectedModel
			scope(e.AgentID, n)
		case "user.message":
			sc := scope(e.AgentID, n)
			if copilotNudge(&d) && len(sc.s.Turns) > 0 {
				// The CLI's own message in autopilot, which nobody typed:
				// heard where it stands, as a user's message is, but no turn.
				sc.b.notice(n, t, "")
				sc.lastAPI = ""
				break
			}
			sc.b.turn(n, t, len(d.Content))
			keepUserText(sc.s, copilotUserText(&d))
			sc.lastAPI = ""
		case "assistant.message":
			sc := scope(e.AgentID, n)
			if sc.s.Model == "" {
				sc.s.Model = d.Model
			}
			if d.APICallID == "" || d.APICallID != sc.lastAPI || len(sc.s.Turns) == 0 {
				sc.b.request(n, t, len(d.Content)+len(d.ReasoningText), nil)
			} else {
				rq := sc.b.lastRequest()
				rq.TextChars += len(d.Content) + len(d.ReasoningText)
			}
			sc.b.text(d.Content)
			sc.lastAPI = d.APICallID
			for _, tr := range d.ToolRequests {
				c := Call{ID: tr.ToolCallID, Tool: tr.Name, Time: t, Line: n}
				c.SetArgsField(tr.Arguments)
				sc.b.call(c)
			}
		case "tool.execution_complete":
			sc := scope(e.AgentID, n)
			text := ""
			if d.Result != nil {
				text = d.Result.Content
			}
			failed := d.Success != nil && !*d.Success
			if failed && d.Error != nil && text == "" {
				text = d.Error.Message
			}
			sc.b.result(d.ToolCallID, "", text, failed, n, t)
		case "session.compaction_complete":
			scope(e.AgentID, n).b.compaction()
		case "session.shutdown":
			totals = copilotTotals(totals, d.TokenDetails)
		default:
			if !copilotQuiet[e.Type] && !strings.HasSuffix(e.Type, "_delta") && !strings.HasSuffix(e.Type, "partial_result") {
				unknown[e.Type]++
			}
		}
	})
	if len(order) == 0 {
		out.Problemf(h.Line, "no Copilot session events in this file")
		return
	}
	for _, agent := range order {
		sc := scopes[agent]
		if sc.s.Model == "" {
			sc.s.Model = model
		}
		sc.b.finish()
		if agent == "" && totals != nil {
			if rq := lastRequestOf(sc.s); rq != nil && rq.Usage == nil {
				rq.Usage = totals
				sc.s.Notes = append(sc.s.Notes, "token usage is the session's total (session.shutdown tokenDetails, sub-agents included), put on its last request")
			} else {
				sc.s.Notes = append(sc.s.Notes, "session.shutdown's token totals not kept: the session has no request to put them on")
			}
		}
		if agent == "" && len(unknown) > 0 {
			types := make([]string, 0, len(unknown))
			for k, v := range unknown {
				types = append(types, fmt.Sprintf("%s (%d)", k, v))
			}
			sort.Strings(types)
			sc.s.Notes = append(sc.s.Notes, "events of types this reader does not know, not read: "+strings.Join(types, ", "))
		}
		out.Session(sc.s)
	}
}

// copilotTotals reads session.shutdown's tokenDetails as usage. The counts
// accumulate over the session, resumptions included (session.usage_checkpoint
// carries them across a restart), so the latest shutdown's totals replace
// the earlier ones; totals that went down started again from zero and are
// added. The SDK does not say whether "input" holds the cached tokens:
// it is read as OpenAI's prompt_tokens (the API Copilot's models are
// reached through), which do.
func copilotTotals(prev *Usage, details map[string]struct {
	TokenCount int64 `json:"tokenCount"`
}) *Usage {
	if len(details) == 0 {
		return prev
	}
	u := &Usage{Input: details["input"].TokenCount, Output: details["output"].TokenCount,
		CacheRead: details["cache_read"].TokenCount, CacheWrite: details["cache_write"].TokenCount}
	if prev != nil && (u.Input < prev.Input || u.Output < prev.Output) {
		u.Input, u.Output = SaturatingAdd(u.Input, prev.Input), SaturatingAdd(u.Output, prev.Output)
		u.CacheRead, u.CacheWrite = SaturatingAdd(u.CacheRead, prev.CacheRead), SaturatingAdd(u.CacheWrite, prev.CacheWrite)
	}
	return u
}

// lastRequestOf is the last request of a session, nil when it has none.
func lastRequestOf(s *Session) *Request {
	for ti := len(s.Turns) - 1; ti >= 0; ti-- {
		if rs := s.Turns[ti].Requests; len(rs) > 0 {
			return &rs[len(rs)-1]
		}
	}
	return nil
}

// copilotNudge reports whether a user.message is the CLI's own: in
// autopilot, when the model stops before calling task_complete, Copilot CLI
// puts a message in the conversation with nothing typed (empty content, no
// attachment) and the text the model reads in transformedContent ("You have
// not yet marked the task as complete using the task_complete tool...",
// real events.jsonl of CLI 1.0.10).
func copilotNudge(d *copilotData) bool {
	return strings.TrimSpace(d.Content) == "" && len(d.Attachments) == 0 && strings.TrimSpace(d.TransformedContent) != ""
}

// copilotUserText is a user.message's text: its content (the prompt as
// typed; the event's transformedContent, the text the CLI made of it for
// the model, is not read) and the paths of the files attached.
func copilotUserText(d *copilotData) string {
	text := d.Content
	for _, a := range d.Attachments {
		if a.Path != "" {
			text += "\n" + a.Path
		}
	}
	return text
}
