package ingest

// Kimi CLI context files (MoonshotAI/kimi-cli, src/kimi_cli/soul/context.py):
// ~/.kimi/sessions/<md5 of the work dir>/<session id>/context.jsonl, one
// kosong Message per line (OpenAI-style role, content, tool_calls,
// tool_call_id) plus Kimi's own records {"role": "_system_prompt"},
// {"role": "_checkpoint", "id": N} and {"role": "_usage", "token_count": N}.
// Docs: docs/formats/kimi.md.
//
// Readings taken:
//   - A user message opens a turn unless it is Kimi's own: the checkpoint
//     marker "<system>CHECKPOINT N</system>" (session_fork.py
//     CHECKPOINT_USER_PATTERN) or a "<system-reminder>" message
//     (is_system_reminder_message).
//   - An assistant message is a request, its tool_calls the calls; a tool
//     message the result of the call its tool_call_id names. A result whose
//     first part is "<system>ERROR: ...</system>" is an error
//     (tool_result_to_message).
//   - _system_prompt, _checkpoint and _usage records are not messages
//     (_usage is the context size, not one request's tokens: no usage).
//   - A revert or /clear rotates the file (context_1.jsonl, ...) and
//     starts a new one holding the kept prefix: each file is read as its
//     own session, so reading the rotated ones too counts that prefix again.

import (
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

const formatKimi = "kimi-cli"

var kimiContextFile = lazyre.New(`^context(_\d+)?\.jsonl$`)
var kimiCheckpoint = lazyre.New(`^<system>CHECKPOINT \d+</system>$`)

func init() {
	register(&Format{
		ID:        formatKimi,
		Text:      true,
		Family:    "kimi",
		Reads:     "Kimi CLI context files `~/.kimi/sessions/<dir hash>/<session>/context.jsonl` (kosong messages plus `_system_prompt`, `_checkpoint`, `_usage` records).",
		Detection: "First record's role is `_system_prompt`, `_checkpoint` or `_usage`, or a `role` record in a file named `context.jsonl` (or a rotated `context_N.jsonl`).",
		Priority:  28,
		Sniff: func(h *Head) bool {
			if h.Array {
				return false
			}
			switch h.String("role") {
			case "_system_prompt", "_checkpoint", "_usage":
				return true
			}
			return h.Has("role") && kimiContextFile.Get().MatchString(h.Name)
		},
		ParseLines: parseKimi,
	})
}

type kimiMessage struct {
	Role       string           `json:"role"`
	Content    jsonx.RawMessage `json:"content"`
	ToolCallID string           `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string           `json:"name"`
			Arguments jsonx.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func parseKimi(lr *LineReader, h *Head, out *Sink) {
	// The session id is the session's folder.
	id := fileStem(h.Name)
	if dir := parentDirName(h.Path); dir != "" {
		id = dir
	}
	s := &Session{Format: formatKimi, ID: id}
	b := newConvBuilder(s, out)
	internal := 0
	eachJSONLine(lr, h, out, func(line []byte, n int) {
		var m kimiMessage
		if err := jsonx.Unmarshal(line, &m); err != nil {
			out.Problemf(n, "not a Kimi context record: %s; skipped", decodeErr(err))
			return
		}
		if s.Line == 0 {
			s.Line = n
		}
		switch m.Role {
		case "_system_prompt", "_checkpoint", "_usage", "system":
		case "user":
			text, _ := contentText(m.Content)
			t := strings.TrimSpace(text)
			if kimiCheckpoint.Get().MatchString(t) || strings.HasPrefix(t, "<system-reminder>") {
				internal++
				return
			}
			b.turn(n, timeZero, len(text))
		case "assistant":
			var parts []struct {
				Type  string `json:"type"`
				Text  string `json:"text"`
				Think string `json:"think"`
			}
			chars, visible := 0, ""
			if len(m.Content) > 0 && m.Content[0] == '[' && jsonx.Unmarshal(m.Content, &parts) == nil {
				for _, p := range parts {
					chars += len(p.Text) + len(p.Think)
					if b.out.KeepText {
						visible += p.Text
					}
				}
			} else {
				text, _ := contentText(m.Content)
				chars, visible = len(text), text
			}
			b.request(n, timeZero, chars, nil)
			b.text(visible)
			for _, tc := range m.ToolCalls {
				c := Call{ID: tc.ID, Tool: tc.Function.Name, Line: n}
				c.SetArgsField(tc.Function.Arguments)
				b.call(c)
			}
		case "tool":
			text, _ := contentText(m.Content)
			b.result(m.ToolCallID, "", text, strings.HasPrefix(text, "<system>ERROR:"), n, timeZero)
		default:
			out.Problemf(n, "record with unknown role %q; skipped", m.Role)
		}
	})
	b.finish()
	noteSkipped(s, internal, "Kimi checkpoint or system-reminder user message(s) not read as prompts")
	out.Session(s)
}
