package ingest

// Kimi Code's agent journal: $KIMI_CODE_HOME (default ~/.kimi-code)/
// sessions/<bucket>/<session id>/agents/<agent id>/wire.jsonl, one record
// per line, the first {"type": "metadata", "protocol_version", "created_at"}
// (MoonshotAI/kimi-code packages/agent-core: agent/records, wire protocol
// 1.4; agent-core-v2 src/wire/record.ts). The conversation is rebuilt as
// the project's own session viewer rebuilds it
// (apps/vis/server/src/lib/context-projector.ts, projectContext):
//   - context.append_message: a message as written (user prompts, injected
//     reminders, explicit assistant messages);
//   - context.append_loop_event {event}: step.begin opens an assistant
//     message (one model request), content.part (text, think) and
//     tool.call {toolCallId, name, args} fill it, step.end closes it with
//     its usage {inputOther, output, inputCacheRead, inputCacheCreation},
//     tool.result {toolCallId, result: {output, isError, note}} is the
//     tool message;
//   - context.apply_compaction replaces the history with a summary.
// Docs: docs/formats/kimi-code.md.
//
// Readings taken:
//   - A user message opens a turn when it is genuine user input, as
//     isRealUserInput says (agent/compaction/handoff.ts): no origin, origin
//     kind "user", or a skill or plugin command the user typed
//     (trigger "user-slash"). Injections, system triggers, hook results,
//     compaction summaries, ... are counted in a note.
//   - A step is a request; its usage is step.end's (Input adds both cache
//     counts to inputOther). usage.record of scope "turn" repeats it; one of
//     another scope (a compaction's own model call) is a request of its own.
//   - A result's text is what the model saw (renderToolResultForModel): an
//     error gets the "<system>ERROR: Tool execution failed.</system>" line
//     before its output, an empty output the "<system>Tool output is
//     empty.</system>" placeholder, a note is appended.
//   - A compaction marks the next turn; the calls before it stay read.
//   - The file is one agent's: agents/main is the session, another agent
//     folder a subagent whose parent is the session.

import (
	"path/filepath"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatKimiCode = "kimi-code"

func init() {
	register(&Format{
		ID:        formatKimiCode,
		Family:    "kimi",
		Reads:     "Kimi Code agent journals `~/.kimi-code/sessions/<bucket>/<session>/agents/<agent>/wire.jsonl` (wire protocol 1.x: context.append_message, context.append_loop_event steps, tool calls and results, usage).",
		Detection: "First record is `{\"type\": \"metadata\"}` with `protocol_version` and `created_at`.",
		Priority:  28,
		Sniff: func(h *Head) bool {
			return !h.Array && h.String("type") == "metadata" && h.Has("protocol_version", "created_at")
		},
		ParseLines: parseKimiCode,
	})
}

type kimiCodeUsage struct {
	InputOther         int64 `json:"inputOther"`
	Output             int64 `json:"output"`
	InputCacheRead     int64 `json:"inputCacheRead"`
	InputCacheCreation int64 `json:"inputCacheCreation"`
}

func (u *kimiCodeUsage) usage() *Usage {
	if u == nil {
		return nil
	}
	return &Usage{Input: u.InputOther + u.InputCacheRead + u.InputCacheCreation, Output: u.Output, CacheRead: u.InputCacheRead, CacheWrite: u.InputCacheCreation}
}

type kimiCodeRecord struct {
	Type       string         `json:"type"`
	Time       int64          `json:"time"`
	Model      string         `json:"model"`
	UsageScope string         `json:"usageScope"`
	Usage      *kimiCodeUsage `json:"usage"`
	Message    *struct {
		Role    string           `json:"role"`
		Content jsonx.RawMessage `json:"content"`
		Origin  *struct {
			Kind    string `json:"kind"`
			Trigger string `json:"trigger"`
		} `json:"origin"`
	} `json:"message"`
	Event *struct {
		Type       string           `json:"type"`
		UUID       string           `json:"uuid"`
		ToolCallID string           `json:"toolCallId"`
		Name       string           `json:"name"`
		Args       jsonx.RawMessage `json:"args"`
		Usage      *kimiCodeUsage   `json:"usage"`
		Part       *struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			Think string `json:"think"`
		} `json:"part"`
		Result *struct {
			Output  jsonx.RawMessage `json:"output"`
			IsError bool             `json:"isError"`
			Note    string           `json:"note"`
		} `json:"result"`
	} `json:"event"`
}

// kimiCodeRealUser is isRealUserInput's origin rule.
func kimiCodeRealUser(kind, trigger string) bool {
	switch kind {
	case "", "user":
		return true
	case "skill_activation", "plugin_command":
		return trigger == "user-slash"
	}
	return false
}

// kimiCodeResultText renders a result as the model saw it
// (renderToolResultForModel).
func kimiCodeResultText(output jsonx.RawMessage, isErr bool, note string) string {
	text, _ := contentText(output)
	empty := strings.TrimSpace(text) == "" || strings.TrimSpace(text) == "Tool output is empty."
	switch {
	case isErr && strings.TrimSpace(text) == "":
		text = "<system>ERROR: Tool execution failed. Tool output is empty.</system>"
	case isErr:
		text = "<system>ERROR: Tool execution failed.</system>\n" + text
	case empty:
		text = "<system>Tool output is empty.</system>"
	}
	if note != "" {
		text += "\n" + note
	}
	return text
}

func parseKimiCode(lr *LineReader, h *Head, out *Sink) {
	s := &Session{Format: formatKimiCode, ID: fileStem(h.Name)}
	// sessions/<bucket>/<session>/agents/<agent>/wire.jsonl
	agentDir := filepath.Dir(h.Path)
	if filepath.Base(filepath.Dir(agentDir)) == "agents" {
		s.ID = filepath.Base(filepath.Dir(filepath.Dir(agentDir)))
		if a := filepath.Base(agentDir); a != "main" {
			s.Agent, s.Parent = a, s.ID
		}
	} else if dir := parentDirName(h.Path); dir != "" {
		s.ID = dir
	}
	b := newConvBuilder(s, out)
	notUser, compactions := 0, 0
	var step *Request // the open step's request
	eachJSONLine(lr, h, out, func(line []byte, n int) {
		var r kimiCodeRecord
		if err := jsonx.Unmarshal(line, &r); err != nil {
			out.Problemf(n, "not a Kimi Code wire record: %s; skipped", decodeErr(err))
			return
		}
		if s.Line == 0 {
			s.Line = n
		}
		t := msTime(r.Time)
		switch r.Type {
		case "context.append_message":
			if r.Message == nil || r.Message.Role != "user" {
				return
			}
			kind, trigger := "", ""
			if o := r.Message.Origin; o != nil {
				kind, trigger = o.Kind, o.Trigger
			}
			if !kimiCodeRealUser(kind, trigger) {
				notUser++
				return
			}
			text, _ := contentText(r.Message.Content)
			b.turn(n, t, len(text))
			keepUserText(b.s, text)
			step = nil
		case "context.append_loop_event":
			ev := r.Event
			if ev == nil {
				out.Problemf(n, "loop event record without an event; skipped")
				return
			}
			switch ev.Type {
			case "step.begin":
				b.request(n, t, 0, nil)
				step = b.lastRequest()
			case "content.part":
				if ev.Part != nil && step != nil {
					step.TextChars += len(ev.Part.Text) + len(ev.Part.Think)
				}
			case "tool.call":
				c := Call{ID: ev.ToolCallID, Tool: ev.Name, Line: n, Time: t}
				c.SetArgsField(ev.Args)
				b.call(c)
			case "tool.result":
				if ev.Result == nil {
					out.Problemf(n, "tool.result without a result; skipped")
					return
				}
				b.result(ev.ToolCallID, "", kimiCodeResultText(ev.Result.Output, ev.Result.IsError, ev.Result.Note), ev.Result.IsError, n, t)
			case "step.end":
				if step != nil {
					step.Usage = ev.Usage.usage()
				}
				step = nil
			}
		case "usage.record":
			if r.UsageScope != "turn" && r.Usage != nil {
				b.request(n, t, 0, r.Usage.usage())
				step = nil
			}
		case "llm.request":
			if s.Model == "" {
				s.Model = r.Model
			}
		case "context.apply_compaction":
			compactions++
			b.compaction()
		}
	})
	b.finish()
	noteSkipped(s, notUser, "user-role message(s) that are not the user's input (injected reminders, system triggers, hook results, compaction summaries) not read as prompts")
	noteSkipped(s, compactions, "context compaction(s)")
	out.Session(s)
}
