package ingest

// OpenAI-style transcripts: Chat Completions `messages` arrays (tool_calls and
// the legacy function_call) and Responses API item lists, as whole documents
// or as request/response logs in JSONL. Format reference:
// docs/formats/openai.md.
//
// Both format ids share one reader: each record (the document, or one JSONL
// line) is classified on its own as a chat record or a Responses record, so a
// log that mixes the two APIs, or a file forced with the "wrong" id of the
// family, is still read. The session's Format names what its first record
// was.

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const (
	formatOpenAIChat      = "openai-chat"
	formatOpenAIResponses = "openai-responses"
)

func init() {
	register(&Format{
		ID:        formatOpenAIChat,
		Text:      true,
		Envelope:  codexEnvelope, // Codex sessions converted to chat messages
		Family:    "openai",
		Reads:     "OpenAI Chat Completions messages: a bare messages array, a request body (optionally with its response), or a JSONL log of such requests.",
		Detection: "A JSON array whose first element has a role and no type, an object with a messages array (or request/body holding one, or a chat.completion response), or JSONL lines of such objects.",
		Priority:  40,
		Sniff:     sniffOpenAIChat,
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			parseOpenAILines(lr, h, out)
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseOpenAIDoc(doc, h, out)
		},
	})
	register(&Format{
		ID:        formatOpenAIResponses,
		Envelope:  codexEnvelope, // Codex's items outside a rollout
		Family:    "openai",
		Reads:     "OpenAI Responses API items: a bare input/output item array, a request or response object with input/output, or a JSONL log of them.",
		Detection: "A JSON array whose first element has a type such as message or function_call, or an object with an input or output array (or request/response holding one), or JSONL lines of such objects.",
		Priority:  41,
		Sniff:     sniffOpenAIResponses,
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			parseOpenAILines(lr, h, out)
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseOpenAIDoc(doc, h, out)
		},
	})
}

// responseItemTypes are the Responses API item types loopgate recognizes.
var responseItemTypes = map[string]bool{
	"message": true, "function_call": true, "function_call_output": true,
	"reasoning": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"local_shell_call": true, "local_shell_call_output": true, "mcp_call": true,
	"web_search_call": true, "file_search_call": true, "computer_call": true,
	"computer_call_output": true, "image_generation_call": true,
	"code_interpreter_call": true, "item_reference": true, "compaction": true,
	"mcp_list_tools": true, "mcp_approval_request": true, "mcp_approval_response": true,
}

// foreignMarkers are top-level keys of other agents' records that also carry
// a messages array (hermes-agent export rows and JSON snapshots, nanobot's
// metadata): those files belong to their own ingesters, which detection
// tries first anyway; the check keeps a forced order change harmless.
var foreignMarkers = []string{"session_start", "started_at", "message_count", "conversations", "_type"}

func sniffOpenAIChat(h *Head) bool {
	if h.Array {
		_, typed := h.Keys["type"]
		return h.Has("role") && !typed
	}
	// An export that names its format (a Claude Code session converted to
	// {"format": "openai-chat", "messages": [...], "message_count": N})
	// is one, whatever else it counts.
	if h.String("format") == formatOpenAIChat && rawIsArray(h.Keys["messages"]) {
		return true
	}
	for _, k := range foreignMarkers {
		if h.Has(k) {
			return false
		}
	}
	// A converted terminal transcript's document form (converted_text.go)
	// has messages too, with roles human and assistant.
	if convertedInfo(h) {
		return false
	}
	if raw, ok := h.Keys["messages"]; ok {
		return rawIsArray(raw)
	}
	for _, k := range []string{"request", "body"} {
		if m := keysOf(h.Keys[k]); m != nil && rawIsArray(m["messages"]) {
			return true
		}
	}
	if h.String("object") == "chat.completion" && h.Has("choices") {
		return true
	}
	// A logged response alone, e.g. an OpenAI Batch output line
	// {"response": {"body": <chat.completion>}}.
	if resp := keysOf(h.Keys["response"]); resp != nil {
		if body := keysOf(resp["body"]); body != nil {
			resp = body
		}
		return firstString(resp, "object") == "chat.completion"
	}
	return false
}

func sniffOpenAIResponses(h *Head) bool {
	if h.Array {
		return responseItemTypes[h.String("type")]
	}
	for _, k := range foreignMarkers {
		if h.Has(k) {
			return false
		}
	}
	if rawIsArray(h.Keys["input"]) || rawIsArray(h.Keys["output"]) {
		return true
	}
	for _, k := range []string{"request", "body", "response"} {
		if m := keysOf(h.Keys[k]); m != nil && (rawIsArray(m["input"]) || rawIsArray(m["output"])) {
			return true
		}
	}
	return h.String("object") == "response"
}

// oaItem is one message of a conversation, normalized from either API.
type oaItem struct {
	kind  byte // 'u' user, 'a' assistant (model output), 'r' tool result
	fp    msgPrint
	line  int
	time  time.Time
	chars int    // user text, or assistant text plus reasoning
	text  string // assistant's visible text, kept when Sink.KeepText; the user's
	calls []Call
	usage *Usage
	// results
	legacy  bool // a legacy role "function" result, joined by order and name
	resID   string
	resName string
	resText string
	resErr  bool
	// scope is the subagent whose message this is, "" for the session's
	// own (subagentRolePrefix).
	scope string
}

// oaRecord is what one document or JSONL line holds.
type oaRecord struct {
	format    string
	sessionID string
	model     string
	respID    string
	prevResp  string // Responses previous_response_id
	request   []oaItem
	response  []oaItem
	skipped   map[string]int // item types not replayed (hosted tools, ...)
	extra     int            // choices beyond the first
}

// oaConv is one conversation being read: its session, and the fingerprints
// of the messages seen so far, so that the next request of the same
// conversation (which replays them) is recognized and only its new messages
// are added.
type oaConv struct {
	b *sessionBuilder
	// subs are the conversation's subagent scopes, in the order of their
	// first messages (subagentRolePrefix).
	subs []*sessionBuilder
	// ahead holds timed results read before their call (by scope and call
	// id), for the call that comes later with an earlier time (aheadKey).
	ahead   map[string]oaItem
	known   []msgPrint
	respIDs map[string]bool
	touched int
	skipped map[string]int
	extra   int
	// cmd holds, per scope's builder, a Claude Code slash command's
	// wrapper not yet answered (claudeCLILine).
	cmd map[*sessionBuilder]pendingCommand
}

// maxOpenConversations bounds how many conversations of a log stay open
// waiting for a continuation (interleaved logs); the least recently
// continued one is finished first.
const maxOpenConversations = 16

type oaReader struct {
	h     *Head
	out   *Sink
	stem  string
	convs []*oaConv
	tick  int
	// pos maps a whole-file document's elements to their file lines:
	// problems name the element's line; sessions read from a
	// multi-line document keep line 0 (docpos.go). nil for JSONL.
	pos *docPos
	// reuse holds what was read of the recent lines, for a JSONL log
	// (lineReuse); nil for a document.
	reuse *lineReuse
	added bool // a record of the log was added
}

func parseOpenAIDoc(doc []byte, h *Head, out *Sink) {
	r := &oaReader{h: h, out: out, stem: fileStem(h.Name), pos: newDocPos(doc, h.Line)}
	line := docLineOf(doc, h)
	rec, ok := r.record(doc, line, nil)
	if !ok {
		return
	}
	r.add(rec, line, true)
	r.finishAll()
}

func parseOpenAILines(lr *LineReader, h *Head, out *Sink) {
	r := &oaReader{h: h, out: out, stem: fileStem(h.Name)}
	if !h.noLineReuse {
		r.reuse = &lineReuse{}
	}
	for {
		line, n, ok := lr.Next()
		if !ok {
			break
		}
		r.logLine(lr, line, n)
	}
	r.finishAll()
}

// logLine reads line n of a JSONL log.
func (r *oaReader) logLine(lr *LineReader, line []byte, n int) {
	r.reuse.start(line)
	defer r.reuse.finish()
	// Splitting the object checks its syntax too: a line it reads needs no
	// separate validity pass.
	sr, split := splitRecord(line, r.reuse)
	if !split {
		sr = &splitLine{}
		sr.top, split = jsonx.SplitObject(line)
	}
	if !split && !jsonx.Valid(line) {
		r.out.BadLine(lr, n, notJSON(line))
		return
	}
	rec, ok := r.record(line, n, sr)
	if !ok {
		return
	}
	r.add(rec, n, !r.added)
	r.added = true
}

// record decodes one document or line into an oaRecord, reporting what it
// cannot read. sr is what the caller split of data already (splitRecord,
// or SplitObject's members alone), or nil.
func (r *oaReader) record(data []byte, line int, sr *splitLine) (oaRecord, bool) {
	if sr == nil {
		sr = &splitLine{}
	}
	top, pre := sr.top, sr.pre
	data = bytes.TrimSpace(data)
	rec := oaRecord{skipped: map[string]int{}}
	// at is the line for problems of the record as a whole: the JSONL
	// line, or a document's first line.
	at := line
	if at == 0 {
		at = r.pos.lineOf(data)
	}
	if len(data) > 0 && data[0] == '[' {
		raws, err := elementsOf(data)
		if err != nil {
			r.out.Problemf(at, "not a JSON array of messages: %v", err)
			return rec, false
		}
		elems := rawElems(raws)
		lines := r.pos.elemLines(data)
		if isResponsesList(raws) {
			rec.format = formatOpenAIResponses
			rec.request = r.responseItems(elems, lines, at, &rec)
		} else {
			rec.format = formatOpenAIChat
			rec.request = r.chatItems(elems, lines, at)
		}
		return rec, true
	}
	if top == nil {
		top = keysOf(data)
	}
	if top == nil {
		r.out.Problemf(at, "expected a JSON object or array of messages")
		return rec, false
	}
	req, resp := top, top
	var reqPath, respPath []string // where req and resp are in data
	// membersOf is keysOf(top[k]), from splitRecord when it read them.
	membersOf := func(k string) map[string]jsonx.RawMessage {
		if m := sr.sub[k]; m != nil {
			return m
		}
		return keysOf(top[k])
	}
	for _, k := range []string{"request", "body"} {
		if m := membersOf(k); m != nil {
			req, reqPath = m, []string{k}
			break
		}
	}
	// A logged HTTP request, {"request": {"method", "url", "headers",
	// "body": {...}}} (hermes' request_dump_*.json): the API request is
	// its body.
	if len(reqPath) == 1 && req["messages"] == nil && req["input"] == nil {
		if b := keysOf(req["body"]); b != nil {
			req, reqPath = b, []string{reqPath[0], "body"}
		}
	}
	if m := membersOf("response"); m != nil {
		resp, respPath = m, []string{"response"}
		if b := keysOf(m["body"]); b != nil { // OpenAI batch output
			resp, respPath = b, []string{"response", "body"}
		}
	}
	// elemsOf gives the elements of raw, the array member key of req or
	// resp (path): already decoded when splitRecord read it from top.
	elemsOf := func(path []string, key string, raw jsonx.RawMessage) ([]oaElem, error) {
		if e, ok := pre[strings.Join(append(path[:len(path):len(path)], key), ".")]; ok && len(path) <= 1 {
			return e, nil
		}
		raws, err := elementsOf(raw)
		return rawElems(raws), err
	}
	// linesOf gives the file lines of the elements of an array member of
	// req or resp (nil outside documents).
	linesOf := func(path []string, key string) []int {
		if r.pos == nil {
			return nil
		}
		return r.pos.elemLines(member(data, append(append([]string(nil), path...), key)...))
	}
	rec.sessionID = firstString(top, "session_id", "conversation_id", "thread_id", "custom_id")
	if rec.sessionID == "" {
		if md := keysOf(top["metadata"]); md != nil {
			rec.sessionID = firstString(md, "session_id", "conversation_id", "thread_id")
		}
	}
	rec.respID = firstString(resp, "id")
	rec.model = firstString(resp, "model")
	if rec.model == "" {
		rec.model = firstString(req, "model")
	}
	switch {
	case req["messages"] != nil || resp["choices"] != nil:
		rec.format = formatOpenAIChat
		if raw := req["messages"]; raw != nil {
			if elems, err := elemsOf(reqPath, "messages", raw); err != nil {
				r.out.Problemf(at, "messages is not an array: %v", err)
			} else {
				rec.request = r.chatItems(elems, linesOf(reqPath, "messages"), at)
				if meta := keysOf(top["meta"]); meta != nil && meta["token_counts"] != nil {
					applyTokenCounts(rec.request, meta["token_counts"], r.out, at)
				}
			}
		}
		if raw := resp["choices"]; raw != nil {
			rec.response = r.chatChoices(raw, resp, lineAtIndex(linesOf(respPath, "choices"), 0, at), &rec)
		}
	case req["input"] != nil || resp["output"] != nil:
		rec.format = formatOpenAIResponses
		rec.prevResp = firstString(req, "previous_response_id")
		if raw := req["input"]; raw != nil {
			var s string
			// An array (the common case) is never a string: it is not
			// handed to Unmarshal, which would scan all of it to say so.
			if !rawIsArray(raw) && jsonx.Unmarshal(raw, &s) == nil {
				if u := userItem(s, s != "", at); u.kind != 0 {
					rec.request = []oaItem{u}
				}
			} else {
				if elems, err := elemsOf(reqPath, "input", raw); err != nil {
					r.out.Problemf(at, "input is neither a string nor an array of items: %v", err)
				} else {
					rec.request = r.responseItems(elems, linesOf(reqPath, "input"), at, &rec)
				}
			}
		}
		if raw := resp["output"]; raw != nil {
			if elems, err := elemsOf(respPath, "output", raw); err != nil {
				r.out.Problemf(at, "output is not an array of items: %v", err)
			} else {
				items := r.responseItems(elems, linesOf(respPath, "output"), at, &rec)
				var u *Usage
				if raw := resp["usage"]; raw != nil {
					u = checkedUsage(r.out, at, raw, parseOpenAIUsage)
				}
				t := unixTime(resp["created_at"])
				for i := range items {
					if items[i].kind == 'a' {
						if u != nil {
							items[i].usage, u = u, nil // one usage per response
						}
						items[i].time = t
						for j := range items[i].calls {
							items[i].calls[j].Time = t
						}
					}
				}
				rec.response = items
			}
		}
	default:
		r.out.Problemf(at, "record has no messages, choices, input or output; skipped")
		return rec, false
	}
	// A log line's own timestamp dates the request: the user messages and
	// tool results it is the first to carry were sent then (at the latest).
	if t := parseTime(firstString(top, "timestamp", "time", "created_at")); !t.IsZero() {
		for i := range rec.request {
			if k := rec.request[i].kind; k == 'u' || k == 'r' {
				rec.request[i].time = t
			}
		}
	}
	return rec, true
}

func unixTime(raw jsonx.RawMessage) time.Time {
	var f float64
	if raw == nil || jsonx.Unmarshal(raw, &f) != nil || f <= 0 {
		return time.Time{}
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
}

// add feeds one record: to the open conversation whose messages it replays
// (or that its previous_response_id names), else to a new conversation.
func (r *oaReader) add(rec oaRecord, line int, first bool) {
	items := append(rec.request, rec.response...)
	fps := make([]msgPrint, len(items))
	for i, it := range items {
		fps[i] = it.fp
	}
	r.tick++
	var conv *oaConv
	start := 0
	if rec.prevResp != "" {
		for _, c := range r.convs {
			if c.respIDs[rec.prevResp] {
				conv = c
				break
			}
		}
	}
	if conv == nil {
		for _, c := range r.convs {
			if len(c.known) > 0 && len(c.known) <= len(fps) && slices.Equal(c.known, fps[:len(c.known)]) && (conv == nil || len(c.known) > len(conv.known)) {
				conv = c
			}
		}
		if conv != nil {
			start = len(conv.known)
		}
	}
	if conv == nil {
		if len(r.convs) >= maxOpenConversations {
			oldest := 0
			for i, c := range r.convs {
				if c.touched < r.convs[oldest].touched {
					oldest = i
				}
			}
			r.finish(r.convs[oldest])
			r.convs = append(r.convs[:oldest], r.convs[oldest+1:]...)
		}
		id := rec.sessionID
		if id == "" && line == 0 {
			id = rec.respID // a whole document: its response names it
		}
		if id == "" {
			id = r.stem
			if !first {
				id = r.stem + "#L" + strconv.Itoa(line)
			}
		}
		s := &Session{Format: rec.format, ID: id, Model: rec.model, Line: line}
		conv = &oaConv{b: newSessionBuilder(s, 0), respIDs: map[string]bool{}, skipped: map[string]int{}}
		conv.b.doc = r.pos != nil && line == 0
		r.convs = append(r.convs, conv)
	}
	conv.touched = r.tick
	if conv.b.s.Model == "" {
		conv.b.s.Model = rec.model
	}
	if rec.respID != "" {
		conv.respIDs[rec.respID] = true
	}
	for k, n := range rec.skipped {
		conv.skipped[k] += n
	}
	conv.extra += rec.extra
	for _, it := range items[start:] {
		r.feedConv(conv, it)
	}
	conv.known = append(conv.known, fps[start:]...)
}

// builder is the session builder of the scope an item belongs to: the
// conversation's own, or its subagent's, begun at the agent's first
// message as a session of the same id with the agent's id as Agent.
func (c *oaConv) builder(it oaItem) *sessionBuilder {
	if it.scope == "" {
		return c.b
	}
	for _, b := range c.subs {
		if b.s.Agent == it.scope {
			return b
		}
	}
	main := c.b.s
	b := newSessionBuilder(&Session{Format: main.Format, ID: main.ID, Agent: it.scope, Parent: main.ID, Line: it.line}, 0)
	b.doc = c.b.doc
	c.subs = append(c.subs, b)
	return b
}

// feedConv feeds an item to its scope's builder, holding back a timed
// result that comes before its call: exports converted from Claude Code
// sometimes write a result a message or two before its call, though the
// call's own time is the earlier (a converter's order, not the agent's).
// When the call comes, with a time no later than the result's, the result
// is joined to it; a result whose call never comes, or comes later than
// it, is reported as any result without a call.
func (r *oaReader) feedConv(conv *oaConv, it oaItem) {
	b := conv.builder(it)
	key := aheadKey(it.scope, it.resID)
	if it.kind == 'r' && !it.legacy && it.resID != "" && !it.time.IsZero() {
		if _, _, waiting := b.waiting(it.resID, idTag(it.resID)); !waiting && !b.wasIssued(it.resID) {
			if _, dup := conv.ahead[key]; !dup {
				if conv.ahead == nil {
					conv.ahead = map[string]oaItem{}
				}
				conv.ahead[key] = it
				return
			}
		}
	}
	if !r.claudeCLILine(conv, b, it) {
		r.feed(b, it)
	}
	if it.kind != 'a' || len(conv.ahead) == 0 {
		return
	}
	for _, c := range it.calls {
		k := aheadKey(it.scope, c.ID)
		if res, ok := conv.ahead[k]; ok && !c.Time.IsZero() && !c.Time.After(res.time) {
			delete(conv.ahead, k)
			r.feed(b, res)
		}
	}
}

// aheadKey keys a held-back result by its scope and call id.
func aheadKey(scope, id string) string { return scope + "\x00" + id }

// flushAhead reports the held-back results whose call never came, in the
// order of their lines, as results without a call.
func (r *oaReader) flushAhead(c *oaConv) {
	if len(c.ahead) == 0 {
		return
	}
	held := make([]oaItem, 0, len(c.ahead))
	for _, it := range c.ahead {
		held = append(held, it)
	}
	sort.Slice(held, func(i, j int) bool { return held[i].line < held[j].line })
	c.ahead = nil
	for _, it := range held {
		c.builder(it).noCall(it.resID, it.line, r.out)
	}
}

// claudeCLILine reads the user messages of an export converted from a
// Claude Code session that Claude Code itself wrote, not the user (see
// genuineClaudePrompt): the converter keeps them as plain user messages,
// without the isMeta and origin marks Claude Code gives them, and each
// opened a turn. They are read as the Claude Code reader reads them: an
// interrupt marker ("[Request interrupted by user for tool use]", written
// when the user stops a call; the next prompt follows) and a local
// command's caveat and output open nothing; a background task's
// notification or a bash-mode command is a notice of the turn; a slash
// command's wrapper opens a turn only when the model answers it before the
// next prompt (a prompt command whose expanded prompt the export dropped).
// It reports whether it consumed the item; an assistant message answering
// a waiting command is fed after the command's turn opens.
func (r *oaReader) claudeCLILine(conv *oaConv, b *sessionBuilder, it oaItem) bool {
	switch it.kind {
	case 'a':
		if pc, ok := conv.cmd[b]; ok {
			delete(conv.cmd, b)
			b.turn(pc.line, pc.t, len(pc.text))
			b.s.Turns[len(b.s.Turns)-1].UserText = pc.text
		}
		return false
	case 'u':
	default:
		return false
	}
	t := strings.TrimSpace(it.text)
	if t == "" || genuineClaudePrompt(t) {
		delete(conv.cmd, b) // the prompt (a command's expanded prompt too) opens the turn
		return false
	}
	switch claudeCLILineKind(t) {
	case claudeCommand:
		if conv.cmd == nil {
			conv.cmd = map[*sessionBuilder]pendingCommand{}
		}
		conv.cmd[b] = pendingCommand{text: it.text, line: it.line, t: it.time}
	case claudeLocalOutput:
		delete(conv.cmd, b)
	case claudeBashInput, claudeNotice:
		b.notice(it.line, it.time, it.text)
	}
	return true
}

func (r *oaReader) feed(b *sessionBuilder, it oaItem) {
	switch it.kind {
	case 'u':
		b.turn(it.line, it.time, it.chars)
		if t := &b.s.Turns[len(b.s.Turns)-1]; claudeCompactSummary(it.text) {
			t.CompactedBefore, t.Continued = true, true
		} else {
			t.UserText = it.text
		}
	case 'a':
		b.request(it.line, it.time, it.chars, it.usage).addText(it.text)
		for _, c := range it.calls {
			b.call(c, r.out)
		}
	case 'r':
		if it.legacy {
			b.legacyResult(it.resName, it.resText, it.line, it.time, r.out)
		} else {
			b.result(it.resID, it.resText, it.resErr, it.line, it.time, r.out)
		}
	}
}

func (r *oaReader) finish(c *oaConv) {
	r.flushAhead(c)
	s := c.b.s
	if len(c.skipped) > 0 {
		keys := make([]string, 0, len(c.skipped))
		for k := range c.skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s.Notes = append(s.Notes, strconv.Itoa(c.skipped[k])+" "+k+" item(s) not replayed (hosted tools and references carry no call loopgate can replay)")
		}
	}
	if c.extra > 0 {
		s.Notes = append(s.Notes, strconv.Itoa(c.extra)+" extra choice(s) (n > 1) ignored: only the first choice continues the conversation")
	}
	c.b.finish(r.out)
	for _, b := range c.subs {
		b.finish(r.out)
	}
}

func (r *oaReader) finishAll() {
	for _, c := range r.convs {
		r.finish(c)
	}
	r.convs = nil
}
