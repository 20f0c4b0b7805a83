package ingest

// OpenHands V1 (software-agent-sdk) events: each event a JSON object with a
// "kind" discriminator (openhands-sdk/openhands/sdk/event/: MessageEvent,
// ActionEvent, ObservationEvent, UserRejectObservation, AgentErrorEvent,
// SystemPromptEvent, Condensation, ...) and a string id, as a conversation
// keeps them (one JSON file per event under conversations/<id>/events/, or
// gathered into a JSON array or JSONL by tools such as letta-ai/trajectory).
// Format reference: docs/formats/openhands-v1.md.
//
// Readings taken:
//   - A MessageEvent from source "user" opens a turn; one from "agent" is a
//     text-only request.
//   - An ActionEvent is a call: tool_name (else tool_call.name), id
//     tool_call_id (else tool_call.id, else the event id), arguments the
//     tool call's JSON text, else the action object without its kind. The
//     actions of one LLM response (same llm_response_id) are one request.
//   - ObservationEvent, UserRejectObservation and AgentErrorEvent answer
//     the call named by their tool_call_id, else by their action_id (an
//     ActionEvent's id). A rejection and an agent error are error results;
//     an observation is one when observation.is_error is true or its
//     exit_code (a terminal command's) is not 0.
//   - A Condensation marks the next turn as compacted.
//   - Other kinds (SystemPromptEvent, ConversationStateUpdateEvent, PauseEvent,
//     ...) carry no calls: the session notes count them.

import (
	"bytes"
	"strconv"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatOpenHandsV1 = "openhands-v1"

func init() {
	register(&Format{
		ID:        formatOpenHandsV1,
		Text:      true,
		Family:    "openhands",
		Reads:     "OpenHands V1 (software-agent-sdk) events: a JSON array or JSONL of events with a kind (MessageEvent, ActionEvent, ObservationEvent, ...).",
		Detection: "A JSON array, or JSONL, whose first record has a kind naming an OpenHands SDK event, and an id.",
		Priority:  34,
		Sniff:     sniffOpenHandsV1,
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			if !rawIsArray(bytes.TrimSpace(doc)) {
				// A single event (one file of a conversation's events/).
				doc = append(append([]byte("["), doc...), ']')
			}
			a, ok := readDocArray(doc, h, out)
			if !ok {
				return
			}
			r := newOHV1Reader(h, out, a.multiLine)
			for i, e := range a.elems {
				r.event(e, a.line(i, h.Line))
			}
			r.finish()
		},
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			r := newOHV1Reader(h, out, false)
			eachJSONLine(lr, h, out, r.event)
			r.finish()
		},
	})
}

// ohV1Kinds are the SDK's event kinds.
var ohV1Kinds = map[string]bool{
	"MessageEvent": true, "ActionEvent": true, "ObservationEvent": true,
	"UserRejectObservation": true, "AgentErrorEvent": true, "SystemPromptEvent": true,
	"SystemPromptUpdateEvent": true, "Condensation": true, "CondensationRequest": true,
	"CondensationSummaryEvent": true, "ConversationStateUpdateEvent": true, "PauseEvent": true,
	"ConversationErrorEvent": true, "TokenEvent": true, "LLMCompletionLogEvent": true,
}

func sniffOpenHandsV1(h *Head) bool {
	return ohV1Kinds[h.String("kind")] && h.Has("id")
}

type ohV1Event struct {
	Kind          string           `json:"kind"`
	ID            string           `json:"id"`
	Timestamp     string           `json:"timestamp"`
	Source        string           `json:"source"`
	LLMMessage    *ohV1Message     `json:"llm_message"`
	ToolName      string           `json:"tool_name"`
	ToolCallID    string           `json:"tool_call_id"`
	ToolCall      *ohV1ToolCall    `json:"tool_call"`
	Action        jsonx.RawMessage `json:"action"`
	ActionID      string           `json:"action_id"`
	LLMResponseID string           `json:"llm_response_id"`
	Observation   jsonx.RawMessage `json:"observation"`
	Rejection     string           `json:"rejection_reason"`
	Error         string           `json:"error"`
	Thought       jsonx.RawMessage `json:"thought"`
	Reasoning     string           `json:"reasoning_content"`
}

type ohV1Message struct {
	Role    string           `json:"role"`
	Content jsonx.RawMessage `json:"content"`
}

type ohV1ToolCall struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Arguments jsonx.RawMessage `json:"arguments"`
}

type ohV1Reader struct {
	out       *Sink
	b         *sessionBuilder
	requests  map[string]callRef // llm_response_id -> its request
	callOf    map[string]string  // ActionEvent id -> call id
	compacted bool
	other     map[string]int
}

func newOHV1Reader(h *Head, out *Sink, doc bool) *ohV1Reader {
	b := newSessionBuilder(&Session{Format: formatOpenHandsV1, ID: fileStem(h.Name)}, 0)
	b.doc = doc
	return &ohV1Reader{out: out, b: b, requests: map[string]callRef{}, callOf: map[string]string{}, other: map[string]int{}}
}

func (r *ohV1Reader) event(raw []byte, line int) {
	var e ohV1Event
	if err := jsonx.Unmarshal(raw, &e); err != nil {
		r.out.Problemf(line, "record is not an OpenHands SDK event (%s); skipped", decodeText(err))
		return
	}
	if r.b.s.Line == 0 {
		r.b.s.Line = line
	}
	t := parseTime(e.Timestamp)
	switch e.Kind {
	case "MessageEvent":
		text := ""
		if e.LLMMessage != nil {
			text, _ = contentText(e.LLMMessage.Content)
		}
		if e.Source == "user" {
			r.b.turn(line, t, len(text))
			keepUserText(r.b.s, text)
			if r.compacted {
				r.b.s.Turns[len(r.b.s.Turns)-1].CompactedBefore = true
				r.compacted = false
			}
			return
		}
		rq := r.b.request(line, t, len(text), nil)
		if r.out.KeepText {
			rq.addText(text)
		}
	case "ActionEvent":
		r.action(e, line)
	case "ObservationEvent", "UserRejectObservation", "AgentErrorEvent":
		r.observation(e, line)
	case "Condensation":
		r.compacted = true
	case "":
		r.out.Problemf(line, "record has no kind, so it is not an OpenHands SDK event; skipped")
	default:
		r.other[e.Kind]++
	}
}

func (r *ohV1Reader) action(e ohV1Event, line int) {
	t := parseTime(e.Timestamp)
	c := Call{ID: e.ToolCallID, Tool: e.ToolName, Time: t, Line: line}
	if tc := e.ToolCall; tc != nil {
		if c.ID == "" {
			c.ID = tc.ID
		}
		if c.Tool == "" {
			c.Tool = tc.Name
		}
	}
	switch {
	case e.ToolCall != nil && e.ToolCall.Arguments != nil:
		c.SetArgsField(e.ToolCall.Arguments)
	case rawIsObject(e.Action):
		// The action as the SDK parsed it, without its type tag.
		v, err := jsonx.Parse(e.Action)
		if err == nil {
			var kept []jsonx.Member
			for _, m := range v.Obj {
				if m.Key != "kind" {
					kept = append(kept, m)
				}
			}
			v.Obj = kept
			c.SetArgsValue(v)
		} else {
			c.SetArgsField(e.Action)
		}
	default:
		c.SetArgs("")
	}
	if c.ID == "" {
		c.ID = e.ID
	}
	if c.ID == "" {
		c.ID = "event-" + strconv.Itoa(line)
	}
	ref, ok := r.requests[e.LLMResponseID]
	if !ok || e.LLMResponseID == "" {
		thought, _ := contentText(e.Thought)
		r.b.request(line, t, len(thought)+len(e.Reasoning), nil)
		ref = r.b.lastRef()
		if e.LLMResponseID != "" {
			r.requests[e.LLMResponseID] = ref
		}
	}
	r.b.callAt(ref, c, r.out)
	if e.ID != "" {
		r.callOf[e.ID] = c.ID
	}
}

func (r *ohV1Reader) observation(e ohV1Event, line int) {
	t := parseTime(e.Timestamp)
	id := e.ToolCallID
	if id == "" {
		id = r.callOf[e.ActionID]
	}
	if id == "" {
		if e.ActionID != "" {
			r.out.Problemf(line, "%s answers action %s, which is not in the file; ignored", e.Kind, e.ActionID)
		} else {
			r.out.Problemf(line, "%s names no tool_call_id or action_id, so it cannot be joined to a call; ignored", e.Kind)
		}
		return
	}
	var text string
	isErr := false
	var exit *int64
	switch e.Kind {
	case "UserRejectObservation":
		text, isErr = e.Rejection, true
	case "AgentErrorEvent":
		text, isErr = e.Error, true
	default:
		var o struct {
			Content jsonx.RawMessage `json:"content"`
			IsError bool             `json:"is_error"`
			// ExitCode is a terminal command's (TerminalObservation,
			// openhands-tools/openhands/tools/terminal/definition.py:
			// "-1 indicates the process hit the soft timeout and is not
			// yet finished"); is_error stays false for a command that ran
			// and failed.
			ExitCode *int64 `json:"exit_code"`
		}
		if rawIsObject(e.Observation) && jsonx.Unmarshal(e.Observation, &o) == nil {
			text, _ = contentText(o.Content)
			isErr = o.IsError || o.ExitCode != nil && *o.ExitCode != 0
			exit = o.ExitCode
		} else if len(e.Observation) > 0 {
			text = string(e.Observation)
		}
	}
	if c := r.b.result(id, text, isErr, line, t, r.out); c != nil && exit != nil && *exit == int64(int32(*exit)) {
		// Beside the text, as the agent's hook gets it in the
		// observation (a command that printed nothing and exited 1
		// found nothing: dedup.answer_missing).
		c.ExitCode = int32(*exit)
	}
}

func (r *ohV1Reader) finish() {
	r.b.s.Notes = append(r.b.s.Notes, countNotes(r.other, "%s event(s) carry no call; skipped")...)
	r.b.finish(r.out)
}
