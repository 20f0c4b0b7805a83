package ingest

// nanobot.go reads the session files of nanobot (HKUDS/nanobot): one JSONL
// file per session, a "_type": "metadata" record first, then chat messages in
// OpenAI shape. One format id, "nanobot", covers every version (F1–F6 of
// docs/formats/nanobot.md); the version is detected from features and recorded as a
// session note. Decisions that need no I/O (turn boundaries, session ids,
// version labels) are in nanobot_rules.go. The format, read from
// HKUDS/nanobot at 3852956a7 (https://github.com/HKUDS/nanobot): docs/formats/nanobot.md.

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
)

func init() {
	register(&Format{
		ID:        "nanobot",
		Text:      true,
		Family:    "nanobot",
		Reads:     "nanobot session files (sessions/*.jsonl, every version from v0.1.3 to current main), one session per file.",
		Detection: `The first record is nanobot's metadata record: "_type": "metadata" with created_at, updated_at and a metadata object; the version is then told from features, not from a field.`,
		Priority:  10,
		Sniff:     nbSniff,
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			nbParse(lr, h, out)
		},
	})
}

// nbSniff claims a file whose first record is nanobot's metadata record.
// The other keys are required too, so that another tool's "_type" record
// (or an OpenAI or hermes file) is not claimed.
func nbSniff(h *Head) bool {
	if h.Array || h.String("_type") != "metadata" || !h.Has("created_at", "updated_at", "metadata") {
		return false
	}
	raw := bytes.TrimSpace(h.Keys["metadata"])
	return len(raw) > 0 && raw[0] == '{'
}

// nbMetadata is the part of the metadata object the ingester reads.
type nbMetadata struct {
	PendingUserTurn   jsonx.RawMessage `json:"pending_user_turn"`
	RuntimeCheckpoint jsonx.RawMessage `json:"runtime_checkpoint"`
	LastUsage         jsonx.RawMessage `json:"_last_usage"`
	LastSummary       jsonx.RawMessage `json:"_last_summary"`
}

// nbCheckpoint is metadata.runtime_checkpoint: the latest round of a turn
// that was still running when the file was saved.
type nbCheckpoint struct {
	Phase                jsonx.RawMessage   `json:"phase"`
	Iteration            jsonx.RawMessage   `json:"iteration"`
	Model                jsonx.RawMessage   `json:"model"`
	AssistantMessage     *nbRecord          `json:"assistant_message"`
	CompletedToolResults []jsonx.RawMessage `json:"completed_tool_results"`
	PendingToolCalls     jsonx.RawMessage   `json:"pending_tool_calls"`
}

// nbBlock is the open tool-call block: an assistant message with calls and
// the tool records that follow it.
type nbBlock struct {
	turn, req int
	line      int
}

// nbParser holds the state of one file.
type nbParser struct {
	out  *Sink
	h    *Head
	s    *Session
	feat nbFeatures

	sawRecord bool
	cutLast   bool // the last line read was cut short and not JSON
	metaLine  int
	meta      nbMetadata
	cp        *nbCheckpoint  // metadata.runtime_checkpoint, when readable
	lastUsage map[string]any // metadata._last_usage, when readable
	messages  int            // message records seen (index base of last_consolidated)

	prev  nbPrevious
	block *nbBlock

	// turnStarts maps the message index of each turn's opening user record
	// to the turn's position, for last_consolidated.
	turnStarts map[int]int
	lastUser   int // line of the last turn-opening user record

	continued     map[nbUserKind][]int
	commands      int
	skippedAsst   []int
	toolsUsed     []string
	toolsUsedN    map[string]int
	truncated     int
	offloaded     int
	dedupStubs    int
	guardBlocks   map[string][]int
	stateLine     int
	early         map[string]int // id -> line of a result that came before any call with that id
	sentinels     []string
	lastConsolid  int
	hasLastConsol bool
}

func nbParse(lr *LineReader, h *Head, out *Sink) {
	p := &nbParser{
		out:         out,
		h:           h,
		s:           &Session{Format: "nanobot", Agent: "main"},
		turnStarts:  map[int]int{},
		continued:   map[nbUserKind][]int{},
		toolsUsedN:  map[string]int{},
		guardBlocks: map[string][]int{},
	}
	eachRecord(lr.Next, lr, h, decodeNanobotLine, func(lines *LineReader, line []byte, n int, rec *nbLine) {
		if rec.err != nil {
			if !rec.valid {
				out.BadLine(lines, n, rec.err)
				p.cutLast = lines.Truncated()
			} else {
				out.Problemf(n, "record skipped: it is a JSON %s, not an object", nbKind(line))
			}
			return
		}
		p.record(n, &rec.msg)
	})
	p.finish()
}

// nbLine is a line decoded (decodeNanobotLine), before the parser applies
// it: decoding needs nothing of the lines before, so it may run ahead of
// the parser on other cores (eachRecord).
type nbLine struct {
	msg nbMsg
	// err is why the line could not be decoded; valid says it is JSON
	// all the same (not an object).
	err   error
	valid bool
}

// decodeNanobotLine decodes a line into a new message: the parser may
// keep what the message holds.
func decodeNanobotLine(_ *LineReader, line []byte, _ int, rec *nbLine) {
	*rec = nbLine{}
	if rec.err = nbDecodeRecord(line, &rec.msg); rec.err != nil {
		rec.valid = jsonx.Valid(line)
	}
}

func (p *nbParser) record(n int, rec *nbMsg) {
	first := !p.sawRecord
	p.sawRecord = true
	switch typ := rec.Type; typ {
	case "metadata":
		if !first {
			p.out.Problemf(n, "second metadata record skipped (the metadata record belongs on the first line)")
			return
		}
		p.metadata(n, rec)
		return
	case "provider_state":
		// Private, opaque provider state (reference §3.2): part of the
		// session, not a message, so it is skipped without a problem.
		p.feat.ProviderState = true
		p.stateLine = n
		var state struct {
			Model jsonx.RawMessage `json:"model"`
		}
		if jsonx.Unmarshal(rec.State, &state) == nil && p.s.Model == "" {
			p.s.Model = nbStr(state.Model)
		}
		return
	case "":
	default:
		p.out.Problemf(n, "record with unknown _type %q skipped", typ)
		return
	}
	if first {
		p.out.Problemf(n, "file has no metadata record on its first line; reading its messages anyway")
	}
	switch role := rec.Role; role {
	case "user":
		p.user(n, rec)
	case "assistant":
		p.assistant(n, rec)
	case "tool":
		p.tool(n, rec)
	case "":
		p.out.Problemf(n, "record skipped: it has neither _type nor role")
		return
	default:
		p.out.Problemf(n, "record with unexpected role %q skipped", role)
		return
	}
	p.messages++
}

func (p *nbParser) metadata(n int, rec *nbMsg) {
	p.metaLine = n
	p.s.Line = n
	key := nbStr(rec.Key)
	p.feat.HasKey = key != ""
	p.s.ID, _ = nbSessionID(key, p.h.Name)
	if nbPresent(rec.LastConsolidated) {
		p.feat.HasLastConsolidated = true
		var v int
		if jsonx.Unmarshal(rec.LastConsolidated, &v) == nil {
			p.lastConsolid, p.hasLastConsol = v, true
		} else {
			p.out.Problemf(n, "last_consolidated is not an integer; ignored")
		}
	}
	if nbPresent(rec.Metadata) && jsonx.Unmarshal(rec.Metadata, &p.meta) != nil {
		p.out.Problemf(n, "the metadata member is not an object; its runtime_checkpoint and _last_usage are not read")
		p.meta = nbMetadata{}
	}
	if nbPresent(p.meta.LastUsage) {
		p.feat.LastUsage = true
		if jsonx.Unmarshal(p.meta.LastUsage, &p.lastUsage) != nil {
			p.out.Problemf(n, "metadata._last_usage is not an object; ignored")
		}
	}
	if nbPresent(p.meta.RuntimeCheckpoint) {
		var cp nbCheckpoint
		if err := jsonx.Unmarshal(p.meta.RuntimeCheckpoint, &cp); err != nil {
			p.out.Problemf(n, "metadata.runtime_checkpoint has an unexpected shape; the interrupted turn it holds is not recovered")
		} else {
			p.cp = &cp
			if p.s.Model == "" {
				p.s.Model = nbStr(cp.Model)
			}
		}
	}
}

// ensureTurn gives calls before the first user message a turn of their own.
func (p *nbParser) ensureTurn() {
	if len(p.s.Turns) == 0 {
		p.s.Turns = append(p.s.Turns, Turn{})
	}
}

func (p *nbParser) user(n int, rec *nbMsg) {
	text, ok := rec.Text, rec.TextOK
	if !ok {
		p.out.Problemf(n, "user message content has an unexpected shape; measured as empty")
	}
	var marker struct {
		Suffix string `json:"suffix"`
		Blocks []struct {
			Text string `json:"text"`
		} `json:"blocks"`
	}
	if nbPresent(rec.RuntimeContext) {
		p.feat.RuntimeMarker = true
		_ = jsonx.Unmarshal(rec.RuntimeContext, &marker)
		if marker.Suffix == "" && len(marker.Blocks) > 0 {
			// List content: the marker's blocks are the last text blocks.
			var parts []string
			for _, b := range marker.Blocks {
				parts = append(parts, b.Text)
			}
			marker.Suffix = strings.Join(parts, "\n")
		}
	}
	facts := nbUserFacts{
		Text:       text,
		Command:    nbTruthy(rec.Command),
		Injected:   nbTruthy(rec.HiddenHistory) || nbPresent(rec.InjectedEvent),
		Automation: nbPresent(rec.AutomationTurn) || nbPresent(rec.CronJobID),
	}
	kind := nbClassifyUser(facts, p.prev)
	if kind == nbCommand {
		p.feat.Command = true
		p.commands++
		return
	}
	p.closeBlock(n, "a user message")
	stripped, f3 := nbStripRuntimeContext(text, marker.Suffix)
	if f3 {
		p.feat.RuntimeSuffix = true
	}
	if kind != nbTurnStart && len(p.s.Turns) > 0 {
		p.continued[kind] = append(p.continued[kind], n)
		p.prev = nbPrevious{Role: "user", Continued: true}
		return
	}
	p.s.Turns = append(p.s.Turns, Turn{Line: n, Time: p.time(n, rec.Timestamp), UserChars: len(stripped)})
	keepUserText(p.s, stripped)
	p.turnStarts[p.messages] = len(p.s.Turns) - 1
	p.lastUser = n
	p.prev = nbPrevious{Role: "user"}
}

func (p *nbParser) assistant(n int, rec *nbMsg) {
	if nbTruthy(rec.Command) {
		p.feat.Command = true
		p.commands++
		return
	}
	p.closeBlock(n, "an assistant message")
	if nbPresent(rec.LatencyMS) {
		p.feat.Latency = true
	}
	if rec.ToolsUsed != nil {
		p.feat.ToolsUsed = true
		var names []string
		if err := jsonx.Unmarshal(rec.ToolsUsed, &names); err != nil {
			p.out.Problemf(n, "tools_used is not a list of tool names; ignored")
		}
		for _, name := range names {
			if p.toolsUsedN[name] == 0 {
				p.toolsUsed = append(p.toolsUsed, name)
			}
			p.toolsUsedN[name]++
		}
	}
	text, ok := rec.Text, rec.TextOK
	if !ok {
		p.out.Problemf(n, "assistant message content has an unexpected shape; measured as empty")
	}
	calls := rec.Calls
	if !rec.CallsRead {
		calls = p.toolCalls(n, rec.ToolCalls, "tool_calls")
	}
	// Proactive deliveries and subagent follow-ups are written outside any
	// run of this session: they are not model requests of the current turn.
	if len(calls) == 0 && (nbTruthy(rec.ChannelDelivery) || nbPresent(rec.InjectedEvent)) {
		p.skippedAsst = append(p.skippedAsst, n)
		p.prev = nbPrevious{Role: "assistant"}
		return
	}
	p.sentinel(n, text)
	reasoning := rec.Reasoning
	if reasoning == "" {
		reasoning = nbThinking(rec.ThinkingBlocks)
	}
	p.ensureTurn()
	t := p.time(n, rec.Timestamp)
	req := Request{Line: n, Time: t, TextChars: len(text) + len(reasoning)}
	if p.out.KeepText {
		req.addText(text)
	}
	for i, tc := range calls {
		req.Calls = append(req.Calls, p.call(n, i, tc, t))
	}
	p.duplicateIDs(n, req.Calls)
	ti := len(p.s.Turns) - 1
	p.s.Turns[ti].Requests = append(p.s.Turns[ti].Requests, req)
	if len(req.Calls) > 0 {
		p.feat.ToolCalls = true
		p.block = &nbBlock{turn: ti, req: len(p.s.Turns[ti].Requests) - 1, line: n}
	}
	p.prev = nbPrevious{Role: "assistant"}
}

// duplicateIDs reports calls of one message that reuse the id of an
// earlier call of the same message. Results are paired within the
// message's block, so only a reuse there makes the pairing ambiguous: both
// calls are kept, and their results are joined in call order. An id reused
// by a later message is no problem (its results come after it).
func (p *nbParser) duplicateIDs(n int, calls []Call) {
	for i := range calls {
		if calls[i].ID == "" {
			continue
		}
		for j := 0; j < i; j++ {
			if calls[j].ID == calls[i].ID {
				p.out.Problemf(n, "tool call %d reuses the id %q of tool call %d in the same message; both calls are kept and their results are joined in call order", i+1, calls[i].ID, j+1)
				break
			}
		}
	}
}

// toolCalls decodes a tool_calls list; an entry of another shape is
// reported and skipped, the others are kept.
func (p *nbParser) toolCalls(n int, raw jsonx.RawMessage, what string) []nbCall {
	if !nbPresent(raw) {
		return nil
	}
	// Entries of strings (nearly all) are decoded in one walk over the
	// list; a list it declines is decoded generically, entry by entry.
	var calls []nbCall
	if end, ok := jsonx.DecodeArrayEach(raw, 0, 0, nbCallEntry(&calls)); ok && jsonx.AtEnd(raw, end) {
		return calls
	}
	var entries []jsonx.RawMessage
	if jsonx.Unmarshal(raw, &entries) != nil {
		p.out.Problemf(n, "%s is not a list; the calls of this message are lost", what)
		return nil
	}
	calls = make([]nbCall, 0, len(entries))
	for i, e := range entries {
		var tc nbToolCall
		if jsonx.Unmarshal(e, &tc) != nil {
			p.out.Problemf(n, "%s entry %d is not an object with a function object; skipped", what, i+1)
			continue
		}
		calls = append(calls, nbCall{ID: nbStr(tc.ID), Name: nbStr(tc.Function.Name), Raw: tc.Function.Arguments,
			NoArgs: !nbPresent(tc.Function.Arguments)})
	}
	return calls
}

// call builds one call from a tool_calls entry. arguments is a JSON string
// in every version; an object is accepted too (reference §13.3).
func (p *nbParser) call(n, i int, tc nbCall, t time.Time) Call {
	c := Call{ID: tc.ID, Tool: tc.Name, Line: n, Time: t}
	if c.Tool == "" {
		p.out.Problemf(n, "tool call %d (id %q) has no function name", i+1, c.ID)
	}
	if tc.NoArgs {
		p.out.Problemf(n, "tool call %q (%s) has no arguments", c.ID, c.Tool)
	}
	if tc.IsText {
		c.SetArgs(tc.Text)
	} else {
		c.SetArgsField(tc.Raw)
	}
	return c
}

func (p *nbParser) tool(n int, rec *nbMsg) {
	p.feat.ToolCalls = true
	text, ok := rec.Text, rec.TextOK
	if !ok {
		p.out.Problemf(n, "tool result content has an unexpected shape; read as empty")
	}
	p.prev = nbPrevious{Role: "tool", ToolInterrupted: strings.HasPrefix(text, nbInterruptedTool)}
	id, name := rec.ToolCallID, rec.Name
	// A result with no call is reported and skipped; it is not
	// made into a call of an unknown tool, which would change the call
	// counts. A call that comes later with its id does not take it
	// (results follow their calls); p.early lets its problem say so.
	if p.block == nil {
		p.earlyResult(id, n)
		p.out.Problemf(n, "tool result for call %q (%s) has no call: no assistant message with tool calls comes before it; skipped", id, name)
		return
	}
	calls := p.s.Turns[p.block.turn].Requests[p.block.req].Calls
	idx := nbMatch(calls, id)
	if idx < 0 {
		for _, c := range calls {
			if c.ID == id && id != "" {
				p.out.Problemf(n, "extra tool result for call %q (%s) skipped: every call with that id already has its result", id, name)
				return
			}
		}
		p.earlyResult(id, n)
		p.out.Problemf(n, "tool result for call %q (%s) has no call: the assistant message at line %d declares no such id; skipped", id, name, p.block.line)
		return
	}
	p.fill(&calls[idx], text, n, p.time(n, rec.Timestamp))
}

// earlyResult remembers the line of the first result with no call for id.
func (p *nbParser) earlyResult(id string, n int) {
	if id == "" {
		return
	}
	if p.early == nil {
		p.early = map[string]int{}
	}
	if _, ok := p.early[id]; !ok {
		p.early[id] = n
	}
}

// nbMatch finds the call a result answers: the first unanswered call with
// its id (when ids collide this falls back to call order), or, for a result
// without an id, the first unanswered call.
func nbMatch(calls []Call, id string) int {
	for i := range calls {
		if !calls[i].HasResult && (id == "" || calls[i].ID == id) {
			return i
		}
	}
	return -1
}

func (p *nbParser) fill(c *Call, text string, line int, t time.Time) {
	c.Result, c.HasResult, c.ResultLine = text, true, line
	c.IsError = nbIsErrorResult(text)
	if c.Time.IsZero() {
		c.Time = t
	}
	switch {
	case strings.HasPrefix(text, nbOffloadPrefix):
		p.offloaded++
	case strings.HasPrefix(text, nbDedupPrefix):
		p.dedupStubs++
	}
	if strings.HasSuffix(text, nbTruncatedSuffix) {
		p.truncated++
		if utf8.RuneCountInString(text) == 500+utf8.RuneCountInString(nbTruncatedSuffix) {
			p.feat.Cut500 = true
		}
	}
	for _, g := range nbGuardBlocks {
		if strings.HasPrefix(text, g.prefix) {
			p.guardBlocks[g.guard] = append(p.guardBlocks[g.guard], line)
		}
	}
}

// closeBlock ends the open tool-call block: calls still without a result
// are reported (the result was never saved).
func (p *nbParser) closeBlock(n int, next string) {
	if p.block == nil {
		return
	}
	b := p.block
	p.block = nil
	for _, c := range p.s.Turns[b.turn].Requests[b.req].Calls {
		if c.HasResult {
			continue
		}
		if early, ok := p.early[c.ID]; ok && c.ID != "" && early < c.Line {
			p.out.Problemf(c.Line, "call %q (%s) has no result: a result with its id came before the call (line %d) and was not joined to it", c.ID, c.Tool, early)
			continue
		}
		if n > 0 {
			p.out.Problemf(c.Line, "call %q (%s) has no result: the next record (line %d) is %s", c.ID, c.Tool, n, next)
		} else if p.interrupted() {
			p.out.Problemf(c.Line, "call %q (%s) has no result: interrupted turn (the file was saved while the turn was running)", c.ID, c.Tool)
		} else {
			p.out.Problemf(c.Line, "call %q (%s) has no result: the file ends before it%s", c.ID, c.Tool, nbTernary(p.cutLast, " (the last line, cut short, may have held it)", ""))
		}
	}
}

func (p *nbParser) interrupted() bool {
	return nbTruthy(p.meta.PendingUserTurn) || nbPresent(p.meta.RuntimeCheckpoint)
}

// checkpoint recovers the latest round of an interrupted turn from
// metadata.runtime_checkpoint (reference §3.1): nanobot moves it into the
// messages itself on the next load; until then it is the only record of
// those calls. Calls already in the messages are not added twice.
func (p *nbParser) checkpoint() {
	cp := p.cp
	if cp == nil {
		return
	}
	n := p.metaLine
	var calls []nbCall
	var text, reasoning string
	if am := cp.AssistantMessage; am != nil {
		m := am.msg()
		text, reasoning = m.Text, m.Reasoning
		calls = p.toolCalls(n, am.ToolCalls, "runtime_checkpoint.assistant_message.tool_calls")
	} else {
		calls = p.toolCalls(n, cp.PendingToolCalls, "runtime_checkpoint.pending_tool_calls")
	}
	phase := nbOr(nbStr(cp.Phase), "?")
	what := fmt.Sprintf("runtime_checkpoint (phase %s, iteration %s)", phase, nbOr(nbStr(cp.Iteration), "?"))
	if cp.AssistantMessage == nil && len(calls) == 0 {
		p.s.Notes = append(p.s.Notes, "interrupted turn: metadata holds a "+what+" with no assistant message; nothing to recover")
		return
	}
	known := map[string]bool{}
	for _, t := range p.s.Turns {
		for _, r := range t.Requests {
			for _, c := range r.Calls {
				if c.ID != "" {
					known[c.ID] = true
				}
			}
		}
	}
	for _, tc := range calls {
		if id := tc.ID; id != "" && known[id] {
			p.s.Notes = append(p.s.Notes, "metadata holds a "+what+" whose calls are already in the messages; not added again")
			return
		}
	}
	p.ensureTurn()
	req := Request{Line: n, TextChars: len(text) + len(reasoning)}
	for i, tc := range calls {
		req.Calls = append(req.Calls, p.call(n, i, tc, time.Time{}))
	}
	for _, raw := range cp.CompletedToolResults {
		var rec nbRecord
		if jsonx.Unmarshal(raw, &rec) != nil {
			p.out.Problemf(n, "runtime_checkpoint.completed_tool_results holds an entry that is not an object; skipped")
			continue
		}
		res := rec.msg()
		id := res.ToolCallID
		if i := nbMatch(req.Calls, id); i >= 0 {
			p.fill(&req.Calls[i], res.Text, n, p.time(n, res.Timestamp))
		} else {
			p.out.Problemf(n, "runtime_checkpoint holds a result for call %q (%s) that its assistant message does not declare; skipped", id, res.Name)
		}
	}
	pending := 0
	for _, c := range req.Calls {
		if !c.HasResult {
			pending++
			p.out.Problemf(n, "call %q (%s) has no result: interrupted turn (the process stopped while the call was pending; from metadata.runtime_checkpoint, phase %s)", c.ID, c.Tool, phase)
		}
	}
	ti := len(p.s.Turns) - 1
	p.s.Turns[ti].Requests = append(p.s.Turns[ti].Requests, req)
	if len(req.Calls) > 0 {
		p.feat.ToolCalls = true
	}
	p.s.Notes = append(p.s.Notes, fmt.Sprintf("interrupted turn: metadata holds a %s; its assistant message is recovered into turn %d as a request with %d call(s), %d without result; earlier rounds of that turn were not saved", what, ti+1, len(req.Calls), pending))
}

func (p *nbParser) finish() {
	if !p.sawRecord {
		p.out.Problemf(0, "no nanobot record in this file")
		return
	}
	if p.metaLine == 0 {
		p.s.ID, _ = nbSessionID("", p.h.Name)
	}
	p.closeBlock(0, "")
	p.checkpoint()
	if nbTruthy(p.meta.PendingUserTurn) && !nbPresent(p.meta.RuntimeCheckpoint) {
		p.s.Notes = append(p.s.Notes, fmt.Sprintf("interrupted turn: pending_user_turn is set; the last user message (line %d) has no saved answer", p.lastUser))
	}
	p.compaction()

	_, how := nbSessionID(nbTernary(p.feat.HasKey, p.s.ID, ""), p.h.Name)
	p.feat.Base64Name = nbIsBase64Stem(p.h.Name)
	p.feat.WorkspaceDir = nbIsWorkspaceIDDir(filepath.Base(filepath.Dir(p.h.Path)))
	notes := []string{nbVersion(p.feat)}
	switch how {
	case "base64":
		notes = append(notes, "session id decoded from the base64url file name (the metadata records no key)")
	case "safe_key":
		notes = append(notes, "session id taken from the file name: this version records no key, and the name is lossy (':' and other characters were replaced by '_')")
	}
	notes = append(notes, p.versionNotes()...)
	notes = append(notes, p.s.Notes...)
	notes = append(notes, p.recordNotes()...)
	p.s.Notes = notes
	if p.s.Turns == nil {
		p.s.Turns = []Turn{}
	}
	p.out.Session(p.s)
}

// nbIsBase64Stem reports whether a file name is base64url of a session key
// (v0.3.0+ naming).
func nbIsBase64Stem(name string) bool {
	_, ok := nbDecodeBase64Name(nbStem(name))
	return ok
}

// compaction marks the turn after the last memory consolidation: messages
// before last_consolidated were summarised into memory and left the model's
// context from the next turn on. Only the latest consolidation is recorded.
func (p *nbParser) compaction() {
	if !p.hasLastConsol || p.lastConsolid <= 0 {
		return
	}
	best := -1
	for idx := range p.turnStarts {
		if idx >= p.lastConsolid && (best < 0 || idx < best) {
			best = idx
		}
	}
	if best < 0 {
		p.s.Notes = append(p.s.Notes, fmt.Sprintf("last_consolidated = %d: the first %d messages were summarised into memory (they are still in the file); no turn starts after them", p.lastConsolid, p.lastConsolid))
		return
	}
	ti := p.turnStarts[best]
	p.s.Turns[ti].CompactedBefore = true
	p.s.Notes = append(p.s.Notes, fmt.Sprintf("last_consolidated = %d: the first %d messages were summarised into memory (they are still in the file); turn %d is marked compacted_before", p.lastConsolid, p.lastConsolid, ti+1))
}

// versionNotes say what the detected version cannot record.
func (p *nbParser) versionNotes() []string {
	var notes []string
	switch {
	case p.feat.ToolsUsed:
		total := 0
		var parts []string
		for _, name := range p.toolsUsed {
			total += p.toolsUsedN[name]
			parts = append(parts, fmt.Sprintf("%s ×%d", name, p.toolsUsedN[name]))
		}
		if total == 0 {
			notes = append(notes, "tools_used only: no tool use recorded; this version saves tool names without arguments, so no call is replayable")
		} else {
			notes = append(notes, fmt.Sprintf("tools_used only: %d tool uses recorded without arguments (%s); not replayable", total, strings.Join(parts, ", ")))
		}
	case !p.feat.HasKey && !p.feat.HasLastConsolidated && !p.feat.ToolCalls:
		notes = append(notes, "this version saves no tool calls: only user messages and final answers")
	}
	if p.feat.RuntimeSuffix {
		notes = append(notes, "this version saves no final answers (turns end at their last tool result) and appends a [Runtime Context] block to user text, which user_chars leaves out")
	}
	return notes
}

// recordNotes describe records that were read but are not turns or calls.
func (p *nbParser) recordNotes() []string {
	var notes []string
	if p.stateLine > 0 {
		notes = append(notes, fmt.Sprintf("provider_state record (line %d) skipped: private provider state, not a message", p.stateLine))
	}
	if p.lastUsage != nil {
		notes = append(notes, "_last_usage (totals of the last turn only; no per-request usage is recorded): "+nbUsageText(p.lastUsage))
	}
	if nbPresent(p.meta.LastSummary) {
		notes = append(notes, "_last_summary present: idle compaction summarised this session; older messages may have been dropped from the file")
	}
	for _, k := range []nbUserKind{nbInjection, nbInjectedEvent, nbLengthRecovery, nbGoalContinue} {
		if lines := p.continued[k]; len(lines) > 0 {
			what := map[nbUserKind]string{
				nbInjection:      "mid-run injection (a user message right after a tool result continues its turn)",
				nbInjectedEvent:  "injected subagent result (_hidden_history / injected_event continues its turn)",
				nbLengthRecovery: "length-recovery prompt (continues its turn)",
				nbGoalContinue:   "goal-continuation prompt (continues its turn)",
			}[k]
			notes = append(notes, fmt.Sprintf("%s: %s", what, nbLines(lines)))
		}
	}
	if p.commands > 0 {
		notes = append(notes, fmt.Sprintf("%d records of slash commands and their replies (_command) skipped: commands run outside any turn", p.commands))
	}
	if len(p.skippedAsst) > 0 {
		notes = append(notes, fmt.Sprintf("assistant records written outside a run (_channel_delivery / injected_event) are not requests of a turn: %s", nbLines(p.skippedAsst)))
	}
	guards := make([]string, 0, len(p.guardBlocks))
	for g := range p.guardBlocks {
		guards = append(guards, g)
	}
	sort.Strings(guards)
	for _, g := range guards {
		notes = append(notes, fmt.Sprintf("already blocked by nanobot's %s: result at %s", g, nbLines(p.guardBlocks[g])))
	}
	if p.truncated > 0 {
		notes = append(notes, fmt.Sprintf("%d tool result(s) end with %q: nanobot cut them before saving", p.truncated, strings.TrimPrefix(nbTruncatedSuffix, "\n")))
	}
	if p.offloaded > 0 {
		notes = append(notes, fmt.Sprintf("%d tool result(s) offloaded by nanobot ([tool output persisted]): the result is the preview the model saw", p.offloaded))
	}
	if p.dedupStubs > 0 {
		notes = append(notes, fmt.Sprintf("%d read_file result(s) are nanobot's unchanged-file stub ([File unchanged since last read: …])", p.dedupStubs))
	}
	notes = append(notes, p.sentinels...)
	return notes
}

// sentinel notes the texts nanobot writes when a turn ends abnormally.
func (p *nbParser) sentinel(n int, text string) {
	for _, s := range []struct{ prefix, what string }{
		{"I reached the maximum number of tool call iterations", "the turn hit nanobot's max-iterations limit"},
		{"I completed the tool steps but couldn't produce a final answer", "the turn ended without a final answer"},
		{"[Assistant reply unavailable due to model error.]", "the model call failed"},
		{"Sorry, I encountered an error calling the AI model.", "the model call failed"},
		{"Error: Task interrupted before a response was generated.", "the turn was interrupted"},
	} {
		if strings.HasPrefix(text, s.prefix) {
			p.sentinels = append(p.sentinels, fmt.Sprintf("line %d: %s", n, s.what))
		}
	}
}

// time reads a timestamp. nanobot writes naive local time
// (datetime.now().isoformat(), no offset); it is read as if it were UTC,
// since the offset is not recorded.
func (p *nbParser) time(n int, ts nbStamp) time.Time {
	if !ts.Present {
		return time.Time{}
	}
	s := ts.S
	if !ts.OK || s == "" {
		p.out.Problemf(n, "timestamp is not a string; ignored")
		return time.Time{}
	}
	if t, ok := nbNaiveTime(s); ok {
		return t
	}
	for _, layout := range nbTimeLayouts(s) {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	p.out.Problemf(n, "timestamp %q is not an ISO date and time; ignored", s)
	return time.Time{}
}

// nbUsageText renders _last_usage with its keys sorted.
func nbUsageText(u map[string]any) string {
	keys := make([]string, 0, len(u))
	for k := range u {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := u[k]
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, int64(f)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %v", k, v))
		}
	}
	return strings.Join(parts, ", ")
}

func nbOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func nbTernary(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}
