package ingest

// Two more files Gemini CLI keeps beside its chat recordings in
// ~/.gemini/tmp/<project>/ (google-gemini/gemini-cli
// packages/core/src/core/logger.ts, Logger). Docs: docs/formats/gemini.md.
//
//   - checkpoint-<tag>.json, written by `/chat save <tag>` (saveCheckpoint):
//     the chat's history, @google/genai Content[] ({role: "user" | "model",
//     parts}), bare in older releases and as {history, authType} in newer
//     ones (the Checkpoint interface; loadCheckpoint reads both). A
//     "model" content is a request, its functionCall parts the calls; a
//     "user" content's functionResponse parts are their results, its text
//     a prompt unless Gemini CLI ignores it on resume (geminiIgnoredUser)
//     or it is the environment context the CLI sends first ("This is the
//     Gemini CLI. We are setting up the context for our chat.",
//     getEnvironmentContext in packages/core/src/utils/environmentContext.ts;
//     older releases answered it with a canned model content, not a
//     request). No times and no usage are kept.
//   - logs.json (logMessage): every input the user submitted, {sessionId,
//     messageId, timestamp, type: "user", message}, for all the project's
//     sessions. One session per sessionId; each input a turn, slash
//     commands and the like counted apart. It holds no model response and
//     no tool call.
//
// Both written from the source alone (the Logger at commit 5411f113):
// no real file of either was read.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const (
	formatGeminiCheckpoint = "gemini-checkpoint"
	formatGeminiLogs       = "gemini-logs"
)

// geminiSetupText begins the environment context older Gemini CLIs send
// as the chat's first user content.
const geminiSetupText = "This is the Gemini CLI. We are setting up the context for our chat."

func init() {
	register(&Format{
		ID:        formatGeminiCheckpoint,
		Family:    "gemini",
		Reads:     "Gemini CLI saved chats `~/.gemini/tmp/<project>/checkpoint-<tag>.json` (`/chat save`): the history as @google/genai Content[], bare or under `history`.",
		Detection: "A JSON array whose first element has `role` and `parts`, or an object whose `history` is such an array.",
		Priority:  26,
		Sniff: func(h *Head) bool {
			if h.Array {
				return h.Has("role", "parts")
			}
			hist := bytes.TrimSpace(h.Keys["history"])
			return h.Doc && len(hist) > 0 && hist[0] == '[' && bytes.Contains(hist, []byte(`"parts"`))
		},
		ParseDoc: parseGeminiCheckpoint,
	})
	register(&Format{
		ID:        formatGeminiLogs,
		Family:    "gemini",
		Reads:     "Gemini CLI's prompt log `~/.gemini/tmp/<project>/logs.json`: the inputs the user submitted, per session (no model response, no tool call).",
		Detection: "A JSON array whose first element has `sessionId`, `messageId`, `type`, `message` and `timestamp`.",
		Priority:  26,
		// Read from real files too: three logs.json of committed ~/.gemini
		// folders (agunginsani/expenses-tracker at 0b09ddc6,
		// AnthonyontheHub/TP-Tutor at e876c038), sessions and turns as an
		// independent count reads them.
		Sniff: func(h *Head) bool {
			return h.Array && h.Has("sessionId", "messageId", "type", "message", "timestamp")
		},
		ParseDoc: parseGeminiLogs,
	})
}

// geminiRestated says whether a walk leaves the file to the chat
// recordings: a logs.json or checkpoint-<tag>.json in a folder that holds
// a chats folder is Gemini CLI's project folder, where the recordings in
// chats/ hold the same prompts and the same chats; read with them, each
// would count twice. Named on its own, the file is read.
func geminiRestated(path string) bool {
	base := filepath.Base(path)
	if base != "logs.json" && !(strings.HasPrefix(base, "checkpoint-") && strings.HasSuffix(base, ".json")) {
		return false
	}
	info, err := os.Stat(filepath.Join(filepath.Dir(path), "chats"))
	return err == nil && info.IsDir()
}

type geminiContent struct {
	Role  string           `json:"role"`
	Parts jsonx.RawMessage `json:"parts"`
}

func parseGeminiCheckpoint(doc []byte, h *Head, out *Sink) {
	body := bytes.TrimSpace(doc)
	if len(body) > 0 && body[0] == '{' {
		var c struct {
			History jsonx.RawMessage `json:"history"`
		}
		if err := jsonx.Unmarshal(body, &c); err != nil {
			out.Problemf(h.Line, "not a Gemini CLI checkpoint: %s", decodeErr(err))
			return
		}
		body = bytes.TrimSpace(c.History)
	}
	elems, ok := jsonx.SplitArray(body)
	if !ok {
		out.Problemf(h.Line, "not a Gemini CLI checkpoint: the history is not a JSON array")
		return
	}
	s := &Session{Format: formatGeminiCheckpoint, ID: fileStem(h.Name)}
	b := newConvBuilder(s, out)
	ignored, canned := 0, 0
	setup := false // the last user content was the environment context
	for i, raw := range elems {
		var c geminiContent
		if err := jsonx.Unmarshal(raw, &c); err != nil {
			out.Problemf(h.Line, "content %d has an unexpected shape (%s); skipped", i+1, decodeErr(err))
			continue
		}
		parts := geminiParts(c.Parts)
		switch c.Role {
		case "user":
			var text strings.Builder
			responses := 0
			for _, p := range parts {
				switch {
				case p.FunctionResponse != nil:
					responses++
					res, isErr := geminiResponseText(p.FunctionResponse.Response)
					b.result(p.FunctionResponse.ID, p.FunctionResponse.Name, res, isErr, 0, time.Time{})
				case p.Text != nil:
					text.WriteString(*p.Text)
				}
			}
			setup = false
			t := strings.TrimSpace(text.String())
			if responses > 0 && t == "" {
				continue
			}
			if geminiIgnoredUser(t) || strings.HasPrefix(t, geminiSetupText) {
				ignored++
				setup = true
				continue
			}
			b.turn(0, time.Time{}, text.Len())
			keepUserText(s, geminiUserText(text.String()))
		case "model":
			chars := 0
			calls := 0
			for _, p := range parts {
				if p.Text != nil {
					chars += len(*p.Text)
				}
				if p.FunctionCall != nil {
					calls++
				}
			}
			if setup && calls == 0 {
				// The CLI's own answer to its environment context.
				canned++
				setup = false
				continue
			}
			setup = false
			b.request(0, time.Time{}, chars, nil)
			for _, p := range parts {
				if p.Text != nil && !p.Thought {
					b.text(*p.Text)
				}
			}
			for _, p := range parts {
				if fc := p.FunctionCall; fc != nil {
					call := Call{ID: fc.ID, Tool: fc.Name}
					call.SetArgsField(fc.Args)
					b.call(call)
				}
			}
		default:
			out.Problemf(h.Line, "content %d has unknown role %q; skipped", i+1, strings.ToValidUTF8(c.Role, "?"))
		}
	}
	b.finish()
	if len(s.Turns) == 0 && len(elems) > 0 && ignored+canned == len(elems) {
		return
	}
	noteSkipped(s, ignored, "user content(s) Gemini CLI sends itself or ignores (environment context, slash commands) not read as prompts")
	noteSkipped(s, canned, "canned model answer(s) to the environment context not read as requests")
	s.Notes = append(s.Notes, "saved chat (/chat save): no times and no token usage are kept")
	out.Session(s)
}

func parseGeminiLogs(doc []byte, h *Head, out *Sink) {
	elems, ok := jsonx.SplitArray(bytes.TrimSpace(doc))
	if !ok {
		out.Problemf(h.Line, "not a Gemini CLI logs.json: not a JSON array")
		return
	}
	type logged struct {
		s       *Session
		b       *convBuilder
		ignored int
	}
	var order []string
	bySession := map[string]*logged{}
	for i, raw := range elems {
		var e struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			Message   string `json:"message"`
			Timestamp string `json:"timestamp"`
		}
		if err := jsonx.Unmarshal(raw, &e); err != nil {
			out.Problemf(h.Line, "entry %d has an unexpected shape (%s); skipped", i+1, decodeErr(err))
			continue
		}
		l := bySession[e.SessionID]
		if l == nil {
			s := &Session{Format: formatGeminiLogs, ID: e.SessionID}
			if s.ID == "" {
				s.ID = fileStem(h.Name)
			}
			l = &logged{s: s, b: newConvBuilder(s, out)}
			bySession[e.SessionID] = l
			order = append(order, e.SessionID)
		}
		if e.Type != "user" || geminiIgnoredUser(e.Message) {
			l.ignored++
			continue
		}
		l.b.turn(0, isoTime(e.Timestamp), len(e.Message))
		keepUserText(l.s, geminiUserText(e.Message))
	}
	for _, id := range order {
		l := bySession[id]
		l.b.finish()
		if len(l.s.Turns) == 0 {
			continue
		}
		noteSkipped(l.s, l.ignored, "input(s) Gemini CLI does not send as prompts (slash commands, empty) not read as turns")
		l.s.Notes = append(l.s.Notes, "prompt log (logs.json): the user's inputs only, no model response or tool call is recorded")
		out.Session(l.s)
	}
}
