package ingest

// hermes.go reads the transcripts that hermes-agent (NousResearch) leaves on
// disk: the `hermes sessions export` dump, the gateway JSONL transcripts, the
// per-session JSON snapshots, and the ShareGPT trajectory and batch-runner
// files (hermes_trajectory.go). docs/formats/hermes.md says
// how each is read and from which upstream source.
//
// The export, gateway and snapshot formats share one message model (OpenAI
// chat messages plus hermes extras, §2); hermesConv turns such a message list
// into turns, requests and calls, whatever file it came from.

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
		Text:      true,
		Family:    "hermes",
		Reads:     "hermes-agent `hermes sessions export` JSONL: one session per line (sessions row plus its messages).",
		Detection: "A record with `id`, `source` and `messages` plus a hermes sessions column (`started_at`, `parent_session_id`, `model_config` or `end_reason`).",
		Priority:  20,
		Sniff:     sniffHermesExport,
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			eachSelfContainedLine(lr, h, out, func(line []byte, n int, lines *LineReader, out *Sink) {
				parseHermesExportRecord(line, n, n, lines, nil, h, out)
			})
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseHermesExportRecord(doc, docLine(doc, h), h.Line, nil, newDocPos(doc, h.Line), h, out)
		},
	})
	register(&Format{
		ID:        "hermes-snapshot",
		Text:      true,
		Family:    "hermes",
		Reads:     "hermes-agent per-session JSON snapshot `session_<id>.json` (raw `messages`, or the early ShareGPT `conversations` form).",
		Detection: "One JSON object with `messages` or `conversations` and the snapshot's `session_start` or `last_updated`.",
		Priority:  21,
		Sniff:     sniffHermesSnapshot,
		ParseDoc:  parseHermesSnapshot,
	})
	register(&Format{
		ID:         "hermes-gateway",
		Text:       true,
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
	// mirrors counts the delivery mirrors left out (message).
	mirrors int
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
		// Both calls are kept; results are joined to them oldest
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
		// The result is reported, not made into a call of an
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
		// Found by FuzzRead: this used to recurse with the
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

// noteBridged adds the session notes counting unwrapped bridge calls and
// the delivery mirrors left out.
func (b *hermesConv) noteBridged() {
	if b.bridged > 0 {
		b.s.Notes = append(b.s.Notes, fmt.Sprintf("%d Tool Search bridge call(s) (`tool_call`) read as the tool they run", b.bridged))
	}
	if b.mirrors > 0 {
		b.s.Notes = append(b.s.Notes, fmt.Sprintf("%d delivery mirror(s) (`mirror: true`, or an assistant message with no call before the first user message: a message delivered to this chat from another session or a cron job) left out: not requests or turns of this session", b.mirrors))
	}
}

// message feeds one §2 message. line is the record's line (the session's
// line for export files, 0 in whole-document files).
func (b *hermesConv) message(m *hermesMsg, line int) {
	if hermesTrue(m.Mirror) {
		// A delivery mirror: when send_message or a cron job delivers a
		// message to a chat, hermes appends a copy to that chat's
		// session ({"role": "assistant", "content": …, "mirror": true,
		// "mirror_source": "discord"}; NousResearch/hermes-agent
		// gateway/mirror.py, mirror_to_session). The model of this
		// session did not write it and no user typed it: it is neither a
		// request nor a turn. Read as one, a mirror that starts the file
		// (a delivery that created the session) opened a turn of its own
		// before the user's first message.
		b.mirrors++
		return
	}
	t := hermesTime(m.Timestamp)
	switch m.Role {
	case "user":
		text := m.Text
		if isHermesCompaction(text) || hermesTrue(m.CompressedSummary) {
			b.compaction(line)
			return
		}
		b.userTurn(line, t, len(text))
		b.s.Turns[len(b.s.Turns)-1].UserText = text
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
		if len(calls) == 0 && err == nil && len(b.s.Turns) == 0 && !b.compactAfter {
			// A reply with no call before anything was asked is a
			// delivery mirror whose mark the format dropped: snapshots,
			// the export and state.db keep only role and content of the
			// mirror the gateway transcript marks (see above). Left out
			// for the same reason.
			b.mirrors++
			return
		}
		b.request(line, t, len(text)+len(strings.TrimSpace(m.Reasoning)))
		if b.out.KeepText {
			tr := &b.s.Turns[len(b.s.Turns)-1]
			tr.Requests[len(tr.Requests)-1].addText(text)
		}
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
// tool: tool_call{name, arguments} names the real tool (docs/formats/hermes.md,
// "Tool Search bridge"). Its siblings tool_search and tool_describe
// are tools of their own and are kept as written.
const hermesToolSearchBridge = "tool_call"

// hermesUnwrapToolCall reads a call of the Tool Search bridge as a call of
// the tool it runs: tool_call {"name": T, "arguments": A} becomes T with A
// (an object, or argument text in a string; none when absent), so that
// guards count and key the real tool. A bridge call of another shape (no
// string name) is kept as written. It reports whether c was unwrapped.
func hermesUnwrapToolCall(c *Call) bool {
	if c.Tool != hermesToolSearchBridge || c.Args == nil || c.Args.Kind != jsonx.Object {
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

// hermesResultIsError reports hermes' own error convention: tool dispatch
// and most tools answer a failure with a JSON object whose top-level
// "error" is a non-empty string ({"error": "..."}; terminal writes
// "error": null on success). One more shape of hermes' own is flagged:
// a file search that timed out (hermesSearchTimedOut). Nothing else is
// flagged here: exit codes and wording are the engine's heuristics.
func hermesResultIsError(text string) bool {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return false
	}
	if hermesSearchTimedOut(t) {
		return true
	}
	if !hermesHasErrorString(t) {
		return false
	}
	// Only the top-level "error" matters: read it without parsing the
	// (possibly large) rest of the result.
	return hermesErrorMemberIsError(jsonx.TopLevelFields(t, "error")[0])
}

// hermesSearchTimeoutMarker is the line hermes' shell layer appends to a
// command's output when it kills the command at its timeout (exit code
// 124): "[Command timed out after 60s]".
const hermesSearchTimeoutMarker = "[Command timed out after "

// hermesSearchTimeoutFile matches a "files" list (the top-level member's
// raw JSON) whose last entry is that marker.
var hermesSearchTimeoutFile = lazyre.New(`"\[Command timed out after \d+s\]"\s*\]$`)

// hermesSearchTimedOut reports a search_files result (target "files") of
// a search the timeout killed, in the builds that read the shell's output
// line by line as file names: the marker line became the list's last
// "file", with no error ({"total_count": 1, "files": ["[Command timed out
// after 60s]"]}). The search did not finish: what it listed is not the
// answer a retry gets, so the result is a failure, as hermes' own later
// builds say (NousResearch/hermes-agent tools/file_operations.py,
// _search_stdout_and_limit: exit code 124 strips the marker and sets
// limit_reason "search_timeout"). t is a trimmed JSON object text.
func hermesSearchTimedOut(t string) bool {
	if !strings.Contains(t, hermesSearchTimeoutMarker) {
		return false
	}
	files := jsonx.TopLevelFields(t, "files")[0]
	return strings.HasPrefix(files, "[") && hermesSearchTimeoutFile.Get().MatchString(files)
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

// hermesDecodeError words a decoding error for users (decodeText): which
// member has the wrong JSON type, without the Go type names of the decoder.
func hermesDecodeError(err error) string { return decodeText(err) }

// hermesJSONError explains why a line is not JSON.
func hermesJSONError(data []byte) error {
	_, err := jsonx.Parse(data)
	if err == nil {
		return fmt.Errorf("invalid JSON")
	}
	return err
}
