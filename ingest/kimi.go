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
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

const formatKimi = "kimi-cli"

var kimiContextFile = lazyre.New(`^context(_sub)?(_\d+)?\.jsonl$`)
var kimiCheckpoint = lazyre.New(`^<system>CHECKPOINT \d+</system>$`)

func init() {
	register(&Format{
		ID:        formatKimi,
		Text:      true,
		Family:    "kimi",
		Reads:     "Kimi CLI context files `~/.kimi/sessions/<dir hash>/<session>/context.jsonl` (kosong messages plus `_system_prompt`, `_checkpoint`, `_usage` records).",
		Detection: "First record's role is `_system_prompt`, `_checkpoint` or `_usage`, or a `role` record in a file named `context.jsonl` (or a rotated `context_N.jsonl`, or a subagent's `context_sub_N.jsonl`).",
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
	ToolCalls  []chatToolCall   `json:"tool_calls"` // the OpenAI shape
}

func parseKimi(lr *LineReader, h *Head, out *Sink) {
	// The session id is the session's folder; a subagent's context is
	// <session>/subagents/<agent id>/context.jsonl (kimi_cli/subagents/
	// store.py at 4a550eff), a scope of that session.
	id := fileStem(h.Name)
	if dir := parentDirName(h.Path); dir != "" {
		id = dir
	}
	s := &Session{Format: formatKimi, ID: id}
	if agentDir := filepath.Dir(h.Path); filepath.Base(filepath.Dir(agentDir)) == "subagents" {
		if session := parentDirName(filepath.Dir(agentDir)); session != "" {
			s.ID, s.Agent, s.Parent = session, id, session
		}
	} else if sub, ok := kimiSubContext(h.Name); ok && id != fileStem(h.Name) {
		s.Agent, s.Parent = sub, id
	}
	// context.jsonl records no time; the wire log beside it does.
	s.Time = kimiWireStart(filepath.Dir(h.Path), h.Path != "")
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
			keepUserText(s, text)
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

// kimiWireStart is the time of the first message record of the wire log
// Kimi CLI writes beside a context file (dir/wire.jsonl: a metadata line,
// then {"timestamp": <Unix seconds>, "message": {"type", "payload"}} per
// event; kimi_cli/wire/file.py at 4a550eff), zero when there is none or
// the file is not on disk (read from standard input). Only its first lines
// are read.
func kimiWireStart(dir string, onDisk bool) time.Time {
	if !onDisk {
		return time.Time{}
	}
	f, err := os.Open(filepath.Join(dir, kimiWireName))
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for i := 0; i < 8 && sc.Scan(); i++ {
		var rec struct {
			Timestamp jsonx.RawMessage `json:"timestamp"`
			Message   jsonx.RawMessage `json:"message"`
		}
		if jsonx.Unmarshal(sc.Bytes(), &rec) != nil || rec.Message == nil {
			continue
		}
		if t := unixTime(rec.Timestamp); !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// kimiSubContext reports a subagent's context written beside the
// session's own: before subagents got folders of their own (ff09e97c),
// the Task tool gave each subagent it ran the history file
// context_sub_N.jsonl, N the next free number (_get_subagent_history_file,
// src/kimi_cli/tools/task/__init__.py at 1f74ddf5, with
// utils/path.py next_available_rotation). agent is the file's stem
// without "context_" (sub_N). Read as the main session, each was another
// "main" of the same session id.
func kimiSubContext(name string) (agent string, ok bool) {
	stem, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return "", false
	}
	n, ok := strings.CutPrefix(stem, "context_sub_")
	if !ok || n == "" || strings.Trim(n, "0123456789") != "" {
		return "", false
	}
	return "sub_" + n, true
}

// kimiWireName is the wire log Kimi CLI writes beside each context file.
const kimiWireName = "wire.jsonl"

// kimiCompanion reports a file Kimi CLI writes beside a context.jsonl
// that holds no conversation of its own to read: the wire log (the same
// turns as UI events, read for the session's time), the session's
// state.json (approvals, additional dirs, subagents: STATE_FILE_NAME,
// src/kimi_cli/session_state.py at 4a550eff) and, in a subagent's folder,
// its meta.json (kimi_cli/session.py and subagents/store.py at 4a550eff).
// Kimi Code's wire.jsonl has no context.jsonl beside it.
func kimiCompanion(path string) bool {
	name := filepath.Base(path)
	dir := filepath.Dir(path)
	if name != kimiWireName && name != "state.json" && (name != "meta.json" || filepath.Base(filepath.Dir(dir)) != "subagents") {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "context.jsonl"))
	return err == nil
}
