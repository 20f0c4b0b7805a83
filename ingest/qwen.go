package ingest

// Qwen Code chat recordings (QwenLM/qwen-code packages/core/src/services/
// chatRecordingService.ts, ChatRecord): ~/.qwen/projects/<encoded work
// dir>/chats/<session id>.jsonl (Storage.getProjectDir, "chats"), one
// record per line: {uuid, parentUuid, sessionId, timestamp, type: "user" |
// "assistant" | "tool_result" | "system", subtype, message: a @google/genai
// Content {role, parts}, usageMetadata, model, toolCallResult, cwd,
// version, isSidechain, agentId}. Written from the source alone: no real
// file was read. Docs: docs/formats/qwen-code.md.
//
// Readings taken:
//   - A "user" record without a subtype opens a turn (a subtype marks
//     Qwen's own: a slash command, an @-command, a notification, ...:
//     counted in a note).
//   - An "assistant" record is a request: its text and thought parts its
//     text, its functionCall parts the calls, its usageMetadata the usage
//     (promptTokenCount, cache included; candidates plus thoughts tokens).
//   - A "tool_result" record's functionResponse parts are the results,
//     joined by id (an error when the response has "error").
//   - "system" records are not messages: a chat_compression one marks the
//     next turn as compacted.
//   - A subagent's records (isSidechain, agentId) are a file of their
//     own: projects/<project>/subagents/<session id>/agent-<agent id>.jsonl
//     (Qwen Code 0.24.4, the agent lab's subagent scenario), read as the
//     subagent's session (Agent: the agentId, Parent: the session id).
//     Such records in a file that does not begin with them are counted in
//     a note, not read into the main session.

import (
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatQwen = "qwen-code"

func init() {
	register(&Format{
		ID:        formatQwen,
		Text:      true,
		Family:    "qwen",
		Reads:     "Qwen Code chat recordings `~/.qwen/projects/<project>/chats/<session>.jsonl` (ChatRecord: user, assistant, tool_result and system records holding @google/genai Content).",
		Detection: "First record has `uuid`, `parentUuid`, `sessionId` and `timestamp`, and a `message` with `parts` or a `systemPayload` (Claude Code's records have `message.content` instead).",
		Priority:  31,
		// Read from real files too: 17 recordings of Qwen Code 0.14 in a
		// committed ~/.qwen (haidonglethqb/CloudSchool at cf319bfe), each
		// read as an independent count reads it, and the agent lab's.
		Sniff: func(h *Head) bool {
			if h.Array || !h.Has("uuid", "parentUuid", "sessionId", "timestamp", "type") {
				return false
			}
			msg := keysOf(h.Keys["message"])
			_, parts := msg["parts"]
			return parts || h.Has("systemPayload")
		},
		ParseLines: parseQwen,
	})
}

type qwenRecord struct {
	SessionID   string `json:"sessionId"`
	Timestamp   string `json:"timestamp"`
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	Model       string `json:"model"`
	IsSidechain bool   `json:"isSidechain"`
	AgentID     string `json:"agentId"`
	Message     *struct {
		Parts jsonx.RawMessage `json:"parts"`
	} `json:"message"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
}

func parseQwen(lr *LineReader, h *Head, out *Sink) {
	s := &Session{Format: formatQwen, ID: fileStem(h.Name)}
	b := newConvBuilder(s, out)
	own, side := 0, 0
	sub := false // the file is a subagent's: its first record is the subagent's
	eachJSONLine(lr, h, out, func(line []byte, n int) {
		var r qwenRecord
		if err := jsonx.Unmarshal(line, &r); err != nil {
			out.Problemf(n, "not a Qwen Code chat record: %s; skipped", decodeErr(err))
			return
		}
		if s.Line == 0 {
			s.Line = n
			if r.SessionID != "" {
				s.ID = r.SessionID
			}
			if r.IsSidechain && r.AgentID != "" {
				sub = true
				s.Agent, s.Parent = r.AgentID, s.ID
			}
		}
		if r.IsSidechain != sub {
			side++
			return
		}
		t := isoTime(r.Timestamp)
		var parts []geminiPart
		if r.Message != nil {
			parts = geminiParts(r.Message.Parts)
		}
		switch r.Type {
		case "user":
			if r.Subtype != "" {
				own++
				return
			}
			chars := 0
			var typed strings.Builder
			for _, p := range parts {
				if p.Text != nil {
					chars += len(*p.Text)
					typed.WriteString(*p.Text)
				}
			}
			b.turn(n, t, chars)
			keepUserText(s, geminiUserText(typed.String()))
		case "assistant":
			if s.Model == "" {
				s.Model = r.Model
			}
			var u *Usage
			if m := r.UsageMetadata; m != nil {
				u = &Usage{Input: m.PromptTokenCount, Output: m.CandidatesTokenCount + m.ThoughtsTokenCount, CacheRead: m.CachedContentTokenCount}
			}
			chars := 0
			for _, p := range parts {
				if p.Text != nil {
					chars += len(*p.Text)
				}
			}
			b.request(n, t, chars, u)
			for _, p := range parts {
				if p.Text != nil && !p.Thought {
					b.text(*p.Text)
				}
			}
			for _, p := range parts {
				if fc := p.FunctionCall; fc != nil {
					c := Call{ID: fc.ID, Tool: fc.Name, Line: n, Time: t}
					c.SetArgsField(fc.Args)
					b.call(c)
				}
			}
		case "tool_result":
			for _, p := range parts {
				if fr := p.FunctionResponse; fr != nil {
					text, isErr := geminiResponseText(fr.Response)
					b.result(fr.ID, fr.Name, text, isErr, n, t)
				}
			}
		case "system":
			if r.Subtype == "chat_compression" {
				b.compaction()
			}
		default:
			out.Problemf(n, "record of unknown type %q; skipped", strings.ToValidUTF8(r.Type, "?"))
		}
	})
	b.finish()
	noteSkipped(s, own, "user record(s) of Qwen Code's own (slash and @-commands, notifications) not read as prompts")
	if sub {
		noteSkipped(s, side, "main-session record(s) not read into this subagent's session")
	} else {
		noteSkipped(s, side, "subagent (isSidechain) record(s) not read into the main session")
	}
	out.Session(s)
}
