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
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const (
	formatOpenAIChat      = "openai-chat"
	formatOpenAIResponses = "openai-responses"
)

func init() {
	register(&Format{
		ID:        formatOpenAIChat,
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

func rawIsArray(raw jsonx.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '['
}

func rawIsObject(raw jsonx.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// foreignMarkers are top-level keys of other agents' records that also carry
// a messages array (hermes-agent export rows and JSON snapshots, nanobot's
// metadata): those files belong to their own ingesters, which detection
// tries first anyway; the check keeps a forced order change harmless.
var foreignMarkers = []string{"session_start", "started_at", "message_count", "conversations", "_type"}

// keysOf gives the members of a JSON object, or nil when raw is not one.
// The members are views of raw (jsonx.SplitObject), not copies: raw must
// stay unchanged while they are used, which holds for every caller here,
// since nothing read from them is kept but decoded strings.
func keysOf(raw jsonx.RawMessage) map[string]jsonx.RawMessage {
	if !rawIsObject(raw) {
		return nil
	}
	if m, ok := jsonx.SplitObject(raw); ok {
		return m
	}
	var m map[string]jsonx.RawMessage
	_ = jsonx.Unmarshal(raw, &m)
	return m
}

// elementsOf decodes a JSON array into its elements: views of raw when
// jsonx.SplitArray can read it (see keysOf), else jsonx.Unmarshal's
// answer, errors included.
func elementsOf(raw jsonx.RawMessage) ([]jsonx.RawMessage, error) {
	if elems, ok := jsonx.SplitArray(raw); ok {
		return elems, nil
	}
	var elems []jsonx.RawMessage
	err := jsonx.Unmarshal(raw, &elems)
	return elems, err
}

func sniffOpenAIChat(h *Head) bool {
	if h.Array {
		_, typed := h.Keys["type"]
		return h.Has("role") && !typed
	}
	for _, k := range foreignMarkers {
		if h.Has(k) {
			return false
		}
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
	chars int // user text, or assistant text plus reasoning
	calls []Call
	usage *Usage
	// results
	legacy  bool // a legacy role "function" result, joined by order and name
	resID   string
	resName string
	resText string
	resErr  bool
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
	b       *sessionBuilder
	known   []msgPrint
	respIDs map[string]bool
	touched int
	skipped map[string]int
	extra   int
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
	// pos maps a whole-file document's elements to their file lines
	// (issue 2): problems name the element's line; sessions read from a
	// multi-line document keep line 0 (docpos.go). nil for JSONL.
	pos *docPos
	// reuse holds what was read of the recent lines, for a JSONL log
	// (lineReuse); nil for a document.
	reuse *lineReuse
	added bool // a record of the log was added
}

func fileStem(name string) string {
	name = strings.TrimSuffix(name, ".gz")
	return strings.TrimSuffix(name, filepath.Ext(name))
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
	if oaReuse {
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

func firstString(m map[string]jsonx.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := m[k]; ok && jsonx.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func unixTime(raw jsonx.RawMessage) time.Time {
	var f float64
	if raw == nil || jsonx.Unmarshal(raw, &f) != nil || f <= 0 {
		return time.Time{}
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
}

// oaElem is an element of a record's messages or items: its raw JSON and,
// when splitRecord decoded it on its one pass over the line, the element
// decoded (as decodeChatMessage or decodeRespItem would decode raw).
type oaElem struct {
	raw  jsonx.RawMessage
	chat *chatMessage
	item *respItem
}

// rawElems wraps elements not decoded yet.
func rawElems(raws []jsonx.RawMessage) []oaElem {
	if raws == nil {
		return nil
	}
	elems := make([]oaElem, len(raws))
	for i, raw := range raws {
		elems[i].raw = raw
	}
	return elems
}

// oaItemArrays are the top-level members that splitRecord decodes, and
// whether their elements are chat messages (else Responses items).
var oaItemArrays = map[string]bool{"messages": true, "input": false, "output": false}

// splitRecord reads a JSONL record in one pass: its members as views, as
// jsonx.SplitObject gives them, and the elements of its messages, input
// and output arrays decoded on the way (pre), where SplitObject, then
// SplitArray, then each element's decoding would take a pass each over
// what is most of the line's bytes. An element the one-pass decoding
// declines is kept raw, for decodeChatMessage or decodeRespItem. ok is
// false for a line that is not such an object (or has a key with an
// escape), which the caller then splits generically (and reports).
//
// reuse, when not nil, holds what was read of the recent lines: the
// elements this line shares with one are taken from there (lineReuse).
func splitRecord(line []byte, reuse *lineReuse) (sr *splitLine, ok bool) {
	c := jsonx.NewCursor(line)
	empty, ok := c.OpenObject()
	if !ok {
		return nil, false
	}
	sr = &splitLine{top: map[string]jsonx.RawMessage{}}
	for !empty {
		key, escaped, ok := c.Key()
		if !ok || escaped || !utf8.Valid(key) {
			return nil, false
		}
		start := c.Pos()
		chat, items := oaItemArrays[string(key)]
		var elems []oaElem
		var members map[string]jsonx.RawMessage
		var nested map[string][]oaElem
		switch {
		case items && c.Peek() == '[':
			if elems, ok = decodeElems(c, chat, 1, reuse); !ok {
				return nil, false
			}
		case oaWrappers[string(key)] && c.Peek() == '{':
			if members, nested, ok = decodeWrapper(c, reuse); !ok {
				return nil, false
			}
		default:
			if _, ok := c.Skip(); !ok {
				return nil, false
			}
		}
		sr.set(string(key), line[start:c.Pos():c.Pos()], elems, members, nested)
		more, ok := c.Next('}')
		if !ok {
			return nil, false
		}
		empty = !more
	}
	return sr, c.AtEnd()
}

// splitLine is what splitRecord reads of a record in its one pass.
type splitLine struct {
	// top is the record's members, as jsonx.SplitObject gives them.
	top map[string]jsonx.RawMessage
	// pre is the elements of its item arrays (oaItemArrays), and of those
	// of its request and response objects (oaWrappers) as
	// "request.messages" and so on.
	pre map[string][]oaElem
	// sub is the members of those objects, as keysOf gives them.
	sub map[string]map[string]jsonx.RawMessage
}

// set records the member key of the record: its raw value, and what was
// decoded of it. As in SplitObject, a repeated key's last value wins: what
// an earlier member of that name left goes.
func (sr *splitLine) set(key string, raw jsonx.RawMessage, elems []oaElem, members map[string]jsonx.RawMessage, nested map[string][]oaElem) {
	sr.top[key] = raw
	for k := range sr.pre {
		if k == key || strings.HasPrefix(k, key+".") {
			delete(sr.pre, k)
		}
	}
	delete(sr.sub, key)
	if elems == nil && nested == nil && members == nil {
		return
	}
	if sr.pre == nil {
		sr.pre = map[string][]oaElem{}
	}
	if elems != nil {
		sr.pre[key] = elems
	}
	for k, e := range nested {
		sr.pre[key+"."+k] = e
	}
	if members != nil {
		if sr.sub == nil {
			sr.sub = map[string]map[string]jsonx.RawMessage{}
		}
		sr.sub[key] = members
	}
}

// oaWrappers are the top-level members whose object holds a record's
// request or response (record): splitRecord decodes their item arrays too,
// as pre["request.messages"] and so on.
var oaWrappers = map[string]bool{"request": true, "body": true, "response": true}

// decodeWrapper reads the object at the cursor, a top-level member: its
// members as views (what keysOf would give) and its item arrays
// (oaItemArrays) decoded as splitRecord does the record's own. Both are nil
// when a key has escapes or invalid UTF-8: record then reads the object
// with keysOf, which leaves such keys to Unmarshal. ok is false on a
// syntax error.
func decodeWrapper(c *jsonx.Cursor, reuse *lineReuse) (members map[string]jsonx.RawMessage, nested map[string][]oaElem, ok bool) {
	empty, ok := c.OpenObject()
	if !ok {
		return nil, nil, false
	}
	members, nested = map[string]jsonx.RawMessage{}, map[string][]oaElem{}
	plain := true
	for !empty {
		key, escaped, ok := c.Key()
		if !ok {
			return nil, nil, false
		}
		plain = plain && !escaped && utf8.Valid(key)
		start := c.Pos()
		chat, items := oaItemArrays[string(key)]
		if items && c.Peek() == '[' {
			elems, ok := decodeElems(c, chat, 2, reuse)
			if !ok {
				return nil, nil, false
			}
			nested[string(key)] = elems
		} else {
			_, end, ok := jsonx.SkipValue(c.Data(), c.Pos(), 2)
			if !ok {
				return nil, nil, false
			}
			c.Seek(end)
			delete(nested, string(key))
		}
		members[string(key)] = c.Data()[start:c.Pos():c.Pos()]
		more, ok := c.Next('}')
		if !ok {
			return nil, nil, false
		}
		empty = !more
	}
	if !plain {
		return nil, nil, true
	}
	return members, nested, true
}

// decodeElems reads the array at the cursor, depth levels deep in the line
// (1 for a member of the top-level object), decoding each element that the
// one-pass decoding reads and keeping the others raw.
func decodeElems(c *jsonx.Cursor, chat bool, depth int, reuse *lineReuse) ([]oaElem, bool) {
	elems := []oaElem{}
	end, ok := jsonx.DecodeArrayEach(c.Data(), c.Pos(), depth, func(data []byte, pos, depth int) (int, bool) {
		if e, end, ok := reuse.takeAt(pos); ok {
			elems = append(elems, e)
			return end, true
		}
		var e oaElem
		end, ok := 0, false
		if chat {
			var t chatMessageText
			if end, ok = t.decodeAt(data, pos, depth); ok {
				e.chat = new(t.message())
			}
		} else {
			var t respItemText
			if end, ok = t.decodeAt(data, pos, depth); ok {
				e.item = new(t.item())
			}
		}
		if !ok {
			if _, end, ok = jsonx.SkipValue(data, pos, depth); !ok {
				return 0, false
			}
		}
		e.raw = data[pos:end:end]
		elems = append(elems, e)
		return end, true
	})
	if !ok {
		return nil, false
	}
	c.Seek(end)
	return elems, true
}

// isResponsesList tells a Responses item list from a chat messages array:
// Responses items carry a type (a chat message never does at top level),
// chat arrays have tool/function roles or tool_calls.
func isResponsesList(elems []jsonx.RawMessage) bool {
	typed := false
	for _, e := range elems {
		var m struct {
			Type       string           `json:"type"`
			Role       string           `json:"role"`
			ToolCalls  jsonx.RawMessage `json:"tool_calls"`
			ToolCallID string           `json:"tool_call_id"`
			Function   jsonx.RawMessage `json:"function_call"`
		}
		if jsonx.Unmarshal(e, &m) != nil {
			continue
		}
		if m.Role == "tool" || m.Role == "function" || m.ToolCallID != "" || m.ToolCalls != nil || m.Function != nil {
			return false
		}
		if responseItemTypes[m.Type] {
			typed = true
		}
	}
	return typed
}

// --- Chat Completions ---

type chatMessage struct {
	chatMessageFields
	Content jsonx.RawMessage `json:"content"`

	// text is the content already decoded, when the message was read as
	// a chatMessageText (decodeChatMessage, direct); Content is then nil.
	text   *string
	direct bool

	// built is the item chatItem made of the message, kept when the
	// message was decoded from a JSONL line that the next line may share
	// (lineReuse): the next line takes the item too, with its own line.
	// chatItem is a function of the message alone, but for the line.
	built *oaItem
}

// chatMessageFields are the members of a chat message but its content.
type chatMessageFields struct {
	Role             string           `json:"role"`
	Name             string           `json:"name"`
	ToolCalls        []chatToolCall   `json:"tool_calls"`
	FunctionCall     *chatFunction    `json:"function_call"`
	ToolCallID       string           `json:"tool_call_id"`
	ReasoningContent string           `json:"reasoning_content"`
	Reasoning        jsonx.RawMessage `json:"reasoning"`
}

// chatMessageText is a chat message whose content is a string (or null),
// the common case: decoded this way, the content (a tool result, most of a
// log's bytes) is decoded once instead of copied raw and decoded again.
// The pointer keeps null apart from a string, so that a repeated member
// ends as the last one, as the raw member does.
type chatMessageText struct {
	chatMessageFields
	Content *string `json:"content"`
}

// decodeChatMessage decodes a chat message: in one pass as a
// chatMessageText when it is one, else (content of parts, a member of
// another type, a repeated or case-folded key) generically as a
// chatMessage, whose error words the problem.
func decodeChatMessage(data []byte, m *chatMessage) error {
	var t chatMessageText
	if t.decode(data) {
		*m = t.message()
		return nil
	}
	return jsonx.Unmarshal(data, m)
}

// decode reads data into t in one pass (jsonx.DecodeObjectNested), the nested
// tool calls and reasoning with Unmarshal; false leaves data to Unmarshal.
func (t *chatMessageText) decode(data []byte) bool {
	end, ok := t.decodeAt(data, 0, 0)
	return ok && jsonx.AtEnd(data, end)
}

// decodeAt is decode of the object at data[pos:], depth levels deep in
// data, which ends at end.
func (t *chatMessageText) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	var calls, fn jsonx.RawMessage
	fields := [...]jsonx.Field{
		{Name: "role", Str: &t.Role},
		{Name: "name", Str: &t.Name},
		{Name: "tool_calls", Raw: &calls, View: true},
		{Name: "function_call", Raw: &fn, View: true},
		{Name: "tool_call_id", Str: &t.ToolCallID},
		{Name: "reasoning_content", Str: &t.ReasoningContent},
		{Name: "reasoning", Raw: &t.Reasoning},
		{Name: "content", Ptr: &t.Content},
	}
	end, ok = jsonx.DecodeObjectNested(data, pos, depth, fields[:], nil)
	if !ok {
		return 0, false
	}
	// The lists are decoded into variables of their own: handing a
	// member of t to Unmarshal (an interface) would move every t to the
	// heap, where most messages have neither.
	if calls != nil {
		var tc []chatToolCall
		if jsonx.Unmarshal(calls, &tc) != nil {
			return 0, false
		}
		t.ToolCalls = tc
	}
	if fn != nil {
		var f *chatFunction
		if jsonx.Unmarshal(fn, &f) != nil {
			return 0, false
		}
		t.FunctionCall = f
	}
	return end, true
}

// message is the chatMessage read as t.
func (t *chatMessageText) message() chatMessage {
	return chatMessage{chatMessageFields: t.chatMessageFields, text: t.Content, direct: true}
}

// contentText is contentText of the message's content, or userText of it
// when placeholders is false.
func (m *chatMessage) contentText(placeholders bool) (string, bool) {
	if m.direct {
		return stringText(m.text)
	}
	return contentTextOf(m.Content, placeholders)
}

// stringText is what contentTextOf gives for a content decoded as a
// string, nil standing for null or absent.
func stringText(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, *s != ""
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
	// Custom is a free-text custom tool call (type "custom").
	Custom *struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

// inputArgs is the pseudo-argument object {"input": text} that stands for
// the free-text input of a custom tool call.
func inputArgs(text string) jsonx.Value {
	return jsonx.Value{Kind: jsonx.Object, Obj: []jsonx.Member{{Key: "input", Val: jsonx.Value{Kind: jsonx.String, Str: text}}}}
}

type chatFunction struct {
	Name      string           `json:"name"`
	Arguments jsonx.RawMessage `json:"arguments"`
}

// contentText returns the text of a content value (string, parts array or
// null), and whether it holds anything at all (an image part counts).
// Text parts are joined with newlines; other parts become a placeholder
// such as "[image_url]" so that a result made of them is not empty.
func contentText(raw jsonx.RawMessage) (string, bool) {
	return contentTextOf(raw, true)
}

// decodedContent is what the one-pass readings (Claude Code blocks,
// OpenHands events) add to a content member they keep raw, as the plain
// readings keep it: when it is a string, its text, decoded where it lay,
// so that contentText need not decode it again.
type decodedContent struct {
	text    string
	decoded bool
}

// readContentMember returns the jsonx.Nested reading of a content member
// into raw, a view of the record (any value), and dc (a string, decoded).
// A string it cannot decode itself (invalid UTF-8) is left to contentText.
func readContentMember(raw *jsonx.RawMessage, dc *decodedContent) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		if s, end, ok := jsonx.DecodeStringAt(data, pos); ok {
			*raw, dc.text, dc.decoded = data[pos:end:end], s, true
			return end, true
		}
		_, end, ok := jsonx.SkipValue(data, pos, depth)
		if !ok {
			return 0, false
		}
		*raw = data[pos:end:end]
		return end, true
	}
}

// textOf is contentText of the member whose raw text is raw.
func (dc *decodedContent) textOf(raw jsonx.RawMessage) string {
	if dc.decoded {
		return dc.text
	}
	text, _ := contentText(raw)
	return text
}

// userText is contentText without placeholders: what the user typed.
func userText(raw jsonx.RawMessage) (string, bool) {
	return contentTextOf(raw, false)
}

func contentTextOf(raw jsonx.RawMessage, placeholders bool) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if jsonx.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var parts []struct {
		Type   string           `json:"type"`
		Text   *string          `json:"text"`
		Nested jsonx.RawMessage `json:"content"`
	}
	if jsonx.Unmarshal(raw, &parts) != nil {
		return string(raw), true
	}
	var b strings.Builder
	for _, p := range parts {
		var t string
		switch {
		case p.Text != nil:
			t = *p.Text
		case p.Nested != nil:
			t, _ = contentTextOf(p.Nested, placeholders)
		case placeholders:
			t = "[" + p.Type + "]"
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String(), len(parts) > 0
}

func userItem(text string, has bool, line int) oaItem {
	if !has {
		return oaItem{}
	}
	return oaItem{kind: 'u', fp: fingerprint('u', text), line: line, chars: len(text)}
}

// chatItems normalizes chat messages; lines are the file lines of the
// elements in a document (nil in JSONL, where every element is on line).
func (r *oaReader) chatItems(elems []oaElem, lines []int, line int) []oaItem {
	items := make([]oaItem, 0, len(elems)) // at most one each
	for i, e := range elems {
		line := lineAtIndex(lines, i, line)
		if e.chat == nil {
			e = r.reuse.take(e)
		}
		if e.chat != nil && e.chat.built != nil {
			items = append(items, e.chat.built.at(line))
			r.reuse.keep(e)
			continue
		}
		var m chatMessage
		if e.chat != nil {
			m = *e.chat
		} else if err := decodeChatMessage(e.raw, &m); err != nil {
			r.out.Problemf(line, "message %d is not a chat message (%v); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
			continue
		} else if r.reuse.memoize() {
			e.chat = new(m)
		}
		r.reuse.keep(e)
		it, ok := r.chatItem(m, i, line)
		if ok {
			items = append(items, it)
			// Only an item made without a problem is kept, so that a
			// message that makes one makes it again on every line.
			if e.chat != nil && r.reuse.memoize() {
				e.chat.built = new(it.at(line))
			}
		}
	}
	return items
}

func (r *oaReader) chatItem(m chatMessage, i, line int) (oaItem, bool) {
	switch m.Role {
	case "user":
		text, has := m.contentText(false)
		it := userItem(text, has, line)
		return it, it.kind != 0
	case "assistant":
		text, _ := m.contentText(true)
		it := oaItem{kind: 'a', line: line, chars: len(text) + len(m.ReasoningContent)}
		var rs string
		// (An absent member fails to decode: not worth an error value.)
		if len(m.Reasoning) > 0 && jsonx.Unmarshal(m.Reasoning, &rs) == nil {
			it.chars += len(rs)
		}
		var ids []string
		for _, tc := range m.ToolCalls {
			c := Call{ID: tc.ID, Tool: tc.Function.Name, Line: line}
			if tc.Custom != nil {
				c.Tool = tc.Custom.Name
				c.SetArgsValue(inputArgs(tc.Custom.Input))
			} else {
				c.SetArgsField(tc.Function.Arguments)
			}
			it.calls = append(it.calls, c)
			ids = append(ids, tc.ID, c.Tool, c.ArgsRaw)
		}
		if m.FunctionCall != nil {
			c := Call{Tool: m.FunctionCall.Name, Line: line}
			c.SetArgsField(m.FunctionCall.Arguments)
			it.calls = append(it.calls, c)
			ids = append(ids, "fn", c.Tool, c.ArgsRaw)
		}
		if len(ids) > 0 {
			it.fp = fingerprint('a', ids...)
		} else {
			it.fp = fingerprint('a', strings.TrimSpace(text))
		}
		return it, true
	case "tool":
		text, _ := m.contentText(true)
		if m.ToolCallID == "" {
			r.out.Problemf(line, "message %d is a tool result without tool_call_id; ignored", i+1)
			return oaItem{}, false
		}
		return oaItem{kind: 'r', fp: fingerprint('r', m.ToolCallID), line: line, resID: m.ToolCallID, resText: text}, true
	case "function":
		text, _ := m.contentText(true)
		return oaItem{kind: 'r', fp: fingerprint('f', m.Name, text), line: line, legacy: true, resName: m.Name, resText: text}, true
	case "system", "developer":
		return oaItem{}, false
	default:
		r.out.Problemf(line, "message %d has unknown role %q; skipped", i+1, m.Role)
		return oaItem{}, false
	}
}

// chatChoices reads a chat.completion response: the first choice's message
// is the model's answer (further choices, n > 1, were not sent back to the
// model and are only counted in a note).
func (r *oaReader) chatChoices(raw jsonx.RawMessage, resp map[string]jsonx.RawMessage, line int, rec *oaRecord) []oaItem {
	var choices []struct {
		Index   int              `json:"index"`
		Message jsonx.RawMessage `json:"message"`
	}
	if err := jsonx.Unmarshal(raw, &choices); err != nil {
		r.out.Problemf(line, "choices is not an array of choices: %v", err)
		return nil
	}
	if len(choices) == 0 {
		return nil
	}
	rec.extra = len(choices) - 1
	var m chatMessage
	if err := decodeChatMessage(choices[0].Message, &m); err != nil {
		r.out.Problemf(line, "response message is not a chat message (%v); skipped", strings.TrimPrefix(err.Error(), "json: "))
		return nil
	}
	if m.Role == "" {
		m.Role = "assistant"
	}
	it, ok := r.chatItem(m, 0, line)
	if !ok || it.kind != 'a' {
		return nil
	}
	if u := resp["usage"]; u != nil {
		it.usage = checkedUsage(r.out, line, u, parseOpenAIUsage)
	}
	it.time = unixTime(resp["created"])
	for j := range it.calls {
		it.calls[j].Time = it.time
	}
	return []oaItem{it}
}

// parseOpenAIUsage normalizes Chat Completions or Responses usage. OpenAI's
// prompt_tokens / input_tokens already include cached tokens, and LiteLLM's
// Anthropic-backed prompt_tokens include cache creation and reads, so Input
// is taken as written. Returns nil for a usage with no numbers.
func parseOpenAIUsage(raw jsonx.RawMessage) *Usage {
	var u struct {
		PromptTokens        *int64 `json:"prompt_tokens"`
		CompletionTokens    int64  `json:"completion_tokens"`
		InputTokens         *int64 `json:"input_tokens"`
		OutputTokens        int64  `json:"output_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		InputTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		CacheCreation int64 `json:"cache_creation_input_tokens"`
		CacheRead     int64 `json:"cache_read_input_tokens"`
	}
	if jsonx.Unmarshal(raw, &u) != nil {
		return nil
	}
	var n Usage
	switch {
	case u.PromptTokens != nil:
		n.Input, n.Output = *u.PromptTokens, u.CompletionTokens
		if u.PromptTokensDetails != nil {
			n.CacheRead = u.PromptTokensDetails.CachedTokens
		}
	case u.InputTokens != nil:
		n.Input, n.Output = *u.InputTokens, u.OutputTokens
		if u.InputTokensDetails != nil {
			n.CacheRead = u.InputTokensDetails.CachedTokens
		}
	default:
		return nil
	}
	if u.CacheRead > n.CacheRead {
		n.CacheRead = u.CacheRead
	}
	n.CacheWrite = u.CacheCreation
	return &n
}

// --- Responses API ---

type respItem struct {
	respItemFields
	Arguments jsonx.RawMessage `json:"arguments"`
	Output    jsonx.RawMessage `json:"output"`

	// args and output are the members already decoded, when the item was
	// read as a respItemText (decodeRespItem, direct).
	args, output *string
	direct       bool

	// What responseItems made of the item, kept as chatMessage.built is
	// (lineReuse): the text of a message, the call of a call item, the
	// fingerprint of an output. Each is a function of the item alone.
	memo *respMemo
}

type respMemo struct {
	text    string
	hasText bool
	call    *Call // Line unset
	fp      msgPrint
}

// respItemFields are the members of a Responses item but its arguments
// and output.
type respItemFields struct {
	Type    string           `json:"type"`
	Role    string           `json:"role"`
	Content jsonx.RawMessage `json:"content"`
	CallID  string           `json:"call_id"`
	Name    string           `json:"name"`
	Input   jsonx.RawMessage `json:"input"`
	Error   jsonx.RawMessage `json:"error"`
	Action  jsonx.RawMessage `json:"action"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// respItemText is a Responses item whose arguments and output are strings
// (or null), the common case (see chatMessageText).
type respItemText struct {
	respItemFields
	Arguments *string `json:"arguments"`
	Output    *string `json:"output"`
}

// decodeRespItem decodes a Responses item as decodeChatMessage decodes a
// chat message.
func decodeRespItem(data []byte, it *respItem) error {
	var t respItemText
	if t.decode(data) {
		*it = t.item()
		return nil
	}
	return jsonx.Unmarshal(data, it)
}

// decode reads data into t in one pass, as chatMessageText.decode does.
func (t *respItemText) decode(data []byte) bool {
	end, ok := t.decodeAt(data, 0, 0)
	return ok && jsonx.AtEnd(data, end)
}

// decodeAt is decode of the object at data[pos:], depth levels deep in
// data, which ends at end.
func (t *respItemText) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	var summary jsonx.RawMessage
	fields := [...]jsonx.Field{
		{Name: "type", Str: &t.Type},
		{Name: "role", Str: &t.Role},
		{Name: "content", Raw: &t.Content},
		{Name: "call_id", Str: &t.CallID},
		{Name: "name", Str: &t.Name},
		{Name: "input", Raw: &t.Input},
		{Name: "error", Raw: &t.Error},
		{Name: "action", Raw: &t.Action},
		{Name: "summary", Raw: &summary, View: true},
		{Name: "arguments", Ptr: &t.Arguments},
		{Name: "output", Ptr: &t.Output},
	}
	end, ok = jsonx.DecodeObjectNested(data, pos, depth, fields[:], nil)
	if !ok {
		return 0, false
	}
	if summary != nil {
		// As chatMessageText.decodeAt decodes its lists: t stays off the heap.
		sum := t.Summary
		if jsonx.Unmarshal(summary, &sum) != nil {
			return 0, false
		}
		t.Summary = sum
	}
	return end, true
}

// item is the respItem read as t.
func (t *respItemText) item() respItem {
	return respItem{respItemFields: t.respItemFields, args: t.Arguments, output: t.Output, direct: true}
}

// call is the call a call item makes (but its Line).
func (it *respItem) call() Call {
	c := Call{ID: it.CallID, Tool: it.Name}
	switch it.Type {
	case "function_call":
		c.setArgsMember(it.direct, it.args, it.Arguments)
	case "custom_tool_call":
		var s string
		_ = jsonx.Unmarshal(it.Input, &s)
		c.SetArgsValue(inputArgs(s))
	case "local_shell_call":
		c.Tool = "local_shell"
		c.SetArgsField(it.Action)
	case "mcp_call":
		// An MCP call made by the API carries its own output.
		c.setArgsMember(it.direct, it.args, it.Arguments)
		c.HasResult = true
		c.Result, _ = it.outputText()
		if e, has := contentText(it.Error); has {
			c.Result, c.IsError = e, true
		}
	}
	return c
}

// outputText is contentText of the item's output.
func (it *respItem) outputText() (string, bool) {
	if it.direct {
		return stringText(it.output)
	}
	return contentText(it.Output)
}

// responseItems normalizes a Responses item list. Consecutive model items
// (assistant messages, reasoning, calls) are one model response, hence one
// assistant item; a user message or a call output ends it.
func (r *oaReader) responseItems(elems []oaElem, lines []int, recLine int, rec *oaRecord) []oaItem {
	items := make([]oaItem, 0, len(elems)) // at most one each
	var cur *oaItem
	var curFP []string
	flush := func() {
		if cur != nil {
			cur.fp = fingerprint('a', curFP...)
			items = append(items, *cur)
			cur, curFP = nil, nil
		}
	}
	var line int // the line of the current element
	model := func() *oaItem {
		if cur == nil {
			cur = &oaItem{kind: 'a', line: line}
		}
		return cur
	}
	for i, e := range elems {
		line = lineAtIndex(lines, i, recLine)
		var it respItem
		// memo is what an earlier line made of this very item (lineReuse),
		// or where to keep what this line makes of it; nil when neither.
		var memo *respMemo
		if e.item == nil {
			e = r.reuse.take(e)
		}
		if e.item == nil {
			if err := decodeRespItem(e.raw, &it); err != nil {
				r.out.Problemf(line, "item %d is not a Responses item (%v); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
				continue
			}
			if r.reuse.memoize() {
				e.item = new(it)
			}
		}
		if e.item != nil {
			if r.reuse.memoize() && e.item.memo == nil {
				e.item.memo = &respMemo{}
			}
			it, memo = *e.item, e.item.memo
		}
		r.reuse.keep(e)
		if it.Type == "" && it.Role != "" {
			it.Type = "message"
		}
		switch it.Type {
		case "message":
			var text string
			var has bool
			if memo != nil && memo.hasText {
				text, has = memo.text, true
			} else if text, has = userText(it.Content); memo != nil && has {
				memo.text, memo.hasText = text, true
			}
			switch it.Role {
			case "user":
				flush()
				if u := userItem(text, has, line); u.kind != 0 {
					items = append(items, u)
				}
			case "assistant":
				m := model()
				m.chars += len(text)
				if len(m.calls) == 0 {
					curFP = append(curFP, strings.TrimSpace(text))
				}
			case "system", "developer":
			default:
				r.out.Problemf(line, "item %d is a message with unknown role %q; skipped", i+1, it.Role)
			}
		case "reasoning":
			m := model()
			for _, s := range it.Summary {
				m.chars += len(s.Text)
			}
		case "function_call", "custom_tool_call", "local_shell_call", "mcp_call":
			m := model()
			var c Call
			if memo != nil && memo.call != nil {
				c = *memo.call
			} else {
				c = it.call()
				if memo != nil {
					memo.call = new(c)
				}
			}
			c.Line = line
			if c.ID == "" && it.Type != "mcp_call" {
				r.out.Problemf(line, "item %d (%s %s) has no call_id; its result cannot be joined", i+1, it.Type, it.Name)
			}
			m.calls = append(m.calls, c)
			curFP = append(curFP, c.ID, c.Tool, c.ArgsRaw)
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "computer_call_output":
			if it.Type == "computer_call_output" {
				rec.skipped[it.Type]++
				continue
			}
			flush()
			text, _ := it.outputText()
			if it.CallID == "" {
				r.out.Problemf(line, "item %d (%s) has no call_id; ignored", i+1, it.Type)
				continue
			}
			var fp msgPrint
			if memo != nil && memo.fp.kind != 0 {
				fp = memo.fp
			} else if fp = fingerprint('r', it.CallID); memo != nil {
				memo.fp = fp
			}
			items = append(items, oaItem{kind: 'r', fp: fp, line: line, resID: it.CallID, resText: text})
		default:
			if responseItemTypes[it.Type] {
				rec.skipped[it.Type]++
			} else {
				r.out.Problemf(line, "item %d has unknown type %q; skipped", i+1, it.Type)
			}
		}
	}
	flush()
	return items
}

// --- conversations ---

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
		conv = &oaConv{b: newSessionBuilder(s), respIDs: map[string]bool{}, skipped: map[string]int{}}
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
		r.feed(conv.b, it)
	}
	conv.known = append(conv.known, fps[start:]...)
}

func (r *oaReader) feed(b *sessionBuilder, it oaItem) {
	switch it.kind {
	case 'u':
		b.turn(it.line, it.time, it.chars)
	case 'a':
		b.request(it.line, it.time, it.chars, it.usage)
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
}

func (r *oaReader) finishAll() {
	for _, c := range r.convs {
		r.finish(c)
	}
	r.convs = nil
}
