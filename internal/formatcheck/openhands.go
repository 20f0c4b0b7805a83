package formatcheck

import "encoding/json"

// OpenHands records a conversation as a list of events (a trajectory file,
// or "history" in an evaluation's or the resolver's output line). An
// action event {id, source, action, args, tool_call_metadata} is a call of
// the model when it carries tool_call_metadata {function_name,
// tool_call_id, model_response}; its observation {observation, cause} names
// the action's id in "cause". Histories saved without ids or metadata
// (the resolver's dataclasses.asdict events) list each action's
// observation right after it. The usage of a model response is
// model_response.usage {prompt_tokens, completion_tokens}, repeated on each
// action of that response. The V1 SDK writes {kind: "ActionEvent",
// tool_name, tool_call_id, tool_call} answered by an event with its
// action_id (docs/formats/other.md, docs/formats/openhands-v1.md,
// docs/formats/openhands-resolver.md; https://github.com/OpenHands/OpenHands).

// openHandsEvents says whether a list of objects is OpenHands events.
func openHandsEvents(items []line) bool {
	for _, e := range items {
		if (e.has("action") && (e.has("source") || e.has("args") || e.has("thought") || e.has("content"))) || e.has("observation") ||
			(e.has("kind") && (e.str("kind") == "ActionEvent" || e.str("kind") == "MessageEvent")) {
			return true
		}
	}
	return false
}

// notCalls are the actions that are not tool calls in a history saved
// without tool_call_metadata.
var notCalls = map[string]bool{"message": true, "system": true, "recall": true, "change_agent_state": true, "null": true, "": true}

func countOpenHandsEvents(events []line) *session {
	s := newSession()
	withMeta := false
	for _, e := range events {
		if e.has("tool_call_metadata") && e.obj("tool_call_metadata") != nil || e.str("kind") == "ActionEvent" {
			withMeta = true
			break
		}
	}
	byAction := map[string]*call{}
	responses := map[string]bool{}
	var last *call // the call an id-less observation answers
	for _, e := range events {
		if e.str("kind") == "ActionEvent" {
			args := ""
			if tc := e.obj("tool_call"); tc != nil {
				args = rawText(tc["arguments"])
			}
			byAction[e.str("id")] = s.add(e.str("tool_call_id"), e.str("tool_name"), args)
			continue
		}
		if e.has("action_id") && e.str("kind") != "" {
			if c := byAction[e.str("action_id")]; c != nil {
				c.hasResult = true
			}
			continue
		}
		if e.has("action") {
			last = nil
			meta := e.obj("tool_call_metadata")
			switch {
			case withMeta && meta != nil:
				last = s.add(meta.str("tool_call_id"), meta.str("function_name"), openHandsArgs(e, meta))
				byAction[string(e["id"])] = last
				if mr := meta.obj("model_response"); mr != nil && !responses[mr.str("id")] {
					responses[mr.str("id")] = true
					if u := mr.obj("usage"); u != nil {
						s.tokens += u.num("prompt_tokens") + u.num("completion_tokens")
					}
				}
			case !withMeta && !notCalls[e.str("action")]:
				args := e.obj("args")
				raw, _ := json.Marshal(args)
				if args == nil {
					rest := line{}
					for k, v := range e {
						if k != "thought" && k != "action_risk" && k != "is_confirmed" {
							rest[k] = v
						}
					}
					raw, _ = json.Marshal(rest)
				}
				last = s.add("", e.str("action"), string(raw))
			}
			continue
		}
		if e.has("observation") {
			if cause, ok := e["cause"]; ok {
				if c := byAction[string(cause)]; c != nil {
					c.hasResult = true
				}
			} else if last != nil && !withMeta {
				last.hasResult = true
			}
			last = nil
		}
	}
	return s
}

// openHandsArgs is the call's arguments as the model wrote them (the tool
// call in model_response with the action's tool_call_id), or the action's
// args.
func openHandsArgs(e, meta line) string {
	id := meta.str("tool_call_id")
	for _, ch := range asLines(meta.obj("model_response").list("choices")) {
		for _, tc := range chatCalls(ch.obj("message")) {
			if tc.ID == id && tc.Function != nil {
				return rawText(tc.Function.Args)
			}
		}
	}
	return rawText(e["args"])
}

// countOpenHands counts sessions of events: one list, or one history per
// output line.
func countOpenHands(format string, histories [][]line) Count {
	c := Count{Format: format}
	for _, h := range histories {
		c.tally(countOpenHandsEvents(h))
	}
	return c
}
