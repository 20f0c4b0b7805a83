package ingest

// OpenHands resolver output (output/output.jsonl of `python -m
// openhands.resolver.resolve_issue`): one ResolverOutput per line
// (openhands/resolver/resolver_output.py: issue, issue_type, instruction,
// base_commit, git_patch, history, metrics, success, comment_success,
// result_explanation, error), history being the run's events as
// dataclasses.asdict made them: an action's or observation's own fields
// flattened, with no id, source, cause or tool_call_metadata. Format
// reference: docs/formats/openhands-resolver.md.
//
// Readings taken (the events carry no ids):
//   - The first message action of a history is the user's (the
//     instruction, which the resolver sends as the run's only user
//     message); later message actions are the agent's text-only requests,
//     unless the event names its source.
//   - Every other action but state-change ones (ohNotCalls) is a call
//     named after the action, with id "event-<position in history>", its
//     arguments the action's fields less the bookkeeping ones
//     (resolverNotArgs).
//   - An observation answers the oldest call still waiting for a result
//     whose action it names (run answers run); an "error" observation, or
//     one whose action has no call waiting, the oldest call waiting. It is
//     an error result when it is an "error" observation or its success is
//     false (a command's non-zero exit, as in the event stream: ohEvent).
//   - finish ends the run and gets no observation (not a problem).
//   - The observations of what is no call (resolverNotResults: the
//     recall action's answer, agent state changes, null) answer nothing
//     and are skipped; taken for the oldest call's result, a recall's
//     microagent text would stand for a command's output.

import (
	"bytes"
	"strconv"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatOpenHandsResolver = "openhands-resolver"

func init() {
	register(&Format{
		ID:        formatOpenHandsResolver,
		Family:    "openhands",
		Reads:     "OpenHands resolver output.jsonl: one ResolverOutput per line (issue, instruction, git_patch, history of dataclass events).",
		Detection: "A record with issue and a history array, and instruction or git_patch.",
		Priority:  35,
		Sniff: func(h *Head) bool {
			return !h.Array && rawIsObject(h.Keys["issue"]) && rawIsArray(h.Keys["history"]) && (h.Has("instruction") || h.Has("git_patch"))
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			doc = bytes.TrimSpace(doc)
			multiLine := bytes.Contains(doc, []byte("\n"))
			line := 0
			if !multiLine {
				line = h.Line
			}
			parseResolverRecord(doc, h, line, multiLine, out)
		},
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			eachJSONLine(lr, h, out, func(line []byte, n int) { parseResolverRecord(line, h, n, false, out) })
		},
	})
}

// resolverNotResults are the observation types that answer no call:
// RECALL (the answer to the recall action, which ohNotCalls skips),
// AGENT_STATE_CHANGED, NULL and CONDENSE (OpenHands/OpenHands
// openhands/core/schema/observation.py at d6fab190).
var resolverNotResults = map[string]bool{"recall": true, "agent_state_changed": true, "null": true, "condense": true}

// resolverNotArgs are the fields of a flattened action that are not what
// the model asked for: the action's type, its thought, and the runtime's
// bookkeeping.
var resolverNotArgs = map[string]bool{
	"action": true, "thought": true, "is_confirmed": true, "confirmation_state": true,
	"action_risk": true, "security_risk": true, "keep_prompt": true, "kernel_init_code": true,
	"blocking": true, "hidden": true, "is_static": true, "images_urls": true,
	"wait_for_response": true, "source": true, "timeout": true,
}

func parseResolverRecord(rec []byte, h *Head, line int, doc bool, out *Sink) {
	var r struct {
		Issue struct {
			Owner  string `json:"owner"`
			Repo   string `json:"repo"`
			Number int64  `json:"number"`
		} `json:"issue"`
		History []jsonx.RawMessage `json:"history"`
	}
	at := line
	if at == 0 {
		at = h.Line
	}
	if err := jsonx.Unmarshal(rec, &r); err != nil {
		out.Problemf(at, "record is not a resolver output (%s); skipped", decodeText(err))
		return
	}
	id := fileStem(h.Name) + "#L" + strconv.Itoa(at)
	if r.Issue.Repo != "" {
		id = r.Issue.Owner + "/" + r.Issue.Repo + "#" + strconv.FormatInt(r.Issue.Number, 10)
	}
	var lines []int
	if doc {
		pos := newDocPos(rec, h.Line)
		lines = pos.elemLines(member(rec, "history"))
	}
	b := newSessionBuilder(&Session{Format: formatOpenHandsResolver, ID: id, Line: line}, 0)
	b.doc = doc
	var waiting []Call // calls waiting for their observation, in order
	for i, raw := range r.History {
		ln := lineAtIndex(lines, i, at)
		ev := keysOf(raw)
		if ev == nil {
			out.Problemf(ln, "history event %d is not an object; skipped", i+1)
			continue
		}
		action, observation := firstString(ev, "action"), firstString(ev, "observation")
		switch {
		case action == "message":
			text := firstString(ev, "content")
			source := firstString(ev, "source")
			if source == "user" || (source == "" && i == 0) {
				b.turn(ln, time.Time{}, len(text))
				keepUserText(b.s, text)
			} else {
				b.request(ln, time.Time{}, len(text), nil)
			}
		case action != "":
			if ohNotCalls[action] {
				continue
			}
			c := Call{ID: "event-" + strconv.Itoa(i+1), Tool: action, Line: ln}
			c.SetArgsValue(resolverArgs(raw))
			b.request(ln, time.Time{}, len(firstString(ev, "thought")), nil)
			ref := b.call(c, out)
			if action == "finish" {
				b.final[ref] = true
				continue
			}
			waiting = append(waiting, c)
		case resolverNotResults[observation]:
		case observation != "":
			k := -1
			for j, c := range waiting {
				if c.Tool == observation {
					k = j
					break
				}
			}
			if k < 0 && len(waiting) > 0 {
				k = 0 // an "error" observation, or one named otherwise
			}
			if k < 0 {
				out.Problemf(ln, "%s observation answers no call waiting for a result; ignored", observation)
				continue
			}
			failed := observation == "error" || resolverExitFailed(ev)
			b.result(waiting[k].ID, firstString(ev, "content"), failed, ln, time.Time{}, out)
			waiting = append(waiting[:k:k], waiting[k+1:]...)
		default:
			out.Problemf(ln, "history event %d is neither an action nor an observation; skipped", i+1)
		}
	}
	b.finish(out)
}

// resolverArgs is an action's fields less resolverNotArgs, in their order.
func resolverArgs(raw jsonx.RawMessage) jsonx.Value {
	v, err := jsonx.Parse(raw)
	if err != nil || v.Kind != jsonx.Object {
		return jsonx.Value{Kind: jsonx.Object}
	}
	var kept []jsonx.Member
	for _, m := range v.Obj {
		if !resolverNotArgs[m.Key] {
			kept = append(kept, m)
		}
	}
	v.Obj = kept
	return v
}

// resolverExitFailed reports whether a history observation says its
// command failed: success false (as the event stream writes it: ohEvent),
// or, in the resolver's older history shapes, which write no success, an
// exit_code other than 0: the command's own (the oldest, fields flattened)
// or its metadata's (OpenHands' CmdOutputMetadata, flattened or under
// extras; -1 is a command that did not end, which OpenHands counts as no
// success either).
func resolverExitFailed(ev map[string]jsonx.RawMessage) bool {
	if raw, ok := ev["success"]; ok {
		return string(raw) == "false"
	}
	var md struct {
		ExitCode *int64 `json:"exit_code"`
	}
	if raw, ok := ev["exit_code"]; ok {
		// The oldest shape: the command's fields flattened, exit_code
		// among them.
		return jsonx.Unmarshal(raw, &md.ExitCode) == nil && md.ExitCode != nil && *md.ExitCode != 0
	}
	raw, ok := ev["metadata"]
	if !ok {
		var extras struct {
			Metadata jsonx.RawMessage `json:"metadata"`
		}
		if x, has := ev["extras"]; !has || jsonx.Unmarshal(x, &extras) != nil || extras.Metadata == nil {
			return false
		}
		raw = extras.Metadata
	}
	if jsonx.Unmarshal(raw, &md) != nil || md.ExitCode == nil {
		return false
	}
	return *md.ExitCode != 0
}
