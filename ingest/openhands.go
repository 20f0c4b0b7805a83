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
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatOpenHands = "openhands"

func init() {
	register(&Format{
		ID:        formatOpenHands,
		Family:    "openhands",
		Reads:     "OpenHands trajectories: a JSON array of action/observation events, or evaluation output records holding them under history.",
		Detection: "A JSON array whose first element has source and action or observation, or a record with instance_id and a history array.",
		Priority:  30,
		Sniff:     sniffOpenHands,
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseOpenHandsRecord(bytes.TrimSpace(doc), h, docLineOf(doc, h), fileStem(h.Name), newDocPos(doc, h.Line), out)
		},
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			for {
				line, n, ok := lr.Next()
				if !ok {
					return
				}
				if !jsonx.Valid(line) {
					out.BadLine(lr, n, notJSON(line))
					continue
				}
				parseOpenHandsRecord(line, h, n, fileStem(h.Name)+"#L"+strconv.Itoa(n), nil, out)
			}
		},
	})
}

// docLineOf is the line to give the records of a one-document file: its
// line when the file is a one-line JSONL file, else 0.
func docLineOf(doc []byte, h *Head) int {
	if strings.HasSuffix(h.Name, ".jsonl") && !bytes.Contains(bytes.TrimSpace(doc), []byte("\n")) {
		return h.Line
	}
	return 0
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
	Meta        *struct {
		FunctionName  string `json:"function_name"`
		ToolCallID    string `json:"tool_call_id"`
		ModelResponse *struct {
			ID      string           `json:"id"`
			Model   string           `json:"model"`
			Usage   jsonx.RawMessage `json:"usage"`
			Choices []struct {
				Message struct {
					Content   jsonx.RawMessage `json:"content"`
					ToolCalls []chatToolCall   `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		} `json:"model_response"`
	} `json:"tool_call_metadata"`
}

// ohNotCalls are agent actions that are not tool calls.
var ohNotCalls = map[string]bool{"message": true, "system": true, "recall": true, "change_agent_state": true, "condensation": true, "null": true, "": true}

// parseOpenHandsRecord reads one trajectory: a JSONL line (pos nil), or a
// whole-file document, where pos gives each event's file line for problems
// (the session keeps line 0, docpos.go).
func parseOpenHandsRecord(data []byte, h *Head, line int, defaultID string, pos *docPos, out *Sink) {
	var events []jsonx.RawMessage
	id := defaultID
	at := line // the line of problems of the record as a whole
	if at == 0 {
		at = pos.lineOf(data)
	}
	var lines []int // file lines of the events, in a document
	if len(data) > 0 && data[0] == '{' {
		var rec struct {
			InstanceID jsonx.RawMessage   `json:"instance_id"`
			History    []jsonx.RawMessage `json:"history"`
		}
		if err := jsonx.Unmarshal(data, &rec); err != nil {
			out.Problemf(at, "record is not an OpenHands output record (%s); skipped", strings.TrimPrefix(err.Error(), "json: "))
			return
		}
		lines = pos.elemLines(member(data, "history"))
		var s string
		if jsonx.Unmarshal(rec.InstanceID, &s) == nil && s != "" {
			id = s
		} else if len(rec.InstanceID) > 0 {
			id = string(rec.InstanceID)
		}
		events = rec.History
	} else if err := jsonx.Unmarshal(data, &events); err != nil {
		out.Problemf(at, "not a JSON array of events (%s)", strings.TrimPrefix(err.Error(), "json: "))
		return
	} else {
		lines = pos.elemLines(data)
	}
	b := newSessionBuilder(&Session{Format: formatOpenHands, ID: id, Line: line})
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
	for i, raw := range events {
		line := lineAtIndex(lines, i, recLine)
		var e ohEvent
		if err := jsonx.Unmarshal(raw, &e); err != nil {
			out.Problemf(line, "event %d is not an OpenHands event (%s); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
			continue
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
			ohAction(b, e, i, line, t, requests, argsOf, callOf, out)
		case e.Observation != "":
			if e.Cause == nil {
				continue
			}
			callID, ok := callOf[*e.Cause]
			if !ok {
				if !seen[*e.Cause] {
					out.Problemf(line, "%s observation %s answers event %d, which is not in the file; ignored", e.Observation, ohEventName(e, i), *e.Cause)
				}
				continue
			}
			text, _ := contentText(e.Content)
			b.result(callID, text, e.Observation == "error", line, t, out)
		}
	}
	b.finish(out)
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
			u = parseOpenAIUsage(mr.Usage)
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
