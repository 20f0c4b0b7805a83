package ingest

// Gemini CLI chat recordings (google-gemini/gemini-cli,
// packages/core/src/services/chatRecordingService.ts and
// chatRecordingTypes.ts): ~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl
// (subagents: chats/<parent session id>/<id>.jsonl), and the older whole-file
// session-*.json. Docs: docs/formats/gemini.md.
//
// The JSONL file is a log, read as loadConversationRecord reads it:
//   - a record with sessionId and projectHash is metadata (the first line;
//     a legacy record on one line may carry messages too);
//   - a record with a string id is a message: the last record with an id
//     wins, in the place where that id first appeared (a message is written
//     again as its tool calls and token counts arrive);
//   - {"$rewindTo": id} removes that message and every message after it (a
//     rewind to an id not present removes them all);
//   - {"$set": {...}} updates metadata; with a messages list it replaces the
//     messages (a checkpoint).
//
// Readings taken:
//   - A "user" message opens a turn unless it is what Gemini CLI itself
//     ignores when resuming (isIgnoredUserContent: empty, or starting with
//     "/", "?", "<session_context>" or "<hook_context>"), or holds only
//     functionResponse parts (tool results written back from history).
//   - A "gemini" message (Qwen Code's fork: "qwen") is a request; its
//     toolCalls are the calls, each
//     with its own result (functionResponse output, or error) and status
//     ("error" marks the result an error; no result: the call never
//     finished). When it has no toolCalls, functionCall parts of its content
//     are the calls, answered by later functionResponse parts.
//   - "info", "error" and "warning" messages are the CLI's own: counted in
//     a note, not read.
//   - Rewound messages are not read (they were taken out of the
//     conversation); a note counts them.
//   - tokens: input is promptTokenCount (cached included), output is
//     candidates plus thoughts tokens.

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatGemini = "gemini-cli"

func init() {
	register(&Format{
		ID:        formatGemini,
		Text:      true,
		Family:    "gemini",
		Reads:     "Gemini CLI chat recordings: `~/.gemini/tmp/<project>/chats/*.jsonl` (a log with `$rewindTo` and `$set` records) and the older whole-file `.json` (also Qwen Code's `~/.qwen/tmp/<hash>/chats/session-*.json`).",
		Detection: "First record has `sessionId` and `projectHash` (the recording's metadata).",
		Priority:  26,
		Sniff: func(h *Head) bool {
			return !h.Array && h.Has("sessionId", "projectHash")
		},
		Envelope:   geminiEnvelope,
		ParseLines: parseGeminiLines,
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			g := newGeminiLog(h, out)
			pos := newDocPos(doc, h.Line)
			g.record(bytes.TrimSpace(doc), docLine(doc, h), pos)
			g.emit(docLine(doc, h) == 0)
		},
	})
}

type geminiMsg struct {
	raw  jsonx.RawMessage
	line int // its record's line (0 in a document), for problems
	at   int // the file line problems name
}

// geminiLog replays the records of one file into its final messages.
type geminiLog struct {
	h        *Head
	out      *Sink
	meta     struct{ SessionID, Kind string }
	order    []string
	msgs     map[string]geminiMsg
	rewound  int
	replaced int
}

func newGeminiLog(h *Head, out *Sink) *geminiLog {
	return &geminiLog{h: h, out: out, msgs: map[string]geminiMsg{}}
}

func parseGeminiLines(lr *LineReader, h *Head, out *Sink) {
	g := newGeminiLog(h, out)
	eachJSONLine(lr, h, out, func(line []byte, n int) {
		// A message is kept until the file's end (a later record may
		// replace it), and the line reader reuses its buffer: a message
		// record keeps a copy of its line (a long line read after it
		// overwrote it: "invalid character" problems on messages read
		// whole before).
		if isGeminiMessageLine(line) {
			line = bytes.Clone(line)
		}
		g.record(line, n, nil)
	})
	g.emit(false)
}

// isGeminiMessageLine says whether a line may hold messages the log keeps:
// every record but the frequent {"$set":{"lastUpdated":...}} and
// {"$rewindTo":...}, which keep nothing.
func isGeminiMessageLine(line []byte) bool {
	l := bytes.TrimLeft(line, " \t")
	return !bytes.HasPrefix(l, []byte(`{"$rewindTo"`)) &&
		!(bytes.HasPrefix(l, []byte(`{"$set":{"lastUpdated"`)) && !bytes.Contains(l, []byte(`"messages"`)))
}

// put sets a message, keeping the place of its id.
func (g *geminiLog) put(id string, m geminiMsg) {
	if _, ok := g.msgs[id]; ok {
		g.replaced++
	} else {
		g.order = append(g.order, id)
	}
	g.msgs[id] = m
}

func (g *geminiLog) clear() {
	g.rewound += len(g.order)
	g.order = g.order[:0]
	g.msgs = map[string]geminiMsg{}
}

// putList adds the messages of a list member (legacy record, checkpoint).
func (g *geminiLog) putList(list []byte, line int, pos *docPos) {
	elems, ok := jsonx.SplitArray(bytes.TrimSpace(list))
	if !ok {
		g.out.Problemf(lineOr(line, pos, list), "messages is not a list; skipped")
		return
	}
	lines := pos.elemLines(list)
	// A list is messages, not a log: one id twice in it is two messages
	// (Gemini CLI 0.61.0's `--resume` restates the history with the
	// model's function call and the user's function response under the
	// model message's id), so a repeated id gets a key of its own.
	inList := map[string]bool{}
	for i, e := range elems {
		var head struct {
			ID *string `json:"id"`
		}
		at := lineAtIndex(lines, i, line)
		if jsonx.Unmarshal(e, &head) != nil || head.ID == nil {
			g.out.Problemf(at, "message %d of the list has no string id; skipped", i+1)
			continue
		}
		key := *head.ID
		if inList[key] {
			key += "\x00" + strconv.Itoa(i)
		}
		inList[*head.ID] = true
		g.put(key, geminiMsg{raw: e, line: line, at: at})
	}
}

// lineOr is line, or in a document the line where data starts.
func lineOr(line int, pos *docPos, data []byte) int {
	if line == 0 {
		return pos.lineOf(data)
	}
	return line
}

// record applies one record, as loadConversationRecord does.
func (g *geminiLog) record(data []byte, line int, pos *docPos) {
	var rec map[string]jsonx.RawMessage
	if err := jsonx.Unmarshal(data, &rec); err != nil {
		g.out.Problemf(lineOr(line, pos, data), "record is not a JSON object (%s); skipped", decodeErr(err))
		return
	}
	str := func(k string) (string, bool) {
		var s string
		raw, ok := rec[k]
		return s, ok && len(raw) > 0 && raw[0] == '"' && jsonx.Unmarshal(raw, &s) == nil
	}
	if id, ok := str("$rewindTo"); ok {
		at := -1
		for i, x := range g.order {
			if x == id {
				at = i
				break
			}
		}
		if at < 0 {
			g.clear()
			return
		}
		for _, x := range g.order[at:] {
			delete(g.msgs, x)
		}
		g.rewound += len(g.order) - at
		g.order = g.order[:at]
		return
	}
	if id, ok := str("id"); ok {
		g.put(id, geminiMsg{raw: data, line: line, at: lineOr(line, pos, data)})
		return
	}
	if set := rec["$set"]; len(set) > 0 && set[0] == '{' {
		var upd map[string]jsonx.RawMessage
		_ = jsonx.Unmarshal(set, &upd)
		if list, ok := upd["messages"]; ok && len(list) > 0 && list[0] == '[' {
			g.clear()
			g.rewound = 0 // a checkpoint restates the messages: none is lost
			g.putList(viewOr(member(data, "$set", "messages"), list), line, pos)
		}
		g.meta.Kind = jsonString(upd["kind"], g.meta.Kind)
		return
	}
	if _, ok := str("sessionId"); ok {
		if _, ok := str("projectHash"); ok {
			g.meta.SessionID = jsonString(rec["sessionId"], g.meta.SessionID)
			g.meta.Kind = jsonString(rec["kind"], g.meta.Kind)
			if list, ok := rec["messages"]; ok {
				g.putList(viewOr(member(data, "messages"), list), line, pos)
			}
			return
		}
	}
	g.out.Problemf(lineOr(line, pos, data), "record is not a Gemini CLI chat record (no id, $rewindTo, $set or session metadata); skipped")
}

// viewOr is the member as a view of the record (whose lines a docPos
// knows), else its copy.
func viewOr(view, raw []byte) []byte {
	if view != nil {
		return view
	}
	return raw
}

// jsonString decodes a JSON string member, else returns def.
func jsonString(raw jsonx.RawMessage, def string) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && jsonx.Unmarshal(raw, &s) == nil {
		return s
	}
	return def
}

type geminiRecord struct {
	ID        string           `json:"id"`
	Timestamp string           `json:"timestamp"`
	Type      string           `json:"type"`
	Content   jsonx.RawMessage `json:"content"`
	Model     string           `json:"model"`
	ToolCalls []struct {
		ID     string           `json:"id"`
		Name   string           `json:"name"`
		Args   jsonx.RawMessage `json:"args"`
		Result jsonx.RawMessage `json:"result"`
		Status string           `json:"status"`
	} `json:"toolCalls"`
	Thoughts []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	Tokens *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
	} `json:"tokens"`
}

// geminiPart is a @google/genai Part, as far as a transcript needs it.
type geminiPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string           `json:"id"`
		Name string           `json:"name"`
		Args jsonx.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string           `json:"id"`
		Name     string           `json:"name"`
		Response jsonx.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiParts reads a PartListUnion: a string, a Part, or a list of them
// (strings among them).
func geminiParts(raw jsonx.RawMessage) []geminiPart {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '"':
		var s string
		if jsonx.Unmarshal(raw, &s) == nil {
			return []geminiPart{{Text: &s}}
		}
	case '{':
		var p geminiPart
		if jsonx.Unmarshal(raw, &p) == nil {
			return []geminiPart{p}
		}
	case '[':
		var elems []jsonx.RawMessage
		if jsonx.Unmarshal(raw, &elems) == nil {
			var parts []geminiPart
			for _, e := range elems {
				parts = append(parts, geminiParts(e)...)
			}
			return parts
		}
	}
	return nil
}

// geminiResponseText is the text of a functionResponse's response: its
// output (or error) string, else its JSON.
func geminiResponseText(resp jsonx.RawMessage) (string, bool) {
	var r struct {
		Output *string `json:"output"`
		Error  *string `json:"error"`
	}
	if jsonx.Unmarshal(resp, &r) == nil {
		// A call cancelled after it printed something keeps that output
		// and gets an error beside it ("[Operation Cancelled] …",
		// createCancelledResult, packages/core/src/scheduler/
		// tool-executor.ts, google-gemini/gemini-cli at 5411f113): the
		// output is what the model reads, and the call failed.
		if r.Output != nil {
			return *r.Output, r.Error != nil && *r.Error != ""
		}
		if r.Error != nil {
			return *r.Error, true
		}
	}
	return string(bytes.TrimSpace(resp)), false
}

// geminiResultText is the text of a tool call's result (PartListUnion).
// callID is the call's id: see geminiOwnParts.
func geminiResultText(raw jsonx.RawMessage, callID string) (text string, isErr, others bool) {
	var sb strings.Builder
	parts, others := geminiOwnParts(geminiParts(raw), callID)
	for _, p := range parts {
		var t string
		switch {
		case p.FunctionResponse != nil:
			var e bool
			t, e = geminiResponseText(p.FunctionResponse.Response)
			isErr = isErr || e
		case p.Text != nil:
			t = *p.Text
		default:
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(t)
	}
	return sb.String(), isErr, others
}

// geminiOwnParts keeps, of a call's recorded result, the parts that answer
// that call. Gemini CLI records each call's result as its
// response.responseParts (recordCompletedToolCalls,
// packages/core/src/core/geminiChat.ts: "result:
// call.response?.responseParts"), and a functionResponse part names the
// call it answers by its id. Real recordings (gemini-3-flash-preview,
// with update_topic) hold, in the result of each call of a parallel batch,
// the functionResponse parts of the whole batch: read whole, every call of
// the batch had the same result, the batch's outputs joined, and an error
// of one was an error of all. So when some functionResponse part carries
// this call's id, its part and the parts that follow it up to the next
// functionResponse (read_many_files' text parts) are the result; others
// says parts answering other calls were left out. Without such a part the
// result is read whole, as before.
func geminiOwnParts(parts []geminiPart, callID string) (own []geminiPart, others bool) {
	if callID == "" {
		return parts, false
	}
	start := -1
	for i, p := range parts {
		if p.FunctionResponse != nil && p.FunctionResponse.ID == callID {
			start = i
			break
		}
	}
	if start < 0 {
		return parts, false
	}
	end := start + 1
	for end < len(parts) && parts[end].FunctionResponse == nil {
		end++
	}
	return parts[start:end], start > 0 || end < len(parts)
}

// geminiShellRunLines begin the lines of run_shell_command's result that
// name the run's processes (packages/core/src/tools/shell.ts, the
// llmContent it returns: "Background PIDs: …", "Process Group PGID: N"),
// which differ from one run of the same command to the next.
var geminiShellRunLines = []string{"Process Group PGID: ", "Background PIDs: "}

// geminiEnvelope takes the process lines at the end of a shell result
// (before a closing </untrusted_context>, which 0.61 adds) out of it: they
// are envelope. Command, Directory, Output, Error, Exit Code and Signal
// are the tool's. Only trailing lines are taken, so a file whose text
// holds such a line keeps it.
func geminiEnvelope(result string) (output, envelope string) {
	lines := strings.Split(result, "\n")
	end := len(lines)
	closing := end > 0 && strings.TrimSpace(lines[end-1]) == "</untrusted_context>"
	if closing {
		end--
	}
	start := end
	for start > 0 && slices.ContainsFunc(geminiShellRunLines, func(p string) bool { return strings.HasPrefix(lines[start-1], p) }) {
		start--
	}
	if start == end {
		return result, ""
	}
	kept := append(append([]string(nil), lines[:start]...), lines[end:]...)
	return strings.Join(kept, "\n"), strings.Join(lines[start:end], "\n")
}

// geminiExitFailed says whether a shell call's result reports a non-zero
// exit code: Gemini CLI records such a call with status "success" (the
// tool ran), but the command failed, as the model reads it ("Exit Code: 1").
func geminiExitFailed(tool, result string) bool {
	if tool != "run_shell_command" {
		return false
	}
	for line := range strings.SplitSeq(result, "\n") {
		if code, ok := strings.CutPrefix(line, "Exit Code: "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(code))
			return err == nil && n != 0
		}
	}
	return false
}

// geminiHookContext takes the context an AfterTool hook added to a result
// out of it: Gemini CLI appends "\n\n<hook_context>CONTEXT</hook_context>"
// to the tool's llmContent (packages/core/src/core/coreToolHookTriggers.ts,
// executeToolWithHooks; the 0.61.0 bundle's chunk-5FZXKDXH.js), and the
// recording keeps the result so. It is a hook's words to the model, not
// the tool's output: a result read with it differs from the same output
// without it (a steer given after a call made a repeated result new).
func geminiHookContext(result string) (string, bool) {
	const open, end = "\n\n<hook_context>", "</hook_context>"
	trimmed := strings.TrimRight(result, " \n")
	if !strings.HasSuffix(trimmed, end) {
		return result, false
	}
	i := strings.LastIndex(trimmed, open)
	if i < 0 {
		return result, false
	}
	return trimmed[:i], true
}

// geminiHookContexts counts the hook contexts taken out of results.
type geminiHookContexts struct{ n int }

func (h *geminiHookContexts) strip(result string) string {
	out, ok := geminiHookContext(result)
	if ok {
		h.n++
	}
	return out
}

// geminiContext reports whether a user message's text is the context
// Gemini CLI sends itself (a session's or a hook's), not the user's.
func geminiContext(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<session_context>") || strings.HasPrefix(t, "<hook_context>")
}

// geminiIgnoredUser is isIgnoredUserContent (packages/core/src/utils/sessionUtils.ts).
func geminiIgnoredUser(text string) bool {
	t := strings.TrimSpace(text)
	return t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?") || geminiContext(t)
}

// geminiHeld is a gemini message read later than its place.
type geminiHeld struct {
	m     geminiMsg
	r     geminiRecord
	t     time.Time
	parts []geminiPart
}

// geminiMsgType is a message's type ("" when it has none).
func geminiMsgType(raw jsonx.RawMessage) string {
	var r struct {
		Type string `json:"type"`
	}
	_ = jsonx.Unmarshal(raw, &r)
	return r.Type
}

// geminiClientSkill says whether a gemini message is the skill activation
// Gemini CLI makes itself for a skill's slash command (`/name args`):
// SkillCommandLoader turns the command into a client-initiated
// activate_skill call, and useGeminiStream records it as a model message
// of that call alone, before the prompt the command submits (the args,
// recorded as a user message whose displayContent is the command;
// packages/cli/src/services/SkillCommandLoader.ts and
// packages/cli/src/ui/hooks/useGeminiStream.ts, google-gemini/gemini-cli
// at 5411f113). No model answered it, so it has no tokens. It belongs to
// the prompt's turn: read in its place, it opened a turn of its own
// before the session's first prompt (a turn no one typed), or fell in
// the turn before.
func geminiClientSkill(r geminiRecord) bool {
	if r.Tokens != nil || len(r.ToolCalls) == 0 {
		return false
	}
	for _, tc := range r.ToolCalls {
		if tc.Name != "activate_skill" {
			return false
		}
	}
	return true
}

// emit builds the session from the final messages.
func (g *geminiLog) emit(doc bool) {
	s := &Session{Format: formatGemini, ID: g.meta.SessionID}
	if s.ID == "" {
		s.ID = fileStem(g.h.Name)
	}
	if g.meta.Kind == "subagent" {
		s.Agent = s.ID
		s.Parent = filepath.Base(filepath.Dir(g.h.Path))
	}
	b := newConvBuilder(s, g.out)
	cli := 0
	ignored := 0
	context := 0 // of the ignored: the session's or a hook's context
	// answered holds the ids of calls whose toolCalls entry carried the
	// result; the user message that follows sends that result back to the
	// model (functionResponse parts): the same result again, not a second.
	answered := map[string]bool{}
	echoed := 0
	batched := 0
	var hookCtx geminiHookContexts
	// model reads a gemini message: a request, its text, its calls.
	model := func(m geminiMsg, r geminiRecord, t time.Time, parts []geminiPart) {
		chars := 0
		for _, p := range parts {
			if p.Text != nil {
				chars += len(*p.Text)
			}
		}
		for _, th := range r.Thoughts {
			chars += len(th.Subject) + len(th.Description)
		}
		var u *Usage
		if r.Tokens != nil {
			u = &Usage{Input: r.Tokens.Input, Output: r.Tokens.Output + r.Tokens.Thoughts, CacheRead: r.Tokens.Cached}
		}
		if s.Model == "" {
			s.Model = r.Model
		}
		b.request(m.line, t, chars, u)
		for _, p := range parts {
			if p.Text != nil && !p.Thought {
				b.text(*p.Text)
			}
		}
		if len(r.ToolCalls) > 0 {
			for _, tc := range r.ToolCalls {
				c := Call{ID: tc.ID, Tool: tc.Name, Time: t, Line: m.line}
				c.SetArgsField(tc.Args)
				if len(tc.Result) > 0 && string(tc.Result) != "null" {
					text, isErr, others := geminiResultText(tc.Result, tc.ID)
					if others {
						batched++
					}
					text = hookCtx.strip(text)
					// "cancelled": the user stopped the call (the
					// recording's ToolCallRecord status); it did
					// not do what it was asked.
					failed := isErr || tc.Status == "error" || tc.Status == "cancelled" || geminiExitFailed(tc.Name, text)
					setResult(&c, text, failed, m.line)
					answered[tc.ID] = true
				}
				b.call(c)
			}
			return
		}
		for _, p := range parts {
			if fc := p.FunctionCall; fc != nil {
				c := Call{ID: fc.ID, Tool: fc.Name, Time: t, Line: m.line}
				c.SetArgsField(fc.Args)
				b.call(c)
			}
		}
	}
	// pending is a skill activation the CLI made for a slash command
	// (geminiClientSkill), held until the prompt after it opens its turn.
	var pending *geminiHeld
	flush := func() {
		if pending != nil {
			p := pending
			pending = nil
			model(p.m, p.r, p.t, p.parts)
		}
	}
	for i, id := range g.order {
		m := g.msgs[id]
		var r geminiRecord
		if err := jsonx.Unmarshal(m.raw, &r); err != nil {
			g.out.Problemf(m.at, "message %q has an unexpected shape (%s); skipped", id, decodeErr(err))
			continue
		}
		t := isoTime(r.Timestamp)
		parts := geminiParts(r.Content)
		switch r.Type {
		case "user":
			if slices.ContainsFunc(parts, func(p geminiPart) bool { return p.FunctionResponse != nil }) {
				flush()
			}
			var text strings.Builder
			responses := 0
			for _, p := range parts {
				if p.FunctionResponse != nil {
					responses++
					if answered[p.FunctionResponse.ID] && p.FunctionResponse.ID != "" {
						echoed++
						continue
					}
					res, isErr := geminiResponseText(p.FunctionResponse.Response)
					res = hookCtx.strip(res)
					b.result(p.FunctionResponse.ID, p.FunctionResponse.Name, res, isErr, m.line, t)
					// A history restated on resume may send it twice.
					answered[p.FunctionResponse.ID] = true
				} else if p.Text != nil {
					text.WriteString(*p.Text)
				}
			}
			if responses > 0 && strings.TrimSpace(text.String()) == "" {
				flush()
				continue
			}
			if geminiIgnoredUser(text.String()) {
				flush()
				ignored++
				if geminiContext(text.String()) {
					context++
				}
				continue
			}
			b.turn(m.line, t, text.Len())
			keepUserText(s, geminiUserText(text.String()))
			flush()
		case "gemini", "qwen":
			// Qwen Code's whole-file recordings (~/.qwen/tmp/<project
			// hash>/chats/session-*.json, written by its fork of this
			// service before the chats/<id>.jsonl of the qwen-code reader)
			// name the model's message "qwen" (QwenMessage.type, QwenLM/
			// qwen-code packages/vscode-ide-companion/src/services/
			// qwenSessionReader.ts at 1aeacaff).
			flush()
			if geminiClientSkill(r) && i+1 < len(g.order) && geminiMsgType(g.msgs[g.order[i+1]].raw) == "user" {
				pending = &geminiHeld{m, r, t, parts}
				continue
			}
			model(m, r, t, parts)
		case "info", "error", "warning":
			flush()
			cli++
		default:
			flush()
			g.out.Problemf(m.at, "message %q of unknown type %q; skipped", id, r.Type)
		}
	}
	flush()
	b.finish()
	if len(s.Turns) == 0 && ignored > 0 && context == ignored && ignored+cli == len(g.order) && g.rewound == 0 {
		// Only the context Gemini CLI itself sends (its session context):
		// no conversation. `gemini --resume` writes such a file under a new
		// name before it goes on in the resumed session's own file
		// (0.61.0, the agent lab's twoturns), which holds the whole
		// conversation: read as a session, it was a second, empty one.
		// Other messages it ignores (empty, slash commands) leave a
		// session with its note: a file of nothing but those is not that
		// file, and is not dropped unsaid.
		return
	}
	if doc {
		zeroLines(s)
	}
	noteSkipped(s, g.rewound, "rewound message(s) ($rewindTo) not read")
	noteSkipped(s, g.replaced, "message record(s) superseded by a later record with the same id")
	noteSkipped(s, cli, "CLI info/error/warning message(s) not read")
	noteSkipped(s, hookCtx.n, "hook context(s) (AfterTool additionalContext) appended to results not read as the tools' output")
	noteSkipped(s, batched, "tool result(s) recorded with the responses of the other calls of their batch: each call read with its own")
	noteSkipped(s, echoed, "tool result(s) sent back to the model after their call's own record read once")
	noteSkipped(s, ignored, "user message(s) Gemini CLI itself ignores (slash commands, empty, session or hook context) not read as prompts")
	if len(g.order) == 0 && g.rewound == 0 {
		s.Notes = append(s.Notes, "no messages recorded")
	}
	g.out.Session(s)
}
