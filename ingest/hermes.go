// hermes.go reads the transcripts that hermes-agent (NousResearch) leaves on
// disk: the `hermes sessions export` dump, the gateway JSONL transcripts, the
// per-session JSON snapshots, and the ShareGPT trajectory and batch-runner
// files (hermes_trajectory.go). Formats B to F of
// reference/formats-hermes.md; docs/formats/hermes.md says how each is read.
//
// The export, gateway and snapshot formats share one message model (OpenAI
// chat messages plus hermes extras, §2); hermesConv turns such a message list
// into turns, requests and calls, whatever file it came from.
package ingest

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

func init() {
	register(&Format{
		ID:        "hermes-export",
		Family:    "hermes",
		Reads:     "hermes-agent `hermes sessions export` JSONL: one session per line (sessions row plus its messages).",
		Detection: "A record with `id`, `source` and `messages` plus a hermes sessions column (`started_at`, `parent_session_id`, `model_config` or `end_reason`).",
		Priority:  20,
		Sniff:     sniffHermesExport,
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			for {
				line, n, ok := lr.Next()
				if !ok {
					return
				}
				parseHermesExportRecord(line, n, n, lr, nil, h, out)
			}
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseHermesExportRecord(doc, docLine(doc, h), h.Line, nil, newDocPos(doc, h.Line), h, out)
		},
	})
	register(&Format{
		ID:        "hermes-snapshot",
		Family:    "hermes",
		Reads:     "hermes-agent per-session JSON snapshot `session_<id>.json` (raw `messages`, or the early ShareGPT `conversations` form).",
		Detection: "One JSON object with `messages` or `conversations` and the snapshot's `session_start` or `last_updated`.",
		Priority:  21,
		Sniff:     sniffHermesSnapshot,
		ParseDoc:  parseHermesSnapshot,
	})
	register(&Format{
		ID:         "hermes-gateway",
		Family:     "hermes",
		Reads:      "hermes-agent gateway transcript `sessions/<id>.jsonl` (telegram, discord, slack, ...): one message per line.",
		Detection:  "First record has `role: session_meta`, or has a chat `role` in a file named like a hermes session id (`20260413_083748_5a617929.jsonl`).",
		Priority:   22,
		Sniff:      sniffHermesGateway,
		ParseLines: parseHermesGateway,
	})
}

// hermesSessionFile matches the file name of a gateway transcript: the
// session id (YYYYMMDD_HHMMSS_<6 or 8 hex>) plus .jsonl.
var hermesSessionFile = lazyre.New(`^\d{8}_\d{6}_[0-9a-f]{6,8}\.jsonl$`)

func sniffHermesExport(h *Head) bool {
	if h.Array || !h.Has("id", "source", "messages") {
		return false
	}
	return h.Has("started_at") || h.Has("parent_session_id") || h.Has("model_config") || h.Has("end_reason")
}

func sniffHermesSnapshot(h *Head) bool {
	if h.Array || !(h.Has("messages") || h.Has("conversations")) {
		return false
	}
	return h.Has("session_start") || h.Has("last_updated")
}

func sniffHermesGateway(h *Head) bool {
	if h.Array || h.Has("_type") || !h.Has("role") {
		return false
	}
	switch h.String("role") {
	case "session_meta":
		return true
	case "user", "assistant", "tool", "system":
		return hermesSessionFile.Get().MatchString(h.Name)
	}
	return false
}

// docLine is the line to give records of a one-document file: the file's
// line when the document is a single line (a one-record JSONL file), else 0.
func docLine(doc []byte, h *Head) int {
	if bytes.Contains(bytes.TrimSpace(doc), []byte("\n")) {
		return 0
	}
	return h.Line
}

// hermesMessage is one message of the §2 model. Fields whose type varies
// between hermes versions stay raw.
type hermesMessage struct {
	hermesMessageFields
	Content          jsonx.RawMessage `json:"content"`
	Reasoning        jsonx.RawMessage `json:"reasoning"`
	ReasoningContent jsonx.RawMessage `json:"reasoning_content"`
}

// hermesMessageFields are the members of a message but its text ones.
type hermesMessageFields struct {
	Role              string           `json:"role"`
	ToolCalls         jsonx.RawMessage `json:"tool_calls"`
	ToolCallID        string           `json:"tool_call_id"`
	Name              string           `json:"name"`
	ToolName          string           `json:"tool_name"`
	Timestamp         jsonx.RawMessage `json:"timestamp"`
	CompressedSummary jsonx.RawMessage `json:"_compressed_summary"`
	Active            jsonx.RawMessage `json:"active"`
	Compacted         jsonx.RawMessage `json:"compacted"`
	// session_meta records (gateway) carry these.
	Model    string `json:"model"`
	Platform string `json:"platform"`
}

// hermesMsg is a message as hermesConv reads it: the message with its
// content and reasoning turned into text (hermesText).
type hermesMsg struct {
	hermesMessageFields
	// Text is the content's text; Reasoning the reasoning's, or
	// reasoning_content's when reasoning is blank.
	Text, Reasoning string
	// calls are the tool calls when they were read with the message
	// (callsRead, hermesMsg.decodeAt), else hermesToolCalls reads them
	// from ToolCalls.
	calls     []hermesCall
	callsRead bool
}

// msg turns a decoded message into what hermesConv reads.
func (m *hermesMessage) msg() hermesMsg {
	r := hermesMsg{hermesMessageFields: m.hermesMessageFields, Text: hermesText(m.Content), Reasoning: hermesText(m.Reasoning)}
	if strings.TrimSpace(r.Reasoning) == "" {
		r.Reasoning = hermesText(m.ReasoningContent)
	}
	return r
}

// decodeAt reads the message that starts at data[pos], depth levels deep
// in data, in one pass (jsonx.DecodeObjectNested), into what
// hermesMessage.msg makes of it: the text members (content, reasoning)
// straight into m's text, whatever their kind (hermesTextAt), the raw
// ones as views of data (m is read before data changes). The decoder
// declines a repeated member, so null and absent give "" as for a single
// member. end is the index just past the message; false (a repeated,
// escaped or case-folded key, a member of another type, a syntax error)
// leaves it to the generic decoding, hermesUnmarshalMessage (m may be
// partly written).
func (m *hermesMsg) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	*m = hermesMsg{}
	var reasoningContent string
	fields := [...]jsonx.Field{
		{Name: "role", Str: &m.Role},
		{Name: "tool_call_id", Str: &m.ToolCallID},
		{Name: "name", Str: &m.Name},
		{Name: "tool_name", Str: &m.ToolName},
		{Name: "timestamp", Raw: &m.Timestamp, View: true},
		{Name: "_compressed_summary", Raw: &m.CompressedSummary, View: true},
		{Name: "active", Raw: &m.Active, View: true},
		{Name: "compacted", Raw: &m.Compacted, View: true},
		{Name: "model", Str: &m.Model},
		{Name: "platform", Str: &m.Platform},
	}
	// The tool calls are read in the same pass when they are a list
	// hermesReadToolCalls reads; any other value is kept raw for
	// hermesToolCalls.
	nested := [...]jsonx.Nested{{Name: "content", Read: hermesTextAt(&m.Text)},
		{Name: "reasoning", Read: hermesTextAt(&m.Reasoning)},
		{Name: "reasoning_content", Read: hermesTextAt(&reasoningContent)},
		{Name: "tool_calls", Read: func(data []byte, pos, depth int) (int, bool) {
			if data[pos] == '[' {
				if calls, end, ok := hermesReadToolCalls(data, pos, depth); ok {
					m.ToolCalls, m.calls, m.callsRead = data[pos:end:end], calls, true
					return end, true
				}
			}
			_, end, ok := jsonx.SkipValue(data, pos, depth)
			if !ok {
				return 0, false
			}
			m.ToolCalls = data[pos:end:end]
			return end, true
		}}}
	if end, ok = jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:]); !ok {
		return 0, false
	}
	if strings.TrimSpace(m.Reasoning) == "" {
		m.Reasoning = reasoningContent
	}
	return end, true
}

// hermesTextAt returns the reading of a text member (content, reasoning)
// at data[pos] that sets *text to what hermesText gives for it: a string
// decoded where it lies, any other value (parts, null, a number) by
// hermesText of the value's bytes.
func hermesTextAt(text *string) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		if s, end, ok := jsonx.DecodeStringAt(data, pos); ok {
			*text = hermesStringValueText(s)
			return end, true
		}
		_, end, ok := jsonx.SkipValue(data, pos, depth)
		if !ok {
			return 0, false
		}
		*text = hermesText(data[pos:end])
		return end, true
	}
}

// decode is decodeAt of a message that is all of data (a gateway line),
// white space around it allowed: when it reads it, data is valid JSON.
func (m *hermesMsg) decode(data []byte) bool {
	end, ok := m.decodeAt(data, 0, 0)
	return ok && jsonx.AtEnd(data, end)
}

// hermesStringValueText is hermesText of a string member, given decoded.
func hermesStringValueText(s string) string {
	if !strings.HasPrefix(s, hermesDBJSONPrefix) {
		return s // what hermesValueText gives, without the value
	}
	return hermesValueText(jsonx.Value{Kind: jsonx.String, Str: s})
}

// hermesDecodeMessage decodes one message: in one pass (hermesMsg.decode)
// when it can, else as hermesUnmarshalMessage does. m may keep views of
// data.
func hermesDecodeMessage(data []byte, m *hermesMsg) error {
	if m.decode(data) {
		return nil
	}
	return hermesUnmarshalMessage(data, m)
}

// hermesUnmarshalMessage is the generic decoding of a message the one-pass
// reading declines (a repeated, escaped or case-folded key, a member of
// another type): Unmarshal into a hermesMessage, whose error it returns.
func hermesUnmarshalMessage(data []byte, m *hermesMsg) error {
	var raw hermesMessage
	if err := jsonx.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = raw.msg()
	return nil
}

// hermesToolCall is one entry of an assistant's tool_calls (§2.2).
type hermesToolCall struct {
	ID       string           `json:"id"`
	CallID   string           `json:"call_id"`
	Name     string           `json:"name"`
	Args     jsonx.RawMessage `json:"arguments"`
	Function *struct {
		Name string           `json:"name"`
		Args jsonx.RawMessage `json:"arguments"`
	} `json:"function"`
}

// hermesCall is a tool_calls entry as hermesConv reads it: its id (id, or
// call_id when id is empty), its tool, and its arguments, either text
// (IsText) or the raw member for Call.SetArgsField.
type hermesCall struct {
	ID, Tool string
	Raw      jsonx.RawMessage
	Text     string
	IsText   bool
}

// Compaction summary prefixes (§2.4): the current one, the legacy one, and
// the bare form seen in real trajectory files ("[CONTEXT COMPACTION] Earlier
// turns in this conversation were compacted ...").
var hermesCompactionPrefixes = []string{"[CONTEXT COMPACTION", "[CONTEXT SUMMARY]"}

func isHermesCompaction(text string) bool {
	text = strings.TrimLeft(text, " \t\r\n")
	for _, p := range hermesCompactionPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// hermesCallRef locates a call inside a session being built (indexes, not
// pointers: the slices grow).
type hermesCallRef struct{ turn, req, call int }

// hermesConv builds one session from hermes messages in order. It pairs
// tool results with calls by tool_call_id, keeps calls whose result never
// comes, and reports results with no call.
type hermesConv struct {
	s   *Session
	out *Sink
	// where names the session in problem messages ("session X: ").
	where string
	// pending maps a call id to the calls still waiting for a result, oldest
	// first: provider ids are not guaranteed unique, so a repeated id is
	// answered in order.
	pending map[string][]hermesCallRef
	// order lists every call in issue order, for the end-of-session check
	// and for results that carry no tool_call_id.
	order []hermesCallRef
	// compactAfter is set by a compaction summary until the next turn opens;
	// compactLine is the summary's line, for the mid-turn note.
	compactAfter bool
	compactLine  int
	compactNoted bool
	// early remembers the line of the first result for an id no call had
	// issued yet (results join only earlier calls), for the "has no
	// result" problem of a call that comes later with that id.
	early map[string]int
	// bridged counts Tool Search bridge calls read as the tool they run.
	bridged int
	// doc is set when the messages come from a multi-line JSON document:
	// lines are the lines of the elements while the session is built (the
	// problems name them) and 0 once it is finished (zeroLines).
	doc bool
}

func newHermesConv(s *Session, out *Sink) *hermesConv {
	return &hermesConv{s: s, out: out, where: "session " + s.ID + ": ", pending: map[string][]hermesCallRef{}, early: map[string]int{}}
}

func (b *hermesConv) call(r hermesCallRef) *Call {
	return &b.s.Turns[r.turn].Requests[r.req].Calls[r.call]
}

// userTurn opens a turn at a genuine user message.
func (b *hermesConv) userTurn(line int, t time.Time, chars int) {
	b.s.Turns = append(b.s.Turns, Turn{Line: line, Time: t, UserChars: chars, CompactedBefore: b.compactAfter})
	b.compactAfter = false
}

// compaction records a context-compaction summary (§2.4, §2.8). It is not a
// turn: the next turn to open is marked CompactedBefore. When calls follow
// the summary inside the current turn they stay in that turn (hermes does not
// start a new turn there either) and a note says so.
func (b *hermesConv) compaction(line int) {
	b.compactAfter, b.compactLine, b.compactNoted = true, line, false
}

// request opens a model response in the current turn (a turn of its own
// when no user message came first).
func (b *hermesConv) request(line int, t time.Time, textChars int) {
	if len(b.s.Turns) == 0 {
		b.s.Turns = append(b.s.Turns, Turn{CompactedBefore: b.compactAfter})
		b.compactAfter = false
	}
	if b.compactAfter && !b.compactNoted {
		b.compactNoted = true
		b.s.Notes = append(b.s.Notes, fmt.Sprintf("context compaction summary (line %d) inside turn %d: the requests after it stay in that turn; the next turn is marked compacted", b.compactLine, len(b.s.Turns)))
	}
	tr := &b.s.Turns[len(b.s.Turns)-1]
	tr.Requests = append(tr.Requests, Request{Line: line, Time: t, TextChars: textChars})
}

// addCall appends a call to the last request and registers it as waiting.
func (b *hermesConv) addCall(c Call) {
	ti := len(b.s.Turns) - 1
	ri := len(b.s.Turns[ti].Requests) - 1
	rq := &b.s.Turns[ti].Requests[ri]
	rq.Calls = append(rq.Calls, c)
	ref := hermesCallRef{ti, ri, len(rq.Calls) - 1}
	b.order = append(b.order, ref)
	if q := b.pending[c.ID]; len(q) > 0 && c.ID != "" {
		// Issue 2: both calls are kept; results are joined to them oldest
		// first. An id reused after its call was answered is no problem
		// (qwen_tc_0-style ids restart in every response).
		b.out.Problemf(c.Line, "%scall id %q is used again while an earlier call with that id (line %d) has no result yet; both calls are kept and results are joined to them in order", b.where, c.ID, b.call(q[0]).Line)
	}
	b.pending[c.ID] = append(b.pending[c.ID], ref)
}

// result pairs a tool result with its call.
func (b *hermesConv) result(id, tool, text string, line int, t time.Time) {
	ref, ok := b.take(id)
	if !ok {
		name := ""
		if tool != "" {
			name = " (" + tool + ")"
		}
		// Issue 2: the result is reported, not made into a call of an
		// unknown tool, which would change the call counts.
		if id == "" {
			b.out.Problemf(line, "%stool result%s has no tool_call_id and no call is waiting for one; result ignored", b.where, name)
		} else {
			if _, ok := b.early[id]; !ok {
				b.early[id] = line
			}
			b.out.Problemf(line, "%stool result for unknown tool_call_id %q%s: no call before it issued it; result ignored", b.where, id, name)
		}
		return
	}
	c := b.call(ref)
	if c.Tool == "" {
		c.Tool = tool
	}
	c.Result, c.HasResult, c.ResultLine = text, true, line
	c.IsError = hermesResultIsError(text)
	if c.Time.IsZero() {
		c.Time = t
	}
}

// take removes and returns the waiting call for id; a result without an id
// takes the oldest waiting call.
func (b *hermesConv) take(id string) (hermesCallRef, bool) {
	if id == "" {
		// Issue 8 (found by FuzzRead): this used to recurse with the
		// oldest waiting call's id, which is "" again when that call has
		// no id either: endless recursion, a stack overflow that recover
		// cannot catch (the whole run died). Dequeue under its id here.
		found := false
		for _, r := range b.order {
			c := b.call(r)
			if !c.HasResult && len(b.pending[c.ID]) > 0 && b.pending[c.ID][0] == r {
				id, found = c.ID, true
				break
			}
		}
		if !found {
			return hermesCallRef{}, false
		}
	}
	q := b.pending[id]
	if len(q) == 0 {
		return hermesCallRef{}, false
	}
	if len(q) == 1 {
		delete(b.pending, id)
	} else {
		b.pending[id] = q[1:]
	}
	return q[0], true
}

// finish reports the calls that never got a result (they stay in the
// session with HasResult false) and gives unnamed tools a name.
func (b *hermesConv) finish() {
	b.noteBridged()
	for _, r := range b.order {
		c := b.call(r)
		if c.Tool == "" {
			c.Tool = "unknown"
		}
		if !c.HasResult {
			if early, ok := b.early[c.ID]; ok && c.ID != "" {
				b.out.Problemf(c.Line, "%scall %q (%s) has no result (a result with its id came before the call, at line %d, and was not joined to it)", b.where, c.ID, c.Tool, early)
			} else {
				b.out.Problemf(c.Line, "%scall %q (%s) has no result", b.where, c.ID, c.Tool)
			}
		}
	}
	if b.doc {
		zeroLines(b.s)
	}
}

// noteBridged adds the session note counting unwrapped bridge calls.
func (b *hermesConv) noteBridged() {
	if b.bridged > 0 {
		b.s.Notes = append(b.s.Notes, fmt.Sprintf("%d Tool Search bridge call(s) (`tool_call`) read as the tool they run", b.bridged))
	}
}

// message feeds one §2 message. line is the record's line (the session's
// line for export files, 0 in whole-document files).
func (b *hermesConv) message(m *hermesMsg, line int) {
	t := hermesTime(m.Timestamp)
	switch m.Role {
	case "user":
		text := m.Text
		if isHermesCompaction(text) || hermesTrue(m.CompressedSummary) {
			b.compaction(line)
			return
		}
		b.userTurn(line, t, len(text))
	case "assistant":
		text := m.Text
		calls, err := m.calls, error(nil)
		if !m.callsRead {
			calls, err = hermesToolCalls(m.ToolCalls)
		}
		if err != nil {
			b.out.Problemf(line, "%sassistant tool_calls of an unexpected shape (%v); its calls are skipped", b.where, err)
		}
		if len(calls) == 0 && (isHermesCompaction(text) || hermesTrue(m.CompressedSummary)) {
			b.compaction(line)
			return
		}
		b.request(line, t, len(text)+len(strings.TrimSpace(m.Reasoning)))
		for i, tc := range calls {
			c := Call{ID: tc.ID, Tool: tc.Tool, Time: t, Line: line}
			if c.ID == "" {
				b.out.Problemf(line, "%stool call %d (%s) has no id; it can only be paired with a result that has none", b.where, i+1, c.Tool)
			}
			if tc.IsText {
				c.SetArgs(tc.Text)
			} else {
				c.SetArgsField(tc.Raw)
			}
			b.unwrapToolCall(&c)
			b.addCall(c)
		}
	case "tool":
		tool := m.ToolName
		if tool == "" {
			tool = m.Name
		}
		b.result(m.ToolCallID, tool, m.Text, line, t)
	case "session_meta", "system":
		// Not part of the conversation the model answered (§2.4).
	case "":
		b.out.Problemf(line, "%smessage without a role; skipped", b.where)
	default:
		b.out.Problemf(line, "%smessage with unknown role %q; skipped", b.where, m.Role)
	}
}

// hermesToolSearchBridge is the Tool Search bridge tool that runs another
// tool (reference/formats-hermes.md §5: "tool_call{name, arguments} (unwrap
// tool_call to the real tool)"). Its siblings tool_search and tool_describe
// are tools of their own and are kept as written.
const hermesToolSearchBridge = "tool_call"

// hermesUnwrapToolCall reads a call of the Tool Search bridge as a call of
// the tool it runs: tool_call {"name": T, "arguments": A} becomes T with A
// (an object, or argument text in a string; none when absent), so that
// guards count and key the real tool. A bridge call of another shape (no
// string name) is kept as written. It reports whether c was unwrapped.
func hermesUnwrapToolCall(c *Call) bool {
	if c.Tool != hermesToolSearchBridge || !c.ArgsOK || c.Args.Kind != jsonx.Object {
		return false
	}
	name, ok := c.Args.GetString("name")
	if !ok || strings.TrimSpace(name) == "" {
		return false
	}
	inner, has := c.Args.Get("arguments")
	c.Tool = name
	switch {
	case !has || inner.Kind == jsonx.Null:
		c.SetArgs("")
	case inner.Kind == jsonx.String:
		c.SetArgs(inner.Str)
	default:
		c.SetArgsValue(inner)
	}
	return true
}

// unwrapToolCall unwraps a Tool Search bridge call and counts it for the
// session's note.
func (b *hermesConv) unwrapToolCall(c *Call) bool {
	if !hermesUnwrapToolCall(c) {
		return false
	}
	b.bridged++
	return true
}

// hermesToolCalls decodes tool_calls: a list (export, gateway, snapshot) or
// the JSON text of a list (state.db's column form).
func hermesToolCalls(raw jsonx.RawMessage) ([]hermesCall, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := jsonx.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		raw = []byte(s)
	}
	if calls, end, ok := hermesReadToolCalls(raw, 0, 0); ok && jsonx.AtEnd(raw, end) {
		return calls, nil
	}
	// The generic decoding of a list the one-pass reading declines
	// (arguments that are not a string, a repeated or case-folded key...):
	// the entries keep their arguments raw.
	var raws []hermesToolCall
	if err := jsonx.Unmarshal(raw, &raws); err != nil {
		return nil, fmt.Errorf("%s", hermesDecodeError(err))
	}
	calls := make([]hermesCall, len(raws))
	for i, tc := range raws {
		c := hermesCall{ID: tc.ID, Tool: tc.Name, Raw: tc.Args}
		if c.ID == "" {
			c.ID = tc.CallID
		}
		if tc.Function != nil {
			c.Tool, c.Raw = tc.Function.Name, tc.Function.Args
		}
		calls[i] = c
	}
	return calls, nil
}

// hermesReadToolCalls reads the tool_calls list at data[pos], depth
// levels deep in data, in one pass, each entry decoded where it lies
// (jsonx.DecodeObjectNested): the arguments string read as text (null
// and absent give "", as SetArgsField reads them; a repeated member is
// declined), the function object's with it. end is the index just past
// the list. ok is false for a list it cannot read so (arguments of
// another type, an entry that is not an object, null...), which
// hermesToolCalls then decodes generically.
func hermesReadToolCalls(data []byte, pos, depth int) (calls []hermesCall, end int, ok bool) {
	readCall := func(data []byte, pos, depth int) (int, bool) {
		var c hermesCall
		var callID, args, fnName, fnArgs string
		hasFunction := false
		fields := [...]jsonx.Field{
			{Name: "id", Str: &c.ID},
			{Name: "call_id", Str: &callID},
			{Name: "name", Str: &c.Tool},
			{Name: "arguments", Str: &args},
		}
		nested := [...]jsonx.Nested{{Name: "function", Read: func(data []byte, pos, depth int) (int, bool) {
			if data[pos] == 'n' { // null: no function, as the nil pointer
				_, end, ok := jsonx.SkipValue(data, pos, depth)
				return end, ok
			}
			hasFunction = true
			fn := [...]jsonx.Field{{Name: "name", Str: &fnName}, {Name: "arguments", Str: &fnArgs}}
			return jsonx.DecodeObjectNested(data, pos, depth, fn[:], nil)
		}}}
		end, ok := jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
		if !ok {
			return 0, false
		}
		if c.ID == "" {
			c.ID = callID
		}
		c.Text, c.IsText = args, true
		if hasFunction {
			c.Tool, c.Text = fnName, fnArgs
		}
		calls = append(calls, c)
		return end, true
	}
	end, ok = jsonx.DecodeArrayEach(data, pos, depth, readCall)
	return calls, end, ok
}

// hermesDBJSONPrefix marks list or dict content stored as text in state.db.
const hermesDBJSONPrefix = "\x00json:"

// hermesText returns message content as the model saw it: a string as is, a
// list of content parts as their texts joined by newlines, any other value
// as compact JSON.
func hermesText(raw jsonx.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return string(raw)
	}
	return hermesValueText(v)
}

func hermesValueText(v jsonx.Value) string {
	switch v.Kind {
	case jsonx.String:
		if rest, ok := strings.CutPrefix(v.Str, hermesDBJSONPrefix); ok {
			if inner, err := jsonx.ParseString(rest); err == nil {
				return hermesValueText(inner)
			}
			return rest
		}
		return v.Str
	case jsonx.Null:
		return ""
	case jsonx.Array:
		var parts []string
		for _, p := range v.Arr {
			if p.Kind == jsonx.String {
				parts = append(parts, p.Str)
				continue
			}
			if s, ok := p.GetString("text"); ok {
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 && len(v.Arr) > 0 {
			return v.String()
		}
		return strings.Join(parts, "\n")
	}
	return v.String()
}

// hermesResultIsError reports hermes' own error convention: tool dispatch
// and most tools answer a failure with a JSON object whose top-level
// "error" is a non-empty string ({"error": "..."}; terminal writes
// "error": null on success). Nothing else is flagged here: exit codes and
// wording are the engine's heuristics.
func hermesResultIsError(text string) bool {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") || !hermesHasErrorString(t) {
		return false
	}
	// Only the top-level "error" matters: read it without parsing the
	// (possibly large) rest of the result.
	return hermesErrorMemberIsError(jsonx.TopLevelFields(t, "error")[0])
}

// hermesErrorMemberIsError is hermesResultIsError of a JSON object result
// whose top-level "error" member has the raw text raw ("" when absent).
func hermesErrorMemberIsError(raw string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	v, err := jsonx.ParseString(raw)
	return err == nil && strings.TrimSpace(v.Str) != ""
}

// hermesHasErrorString reports whether t has the text of a member
// "error" whose value is a string: the key as it stands, white space, a
// colon, white space and a quote. A result without it cannot have a
// top-level "error" string, and is not walked (most results are objects
// that end with "error": null); the text is searched, which is much
// quicker than reading it as JSON.
func hermesHasErrorString(t string) bool {
	const key = `"error"`
	for {
		i := strings.Index(t, key)
		if i < 0 {
			return false
		}
		rest := strings.TrimLeft(t[i+len(key):], " \t\r\n")
		if rest, ok := strings.CutPrefix(rest, ":"); ok && strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), `"`) {
			return true
		}
		t = t[i+1:]
	}
}

func hermesValueIsError(v jsonx.Value) bool {
	s, ok := v.GetString("error")
	return ok && strings.TrimSpace(s) != ""
}

// hermesTrue reports a JSON true or 1 (SQLite booleans).
func hermesTrue(raw jsonx.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s == "true" || s == "1"
}

// hermesTime reads a timestamp: Unix epoch seconds (state.db, export) or an
// ISO-8601 string. Gateway strings are local time without a zone (§2.6);
// with no zone to go on they are read as UTC.
func hermesTime(raw jsonx.RawMessage) time.Time {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}
	}
	if raw[0] == '"' {
		var s string
		if jsonx.Unmarshal(raw, &s) != nil {
			return time.Time{}
		}
		return hermesISOTime(s)
	}
	var f float64
	if jsonx.Unmarshal(raw, &f) != nil || f <= 0 || f > 1e11 {
		return time.Time{}
	}
	sec, frac := math.Modf(f)
	// Round to microseconds: epoch floats carry no more precision than that.
	return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
}

func hermesISOTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range nbTimeLayouts(s) {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// hermesIDFromName derives a session id from a file name: the name without
// its extensions and without the snapshot's "session_" prefix.
func hermesIDFromName(name string) string {
	base := filepath.Base(name)
	for _, ext := range []string{".gz", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	return strings.TrimPrefix(base, "session_")
}

// hermesExportRecord is one line of `hermes sessions export` (§3.B): the
// sessions row plus its messages.
type hermesExportRecord struct {
	hermesExportColumns
	Messages []jsonx.RawMessage `json:"messages"`
}

// hermesExportColumns is hermesExportRecord without its messages: the
// session columns, decoded while the messages list is read in place
// (hermesReadExportRecord).
type hermesExportColumns struct {
	ID              string           `json:"id"`
	Source          string           `json:"source"`
	Model           string           `json:"model"`
	ModelConfig     jsonx.RawMessage `json:"model_config"`
	ParentSessionID string           `json:"parent_session_id"`
	EndReason       string           `json:"end_reason"`
	InputTokens     float64          `json:"input_tokens"`
	OutputTokens    float64          `json:"output_tokens"`
	CacheRead       float64          `json:"cache_read_tokens"`
	CacheWrite      float64          `json:"cache_write_tokens"`
	ReasoningTokens float64          `json:"reasoning_tokens"`
	APICalls        float64          `json:"api_call_count"`
}

// hermesExportMessage is one element of an export record's messages list
// as hermesReadExportRecord leaves it: decoded, or, when it does not
// decode in one pass (content parts, a member of another type...), raw,
// for hermesDecodeMessage to decode the plain way.
type hermesExportMessage struct {
	m       hermesMsg
	decoded bool
	raw     []byte
}

// hermesReadExportRecord reads the export record data in one pass: the
// columns into cols, and the messages list element by element, each
// message decoded where it lies (hermesMsg.decodeAt). The walk also
// checks that data is one valid JSON object. ok is false for any record
// it cannot read so (no messages list, a repeated or case-folded member,
// columns of other types, invalid JSON...): the record is then decoded
// generically, whose problems word what is wrong. cols may be partly
// written then.
func hermesReadExportRecord(data []byte, cols *hermesExportColumns) (msgs []hermesExportMessage, ok bool) {
	// The numbers are read raw and then by the decoder, one by one, as it
	// reads them into hermesExportColumns.
	var tokens [6]jsonx.RawMessage
	numbers := [len(tokens)]*float64{&cols.InputTokens, &cols.OutputTokens, &cols.CacheRead, &cols.CacheWrite, &cols.ReasoningTokens, &cols.APICalls}
	fields := [...]jsonx.Field{
		{Name: "id", Str: &cols.ID},
		{Name: "source", Str: &cols.Source},
		{Name: "model", Str: &cols.Model},
		{Name: "model_config", Raw: &cols.ModelConfig, View: true},
		{Name: "parent_session_id", Str: &cols.ParentSessionID},
		{Name: "end_reason", Str: &cols.EndReason},
		{Name: "input_tokens", Raw: &tokens[0], View: true},
		{Name: "output_tokens", Raw: &tokens[1], View: true},
		{Name: "cache_read_tokens", Raw: &tokens[2], View: true},
		{Name: "cache_write_tokens", Raw: &tokens[3], View: true},
		{Name: "reasoning_tokens", Raw: &tokens[4], View: true},
		{Name: "api_call_count", Raw: &tokens[5], View: true},
	}
	readMessage := func(data []byte, pos, depth int) (int, bool) {
		msgs = append(msgs, hermesExportMessage{})
		e := &msgs[len(msgs)-1]
		if end, ok := e.m.decodeAt(data, pos, depth); ok {
			e.decoded = true
			return end, true
		}
		start, end, ok := jsonx.SkipValue(data, pos, depth)
		if !ok {
			return 0, false
		}
		e.m, e.raw = hermesMsg{}, data[start:end:end]
		return end, true
	}
	nested := [...]jsonx.Nested{{Name: "messages", Read: func(data []byte, pos, depth int) (int, bool) {
		msgs = []hermesExportMessage{}
		return jsonx.DecodeArrayEach(data, pos, depth, readMessage)
	}}}
	end, ok := jsonx.DecodeObjectNested(data, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(data, end) || msgs == nil {
		return nil, false
	}
	for i, raw := range tokens {
		if raw != nil && jsonx.Unmarshal(raw, numbers[i]) != nil {
			return nil, false
		}
	}
	return msgs, true
}

// parseHermesExportRecord reads one exported session. line is the line of
// every call of the session (0 in a pretty-printed document); sessionLine is
// where the session starts. In a document, pos gives the file line of each
// message for problems (the session keeps line 0, docpos.go).
func parseHermesExportRecord(data []byte, line, sessionLine int, lr *LineReader, pos *docPos, h *Head, out *Sink) {
	at := line // the line of problems of the record as a whole
	if at == 0 {
		at = pos.lineOf(data)
	}
	var rec hermesExportRecord
	// The messages decoded by the one-pass reading, or raw.
	msgs, _ := hermesReadExportRecord(data, &rec.hermesExportColumns)
	if msgs == nil {
		// The generic decoding of a record the one-pass reading declines,
		// whose errors word the problems.
		rec = hermesExportRecord{} // nothing of a declined reading stays
		if !jsonx.Valid(data) {
			out.BadLine(lr, at, hermesJSONError(data))
			return
		}
		if err := jsonx.Unmarshal(data, &rec); err != nil {
			out.Problemf(at, "not a hermes export session record: %s", hermesDecodeError(err))
			return
		}
		if rec.Messages == nil {
			out.Problemf(at, "hermes export record has no messages list; skipped")
			return
		}
		msgs = make([]hermesExportMessage, len(rec.Messages))
		for i, raw := range rec.Messages {
			msgs[i].raw = raw
		}
	}
	s := &Session{Format: "hermes-export", ID: rec.ID, Model: rec.Model, Line: sessionLine, Platform: rec.Source}
	if s.ID == "" {
		s.ID = fmt.Sprintf("%s:%d", hermesIDFromName(h.Name), line)
	}
	hermesSessionNotes(s, &rec.hermesExportColumns)
	b := newHermesConv(s, out)
	b.doc = pos != nil && line == 0
	var lines []int
	if pos != nil {
		lines = pos.elemLines(member(data, "messages"))
	}
	inactive := 0
	for i := range msgs {
		line := lineAtIndex(lines, i, at)
		m := &msgs[i].m
		if !msgs[i].decoded {
			if err := hermesDecodeMessage(msgs[i].raw, m); err != nil {
				out.Problemf(line, "%smessage %d has an unexpected shape (%s); skipped", b.where, i+1, hermesDecodeError(err))
				continue
			}
		}
		// Rewound rows (active=0) were taken back out of the conversation;
		// compacted rows (newer schemas) still happened and are kept.
		if s := string(bytes.TrimSpace(m.Active)); s == "0" || s == "false" {
			if !hermesTrue(m.Compacted) {
				inactive++
				continue
			}
		}
		b.message(m, line)
	}
	if inactive > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d inactive (rewound) messages skipped", inactive))
	}
	b.finish()
	out.Session(s)
}

// hermesSessionNotes reads the sessions columns of an export record or a
// state.db row into s: a subagent's scope and parent, a child session's
// lineage, source, end reason and token totals, as notes.
func hermesSessionNotes(s *Session, rec *hermesExportColumns) {
	cfg := hermesModelConfig(rec.ModelConfig)
	delegateFrom, _ := cfg.GetString("_delegate_from")
	if rec.Source == "subagent" || delegateFrom != "" {
		s.Agent = s.ID
		s.Parent = rec.ParentSessionID
		if s.Parent == "" {
			s.Parent = delegateFrom
		}
	} else if rec.ParentSessionID != "" {
		how := "child"
		if from, ok := cfg.GetString("_branched_from"); ok && from != "" {
			how = "branch"
		} else if from, ok := cfg.GetString("_reset_from"); ok && from != "" {
			how = "reset"
		}
		note := fmt.Sprintf("%s of session %s", how, rec.ParentSessionID)
		if how == "child" {
			// The copy is what a compression continuation does (§2.8);
			// the reference does not say what a /branch or reset child
			// copies, so their notes make no claim.
			note += " (a compression continuation repeats the parent's head and tail before its summary)"
		}
		s.Notes = append(s.Notes, note)
	}
	if rec.Source != "" {
		s.Notes = append(s.Notes, "source: "+rec.Source)
	}
	if rec.EndReason != "" {
		s.Notes = append(s.Notes, "end_reason: "+rec.EndReason)
	}
	if rec.InputTokens+rec.OutputTokens+rec.CacheRead+rec.CacheWrite > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("session token totals (no per-request usage): input %.0f, output %.0f, cache_read %.0f, cache_write %.0f, reasoning %.0f, api_calls %.0f",
			rec.InputTokens, rec.OutputTokens, rec.CacheRead, rec.CacheWrite, rec.ReasoningTokens, rec.APICalls))
	}
}

// hermesModelConfig parses sessions.model_config: JSON text or an object.
func hermesModelConfig(raw jsonx.RawMessage) jsonx.Value {
	v, err := jsonx.Parse(bytes.TrimSpace(raw))
	if err != nil {
		return jsonx.Value{}
	}
	if v.Kind == jsonx.String {
		if inner, err := jsonx.ParseString(v.Str); err == nil {
			return inner
		}
	}
	return v
}

// hermesDecodeError words a decoding error for users: which member has
// the wrong JSON type, without the Go type names of the decoder.
func hermesDecodeError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	what, ok := strings.CutPrefix(msg, "cannot unmarshal ")
	if !ok {
		return msg
	}
	kind, into, _ := strings.Cut(what, " into ")
	if _, field, ok := strings.Cut(into, "Go struct field "); ok {
		field, _, _ = strings.Cut(field, " of type")
		if i := strings.LastIndex(field, "."); i >= 0 {
			field = field[i+1:]
		}
		return fmt.Sprintf("`%s` is a JSON %s, not what hermes writes there", field, kind)
	}
	return fmt.Sprintf("a JSON %s where an object was expected", kind)
}

// hermesJSONError explains why a line is not JSON.
func hermesJSONError(data []byte) error {
	_, err := jsonx.Parse(data)
	if err == nil {
		return fmt.Errorf("invalid JSON")
	}
	return err
}

// parseHermesGateway reads a gateway transcript: one message per line, the
// first possibly a session_meta record (absent after a rewrite).
func parseHermesGateway(lr *LineReader, h *Head, out *Sink) {
	s := &Session{Format: "hermes-gateway", ID: hermesIDFromName(h.Name)}
	b := newHermesConv(s, out)
	b.where = ""
	for {
		line, n, ok := lr.Next()
		if !ok {
			break
		}
		if s.Line == 0 {
			s.Line = n
		}
		// A line read in one pass is valid JSON: only the others are
		// checked, then decoded the plain way, whose errors word the
		// problems.
		var m hermesMsg
		if !m.decode(line) {
			if !jsonx.Valid(line) {
				out.BadLine(lr, n, hermesJSONError(line))
				continue
			}
			if err := hermesUnmarshalMessage(line, &m); err != nil {
				out.Problemf(n, "not a hermes gateway message: %s", hermesDecodeError(err))
				continue
			}
		}
		if m.Role == "session_meta" {
			if s.Model == "" {
				s.Model = m.Model
			}
			if m.Platform != "" {
				s.Notes = append(s.Notes, "platform: "+m.Platform)
				s.Platform = m.Platform
			}
			continue
		}
		b.message(&m, n)
	}
	if s.Line == 0 {
		return
	}
	b.finish()
	out.Session(s)
}

// hermesSnapshotShareGPT reads a snapshot in the early ShareGPT form with
// its entries decoded where they lie in the document, and reports whether
// it did; when it did not (the messages form, or anything it would not
// read exactly as the parsing path below), nothing was sent and the caller
// reads the document. The parsing path held the document, a copy of every
// entry and the entries' texts at once, about four times the document
// (a 27 MB snapshot: 107 MB live); this holds the document and the texts.
func hermesSnapshotShareGPT(doc []byte, pos *docPos, h *Head, out *Sink) bool {
	var id, model, platform string
	var messages jsonx.RawMessage
	var entries []hermesEntry
	fields := [...]jsonx.Field{{Name: "session_id", Str: &id}, {Name: "model", Str: &model}, {Name: "platform", Str: &platform},
		{Name: "messages", Raw: &messages, View: true}}
	nested := [...]jsonx.Nested{{Name: "conversations", Read: func(data []byte, p, depth int) (int, bool) {
		entries = []hermesEntry{}
		return hermesDecodeEntries(data, p, depth, &entries)
	}}}
	end, ok := jsonx.DecodeObjectNested(doc, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(doc, end) || entries == nil || (messages != nil && string(messages) != "null") {
		return false
	}
	s := newHermesSnapshotSession(id, model, platform, h)
	s.Notes = append(s.Notes, hermesShareGPTNote)
	// Each entry's line from where the walk found it (doc is pos's
	// document), as elemLines would give it without another pass over the
	// list: that pass was a sixth of reading a snapshot.
	lines := make([]int, len(entries))
	for i := range entries {
		lines[i] = pos.lineAt(entries[i].at)
	}
	parseHermesShareGPT(s, entries, lines, 0, out)
	out.Session(s)
	return true
}

// newHermesSnapshotSession starts a snapshot's session: its id (else one
// from the file name), model, and platform as a note.
func newHermesSnapshotSession(id, model, platform string, h *Head) *Session {
	s := &Session{Format: "hermes-snapshot", ID: id, Model: model}
	if s.ID == "" {
		s.ID = hermesIDFromName(h.Name)
	}
	if platform != "" {
		s.Notes = append(s.Notes, "platform: "+platform)
		s.Platform = platform
	}
	return s
}

// hermesShareGPTNote is the note of a snapshot in the ShareGPT form.
const hermesShareGPTNote = "early snapshot in ShareGPT form (conversations)"

// hermesSnapshot is the per-session JSON snapshot (§3.C).
type hermesSnapshot struct {
	SessionID     string             `json:"session_id"`
	Model         string             `json:"model"`
	Platform      string             `json:"platform"`
	Messages      []jsonx.RawMessage `json:"messages"`
	Conversations []jsonx.RawMessage `json:"conversations"`
}

// parseHermesSnapshot reads a snapshot document. Its sessions keep line 0
// (a pretty-printed document, docpos.go); problems name the line of the
// message or entry at fault.
func parseHermesSnapshot(doc []byte, h *Head, out *Sink) {
	pos := newDocPos(doc, h.Line)
	if hermesSnapshotShareGPT(doc, pos, h, out) {
		return
	}
	var snap hermesSnapshot
	if err := jsonx.Unmarshal(doc, &snap); err != nil {
		out.Problemf(pos.lineOf(doc), "not a hermes session snapshot: %s", hermesDecodeError(err))
		return
	}
	s := newHermesSnapshotSession(snap.SessionID, snap.Model, snap.Platform, h)
	if snap.Messages == nil && snap.Conversations != nil {
		s.Notes = append(s.Notes, hermesShareGPTNote)
		all := pos.elemLines(member(doc, "conversations"))
		entries := make([]hermesEntry, 0, len(snap.Conversations))
		var lines []int
		for i, raw := range snap.Conversations {
			v, err := jsonx.Parse(raw)
			if err != nil {
				out.Problemf(lineAtIndex(all, i, pos.first), "conversations[%d] is not valid JSON (%v); skipped", i, err)
				continue
			}
			entries = append(entries, hermesEntryOf(v))
			lines = append(lines, lineAtIndex(all, i, pos.first))
		}
		parseHermesShareGPT(s, entries, lines, 0, out)
		out.Session(s)
		return
	}
	b := newHermesConv(s, out)
	b.where = ""
	b.doc = true
	lines := pos.elemLines(member(doc, "messages"))
	for i, raw := range snap.Messages {
		line := lineAtIndex(lines, i, pos.first)
		var m hermesMsg
		if err := hermesDecodeMessage(raw, &m); err != nil {
			out.Problemf(line, "message %d has an unexpected shape (%s); skipped", i+1, hermesDecodeError(err))
			continue
		}
		b.message(&m, line)
	}
	b.finish()
	out.Session(s)
}
