package ingest

// OpenHands trajectories: a JSON array of events (actions and observations),
// as saved by the OpenHands UI/CLI and its tests (tests/runtime/trajs), or the
// same events under "history" in evaluation output records. Format
// reference: docs/formats/other.md.
//
// Readings taken:
//   - A turn starts at a message action from source "user".
//   - An agent action with tool_call_metadata is a call; actions of one model
//     response (same model_response.id) are one request, whose usage is
//     counted once. The arguments are the tool call's own JSON text from
//     model_response when it is there, else the action's args.
//   - An agent action without tool_call_metadata (older, non-function-calling
//     agents) is a call too, named after the action, with id "event-<id>";
//     an agent message action without it is a text-only request.
//   - Observations join their action by cause. An "error" observation is an
//     error result. An observation caused by an event that is not a call
//     (a user message's recall) is not a result.
//   - A finish action ends the run: it never gets an observation, and that
//     is not reported as a problem.
//   - A condensation action (context condensed) marks the next turn as
//     compacted.

import (
	"bytes"
	"strconv"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatOpenHands = "openhands"

func init() {
	register(&Format{
		ID:        formatOpenHands,
		Text:      true,
		Family:    "openhands",
		Reads:     "OpenHands trajectories: a JSON array of action/observation events, or evaluation output records holding them under history.",
		Detection: "A JSON array whose first element has source and action or observation, or a record with instance_id and a history array.",
		Priority:  30,
		Sniff:     sniffOpenHands,
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseOpenHandsRecord(bytes.TrimSpace(doc), h, docLineOf(doc, h), fileStem(h.Name), newDocPos(doc, h.Line), out)
		},
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			eachSelfContainedLine(lr, h, out, func(line []byte, n int, lines *LineReader, out *Sink) {
				id := fileStem(h.Name) + "#L" + strconv.Itoa(n)
				// A line the one-pass reading reads is valid JSON (it checks
				// every byte), so it needs no Valid pass of its own.
				if parseOpenHandsOnePass(line, n, id, nil, out) {
					return
				}
				if !jsonx.Valid(line) {
					out.BadLine(lines, n, notJSON(line))
					return
				}
				parseOpenHandsGeneric(line, n, id, nil, out)
			})
		},
	})
}

func sniffOpenHands(h *Head) bool {
	if h.Array {
		return h.Has("source") && (h.Has("action") || h.Has("observation"))
	}
	return h.Has("instance_id") && rawIsArray(h.Keys["history"])
}

type ohEvent struct {
	ID          *int64           `json:"id"`
	Timestamp   string           `json:"timestamp"`
	Source      string           `json:"source"`
	Message     string           `json:"message"`
	Action      string           `json:"action"`
	Observation string           `json:"observation"`
	Args        jsonx.RawMessage `json:"args"`
	Content     jsonx.RawMessage `json:"content"`
	Cause       *int64           `json:"cause"`
	Meta        *ohMeta          `json:"tool_call_metadata"`
	// Success is written on observations that have it: a command's
	// output (CmdOutputObservation: false when its exit code is not 0;
	// OpenHands openhands/events/serialization/event.py, event_to_dict:
	// "Include success field for CmdOutputObservation").
	Success *bool `json:"success"`

	// content is Content's text when the one-pass reading decoded it
	// (readContentMember).
	content decodedContent
}

// ohMeta, ohModelResponse and ohChoice name the types of tool_call_metadata
// and its parts for the one-pass reading. They are aliases of unnamed struct
// types, not types of their own, because Unmarshal's errors, which
// problems quote, spell out the type of the member at fault
// (TestOpenHandsProblemTypes).
type ohMeta = struct {
	FunctionName  string           `json:"function_name"`
	ToolCallID    string           `json:"tool_call_id"`
	ModelResponse *ohModelResponse `json:"model_response"`
}

type ohModelResponse = struct {
	ID      string           `json:"id"`
	Model   string           `json:"model"`
	Usage   jsonx.RawMessage `json:"usage"`
	Choices []ohChoice       `json:"choices"`
}

type ohChoice = struct {
	Message struct {
		Content   jsonx.RawMessage `json:"content"`
		ToolCalls []chatToolCall   `json:"tool_calls"`
	} `json:"message"`
}

// ohNotCalls are agent actions that are not tool calls.
var ohNotCalls = map[string]bool{"message": true, "system": true, "recall": true, "change_agent_state": true, "condensation": true, "null": true, "": true}

// parseOpenHandsRecord reads one trajectory: a JSONL line (pos nil), or a
// whole-file document, where pos gives each event's file line for problems
// (the session keeps line 0, docpos.go).
func parseOpenHandsRecord(data []byte, h *Head, line int, defaultID string, pos *docPos, out *Sink) {
	if parseOpenHandsOnePass(data, line, defaultID, pos, out) {
		return
	}
	parseOpenHandsGeneric(data, line, defaultID, pos, out)
}

// parseOpenHandsGeneric is the generic decoding of a record the one-pass
// reading declines, by Unmarshal: the list split into raw events, each
// decoded in turn (ohSession), an error worded as a problem.
func parseOpenHandsGeneric(data []byte, line int, defaultID string, pos *docPos, out *Sink) {
	var events []jsonx.RawMessage
	id := defaultID
	at := ohRecordLine(data, line, pos)
	var lines []int // file lines of the events, in a document
	if len(data) > 0 && data[0] == '{' {
		var rec struct {
			InstanceID jsonx.RawMessage   `json:"instance_id"`
			History    []jsonx.RawMessage `json:"history"`
		}
		if err := jsonx.Unmarshal(data, &rec); err != nil {
			out.Problemf(at, "record is not an OpenHands output record (%s); skipped", decodeText(err))
			return
		}
		lines = pos.elemLines(member(data, "history"))
		id = ohInstanceID(rec.InstanceID, defaultID)
		events = rec.History
	} else if err := jsonx.Unmarshal(data, &events); err != nil {
		out.Problemf(at, "not a JSON array of events (%s)", decodeText(err))
		return
	} else {
		lines = pos.elemLines(data)
	}
	items := make([]ohItem, len(events))
	for i, raw := range events {
		items[i].raw = raw
	}
	ohSession(items, id, line, at, lines, pos, out)
}

// parseOpenHandsOnePass is parseOpenHandsRecord in one pass over data: each
// event is decoded where it lies (ohEvent.decodeAt) as the list is walked,
// where the generic decoding has Unmarshal copy the list out as raw events
// and then decode each one by reflection; for a JSONL line, the walk's
// syntax check also stands in for the Valid pass before the generic
// decoding. An event it does not decode so (a member of another type,
// an id that is not an integer, a repeated, escaped or case-folded key...)
// is kept raw and left to Unmarshal, as the generic decoding leaves every
// event. It returns false, having sent nothing, for what it cannot read
// at all (invalid JSON, a record whose history is not a list, a repeated
// instance_id...): parseOpenHandsGeneric then reads data and words what is
// wrong. The events hold views of data: they are read before it changes.
func parseOpenHandsOnePass(data []byte, line int, defaultID string, pos *docPos, out *Sink) bool {
	var items []ohItem
	var starts []int // where each event starts in data, for its file line
	readEvent := func(data []byte, p, depth int) (int, bool) {
		starts = append(starts, p)
		items = append(items, ohItem{})
		it := &items[len(items)-1]
		if end, ok := it.e.decodeAt(data, p, depth); ok {
			it.decoded = true
			return end, true
		}
		it.e = ohEvent{} // partly written by the decline
		_, end, ok := jsonx.SkipValue(data, p, depth)
		if !ok {
			return 0, false
		}
		it.raw = data[p:end:end]
		return end, true
	}
	id := defaultID
	var end int
	var ok bool
	if len(data) > 0 && data[0] == '{' {
		var instanceID jsonx.RawMessage
		fields := [...]jsonx.Field{{Name: "instance_id", Raw: &instanceID, View: true}}
		nested := [...]jsonx.Nested{{Name: "history", Read: func(data []byte, p, depth int) (int, bool) {
			if data[p] == 'n' { // no events, as Unmarshal leaves the list nil
				return ohSkipNull(data, p, depth)
			}
			return jsonx.DecodeArrayEach(data, p, depth, readEvent)
		}}}
		if end, ok = jsonx.DecodeObjectNested(data, 0, 0, fields[:], nested[:]); ok {
			id = ohInstanceID(instanceID, defaultID)
		}
	} else {
		// Leading white space too is read as the generic decoding's Unmarshal
		// reads it; null, which Unmarshal takes as no events, is declined.
		end, ok = jsonx.DecodeArrayEach(data, 0, 0, readEvent)
	}
	if !ok || !jsonx.AtEnd(data, end) {
		return false
	}
	// The lines elemLines gives the generic decoding, from the offsets the
	// walk found instead of another pass over the list.
	var lines []int
	if base := pos.offsetOf(data); base >= 0 {
		lines = make([]int, len(starts))
		for i, s := range starts {
			lines[i] = pos.lineAt(base + s)
		}
	}
	ohSession(items, id, line, ohRecordLine(data, line, pos), lines, pos, out)
	return true
}

// ohRecordLine is the line of problems of a record as a whole: its JSONL
// line, else the file line where the document starts.
func ohRecordLine(data []byte, line int, pos *docPos) int {
	if line == 0 {
		return pos.lineOf(data)
	}
	return line
}

// ohInstanceID is the session id that an output record's instance_id
// gives: the string, else the member's JSON text (a number, null...), else
// def when there is none.
func ohInstanceID(raw jsonx.RawMessage, def string) string {
	var s string
	if jsonx.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	if len(raw) > 0 {
		return string(raw)
	}
	return def
}

// ohItem is one event of a trajectory: decoded where it lay (the direct
// reading), else raw, for Unmarshal.
type ohItem struct {
	e       ohEvent
	decoded bool
	raw     jsonx.RawMessage
}

// ohSession reads the events of one trajectory into its session. line is
// the record's JSONL line (0 for a document), at the line of problems of
// the record as a whole, lines the file lines of the events in a document.
func ohSession(items []ohItem, id string, line, at int, lines []int, pos *docPos, out *Sink) {
	b := newSessionBuilder(&Session{Format: formatOpenHands, ID: id, Line: line}, 0)
	b.doc = pos != nil && line == 0
	recLine := line
	if b.doc {
		recLine = at
	}
	requests := map[string]callRef{}        // model_response.id -> request
	argsOf := map[string]jsonx.RawMessage{} // tool_call_id -> arguments as the model wrote them
	callOf := map[int64]string{}            // action event id -> call id
	seen := map[int64]bool{}                // event ids read so far
	compacted := false
	for i := range items {
		line := lineAtIndex(lines, i, recLine)
		e := &items[i].e
		if !items[i].decoded {
			if err := jsonx.Unmarshal(items[i].raw, e); err != nil {
				out.Problemf(line, "event %d is not an OpenHands event (%s); skipped", i+1, decodeText(err))
				continue
			}
		}
		t := parseTime(e.Timestamp)
		if e.ID != nil {
			seen[*e.ID] = true
		}
		switch {
		case e.Action != "":
			if e.Action == "condensation" {
				compacted = true
				continue
			}
			if e.Source == "user" {
				if e.Action == "message" {
					text := ohArgString(e.Args, "content")
					if text == "" {
						text = e.Message
					}
					b.turn(line, t, len(text))
					keepUserText(b.s, text)
					if compacted {
						b.s.Turns[len(b.s.Turns)-1].CompactedBefore = true
						compacted = false
					}
				}
				continue
			}
			if e.Source != "agent" {
				continue
			}
			if e.Meta != nil && e.Meta.ModelResponse != nil {
				for _, ch := range e.Meta.ModelResponse.Choices {
					for _, tc := range ch.Message.ToolCalls {
						if tc.ID != "" {
							argsOf[tc.ID] = tc.Function.Arguments
						}
					}
				}
			}
			ohAction(b, *e, i, line, t, requests, argsOf, callOf, out)
		case e.Observation != "":
			if e.Cause == nil {
				continue
			}
			callID, ok := callOf[*e.Cause]
			if !ok {
				if !seen[*e.Cause] {
					out.Problemf(line, "%s observation %s answers event %d, which is not in the file; ignored", e.Observation, ohEventName(*e, i), *e.Cause)
				}
				continue
			}
			b.result(callID, e.contentText(), e.failed(), line, t, out)
		}
	}
	b.finish(out)
}

// decodeAt reads the event that starts at data[pos], depth levels deep in
// data, in one pass (jsonx.DecodeObjectNested), into e as Unmarshal into
// the zero ohEvent would read it: the strings decoded, args and the other
// raw members as views of data, a string content decoded too
// (readContentMember), and tool_call_metadata down to its tool calls. end is
// the index just past the event; false declines it (e may be partly
// written), for Unmarshal.
func (e *ohEvent) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	fields := [...]jsonx.Field{
		{Name: "id", IntPtr: &e.ID},
		{Name: "timestamp", Str: &e.Timestamp},
		{Name: "source", Str: &e.Source},
		{Name: "message", Str: &e.Message},
		{Name: "action", Str: &e.Action},
		{Name: "observation", Str: &e.Observation},
		{Name: "args", Raw: &e.Args, View: true},
		{Name: "cause", IntPtr: &e.Cause},
		{Name: "success", BoolPtr: &e.Success},
	}
	nested := [...]jsonx.Nested{
		{Name: "content", Read: readContentMember(&e.Content, &e.content, nil)},
		{Name: "tool_call_metadata", Read: func(data []byte, pos, depth int) (int, bool) {
			if data[pos] == 'n' { // Meta stays nil, as Unmarshal leaves it
				return ohSkipNull(data, pos, depth)
			}
			e.Meta = &ohMeta{}
			return ohDecodeMeta(e.Meta, data, pos, depth)
		}},
	}
	return jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
}

// contentText is the text of the event's content (contentText).
func (e *ohEvent) contentText() string { return e.content.textOf(e.Content) }

// failed reports whether an observation says its action failed: an error
// observation, or one whose success is false (a command that exited with
// a code other than 0).
func (e *ohEvent) failed() bool {
	return e.Observation == "error" || e.Success != nil && !*e.Success
}

// ohDecodeMeta is ohEvent.decodeAt of a tool_call_metadata object.
func ohDecodeMeta(m *ohMeta, data []byte, pos, depth int) (int, bool) {
	fields := [...]jsonx.Field{
		{Name: "function_name", Str: &m.FunctionName},
		{Name: "tool_call_id", Str: &m.ToolCallID},
	}
	nested := [...]jsonx.Nested{{Name: "model_response", Read: func(data []byte, pos, depth int) (int, bool) {
		if data[pos] == 'n' {
			return ohSkipNull(data, pos, depth)
		}
		m.ModelResponse = &ohModelResponse{}
		return ohDecodeModelResponse(m.ModelResponse, data, pos, depth)
	}}}
	return jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
}

// ohDecodeModelResponse is ohEvent.decodeAt of a model_response object.
func ohDecodeModelResponse(r *ohModelResponse, data []byte, pos, depth int) (int, bool) {
	fields := [...]jsonx.Field{
		{Name: "id", Str: &r.ID},
		{Name: "model", Str: &r.Model},
		{Name: "usage", Raw: &r.Usage, View: true},
	}
	nested := [...]jsonx.Nested{{Name: "choices", Read: func(data []byte, pos, depth int) (int, bool) {
		if data[pos] == 'n' {
			return ohSkipNull(data, pos, depth)
		}
		return jsonx.DecodeArrayEach(data, pos, depth, func(data []byte, pos, depth int) (int, bool) {
			r.Choices = append(r.Choices, ohChoice{})
			return ohDecodeChoice(&r.Choices[len(r.Choices)-1], data, pos, depth)
		})
	}}}
	return jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
}

// ohDecodeChoice is ohEvent.decodeAt of an element of choices; null is the
// zero choice, as Unmarshal makes it.
func ohDecodeChoice(c *ohChoice, data []byte, pos, depth int) (int, bool) {
	if data[pos] == 'n' {
		return ohSkipNull(data, pos, depth)
	}
	message := [...]jsonx.Nested{{Name: "message", Read: func(data []byte, pos, depth int) (int, bool) {
		if data[pos] == 'n' {
			return ohSkipNull(data, pos, depth)
		}
		fields := [...]jsonx.Field{{Name: "content", Raw: &c.Message.Content, View: true}}
		calls := [...]jsonx.Nested{{Name: "tool_calls", Read: ohReadToolCalls(&c.Message.ToolCalls)}}
		return jsonx.DecodeObjectNested(data, pos, depth, fields[:], calls[:])
	}}}
	return jsonx.DecodeObjectNested(data, pos, depth, nil, message[:])
}

// ohReadToolCalls returns the reading of a tool_calls list into calls, for
// a jsonx.Nested: each entry decoded where it lies, as Unmarshal into a
// []chatToolCall decodes it, the arguments as a view. (The OpenAI reader,
// whose type this is, decodes its lists with Unmarshal: it has no
// one-pass reading of them to share.) Null leaves calls nil and a null
// entry is the zero call, as with Unmarshal; anything else that is not a
// list of objects of chatToolCall's members declines.
func ohReadToolCalls(calls *[]chatToolCall) func(data []byte, pos, depth int) (int, bool) {
	readCall := func(data []byte, pos, depth int) (int, bool) {
		*calls = append(*calls, chatToolCall{})
		if data[pos] == 'n' {
			return ohSkipNull(data, pos, depth)
		}
		tc := &(*calls)[len(*calls)-1]
		fields := [...]jsonx.Field{{Name: "id", Str: &tc.ID}, {Name: "type", Str: &tc.Type}}
		nested := [...]jsonx.Nested{
			{Name: "function", Read: func(data []byte, pos, depth int) (int, bool) {
				if data[pos] == 'n' {
					return ohSkipNull(data, pos, depth)
				}
				fn := [...]jsonx.Field{
					{Name: "name", Str: &tc.Function.Name},
					{Name: "arguments", Raw: &tc.Function.Arguments, View: true},
				}
				return jsonx.DecodeObjectNested(data, pos, depth, fn[:], nil)
			}},
			{Name: "custom", Read: func(data []byte, pos, depth int) (int, bool) {
				if data[pos] == 'n' {
					return ohSkipNull(data, pos, depth)
				}
				tc.Custom = &struct {
					Name  string `json:"name"`
					Input string `json:"input"`
				}{}
				custom := [...]jsonx.Field{{Name: "name", Str: &tc.Custom.Name}, {Name: "input", Str: &tc.Custom.Input}}
				return jsonx.DecodeObjectNested(data, pos, depth, custom[:], nil)
			}},
		}
		return jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
	}
	return func(data []byte, pos, depth int) (int, bool) {
		if data[pos] == 'n' {
			return ohSkipNull(data, pos, depth)
		}
		return jsonx.DecodeArrayEach(data, pos, depth, readCall)
	}
}

// ohSkipNull moves past the null at data[pos] (a value starting with 'n':
// anything but null is a syntax error), for a member or element whose null
// Unmarshal reads as the zero value it already holds.
func ohSkipNull(data []byte, pos, depth int) (int, bool) {
	_, end, ok := jsonx.SkipValue(data, pos, depth)
	return end, ok
}

// ohEventName names an event in messages: its id, else its position.
func ohEventName(e ohEvent, i int) string {
	if e.ID != nil {
		return "id " + strconv.FormatInt(*e.ID, 10)
	}
	return "at position " + strconv.Itoa(i+1)
}

func ohArgString(args jsonx.RawMessage, key string) string {
	return firstString(keysOf(args), key)
}

func ohAction(b *sessionBuilder, e ohEvent, i, line int, t time.Time, requests map[string]callRef, argsOf map[string]jsonx.RawMessage, callOf map[int64]string, out *Sink) {
	if e.Meta == nil {
		if e.Action == "message" {
			text := ohArgString(e.Args, "content")
			if text == "" {
				text = e.Message
			}
			b.request(line, t, len(text), nil)
			if out.KeepText {
				b.lastRequest(line, t).addText(text)
			}
			return
		}
		if ohNotCalls[e.Action] {
			return
		}
		id := "event-" + strconv.Itoa(i+1)
		if e.ID != nil {
			id = "event-" + strconv.FormatInt(*e.ID, 10)
		}
		b.request(line, t, 0, nil)
		c := Call{ID: id, Tool: e.Action, Time: t, Line: line}
		ohArgs(&c, e.Args)
		ref := b.call(c, out)
		if e.Action == "finish" {
			b.final[ref] = true
		}
		if e.ID != nil {
			callOf[*e.ID] = id
		}
		return
	}
	mr := e.Meta.ModelResponse
	var ref callRef
	respID := ""
	if mr != nil {
		respID = mr.ID
		if b.s.Model == "" {
			b.s.Model = mr.Model
		}
	}
	if known, ok := requests[respID]; ok && respID != "" {
		ref = known
	} else {
		chars := 0
		var u *Usage
		if mr != nil {
			if len(mr.Choices) > 0 {
				text, _ := contentText(mr.Choices[0].Message.Content)
				chars = len(text)
			}
			u = checkedUsage(out, line, mr.Usage, parseOpenAIUsage)
		}
		b.request(line, t, chars, u)
		ref = b.lastRef()
		if respID != "" {
			requests[respID] = ref
		}
	}
	c := Call{ID: e.Meta.ToolCallID, Tool: e.Meta.FunctionName, Time: t, Line: line}
	if raw, ok := argsOf[c.ID]; ok && c.ID != "" {
		c.SetArgsField(raw)
	} else {
		ohArgs(&c, e.Args)
	}
	if c.ID == "" {
		c.ID = "event-" + strconv.Itoa(i+1)
	}
	if cref := b.callAt(ref, c, out); e.Action == "finish" {
		b.final[cref] = true
	}
	if e.ID != nil {
		callOf[*e.ID] = c.ID
	}
}

// ohArgs takes an action's args object as the call's arguments.
func ohArgs(c *Call, raw jsonx.RawMessage) {
	if v, err := jsonx.Parse(raw); err == nil && v.Kind == jsonx.Object {
		c.SetArgsValue(v)
		return
	}
	c.SetArgsField(raw)
}
