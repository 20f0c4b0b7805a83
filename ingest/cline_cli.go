package ingest

// Cline CLI's sessions (the CLI built on @cline/core, npm cline 3.x):
// ~/.cline/data/sessions/<id>/<id>.messages.json, one JSON document
// {"version", "agent", "sessionId", "origin", "messages": [...],
// "system_prompt"} (written by the lab's Cline CLI 3.0.65). A message is
// {"id", "role", "content": [blocks], "ts", "modelInfo": {"id",
// "provider"}, "metrics": {"inputTokens", "outputTokens",
// "cacheReadTokens", "cacheWriteTokens"}}; the blocks are Anthropic's
// (text, tool_use, tool_result), except that a tool_result's content may
// be a list of per-item outcomes {"query", "result", "error", "success"}
// (run_commands, read_files): its text is the results joined, and it
// failed when an item did (success false).

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatClineCLI = "cline-cli"

func init() {
	register(&Format{
		ID:        formatClineCLI,
		Family:    "cline",
		Reads:     "Cline CLI 3.x sessions `~/.cline/data/sessions/<id>/<id>.messages.json` (Anthropic content blocks; run_commands and read_files results as per-item outcomes).",
		Detection: "A JSON object with `messages` and `sessionId` in a file named `*.messages.json`.",
		Priority:  27,
		Sniff: func(h *Head) bool {
			return !h.Array && strings.HasSuffix(h.Name, ".messages.json") && h.Has("messages", "sessionId")
		},
		ParseDoc: parseClineCLI,
	})
}

type clineCLIMessage struct {
	Role      string           `json:"role"`
	Content   jsonx.RawMessage `json:"content"`
	Ts        int64            `json:"ts"`
	ModelInfo *struct {
		ID       string `json:"id"`
		Provider string `json:"provider"`
	} `json:"modelInfo"`
	// Metadata's displayRole "system" marks a message the CLI adds itself
	// (a hook's context, its loop warning): not the user's prompt
	// (@cline/core skips them for prompt_submit too).
	Metadata *struct {
		DisplayRole string `json:"displayRole"`
	} `json:"metadata"`
	Metrics *struct {
		Input     int64 `json:"inputTokens"`
		Output    int64 `json:"outputTokens"`
		CacheRead int64 `json:"cacheReadTokens"`
	} `json:"metrics"`
}

// clineCLIResult reads a tool_result's content: text blocks or a string as
// any reader does, a list of per-item outcomes as their results joined.
func clineCLIResult(raw jsonx.RawMessage) (text string, failed bool) {
	if text, failed, ok := clineItems(raw); ok {
		return text, failed
	}
	text, _ = contentText(raw)
	return text, false
}

// ClineOutcomes reads a Cline CLI result given as text (its hooks'
// postToolUse.result) as the reader reads a session's tool_result: a JSON
// list of per-item outcomes {"query", "result", "error", "success"} of
// run_commands and read_files (@cline/core 0.0.86) is their results
// joined, failed when an item failed; ok is false for any other text. The
// live hook gets it from the command (live.ResultReading), so that hook
// and replay read one result one way.
func ClineOutcomes(result string) (text string, failed, ok bool) {
	return clineItems([]byte(result))
}

func clineItems(raw []byte) (text string, failed, ok bool) {
	var items []struct {
		Type    string  `json:"type"`
		Result  *string `json:"result"`
		Error   string  `json:"error"`
		Success *bool   `json:"success"`
	}
	r := bytes.TrimSpace(raw)
	if len(r) == 0 || r[0] != '[' || jsonx.Unmarshal(r, &items) != nil || len(items) == 0 || items[0].Type != "" {
		return "", false, false
	}
	var parts []string
	for _, it := range items {
		switch {
		case it.Result != nil && *it.Result != "":
			parts = append(parts, *it.Result)
		case it.Error != "":
			parts = append(parts, it.Error)
		}
		failed = failed || it.Success != nil && !*it.Success || it.Error != ""
	}
	return strings.Join(parts, "\n"), failed, true
}

func parseClineCLI(doc []byte, h *Head, out *Sink) {
	var d struct {
		SessionID string             `json:"sessionId"`
		Messages  []jsonx.RawMessage `json:"messages"`
	}
	if err := jsonx.Unmarshal(doc, &d); err != nil {
		out.Problemf(h.Line, "not a Cline CLI session (%s)", decodeErr(err))
		return
	}
	s := &Session{Format: formatClineCLI, ID: d.SessionID}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(h.Path), ".messages.json")
	}
	pos := newDocPos(doc, h.Line)
	lines := pos.elemLines(member(doc, "messages"))
	b := newConvBuilder(s, out)
	for i, raw := range d.Messages {
		at := lineAtIndex(lines, i, h.Line)
		var m clineCLIMessage
		blocks, ok := decodeClineMessage(raw, &m, &m.Content, i, at, out)
		if !ok {
			continue
		}
		t := msTime(m.Ts)
		switch m.Role {
		case "user":
			results, chars := 0, 0
			for _, bl := range blocks {
				switch bl.Type {
				case "tool_result":
					results++
					text, failed := clineCLIResult(bl.Content)
					b.result(bl.ToolUseID, "", text, bl.IsError || failed, at, t)
				case "text":
					chars += len(bl.Text)
				}
			}
			if results == 0 && (m.Metadata == nil || m.Metadata.DisplayRole != "system") {
				// The turn's text is not kept (Turn.UserText): the CLI
				// gives its hooks no prompt text (live/agents.go,
				// agent_start), so a live hook reads each of its user
				// messages as one of unknown text, and replay reads them
				// so to decide as the hook does (docs/formats/cline-cli.md,
				// "User text").
				b.turn(at, t, chars)
			}
		case "assistant":
			var u *Usage
			if m.Metrics != nil {
				provider := ""
				if m.ModelInfo != nil {
					provider = m.ModelInfo.Provider
				}
				u = clineUsage(provider, m.Metrics.Input, m.Metrics.Output, m.Metrics.CacheRead)
			}
			if m.ModelInfo != nil && s.Model == "" {
				s.Model = m.ModelInfo.ID
			}
			chars := 0
			for _, bl := range blocks {
				chars += len(bl.Text) + len(bl.Thinking)
			}
			b.request(at, t, chars, u)
			clineToolUses(b, blocks, t, at, nil)
		default:
			out.Problemf(at, "message %d with unknown role %q; skipped", i+1, m.Role)
		}
	}
	b.finish()
	out.Session(s)
}
