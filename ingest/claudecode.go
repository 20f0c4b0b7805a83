package ingest

// Claude Code session files (~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl,
// and <sessionId>/subagents/agent-<id>.jsonl): one JSON object per line, an
// Anthropic message per user/assistant line. Format reference:
// docs/formats/other.md.
//
// Readings taken (the reference leaves these open):
//   - Sidechain (subagent) lines become their own session scope: Agent is the
//     line's agentId; a sidechain line without one joins the scope of its
//     parentUuid; a chain with neither is named "sidechain-<root uuid>".
//     Parent is the main session's id.
//   - Within a scope lines are read in file order. A file's order is
//     chronological within one scope (the reference's out-of-order example
//     is sidechain lines written after the main chain's Task result);
//     rewound branches are kept, both were really run.
//   - One API response is split over several lines sharing message.id and
//     requestId (or message.id alone when requestId is absent): they form
//     one Request, wherever the lines are (tool results
//     of a parallel call may sit between them), and its usage is counted
//     once (ccusage deduplicates on message.id + requestId too): input and
//     cache counts from the first line, output the largest of its lines.
//   - Assistant lines of the "<synthetic>" model are written locally by the
//     CLI, not by a model: they are not requests.

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatClaudeCode = "claude-code"

func init() {
	register(&Format{
		ID:         formatClaudeCode,
		Text:       true,
		Family:     "claude-code",
		Reads:      "Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl and subagents/agent-<id>.jsonl), sidechains as their own agent scope.",
		Detection:  "JSONL whose first record has a Claude Code type (user, assistant, summary, system, file-history-snapshot, queue-operation, permission-mode, mode, fork-context-ref, ...) with uuid, sessionId, leafUuid, messageId or parentSessionId.",
		Priority:   32,
		Sniff:      sniffClaudeCode,
		ParseLines: parseClaudeCode,
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseClaudeCode(docLineReader(doc, h), h, out)
		},
	})
}

var claudeCodeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true,
	"queue-operation": true, "attachment": true, "ai-title": true, "progress": true,
	"agent-setting": true, "pr-link": true, "file-history-snapshot": true,
	// Session-state records current CLIs write, some as a file's first
	// line (a session opened with a permission mode starts with one).
	"permission-mode": true, "last-prompt": true, "custom-title": true,
	"agent-name": true, "worktree-state": true,
	// CLI 2.1.2xx: every session file starts with a "mode" record (or
	// "last-prompt" when resumed), and writes "bridge-session",
	// "file-history-delta" and "frame-link" records among the messages; a
	// forked subagent's file starts with "fork-context-ref" (the parent
	// session and line its inherited context ends at, no sessionId).
	"mode": true, "bridge-session": true, "file-history-delta": true,
	"frame-link": true, "fork-context-ref": true,
}

func sniffClaudeCode(h *Head) bool {
	if h.Array || !claudeCodeTypes[h.String("type")] {
		return false
	}
	return h.Has("uuid") || h.Has("sessionId") || h.Has("leafUuid") || h.Has("messageId") || h.Has("parentSessionId")
}

type ccLine struct {
	Type        string           `json:"type"`
	UUID        string           `json:"uuid"`
	ParentUUID  string           `json:"parentUuid"`
	SessionID   string           `json:"sessionId"`
	Timestamp   string           `json:"timestamp"`
	IsSidechain bool             `json:"isSidechain"`
	AgentID     string           `json:"agentId"`
	IsMeta      bool             `json:"isMeta"`
	Compact     bool             `json:"isCompactSummary"`
	RequestID   string           `json:"requestId"`
	Subtype     string           `json:"subtype"`
	Message     jsonx.RawMessage `json:"message"`
	// SourceToolUseID names the tool call a line came from (Claude Code
	// writes it on the messages a tool produces); a tool_result block
	// without its tool_use_id is that call's result.
	SourceToolUseID string `json:"sourceToolUseID"`
	// ParentToolUseID is set on the messages of a subagent in the output
	// of claude -p --output-format stream-json (the Agent SDK's
	// SDKAssistantMessage and SDKUserMessage parent_tool_use_id: the
	// Task/Agent call that runs it), which has no isSidechain or agentId.
	ParentToolUseID string `json:"parent_tool_use_id"`
	// SessionIDSnake is stream-json's session_id (session files write
	// sessionId).
	SessionIDSnake string `json:"session_id"`
}

type ccMessage struct {
	ID      string           `json:"id"`
	Role    string           `json:"role"`
	Model   string           `json:"model"`
	Content jsonx.RawMessage `json:"content"`
	Usage   jsonx.RawMessage `json:"usage"`
}

type ccBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text"`
	Thinking  string           `json:"thinking"`
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Input     jsonx.RawMessage `json:"input"`
	ToolUseID string           `json:"tool_use_id"`
	Content   jsonx.RawMessage `json:"content"`
	IsError   bool             `json:"is_error"`
	// content is Content's text when the one-pass reading decoded it.
	content decodedContent
	// argsRaw is Input written compact, the text Call.SetArgsValue keeps,
	// when argsCompact (readAssistant); the call's arguments stay pending
	// (Call.ArgsPending).
	argsRaw     string
	argsCompact bool
}

// resultText is the block's content as text (contentText).
func (b *ccBlock) resultText() string { return b.content.textOf(b.Content) }

// resultTextHeld is resultText, and whether it lies in the line's scratch
// (decodedContent.held).
func (b *ccBlock) resultTextHeld() (string, bool) {
	return b.content.textOf(b.Content), b.content.decoded && b.content.held
}

// ccMessageRead is a line's message with its content decoded: a string
// (isString, text), blocks, or neither.
type ccMessageRead struct {
	m        ccMessage
	blocks   []ccBlock
	text     string
	isString bool
	// hasContent says the message has a content member that is not null.
	hasContent bool
	// unreadable says the line has no message object (none, or a value of
	// another kind); badContent that its content is neither a string nor
	// a list of blocks. Only user and assistant lines need a message.
	unreadable, badContent bool
	// argsBuf is where calls' inputs are written compact before they are
	// copied, kept from line to line while it is small (maxKeptArgsBuf).
	argsBuf []byte
	// usage is m.Usage read in one pass, when usagePlain
	// (anthropicUsagePlain, by the one-pass decoding or readAssistant).
	usage      *Usage
	usagePlain bool
	// scratch, when set, is where the one-pass decoding decodes long
	// result texts (LineReader.scratch).
	scratch *jsonx.Scratch
}

// ccScope is one agent scope of the file being read.
type ccScope struct {
	b        *sessionBuilder
	requests map[string]callRef // message.id:requestId -> its request (c unused)
	// lastKey is the key of the request the scope's latest assistant line
	// belonged to, and lastRef that request (requests[lastKey]): the lines
	// of one response follow one another, and nearly half of a file's
	// assistant lines continue the response before them, found so without
	// a look-up in a table as large as the session.
	lastKey   string
	lastRef   callRef
	compacted bool
	// cmd is the slash command the user ran last, while nothing has
	// answered it yet: it opens a turn when the model answers it (below).
	cmd pendingCommand
	// ahead holds, by call id, results read before their call: Claude Code
	// writes a session's lines along the parentUuid chain, and a result
	// line can come just before the line of the call it answers (its
	// parentUuid names that line, not yet read). Such a result waits here
	// for its call; one whose call never comes is reported at the end as
	// any result without a call.
	ahead map[string]aheadResult
	// answered holds the message ids of the responses read with a
	// requestId, and copied the ids of the calls of their copies: a
	// resumed session of CLI 2.0.x (real files of 2.0.2 and 2.0.65, IDE)
	// writes its earlier conversation into the file again, every line
	// under a new uuid at one timestamp, each response with its
	// message.id and tool_use ids but no requestId. A copy ran nothing:
	// its calls, results, requests and prompts are not read again.
	answered map[string]struct{}
	copied   map[string]struct{}
}

// pendingCommand is a slash command's wrapper line ("<command-name>/init
// </command-name>..."), kept until it is answered. A prompt command (a
// custom command, a plugin's or skill's, /init, /review) is followed by its
// expanded prompt (an isMeta line) and the model's answer: the user asked
// the model something, a turn. A local command (/model, /mcp, /compact,
// /exit) is answered by the CLI's own <local-command-stdout>, and the model
// says nothing: no turn. A bash-mode command ("<bash-input>") waits the
// same way: the model of CLI 2.1.2xx answers it, older ones do not.
type pendingCommand struct {
	text string
	line int
	t    time.Time
}

// aheadResult is a result read before its call's line.
type aheadResult struct {
	text  string
	isErr bool
	line  int
	t     time.Time
}

type ccReader struct {
	out       *Sink
	sessionID string
	scopes    map[string]*ccScope
	order     []string
	uuidScope uuidScopes
	// calls is how many calls the file's first scope is expected to make
	// (callsHint): its tables are made that large at once.
	calls     int
	synthetic int
	// doc: the records come from a multi-line document (sessionBuilder.doc).
	doc bool
	// requestKey is assistant's buffer for a request's key.
	requestKey []byte
}

// ccRecord is a line decoded (ccDecodeRecord), before the reader applies
// it: decoding needs nothing of the lines before, so it may run ahead of
// the reader on other cores (eachRecord).
type ccRecord struct {
	l    ccLine
	read ccMessageRead
	// err is why neither reading could decode the line; valid then says
	// the line is JSON all the same (a record of another shape).
	err   error
	valid bool
	// uuid is l.UUID's 16 bytes when it is canonical (uuidCanonical), and
	// time l.Timestamp read, for a user or assistant line: work that needs
	// nothing of the lines before, so it is done where the line is decoded.
	uuid          uuidKey
	uuidCanonical bool
	time          time.Time
}

// ccDecodeRecord decodes a line into rec: in one pass (ccDecodeLine),
// else generically (ccDecodeGeneric). The blocks rec held before are
// reused: nothing keeps a block past its line.
func ccDecodeRecord(lines *LineReader, line []byte, _ int, rec *ccRecord) {
	rec.err, rec.valid = nil, false
	rec.read.scratch = nil
	if lines != nil {
		rec.read.scratch = lines.scratch
	}
	onePass := ccDecodeLine(line, &rec.l, &rec.read, rec.read.blocks[:0])
	if !onePass {
		if rec.err = ccDecodeGeneric(line, &rec.l, &rec.read); rec.err != nil {
			rec.valid = jsonx.Valid(line)
			return
		}
	}
	rec.uuid, rec.uuidCanonical = canonicalUUID(rec.l.UUID)
	rec.time = time.Time{}
	switch rec.l.Type {
	case "assistant":
		if !onePass { // the one pass did readAssistant's work as it read
			rec.read.readAssistant()
		}
		fallthrough
	case "user":
		rec.time = parseTime(rec.l.Timestamp)
	}
}

// readAssistant does the work of an assistant line decoded generically
// that needs nothing of the lines before it, so that it runs where the
// line is decoded, on another core when lines are decoded ahead: the usage
// read in one pass (when it is plain) and each call's arguments written
// out compact. The one-pass decoding (ccDecodeLine) does both as it reads
// the line (TestClaudeCodeOnePassMatchesGeneric).
func (read *ccMessageRead) readAssistant() {
	// read was reset when the line was decoded: its usage and its blocks'
	// arguments are unset.
	if read.m.Usage != nil {
		read.usage, read.usagePlain = anthropicUsagePlain(read.m.Usage)
	}
	for i := range read.blocks {
		if b := &read.blocks[i]; b.Type == "tool_use" || b.Type == "server_tool_use" {
			// What Parse then Value.String give (Call.SetArgsValue), written
			// in one pass without building the value, which is left for
			// whoever needs it (Call.ArgsValue): CompactString takes exactly
			// the texts that Parse takes (FuzzAppendCompact), so the text is
			// valid JSON.
			if raw, end, ok := jsonx.CompactString(b.Input, 0, 0); ok && jsonx.AtEnd(b.Input, end) {
				b.argsRaw, b.argsCompact = raw, true
			}
		}
	}
}

func parseClaudeCode(lr *LineReader, h *Head, out *Sink) {
	if out.cut != nil && lr.scratch == nil {
		// Results are cut to their head as they are joined
		// (Options.CutResult): a long one is decoded into a scratch the
		// next lines reuse, never into memory of its own
		// (sessionBuilder.held).
		sc := resultScratch.Get().(*jsonx.Scratch)
		sc.Above = CutAbove
		lr.scratch = sc
		defer func() {
			lr.scratch = nil
			sc.Reset()
			resultScratch.Put(sc)
		}()
	}
	parseClaudeCodeRecords(lr.Next, lr, false, h, out)
}

// resultScratch keeps the scratches of the files read in turn
// (parseClaudeCode) for the next ones.
var resultScratch = sync.Pool{New: func() any { return new(jsonx.Scratch) }}

// parseClaudeCodeRecords reads the records next gives (the lines of lr, or
// the elements of a document's array, which are valid JSON: lr is then
// nil). doc says they come from a multi-line document: the sessions keep
// line 0 once their problems are reported.
func parseClaudeCodeRecords(next func() ([]byte, int, bool), lr *LineReader, doc bool, h *Head, out *Sink) {
	r := &ccReader{out: out, scopes: map[string]*ccScope{}, doc: doc, calls: callsHint(h.size)}
	records, known := 0, 0
	eachRecord(next, lr, h, ccDecodeRecord, func(lines *LineReader, line []byte, n int, rec *ccRecord) {
		if rec.err != nil {
			if rec.valid {
				out.Problemf(n, "record is not a Claude Code line (%s); skipped", decodeText(rec.err))
			} else {
				out.BadLine(lines, n, rec.err)
			}
			return
		}
		// Found by FuzzRead: records of unknown types are skipped
		// on purpose (future types carry no calls), but a record with no
		// type at all is not a Claude Code line, and skipping it silently
		// broke "every line is part of a session or a problem".
		if rec.l.Type == "" {
			out.Problemf(n, "record has no type, so it is not a Claude Code line; skipped")
			return
		}
		records++
		if claudeCodeTypes[rec.l.Type] {
			known++
		}
		r.line(rec, n)
	})
	// Found by FuzzRead: a file whose records all have types this
	// reader skips (another format read with --input-format claude-code)
	// yielded nothing at all; say so once instead.
	if len(r.order) == 0 && records > 0 {
		if known == records {
			// Real files of CLI 2.1.2xx: a session closed before its
			// first prompt keeps only its state records (mode,
			// permission-mode, ai-title, a local command's system lines).
			out.Problemf(0, "Claude Code session with no conversation (%d records of session state only); no session read", records)
		} else {
			out.Problemf(0, "no Claude Code user, assistant or system line in %d records; no session read (is this file of another format?)", records)
		}
	}
	for _, key := range r.order {
		r.scopes[key].flushAhead(out)
	}
	// A scope with nothing but stray lines (a trimmed file's result whose
	// call is elsewhere) is no session; those lines were reported. A file
	// with no turn at all still yields its first scope, so that it shows.
	var keep []string
	for _, key := range r.order {
		if len(r.scopes[key].b.s.Turns) > 0 {
			keep = append(keep, key)
		}
	}
	if len(keep) == 0 && len(r.order) > 0 {
		keep = r.order[:1]
	}
	// Before any session is emitted: each reads the others' calls.
	claudeAttachOthers(h.Path, keep, r.scopes, out)
	for _, key := range keep {
		sc := r.scopes[key]
		s := sc.b.s
		if s.ID == "" {
			s.ID = r.sessionID
		}
		if s.ID == "" {
			s.ID = fileStem(h.Name)
		}
		if s.Agent != "main" && s.Parent == "" {
			s.Parent = s.ID // the main session's (one file, one session id)
		}
		if s.Agent != "main" {
			claudeReadMeta(h.Path, s, out)
		}
		if key == "main" && r.synthetic > 0 {
			s.Notes = append(s.Notes, "locally generated <synthetic> assistant lines are not model requests; skipped")
		}
		sc.b.finish(out)
	}
}

// noteTime keeps the first time a line of the scope records as its
// session's own (Session.Time): a session of local commands (/exit, and
// its caveat and output) has lines with times but no turn to hold one.
func (sc *ccScope) noteTime(t time.Time) {
	if sc.b.s.Time.IsZero() {
		sc.b.s.Time = t
	}
}

// flushAhead reports the results read before a call that never came, in
// the order of their lines, as results without a call.
func (sc *ccScope) flushAhead(out *Sink) {
	if len(sc.ahead) == 0 {
		return
	}
	ids := make([]string, 0, len(sc.ahead))
	for id := range sc.ahead {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return sc.ahead[ids[i]].line < sc.ahead[ids[j]].line })
	for _, id := range ids {
		a := sc.ahead[id]
		sc.b.result(id, a.text, a.isErr, a.line, a.t, out)
	}
	sc.ahead = nil
}

// ccDecodeLine reads a whole line in one pass (jsonx.DecodeObjectNested) into l
// and read: the line's members, its message's, and the message's content,
// a string or blocks, each block's result text decoded where it lies when
// it is a string. The raw members it keeps (a block's input, a result
// that is not a string, usage) are views of line, used before the next
// line is read; so are the strings marked View, which line only compares,
// parses, measures or looks up (type, uuids, timestamp, ids of a request,
// a block's type, text and thinking): what it keeps of them past the
// line is cloned (the session id, the model, a uuid kept by its text). A
// line without a message object, and content of another kind, are marked
// in read (unreadable, badContent) for line to report.
// It declines what DecodeObjectNested declines (a member of another type,
// a repeated, escaped or case-folded key, a syntax error): the line is
// then decoded generically (ccDecodeGeneric).
func ccDecodeLine(line []byte, l *ccLine, read *ccMessageRead, blocks []ccBlock) bool {
	*l = ccLine{}
	*read = ccMessageRead{blocks: blocks, unreadable: true, argsBuf: read.argsBuf, scratch: read.scratch}
	lineFields := [...]jsonx.Field{
		{Name: "type", Str: &l.Type, View: true},
		{Name: "uuid", Str: &l.UUID, View: true},
		{Name: "parentUuid", Str: &l.ParentUUID, View: true},
		{Name: "sessionId", Str: &l.SessionID, View: true},
		{Name: "timestamp", Str: &l.Timestamp, View: true},
		{Name: "isSidechain", Bool: &l.IsSidechain},
		{Name: "agentId", Str: &l.AgentID},
		{Name: "isMeta", Bool: &l.IsMeta},
		{Name: "isCompactSummary", Bool: &l.Compact},
		{Name: "requestId", Str: &l.RequestID, View: true},
		{Name: "subtype", Str: &l.Subtype, View: true},
		{Name: "sourceToolUseID", Str: &l.SourceToolUseID},
		{Name: "parent_tool_use_id", Str: &l.ParentToolUseID},
		{Name: "session_id", Str: &l.SessionIDSnake, View: true},
	}
	m := &read.m
	messageFields := [...]jsonx.Field{
		{Name: "id", Str: &m.ID, View: true},
		{Name: "role", Str: &m.Role, View: true},
		{Name: "model", Str: &m.Model, View: true},
	}
	// The usage is read where it lies (anthropicUsagePlainAt), in this
	// pass: taken as a raw member and then read by readAssistant, it was
	// walked twice. A usage that is not plain is kept raw, for the
	// checked reading.
	usage := func(data []byte, pos, depth int) (int, bool) {
		if u, end, ok := anthropicUsagePlainAt(data, pos, depth); ok {
			m.Usage, read.usage, read.usagePlain = data[pos:end:end], u, true
			return end, true
		}
		start, end, ok := jsonx.SkipValue(data, pos, depth)
		m.Usage = data[start:end:end]
		return end, ok
	}
	messageNested := [...]jsonx.Nested{{Name: "usage", Read: usage}, {Name: "content", Read: func(data []byte, pos, depth int) (int, bool) {
		switch data[pos] {
		case '"':
			read.hasContent = true
			s, end, ok := jsonx.DecodeStringAt(data, pos)
			read.text, read.isString = s, true
			return end, ok
		case '[':
			read.hasContent = true
			read.blocks = read.blocks[:0]
			return jsonx.DecodeArrayEach(data, pos, depth, func(data []byte, pos, depth int) (int, bool) {
				switch data[pos] {
				case '{':
					read.blocks = append(read.blocks, ccBlock{})
					return ccDecodeBlock(data, pos, depth, &read.blocks[len(read.blocks)-1], &read.argsBuf, read.scratch)
				case 'n': // null decodes as an empty block
					read.blocks = append(read.blocks, ccBlock{})
				default: // a list that is not of blocks
					read.badContent = true
				}
				_, end, ok := jsonx.SkipValue(data, pos, depth)
				return end, ok
			})
		}
		_, end, ok := jsonx.SkipValue(data, pos, depth)
		read.badContent = data[pos] != 'n'
		read.hasContent = read.badContent
		return end, ok
	}}}
	message := [...]jsonx.Nested{{Name: "message", Read: func(data []byte, pos, depth int) (int, bool) {
		// null decodes as an empty message; another kind is no message.
		read.unreadable = data[pos] != '{' && data[pos] != 'n'
		if data[pos] != '{' {
			_, end, ok := jsonx.SkipValue(data, pos, depth)
			return end, ok
		}
		return jsonx.DecodeObjectIndexed(data, pos, depth, &ccMessageIndex, messageFields[:], messageNested[:])
	}}}
	end, ok := jsonx.DecodeObjectIndexed(line, 0, 0, &ccLineIndex, lineFields[:], message[:])
	if read.badContent {
		read.blocks, read.text, read.isString = nil, "", false
	}
	return ok && jsonx.AtEnd(line, end)
}

// maxKeptArgsBuf bounds the buffer a line's record keeps for the next
// line's inputs (ccMessageRead.argsBuf): every record of the batches read
// ahead keeps its own, and one large input must not leave hundreds of
// large buffers behind. Most inputs are a few hundred bytes.
const maxKeptArgsBuf = 1 << 10

// ccDecodeGeneric is the generic decoding of a line the one-pass reading
// declines (a repeated, escaped or case-folded key, a member of another
// type): Unmarshal into l, then of its message, into what decode makes of
// them. The error is the line's, which words its problem.
func ccDecodeGeneric(line []byte, l *ccLine, read *ccMessageRead) error {
	*l, *read = ccLine{}, ccMessageRead{}
	if err := jsonx.Unmarshal(line, l); err != nil {
		return err
	}
	var m ccMessage
	if l.Message == nil || jsonx.Unmarshal(l.Message, &m) != nil {
		read.unreadable = true
		return nil
	}
	content := bytes.TrimSpace(m.Content)
	read.m = m
	read.hasContent = len(content) > 0 && string(content) != "null"
	switch {
	case jsonx.Unmarshal(content, &read.text) == nil:
		read.isString = true
	case jsonx.Unmarshal(content, &read.blocks) == nil:
	default:
		read.text, read.blocks = "", nil
		read.badContent = read.hasContent
	}
	return nil
}

// ccDecodeBlock reads one content block at data[pos] into b, in the same
// pass as its line, as Unmarshal into a ccBlock would; a tool result that
// is a string is decoded too (readContentMember), as contentText would
// decode it (a long one into scratch, when it is not nil). It declines an
// element that is not an object (Unmarshal reads null as an empty block;
// the caller reads that case).
func ccDecodeBlock(data []byte, pos, depth int, b *ccBlock, argsBuf *[]byte, scratch *jsonx.Scratch) (int, bool) {
	if data[pos] != '{' {
		return 0, false
	}
	fields := [...]jsonx.Field{
		{Name: "type", Str: &b.Type, View: true},
		{Name: "text", Str: &b.Text, View: true},
		{Name: "thinking", Str: &b.Thinking, View: true},
		{Name: "id", Str: &b.ID},
		{Name: "name", Str: &b.Name},
		{Name: "tool_use_id", Str: &b.ToolUseID},
		{Name: "is_error", Bool: &b.IsError},
	}
	// A call's input is written compact where it lies, in this pass
	// (readAssistant's work): taken as a raw member and then written, it
	// was walked twice. AppendCompact takes exactly the values the raw
	// member's check takes there, counting their depth alike.
	input := func(data []byte, pos, depth int) (int, bool) {
		if buf, end, ok := jsonx.AppendCompact((*argsBuf)[:0], data, pos, depth); ok {
			b.Input, b.argsRaw, b.argsCompact = data[pos:end:end], string(buf), true
			if cap(buf) <= maxKeptArgsBuf {
				*argsBuf = buf
			}
			return end, true
		}
		start, end, ok := jsonx.SkipValue(data, pos, depth)
		b.Input = data[start:end:end]
		return end, ok
	}
	nested := [...]jsonx.Nested{{Name: "input", Read: input}, {Name: "content", Read: readContentMember(&b.Content, &b.content, scratch)}}
	return jsonx.DecodeObjectIndexed(data, pos, depth, &ccBlockIndex, fields[:], nested[:])
}

// The indexes of the names ccDecodeLine and ccDecodeBlock read: a line
// has a dozen members, and every one was compared with each name.
var ccLineIndex, ccMessageIndex, ccBlockIndex jsonx.FieldIndex

// scopeOf assigns a line to its agent scope.
func (r *ccReader) scopeOf(rec *ccRecord) string {
	l := &rec.l
	key := "main"
	if l.IsSidechain {
		switch {
		case l.AgentID != "":
			key = l.AgentID
		case l.ParentUUID != "" && r.uuidScope.get(l.ParentUUID) != "":
			key = r.uuidScope.get(l.ParentUUID)
		default:
			id := l.UUID
			if len(id) > 8 {
				id = id[:8]
			}
			key = "sidechain-" + id
		}
	} else if l.ParentToolUseID != "" {
		// A subagent's message in headless stream-json output: its own
		// scope, named by the call that runs it.
		key = l.ParentToolUseID
	}
	if l.UUID != "" {
		r.uuidScope.setKey(l.UUID, rec.uuid, rec.uuidCanonical, key)
	}
	return key
}

func (r *ccReader) scope(key string, line int) *ccScope {
	sc := r.scopes[key]
	if sc == nil {
		s := &Session{Format: formatClaudeCode, Agent: key, Line: line}
		sc = &ccScope{b: newSessionBuilder(s, r.calls), requests: make(map[string]callRef, r.calls)}
		r.calls = 0 // a sidechain's scope is a small part of its file
		sc.b.doc = r.doc
		if !r.doc {
			// A result is found again by its line (ResultFile); a
			// document's lines are its elements'.
			sc.b.cut = r.out.cut
		}
		r.scopes[key] = sc
		r.order = append(r.order, key)
	}
	return sc
}

// line reads one record; read is its message, decoded.
func (r *ccReader) line(rec *ccRecord, n int) {
	l, read := rec.l, &rec.read
	if r.sessionID == "" && l.SessionID != "" {
		r.sessionID = strings.Clone(l.SessionID) // kept: not a view of the line
	} else if r.sessionID == "" && l.SessionIDSnake != "" {
		r.sessionID = strings.Clone(l.SessionIDSnake) // kept: not a view of the line
	}
	switch l.Type {
	case "user", "assistant":
	case "system":
		if l.Subtype == "compact_boundary" {
			// The next turn is marked compacted; a compaction in the
			// middle of a turn (auto-compaction mid-task) is also noted
			// where it stands, so that a replay hears it there and not
			// only at the next prompt.
			sc := r.scope(r.scopeOf(rec), n)
			sc.compacted = true
			sc.b.compaction(n, rec.time)
		} else if l.UUID != "" {
			r.scopeOf(rec)
		}
		return
	default:
		// summary, queue-operation, file-history-snapshot and future types
		// carry no calls; their uuid still links the chain.
		if l.UUID != "" {
			r.scopeOf(rec)
		}
		return
	}
	key := r.scopeOf(rec)
	if read.unreadable {
		r.out.Problemf(n, "%s line has no readable message; skipped", l.Type)
		return
	}
	if read.badContent {
		r.out.Problemf(n, "%s message content is neither text nor blocks; skipped", l.Type)
		return
	}
	if l.Type == "user" && !read.hasContent {
		// A user message without content (a misspelt key) held
		// nothing this reader can see, a tool_result perhaps: skipping it
		// silently lost that result.
		r.out.Problemf(n, "user message has no content (a misspelt or missing key; a tool_result it held is not joined to its call); skipped")
		return
	}
	t := rec.time
	blocks, text, isString := read.blocks, read.text, read.isString
	if l.Type == "assistant" {
		if read.m.Model == "<synthetic>" {
			r.synthetic++
			return
		}
		sc := r.scope(key, n)
		if l.IsSidechain && l.AgentID != "" && len(sc.b.s.Turns) == 0 && l.ParentUUID != "" &&
			r.uuidScope.get(l.ParentUUID) == "" {
			// A forked agent's file (prompt_suggestion, acompact; CLI
			// 2.1.23 to 2.1.50) starts with the parent's last response,
			// the context it was forked from: its parentUuid is a line of
			// the parent's file. It is no request of this agent and opens
			// no turn before the agent's prompt; a call in it (an
			// auto-compaction forked mid-turn) ran in the parent, and the
			// copy of its result is skipped.
			sc.copyOfResponse(read.blocks)
			return
		}
		sc.noteTime(t)
		if sc.cmd.line != 0 {
			sc.openTurn(sc.cmd.text, sc.cmd.line, sc.cmd.t)
		}
		r.assistant(sc, l, read, n, t)
		return
	}
	sc := r.scope(key, n)
	if l.IsSidechain && ccForkedAgent(l.AgentID) && len(sc.b.s.Turns) == 0 && l.ParentUUID != "" &&
		ccOnlyResults(blocks) && r.uuidScope.get(l.ParentUUID) == "" {
		// A forked agent's file can start with the result of the parent's
		// last call alone (acompact, CLI 2.1.50, real files): the call's
		// line is the parent's, and the result is the context the agent
		// was forked with, not one of its own (it was a result with no
		// call, one problem per file). Another agent's first result whose
		// call is not in the file (a trimmed file) stays a problem.
		return
	}
	sc.noteTime(t)
	hasResult := false
	for i := range blocks {
		if b := &blocks[i]; b.Type == "tool_result" {
			hasResult = true
			if _, copied := sc.copied[b.ToolUseID]; copied && b.ToolUseID != "" {
				continue // the copy of a result read before
			}
			text, held := b.resultTextHeld()
			id := b.ToolUseID
			if id == "" {
				// A result block without its id: the line's
				// sourceToolUseID names its call, else it answers the
				// oldest call that had no id either.
				id = l.SourceToolUseID
				if _, _, waiting := sc.b.waiting(id, idTag(id)); (id == "" || !waiting) && sc.b.heldResult(held).idlessResult(text, b.IsError, n, t) {
					continue
				}
			}
			// The call's id is asked first: nearly every result's call is
			// waiting, and the first look-up of a uuid indexes every line's
			// (uuidScopes.get), which each line after then grows.
			if id != "" && l.ParentUUID != "" {
				if _, _, waiting := sc.b.waiting(id, idTag(id)); !waiting && r.uuidScope.get(l.ParentUUID) == "" {
					if sc.ahead == nil {
						sc.ahead = map[string]aheadResult{}
					}
					if _, dup := sc.ahead[id]; !dup {
						if held { // kept past its line
							text = strings.Clone(text)
						}
						sc.ahead[id] = aheadResult{text, b.IsError, n, t}
						continue
					}
				}
			}
			sc.b.heldResult(held).result(id, text, b.IsError, n, t, r.out)
		}
	}
	if hasResult || l.IsMeta || l.Compact {
		return
	}
	if !isString {
		var sb strings.Builder
		for _, b := range blocks {
			if b.Type == "text" {
				sb.WriteString(b.Text)
			}
		}
		text = sb.String()
	}
	if strings.TrimSpace(text) == "" && len(blocks) > 0 {
		// A prompt of an image alone (dropped or pasted with no words;
		// real 2.1.63 file, imagePasteIds): the model answers it, a turn.
		// An image pasted with words is written as a line of its own just
		// before the words' line (real 2.1.19 file): one prompt. So it
		// waits, as a slash command does, for the model's answer, and a
		// prompt before that answer opens the turn instead.
		sc.cmd = pendingCommand{line: n, t: t}
		return
	}
	if !genuineClaudePrompt(text) {
		sc.notPrompt(text, n, t)
		return
	}
	sc.openTurn(text, n, t)
}

// openTurn opens the turn of a user message (a prompt, or a slash command
// the model answers) at line n; a command still waiting is answered by it.
func (sc *ccScope) openTurn(text string, n int, t time.Time) {
	sc.cmd = pendingCommand{}
	sc.b.turn(n, t, len(text))
	sc.b.s.Turns[len(sc.b.s.Turns)-1].UserText = text
	if sc.compacted {
		sc.b.s.Turns[len(sc.b.s.Turns)-1].CompactedBefore = true
		sc.compacted = false
	}
}

// notPrompt reads a user line that is no typed prompt. It keeps a slash
// command's wrapper until the model answers it (pendingCommand), and
// forgets it when the CLI answers it itself. A background task's
// notification and a bash-mode command or its output open no turn, but
// they say what changed (a job ended and wrote its output file, a command
// ran): they are the turn's notices, which a guard hears as it hears a
// prompt (ingest.Notice).
func (sc *ccScope) notPrompt(text string, n int, t time.Time) {
	switch claudeCLILineKind(text) {
	case claudeCommand:
		sc.cmd = pendingCommand{text: strings.Clone(text), line: n, t: t} // kept past its line
	case claudeLocalOutput:
		sc.cmd = pendingCommand{}
	case claudeBashInput:
		// CLI 2.1.2xx writes no caveat before it, and the model answers
		// the command and its output: then it opens a turn, as a slash
		// command does (older versions' model answers only the next
		// prompt, which forgets it).
		text = strings.Clone(text) // kept past its line
		sc.b.notice(n, t, text)
		sc.cmd = pendingCommand{text: text, line: n, t: t}
	case claudeNotice:
		sc.b.notice(n, t, strings.Clone(text)) // kept past its line
	}
}

// claudeCLIKind is what a user line the Claude Code CLI writes itself
// stands for (the Claude Code reader's notPrompt and the OpenAI-chat
// reader's claudeCLILine, for exports converted from its sessions).
type claudeCLIKind uint8

const (
	claudeOtherLine   claudeCLIKind = iota // none of these (an interrupt marker, a caveat)
	claudeCommand                          // a slash command's wrapper
	claudeLocalOutput                      // a local command's output: the CLI answered it
	claudeBashInput                        // a bash-mode command
	claudeNotice                           // a background task's notification, a bash-mode command's output
)

// claudeCLILineKind is the kind of a user line the CLI wrote.
func claudeCLILineKind(text string) claudeCLIKind {
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, "<command-name>"), strings.HasPrefix(t, "<command-message>"):
		return claudeCommand
	case strings.HasPrefix(t, "<local-command-stdout>"), strings.HasPrefix(t, "<local-command-stderr>"):
		return claudeLocalOutput
	case strings.HasPrefix(t, "<bash-input>"):
		return claudeBashInput
	case strings.HasPrefix(t, "<task-notification>"),
		strings.HasPrefix(t, "<bash-stdout>"), strings.HasPrefix(t, "<bash-stderr>"):
		return claudeNotice
	}
	return claudeOtherLine
}

// genuineClaudePrompt tells a typed prompt from the CLI's own user lines:
// slash-command wrappers, their captured output, interrupt markers, a
// command the user ran in bash mode ("!" before it: the CLI runs it itself
// and writes "<bash-input>", then its "<bash-stdout>" and "<bash-stderr>",
// into the context; the model answers nothing until the next prompt), and the
// notice the CLI writes as a user line when a background task (a Bash or
// Agent call run in the background) ends: "<task-notification>" with the
// task's id, output file, status and summary, which newer versions also
// mark "origin": {"kind": "task-notification"} where a typed prompt has
// {"kind": "human"}. Nobody typed it; the model goes on reading the output.
func genuineClaudePrompt(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>", "[Request interrupted by user", "<task-notification>", "<bash-input>", "<bash-stdout>", "<bash-stderr>"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

func (r *ccReader) assistant(sc *ccScope, l ccLine, read *ccMessageRead, n int, t time.Time) {
	m, blocks := &read.m, read.blocks
	if l.RequestID == "" && m.ID != "" {
		if _, ok := sc.answered[m.ID]; ok {
			sc.copyOfResponse(blocks)
			return
		}
	}
	if sc.b.s.Model == "" {
		sc.b.s.Model = strings.Clone(m.Model) // kept: not a view of the line
	}
	chars := 0
	if read.isString {
		chars = len(read.text)
	}
	for _, b := range blocks {
		chars += len(b.Text) + len(b.Thinking)
	}
	// One API response split over lines: continue its request.
	// The key message.id:requestId is built in a buffer: a line that
	// continues its request only looks it up, without a string of it.
	// A line without requestId is keyed on message.id alone: the Messages
	// API gives every response its own id ("msg_..."), and files written
	// through proxies (OpenClaw's Claude Code home) split one response over
	// several lines with that id and no requestId, each repeating the usage.
	var ref callRef
	key := r.requestKey[:0]
	if m.ID != "" {
		key = append(append(append(key, m.ID...), ':'), l.RequestID...)
		r.requestKey = key
	}
	known, ok := sc.lastRef, len(key) > 0 && string(key) == sc.lastKey
	if !ok && len(key) > 0 {
		if known, ok = sc.requests[string(key)]; ok {
			sc.lastKey, sc.lastRef = string(key), known
		}
	}
	if ok && l.RequestID == "" && known.t < len(sc.b.s.Turns)-1 {
		// Without requestId, a response read in an earlier turn, a
		// prompt since: a resumed session's copy of it (real 2.0.29 files
		// written through a proxy, message ids "msg_<time>", no requestId
		// on any line), read as copyOfResponse reads one.
		sc.copyOfResponse(blocks)
		return
	}
	if ok {
		ref = known
		req := &sc.b.s.Turns[ref.t].Requests[ref.r]
		req.TextChars += chars
		// The records of one response repeat its usage; in a few the
		// output grows as the response streams (input and cache counts
		// do not). The largest output is the response's.
		if later := r.usage(read, n, false); later != nil {
			if req.Usage == nil {
				req.Usage = later
			} else if later.Output > req.Usage.Output {
				req.Usage.Output = later.Output
			}
		}
	} else {
		sc.b.request(n, t, chars, r.usage(read, n, true))
		ref = sc.b.lastRef()
		if len(key) > 0 {
			k := string(key)
			sc.requests[k] = ref
			sc.lastKey, sc.lastRef = k, ref
			if l.RequestID != "" {
				if sc.answered == nil {
					sc.answered = map[string]struct{}{}
				}
				sc.answered[k[:len(m.ID)]] = struct{}{}
			}
		}
	}
	if r.out.KeepText {
		req := &sc.b.s.Turns[ref.t].Requests[ref.r]
		if read.isString {
			req.addText(read.text)
		}
		for i := range blocks {
			if blocks[i].Type == "text" {
				req.addText(blocks[i].Text)
			}
		}
	}
	for i := range blocks {
		switch b := &blocks[i]; b.Type {
		case "tool_use", "server_tool_use":
			if ok && b.ID != "" && sc.requestHasCall(ref, b.ID) {
				// A line of the request written again whole (same uuid;
				// real 2.1.143 file: 17 calls re-appended later): the call
				// was read, and so was its result (skipped below).
				sc.markCopied(b.ID)
				continue
			}
			if len(key) == 0 && b.ID != "" && sc.answeredCall(b.ID, b.Name) {
				// A response line without message.id has no request to
				// find a copy by: a resumed session's copy of it (real
				// 2.0.29 file through a proxy, tool_use ids "tooluse_...",
				// no requestId) is known by its call, whose id and tool
				// were read and answered before.
				sc.markCopied(b.ID)
				continue
			}
			c := Call{ID: b.ID, Tool: b.Name, Time: t, Line: n}
			if b.argsCompact {
				c.ArgsOK, c.ArgsRaw, c.ArgsCompact, c.ArgsPending = true, b.argsRaw, true, true
			} else {
				c.SetArgs(string(b.Input))
			}
			sc.b.callAt(ref, c, r.out)
			if a, ok := sc.ahead[c.ID]; ok && c.ID != "" {
				delete(sc.ahead, c.ID)
				sc.b.result(c.ID, a.text, a.isErr, a.line, a.t, r.out)
			}
		default:
			// Server tool results (web_search_tool_result, ...) come back in
			// the same assistant message.
			if b.ToolUseID != "" && strings.HasSuffix(b.Type, "_tool_result") {
				text, held := b.resultTextHeld()
				sc.b.heldResult(held).result(b.ToolUseID, text, b.IsError || ccServerToolError(b.Content), n, t, r.out)
			}
		}
	}
}

// ccForkedAgent says whether agentId names one of the CLI's own forked
// agents: an auto-compaction's (acompact-<id>) or a prompt suggestion's
// (aprompt_suggestion-<id>), whose files start with the parent's context.
func ccForkedAgent(agentID string) bool {
	return strings.HasPrefix(agentID, "acompact-") || strings.HasPrefix(agentID, "aprompt_suggestion-")
}

// ccOnlyResults says whether a user line's blocks are tool results only.
func ccOnlyResults(blocks []ccBlock) bool {
	for i := range blocks {
		if blocks[i].Type != "tool_result" {
			return false
		}
	}
	return len(blocks) > 0
}

// requestHasCall reports whether the request ref already holds a call
// with this id.
func (sc *ccScope) requestHasCall(ref callRef, id string) bool {
	for i := range sc.b.s.Turns[ref.t].Requests[ref.r].Calls {
		if sc.b.s.Turns[ref.t].Requests[ref.r].Calls[i].ID == id {
			return true
		}
	}
	return false
}

// answeredCall reports whether a call of this scope with id and tool was
// read and got its result before.
func (sc *ccScope) answeredCall(id, tool string) bool {
	if _, _, waiting := sc.b.waiting(id, idTag(id)); waiting || !sc.b.wasIssued(id) {
		return false
	}
	turns := sc.b.s.Turns
	for ti := len(turns) - 1; ti >= 0; ti-- {
		for ri := len(turns[ti].Requests) - 1; ri >= 0; ri-- {
			for _, c := range turns[ti].Requests[ri].Calls {
				if c.ID == id {
					return c.Tool == tool && c.HasResult
				}
			}
		}
	}
	return false
}

// markCopied remembers a call id whose later results are copies.
func (sc *ccScope) markCopied(id string) {
	if sc.copied == nil {
		sc.copied = map[string]struct{}{}
	}
	sc.copied[strings.Clone(id)] = struct{}{} // kept past its line
}

// copyOfResponse reads an assistant line that copies a response read
// before (ccScope.answered): its calls are remembered so that the copies
// of their results are skipped too, and the prompts copied just before it,
// which nothing answered since, are no turns: they open none.
func (sc *ccScope) copyOfResponse(blocks []ccBlock) {
	for i := range blocks {
		if b := &blocks[i]; b.Type == "tool_use" && b.ID != "" {
			sc.markCopied(b.ID)
		}
	}
	turns := sc.b.s.Turns
	for len(turns) > 0 {
		last := &turns[len(turns)-1]
		if len(last.Requests) > 0 || len(last.Notices) > 0 {
			break
		}
		turns = turns[:len(turns)-1]
	}
	sc.b.s.Turns = turns
}

// ccServerToolError reports a server tool result whose content is an error
// object ({"type": "web_search_tool_result_error", "error_code": ...}).
// Reading taken: Anthropic marks these failures by the content's type, not
// by is_error, so the type is what makes the result an error.
func ccServerToolError(raw jsonx.RawMessage) bool {
	var c struct {
		Type string `json:"type"`
	}
	return rawIsObject(raw) && jsonx.Unmarshal(raw, &c) == nil && strings.HasSuffix(c.Type, "_error")
}

// usage is the line's usage: read in one pass when it is plain
// (read.usagePlain), else checkedUsage(raw, anthropicUsage) when checked
// (the problem of a bad count is reported), else anthropicUsage(raw).
func (r *ccReader) usage(read *ccMessageRead, n int, checked bool) *Usage {
	raw := read.m.Usage
	if raw == nil {
		return nil
	}
	if read.usagePlain {
		return read.usage
	}
	if checked {
		return checkedUsage(r.out, n, raw, anthropicUsage)
	}
	return anthropicUsage(raw)
}

// anthropicUsage normalizes Anthropic usage: input_tokens excludes cached
// tokens, so Input = input + cache_creation + cache_read.
func anthropicUsage(raw jsonx.RawMessage) *Usage {
	var u struct {
		Input         *int64 `json:"input_tokens"`
		Output        int64  `json:"output_tokens"`
		CacheCreation int64  `json:"cache_creation_input_tokens"`
		CacheRead     int64  `json:"cache_read_input_tokens"`
	}
	if raw == nil || jsonx.Unmarshal(raw, &u) != nil || u.Input == nil {
		return nil
	}
	input := SaturatingAdd(SaturatingAdd(*u.Input, u.CacheCreation), u.CacheRead)
	return &Usage{Input: input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheCreation}
}
