package ingest

// GitHub Copilot CLI's older session files:
// ~/.copilot/history-session-state/session_<session id>_<ms>.json, one
// JSON document per session, written by the CLI before its session-state/
// event logs (copilot.go). Docs: docs/formats/copilot.md. No public source
// documents the file (the CLI's own code is not published); the reading
// follows real files of October 2025:
//
//   - chatMessages holds the conversation as OpenAI chat messages: a
//     `user` message opens a turn, an `assistant` message is a request (its
//     content the text, its tool_calls the calls: function.name and the
//     arguments as JSON text), a `tool` message (tool_call_id, content) is
//     a call's result.
//   - timeline holds what the CLI showed, with times: `user` entries (one
//     per user message, in order), `copilot` entries (the assistant's
//     text), `tool_call_completed` entries (callId, result.type "success"
//     or "failure"), `info` and `error` lines of the CLI's own. The turns
//     take the times of the user entries, calls the time their completion
//     was shown, and a "failure" completion makes the call's result an
//     error.
//   - No usage is kept in the file.

import (
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatCopilotHistory = "copilot-cli-history"

func init() {
	register(&Format{
		ID:        formatCopilotHistory,
		Text:      true,
		Family:    "copilot",
		Reads:     "GitHub Copilot CLI's older session files `~/.copilot/history-session-state/session_<id>_<ms>.json` (OpenAI chat messages plus a timeline).",
		Detection: "A JSON document (an object) with `sessionId`, `startTime` and `chatMessages`.",
		Priority:  29,
		Sniff: func(h *Head) bool {
			return h.Doc && !h.Array && h.Has("sessionId", "startTime", "chatMessages")
		},
		ParseDoc: parseCopilotHistory,
	})
}

type copilotHistoryFile struct {
	SessionID    string `json:"sessionId"`
	StartTime    string `json:"startTime"`
	ChatMessages []struct {
		Role       string         `json:"role"`
		Content    *string        `json:"content"`
		ToolCallID string         `json:"tool_call_id"`
		ToolCalls  []chatToolCall `json:"tool_calls"` // the OpenAI shape
	} `json:"chatMessages"`
	Timeline []struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		CallID    string `json:"callId"`
		Result    *struct {
			Type string `json:"type"`
		} `json:"result"`
	} `json:"timeline"`
}

func parseCopilotHistory(doc []byte, h *Head, out *Sink) {
	var f copilotHistoryFile
	if err := jsonx.Unmarshal(doc, &f); err != nil {
		out.Problemf(h.Line, "not a Copilot CLI session file: %s", decodeErr(err))
		return
	}
	s := &Session{Format: formatCopilotHistory, ID: f.SessionID}
	if s.ID == "" {
		s.ID = fileStem(h.Name)
	}
	var userTimes []time.Time
	doneAt := map[string]time.Time{}
	failed := map[string]bool{}
	cli := 0
	for _, e := range f.Timeline {
		switch e.Type {
		case "user":
			userTimes = append(userTimes, isoTime(e.Timestamp))
		case "tool_call_completed":
			doneAt[e.CallID] = isoTime(e.Timestamp)
			failed[e.CallID] = e.Result != nil && e.Result.Type == "failure"
		case "info", "error":
			cli++
		}
	}
	b := newConvBuilder(s, out)
	users := 0
	last := isoTime(f.StartTime)
	for _, m := range f.ChatMessages {
		text := ""
		if m.Content != nil {
			text = *m.Content
		}
		switch m.Role {
		case "user":
			if users < len(userTimes) && !userTimes[users].IsZero() {
				last = userTimes[users]
			}
			users++
			b.turn(0, last, len(text))
			keepUserText(s, text)
		case "assistant":
			b.request(0, last, len(text), nil)
			if text != "" {
				b.text(text)
			}
			for _, tc := range m.ToolCalls {
				c := Call{ID: tc.ID, Tool: tc.Function.Name, Time: last, Line: 0}
				c.SetArgsField(tc.Function.Arguments)
				b.call(c)
			}
		case "tool":
			t := doneAt[m.ToolCallID]
			if !t.IsZero() {
				last = t
			}
			b.result(m.ToolCallID, "", text, failed[m.ToolCallID], 0, t)
		default:
			out.Problemf(h.Line, "chat message of unknown role %q; skipped", m.Role)
		}
	}
	b.finish()
	noteSkipped(s, cli, "CLI info/error line(s) of the timeline not read")
	if len(f.ChatMessages) == 0 {
		s.Notes = append(s.Notes, "no messages recorded")
	}
	out.Session(s)
}
