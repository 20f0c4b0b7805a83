package ingest

// hermes_trajectory.go reads hermes-agent's ShareGPT files: the trajectory
// JSONL written with --save_trajectories (trajectory_samples.jsonl,
// failed_trajectories.jsonl), the batch runner's batch_<N>.jsonl and
// trajectories.jsonl, and the early snapshot form that stored the same
// `conversations` list (NousResearch/hermes-agent run_agent.py _save_session_log,
// agent/trajectory.py and batch_runner.py at 5e01a5dbf; docs/formats/hermes.md).
//
// A `gpt` entry carries its calls as <tool_call> blocks without ids; the
// next `tool` entry carries all their results as <tool_response> blocks, in
// the same order. Calls and results are paired by position.

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
)

func init() {
	register(&Format{
		ID:        "hermes-batch",
		Family:    "hermes",
		Reads:     "hermes-agent batch-runner output (data/<run>/batch_<N>.jsonl, trajectories.jsonl): ShareGPT conversations with `prompt_index` and tool statistics.",
		Detection: "A record with a ShareGPT `conversations` list (`from`/`value` entries) and `prompt_index`.",
		Priority:  23,
		Sniff:     func(h *Head) bool { return h.Has("prompt_index") && sniffHermesShareGPT(h) },
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			parseHermesTrajectoryLines(lr, h, out, "hermes-batch")
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseHermesTrajectoryRecord(doc, docLine(doc, h), nil, newDocPos(doc, h.Line), h, out, "hermes-batch")
		},
	})
	register(&Format{
		ID:        "hermes-trajectory",
		Family:    "hermes",
		Reads:     "hermes-agent ShareGPT trajectory JSONL (trajectory_samples.jsonl, failed_trajectories.jsonl, compressor and mini-SWE output): one conversation per line.",
		Detection: "A record with a ShareGPT `conversations` list whose entries have `from` (system/human/gpt/tool) and `value`.",
		Priority:  24,
		Sniff:     sniffHermesShareGPT,
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			parseHermesTrajectoryLines(lr, h, out, "hermes-trajectory")
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseHermesTrajectoryRecord(doc, docLine(doc, h), nil, newDocPos(doc, h.Line), h, out, "hermes-trajectory")
		},
	})
}

// sniffHermesShareGPT accepts a first record whose `conversations` is a list
// of {from, value} entries whose first `from` is a hermes role.
func sniffHermesShareGPT(h *Head) bool {
	raw, ok := h.Keys["conversations"]
	if h.Array || !ok {
		return false
	}
	var entries []map[string]jsonx.RawMessage
	if jsonx.Unmarshal(raw, &entries) != nil {
		return false
	}
	if len(entries) == 0 {
		return h.Has("completed")
	}
	var from string
	if jsonx.Unmarshal(entries[0]["from"], &from) != nil {
		return false
	}
	_, hasValue := entries[0]["value"]
	switch from {
	case "system", "human", "gpt", "tool":
		return hasValue
	}
	return false
}

func parseHermesTrajectoryLines(lr *LineReader, h *Head, out *Sink, format string) {
	eachSelfContainedLine(lr, h, out, func(line []byte, n int, lines *LineReader, out *Sink) {
		parseHermesTrajectoryRecord(line, n, lines, nil, h, out, format)
	})
}

// parseHermesTrajectoryRecord reads one conversation; every call of it is
// on line (0 in a pretty-printed document, where pos gives the entries'
// file lines for problems).
func parseHermesTrajectoryRecord(data []byte, line int, lr *LineReader, pos *docPos, h *Head, out *Sink, format string) {
	at := line // the line of problems of the record as a whole
	if at == 0 {
		at = pos.lineOf(data)
	}
	v, entries, ok := hermesReadTrajectoryRecord(data)
	if !ok {
		var err error
		if v, err = jsonx.Parse(data); err != nil {
			out.BadLine(lr, at, err)
			return
		}
		conv, ok := v.Get("conversations")
		if v.Kind != jsonx.Object || !ok || conv.Kind != jsonx.Array {
			out.Problemf(at, "not a hermes trajectory record (no `conversations` list); skipped")
			return
		}
		entries = make([]hermesEntry, len(conv.Arr))
		for i, e := range conv.Arr {
			entries[i] = hermesEntryOf(e)
		}
	}
	stem := hermesIDFromName(h.Name)
	s := &Session{Format: format, ID: fmt.Sprintf("%s:%d", stem, line), Line: line}
	if line == 0 {
		s.ID = stem
	}
	meta, _ := v.Get("metadata")
	s.Model, _ = v.GetString("model")
	if s.Model == "" {
		s.Model, _ = meta.GetString("model")
	}
	if idx, ok := v.Get("prompt_index"); ok && idx.Kind != jsonx.Null {
		s.ID = fmt.Sprintf("%s:prompt_%s", stem, idx.Text())
	}
	saved, ok := v.GetString("timestamp")
	if !ok {
		saved, ok = meta.GetString("timestamp")
	}
	if ok {
		s.Notes = append(s.Notes, "saved at "+saved)
	}
	if c, ok := v.Get("completed"); ok && c.Kind == jsonx.Bool {
		s.Notes = append(s.Notes, fmt.Sprintf("completed: %t", c.Bool))
	}
	if p, ok := v.Get("partial"); ok && p.Kind == jsonx.Bool && p.Bool {
		s.Notes = append(s.Notes, "partial: true")
	}
	if n, ok := v.Get("api_calls"); ok && n.Kind == jsonx.Number {
		s.Notes = append(s.Notes, "api_calls: "+n.Str)
	}
	if cm, ok := v.Get("compression_metrics"); ok {
		if w, ok := cm.Get("was_compressed"); ok && w.Kind == jsonx.Bool && w.Bool {
			s.Notes = append(s.Notes, "compressed by the trajectory compressor (its summary entry opens a compacted turn)")
		}
	}
	var lines []int
	if pos != nil {
		lines = pos.elemLines(member(data, "conversations"))
	}
	parseHermesShareGPT(s, entries, lines, line, out)
	hermesTrajectoryTime(s, saved)
	out.Session(s)
}

// hermesTrajectoryTime gives a trajectory its one time: its entries carry
// none, and agent/trajectory.py's save_trajectory (NousResearch/
// hermes-agent) stamps the record with datetime.now() when the
// conversation has ended. That time goes to the last request (the last
// turn when it has none); a naive isoformat is read as UTC, as hermes'
// other times are.
func hermesTrajectoryTime(s *Session, saved string) {
	t := parseTime(saved)
	if t.IsZero() || len(s.Turns) == 0 {
		return
	}
	last := &s.Turns[len(s.Turns)-1]
	if n := len(last.Requests); n > 0 {
		if r := &last.Requests[n-1]; r.Time.IsZero() {
			r.Time = t
		}
	} else if last.Time.IsZero() {
		last.Time = t
	}
}

// hermesTrajectoryMembers are the members of a trajectory record besides
// its conversations that parseHermesTrajectoryRecord reads.
var hermesTrajectoryMembers = [...]string{"model", "metadata", "prompt_index", "timestamp", "completed", "partial", "api_calls", "compression_metrics"}

// hermesReadTrajectoryRecord reads a trajectory record in one pass: the
// conversations list entry by entry, each decoded where it lies, and the
// other members of hermesTrajectoryMembers raw, then parsed into v, an
// object of those members alone (they are small). It stands for the
// parse of the whole record, which builds a value of every entry only to
// read two members of each. ok is false for a record it cannot read to
// what the parsed record gives (an entry that is not an object of string
// members, a repeated or case-folded member, invalid JSON, no list...):
// the record is then parsed, which words the problems.
func hermesReadTrajectoryRecord(data []byte) (v jsonx.Value, entries []hermesEntry, ok bool) {
	var raws [len(hermesTrajectoryMembers)]jsonx.RawMessage
	var fields [len(hermesTrajectoryMembers)]jsonx.Field
	for i, name := range hermesTrajectoryMembers {
		fields[i] = jsonx.Field{Name: name, Raw: &raws[i], View: true}
	}
	nested := [...]jsonx.Nested{{Name: "conversations", Read: func(data []byte, pos, depth int) (int, bool) {
		entries = []hermesEntry{}
		return hermesDecodeEntries(data, pos, depth, &entries)
	}}}
	end, ok := jsonx.DecodeObjectNested(data, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(data, end) || entries == nil {
		return jsonx.Value{}, nil, false
	}
	v = jsonx.Value{Kind: jsonx.Object, Obj: make([]jsonx.Member, 0, len(raws))}
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		m, err := jsonx.Parse(raw)
		if err != nil { // not reached: the walk checked it
			return jsonx.Value{}, nil, false
		}
		v.Obj = append(v.Obj, jsonx.Member{Key: hermesTrajectoryMembers[i], Val: m})
	}
	return v, entries, true
}

// hermesDecodeEntries reads a conversations list where it lies, appending
// its entries to entries; ok is false when it does not read the list as
// parsing it would (hermesEntryOf over jsonx.Parse), and the caller parses.
func hermesDecodeEntries(data []byte, pos, depth int, entries *[]hermesEntry) (end int, ok bool) {
	return jsonx.DecodeArrayEach(data, pos, depth, func(data []byte, pos, depth int) (int, bool) {
		// A value that is not a string or null, or a from that is not a
		// string, is left to the parsed record; null and absent give the
		// "" that Value.GetString and hermesValueText give.
		e := hermesEntry{at: pos}
		var value *string
		entry := [...]jsonx.Field{{Name: "from", Str: &e.from}, {Name: "value", Ptr: &value}}
		end, ok := jsonx.DecodeObjectNested(data, pos, depth, entry[:], nil)
		if value != nil {
			e.text = hermesStringValueText(*value)
		}
		e.object = true
		*entries = append(*entries, e)
		return end, ok
	})
}

// hermesEntry is a conversations entry as parseHermesShareGPT reads it.
type hermesEntry struct {
	// object is false for an entry that is not a JSON object.
	object bool
	// from is the `from` member when it is a string, else "".
	from string
	// text is the text of the `value` member (hermesValueText).
	text string
	// at is where the entry starts in the data hermesDecodeEntries walked
	// (white space skipped), for its file line in a document.
	at int
}

// hermesEntryOf reads a parsed conversations entry.
func hermesEntryOf(e jsonx.Value) hermesEntry {
	from, _ := e.GetString("from")
	val, _ := e.Get("value")
	return hermesEntry{object: e.Kind == jsonx.Object, from: from, text: hermesValueText(val)}
}

// hermesTrajCall is one parsed <tool_call> block.
type hermesTrajCall struct {
	Name string
	// Args is the arguments member (an object as hermes writes it; a string
	// is taken as argument text). HasArgs is false when it is absent.
	Args    jsonx.Value
	HasArgs bool
	// Err is set when the block is not a JSON object; Raw is its text.
	Err error
	Raw string
}

// hermesTrajResponse is one parsed <tool_response> block.
type hermesTrajResponse struct {
	ID, Name string
	// Result is the content as the model saw it: a string as is, a parsed
	// object as compact JSON (source key order).
	Result  string
	IsError bool
	// Members are the result's top-level resultmembers.Keys members when
	// the content is an object, written compact here (Call.ResultMembers).
	Members *resultmembers.Members
	// Err is set when the block is not a JSON object (Result is its text).
	Err error
}

// hermesBlocks returns the trimmed bodies of the <tag>...</tag> blocks of s
// in order, and s with the blocks removed. A block still open at the end of
// s runs to the end and sets unclosed.
func hermesBlocks(s, tag string) (bodies []string, rest string, unclosed bool) {
	open, end := "<"+tag+">", "</"+tag+">"
	var kept strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			kept.WriteString(s)
			break
		}
		kept.WriteString(s[:i])
		s = s[i+len(open):]
		j := strings.Index(s, end)
		if j < 0 {
			bodies = append(bodies, strings.TrimSpace(s))
			unclosed = true
			break
		}
		bodies = append(bodies, strings.TrimSpace(s[:j]))
		s = s[j+len(end):]
	}
	return bodies, kept.String(), unclosed
}

// hermesSplitGPT splits a gpt entry into its reasoning (the leading
// <think> block), its visible text and its <tool_call> blocks. Blocks are
// looked for only after the leading <think> block: reasoning text may talk
// about <tool_call> without making one.
func hermesSplitGPT(value string) (reasoning, text string, calls []string, unclosed bool) {
	body := value
	if t := strings.TrimLeft(value, " \t\r\n"); strings.HasPrefix(t, "<think>") {
		if i := strings.Index(t, "</think>"); i >= 0 {
			reasoning = strings.TrimSpace(t[len("<think>"):i])
			body = t[i+len("</think>"):]
		}
	}
	calls, rest, unclosed := hermesBlocks(body, "tool_call")
	return reasoning, strings.TrimSpace(rest), calls, unclosed
}

// hermesParseToolCall parses a <tool_call> body: {"name", "arguments"}.
func hermesParseToolCall(body string) hermesTrajCall {
	c := hermesTrajCall{Raw: body}
	v, err := jsonx.ParseString(body)
	if err != nil {
		c.Err = err
		return c
	}
	if v.Kind != jsonx.Object {
		c.Err = fmt.Errorf("a JSON %s, not an object", v.Kind)
		return c
	}
	c.Name, _ = v.GetString("name")
	c.Args, c.HasArgs = v.Get("arguments")
	return c
}

// hermesParseToolResponse parses a <tool_response> body:
// {"tool_call_id", "name", "content"}. Results are most of a trajectory's
// bytes, so the body is read in one pass, its content where it lies: a
// string decoded, any other value written compact (jsonx.CompactString)
// as the walk checks it, which is what hermesParseToolResponseTree gives
// by way of the parsed value. What that pass declines (a repeated,
// escaped or case-folded member, an id or name that is not a string, a
// content that is a number or boolean or a string with invalid UTF-8, a
// body that is not one JSON object) is read the tree's way.
func hermesParseToolResponse(body string) hermesTrajResponse {
	r, ok := hermesReadToolResponse(jsonx.ReadOnlyBytes(body))
	if !ok {
		return hermesParseToolResponseTree(body)
	}
	return r
}

// hermesReadToolResponse is the one-pass reading of hermesParseToolResponse;
// ok is false when the tree must read the body.
func hermesReadToolResponse(data []byte) (r hermesTrajResponse, ok bool) {
	isText := false // content is present and not null
	fields := [...]jsonx.Field{{Name: "tool_call_id", Str: &r.ID}, {Name: "name", Str: &r.Name}}
	nested := [...]jsonx.Nested{{Name: "content", Read: func(data []byte, pos, depth int) (end int, ok bool) {
		switch data[pos] {
		case '"':
			r.Result, end, ok = jsonx.DecodeStringAt(data, pos)
		case '{':
			// The members the replay reads are noted as the object is
			// written: no second walk of a result of megabytes.
			r.Members = new(resultmembers.Members)
			r.Result, end, ok = jsonx.CompactStringMembers(data, pos, depth, resultmembers.Keys[:], r.Members[:])
		case '[':
			r.Result, end, ok = jsonx.CompactString(data, pos, depth)
		case 'n': // null, checked
			_, end, ok = jsonx.SkipValue(data, pos, depth)
			return end, ok
		default:
			return 0, false
		}
		isText = true
		return end, ok
	}}}
	end, ok := jsonx.DecodeObjectNested(data, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(data, end) {
		return hermesTrajResponse{}, false
	}
	switch {
	case r.Members != nil:
		r.IsError = hermesErrorMemberIsError(r.Members[resultmembers.Error])
	case isText:
		r.IsError = hermesResultIsError(r.Result)
	}
	return r, true
}

// hermesParseToolResponseTree is hermesParseToolResponse by way of the
// parsed value: the reference for the fast path, and the path of bodies
// that are not a JSON object.
func hermesParseToolResponseTree(body string) hermesTrajResponse {
	r := hermesTrajResponse{Result: body}
	v, err := jsonx.ParseString(body)
	if err == nil && v.Kind != jsonx.Object {
		err = fmt.Errorf("a JSON %s, not an object", v.Kind)
	}
	if err != nil {
		r.Err = err
		return r
	}
	r.ID, _ = v.GetString("tool_call_id")
	r.Name, _ = v.GetString("name")
	content, ok := v.Get("content")
	switch {
	case !ok || content.Kind == jsonx.Null:
		r.Result = ""
	case content.Kind == jsonx.String:
		r.Result = content.Str
		r.IsError = hermesResultIsError(content.Str)
	default:
		r.Result = content.String()
		r.IsError = hermesValueIsError(content)
	}
	return r
}

// parseHermesShareGPT fills s from a ShareGPT conversation. Every `human`
// entry opens a turn (§2.5: "E: each human"); one that is a compaction
// summary opens it marked CompactedBefore. All calls are on line (a JSONL
// line). In a document (line 0), lines gives each entry's file line: the
// problems name it, and the session keeps line 0 (docpos.go).
func parseHermesShareGPT(s *Session, entries []hermesEntry, lines []int, line int, out *Sink) {
	b := newHermesConv(s, out)
	doc := line == 0
	if doc {
		b.where = ""
	}
	recLine := line
	if doc {
		recLine = lineAtIndex(lines, 0, 1)
	}
	type waitingCall struct {
		ref   hermesCallRef
		entry int
		index int
		// bridged: a Tool Search bridge call read as the tool it runs; its
		// response may name either tool.
		bridged bool
	}
	var waiting []waitingCall
	// closeWaiting gives up on calls whose results never came: a new gpt or
	// human entry means hermes wrote no tool entry for them.
	closeWaiting := func() {
		for _, w := range waiting {
			c := b.call(w.ref)
			out.Problemf(c.Line, "%sconversations[%d] call %d (%s) has no <tool_response>", b.where, w.entry, w.index+1, c.Tool)
		}
		waiting = nil
	}
	for i, e := range entries {
		line := lineAtIndex(lines, i, recLine)
		from, text := e.from, e.text
		if !e.object || from == "" {
			out.Problemf(line, "%sconversations[%d] is not a {from, value} entry; skipped", b.where, i)
			continue
		}
		switch from {
		case "system":
			// The tool preamble, not a message of the conversation.
		case "human":
			closeWaiting()
			if strings.TrimSpace(text) == "" {
				// The early snapshot's placeholder for the query (§3.C): no
				// message, so no turn.
				continue
			}
			b.userTurn(line, time.Time{}, len(text))
			if isHermesCompaction(text) {
				// A summary of the work before, written by the compressor:
				// not the user's text.
				s.Turns[len(s.Turns)-1].CompactedBefore = true
			} else {
				keepUserText(s, text)
			}
		case "gpt":
			closeWaiting()
			reasoning, visible, blocks, unclosed := hermesSplitGPT(text)
			if unclosed {
				out.Problemf(line, "%sconversations[%d] has a <tool_call> block without </tool_call> (read to the end of the entry)", b.where, i)
			}
			b.request(line, time.Time{}, len(reasoning)+len(visible))
			for k, body := range blocks {
				tc := hermesParseToolCall(body)
				c := Call{Tool: tc.Name, Line: line}
				switch {
				case tc.Err != nil:
					out.Problemf(line, "%sconversations[%d] <tool_call> %d is not valid JSON (%v); kept with its raw text as arguments", b.where, i, k+1, tc.Err)
					c.SetArgs(tc.Raw)
				case !tc.HasArgs:
					c.SetArgs("")
				case tc.Args.Kind == jsonx.String:
					c.SetArgs(tc.Args.Str)
				default:
					c.SetArgsValue(tc.Args)
				}
				bridged := b.unwrapToolCall(&c)
				ti := len(s.Turns) - 1
				ri := len(s.Turns[ti].Requests) - 1
				rq := &s.Turns[ti].Requests[ri]
				rq.Calls = append(rq.Calls, c)
				waiting = append(waiting, waitingCall{hermesCallRef{ti, ri, len(rq.Calls) - 1}, i, k, bridged})
			}
		case "tool":
			blocks, rest, unclosed := hermesBlocks(text, "tool_response")
			if unclosed {
				out.Problemf(line, "%sconversations[%d] has a <tool_response> block without </tool_response> (read to the end of the entry)", b.where, i)
			}
			plain := len(blocks) == 0
			if plain {
				if strings.TrimSpace(rest) == "" {
					out.Problemf(line, "%sconversations[%d] is an empty tool entry; skipped", b.where, i)
					continue
				}
				out.Problemf(line, "%sconversations[%d] is a tool entry without <tool_response> blocks; its whole text is taken as one result", b.where, i)
				blocks = []string{strings.TrimSpace(rest)}
			}
			for k, body := range blocks {
				r := hermesTrajResponse{Result: body}
				if !plain {
					r = hermesParseToolResponse(body)
				}
				if r.Err != nil {
					out.Problemf(line, "%sconversations[%d] <tool_response> %d is not a JSON object (%v); its text is kept as the result", b.where, i, k+1, r.Err)
				}
				if len(waiting) == 0 {
					out.Problemf(line, "%sconversations[%d] <tool_response> %d (tool_call_id %q, %s) has no <tool_call> before it; result ignored", b.where, i, k+1, r.ID, r.Name)
					continue
				}
				w := waiting[0]
				waiting = waiting[1:]
				c := b.call(w.ref)
				if c.Tool == "" {
					c.Tool = r.Name
				} else if r.Name != "" && r.Name != c.Tool && !(w.bridged && r.Name == hermesToolSearchBridge) {
					out.Problemf(line, "%sconversations[%d] <tool_response> %d names %q but the call in that position is %q; paired by position", b.where, i, k+1, r.Name, c.Tool)
				}
				c.ID = r.ID
				c.Result, c.HasResult, c.ResultLine, c.IsError = r.Result, true, line, r.IsError
				c.ResultMembers = r.Members
			}
		default:
			out.Problemf(line, "%sconversations[%d] has unknown `from` %q; skipped", b.where, i, from)
		}
	}
	closeWaiting()
	b.noteBridged()
	if doc {
		zeroLines(s)
	}
	for ti := range s.Turns {
		for ri := range s.Turns[ti].Requests {
			for ci := range s.Turns[ti].Requests[ri].Calls {
				if c := &s.Turns[ti].Requests[ri].Calls[ci]; c.Tool == "" {
					c.Tool = "unknown"
				}
			}
		}
	}
}
