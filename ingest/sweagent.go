package ingest

// SWE-agent trajectories (<instance>.traj, written by SWE-agent's
// run_single / run_batch into trajectories/<user>/<run>/<instance>/):
// {"trajectory": [steps], "history": [messages], "info": {...},
// "replay_config": ..., "environment": ...} (sweagent/types.py:
// AgentRunResult / TrajectoryStep / HistoryItem). The history is what the
// model was sent: OpenAI-style messages with an agent name and a
// message_type (system_prompt, observation, action, thought, user), tool
// calls on function-calling configs, and tool messages naming their calls
// by tool_call_ids (a list). Format reference: docs/formats/swe-agent.md.
//
// Readings taken:
//   - The history is read when there is one; else the trajectory's steps,
//     one request with one call each (action, observation).
//   - The first user message opens the turn (the problem statement, an
//     "observation" by SWE-agent's naming); later user messages are the
//     results of the action before them when one waits for a result (the
//     non-function-calling configs), and turns otherwise (human input).
//   - An assistant message with tool_calls is a request whose calls are
//     those; one without them but with an action is a request with one
//     call, named after the action's first word (SWE-agent's command, or a
//     shell program), whose arguments are {"action": <the action>}.
//   - A tool message answers each id of tool_call_ids (or its
//     tool_call_id).
//   - Demonstrations put in the history (is_demo, or message_type
//     "demonstration") are the prompt's examples, not the run: skipped,
//     and counted in the notes.
//   - Sub-agents' messages (agent other than the first seen) are their
//     own scope.

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatSWEAgent = "swe-agent"

func init() {
	register(&Format{
		ID:        formatSWEAgent,
		Family:    "swe-agent",
		Reads:     "SWE-agent trajectories <instance>.traj: history messages (tool_calls, tool_call_ids), else trajectory steps.",
		Detection: "A JSON object with a history or trajectory array, in a .traj file or with SWE-agent's info, replay_config or environment.",
		Priority:  36,
		Sniff:     sniffSWEAgent,
		ParseDoc:  parseSWEAgent,
	})
}

func sniffSWEAgent(h *Head) bool {
	if h.Array || h.Has("instance_id") || h.Has("issue") {
		return false
	}
	if !rawIsArray(h.Keys["history"]) && !rawIsArray(h.Keys["trajectory"]) {
		return false
	}
	return strings.HasSuffix(h.Name, ".traj") || h.Has("replay_config") || h.Has("environment") || (rawIsObject(h.Keys["info"]) && rawIsArray(h.Keys["trajectory"]))
}

type sweMessage struct {
	Role        string           `json:"role"`
	Content     jsonx.RawMessage `json:"content"`
	Agent       string           `json:"agent"`
	MessageType string           `json:"message_type"`
	Action      string           `json:"action"`
	ToolCalls   []chatToolCall   `json:"tool_calls"`
	ToolCallIDs []string         `json:"tool_call_ids"`
	ToolCallID  string           `json:"tool_call_id"`
	Observation string           `json:"observation"`
	IsDemo      bool             `json:"is_demo"`
	Response    string           `json:"response"`
}

func parseSWEAgent(doc []byte, h *Head, out *Sink) {
	top := keysOf(bytes.TrimSpace(doc))
	path := "history"
	if !rawIsArray(top["history"]) {
		path = "trajectory"
	}
	a, ok := readDocArray(doc, h, out, path)
	if !ok {
		return
	}
	r := &sweReader{out: out, h: h, doc: a.multiLine, scopes: map[string]*sweScope{}}
	for i, raw := range a.elems {
		line := a.line(i, h.Line)
		var m sweMessage
		if err := jsonx.Unmarshal(raw, &m); err != nil {
			out.Problemf(line, "%s entry %d is not a SWE-agent %s (%s); skipped", path, i+1, map[string]string{"history": "message", "trajectory": "step"}[path], strings.TrimPrefix(err.Error(), "json: "))
			continue
		}
		if path == "history" {
			r.message(m, line)
		} else {
			r.step(m, line)
		}
	}
	if len(r.order) == 0 {
		r.scope("", h.Line) // a file with nothing of its run still shows
	}
	for i, key := range r.order {
		if i == 0 && r.demos > 0 {
			r.scopes[key].b.s.Notes = append(r.scopes[key].b.s.Notes, strconv.Itoa(r.demos)+" demonstration message(s) (is_demo) are not this run's; skipped")
		}
		r.scopes[key].b.finish(out)
	}
}

type sweScope struct {
	b       *sessionBuilder
	waiting string // the id-less call of the last action, waiting for its observation
	n       int    // calls made, for ids of id-less calls
}

type sweReader struct {
	out    *Sink
	h      *Head
	doc    bool
	first  string
	scopes map[string]*sweScope
	order  []string
	demos  int
}

func (r *sweReader) scope(agent string, line int) *sweScope {
	if r.first == "" {
		r.first = agent
	}
	sc := r.scopes[agent]
	if sc == nil {
		s := &Session{Format: formatSWEAgent, ID: fileStem(r.h.Name), Line: line}
		if agent != r.first {
			s.Agent, s.Parent = agent, s.ID
		}
		sc = &sweScope{b: newSessionBuilder(s, 0)}
		sc.b.doc = r.doc
		r.scopes[agent] = sc
		r.order = append(r.order, agent)
	}
	return sc
}

func (r *sweReader) message(m sweMessage, line int) {
	if m.IsDemo || m.MessageType == "demonstration" {
		// A demonstration shown to the model (put_demos_in_history), not
		// this run's work.
		r.demos++
		return
	}
	sc := r.scope(m.Agent, line)
	b := sc.b
	text, _ := contentText(m.Content)
	switch m.Role {
	case "system":
	case "user":
		switch {
		case len(b.s.Turns) == 0:
			b.turn(line, time.Time{}, len(text))
			keepUserText(b.s, text)
		case sc.waiting != "":
			b.result(sc.waiting, text, false, line, time.Time{}, r.out)
			sc.waiting = ""
		case m.MessageType == "observation":
			// An observation with no action waiting: the harness's own
			// note (a format error, a cost limit), not the user's.
		default:
			b.turn(line, time.Time{}, len(text))
			keepUserText(b.s, text)
		}
	case "assistant":
		b.request(line, time.Time{}, len(text), nil)
		if len(m.ToolCalls) > 0 {
			for _, tc := range m.ToolCalls {
				c := Call{ID: tc.ID, Tool: tc.Function.Name, Line: line}
				c.SetArgsField(tc.Function.Arguments)
				b.call(c, r.out)
			}
			return
		}
		if strings.TrimSpace(m.Action) != "" {
			sc.n++
			c := sweActionCall(m.Action, line, sc.n)
			b.call(c, r.out)
			sc.waiting = c.ID
		}
	case "tool":
		ids := m.ToolCallIDs
		if len(ids) == 0 {
			ids = []string{m.ToolCallID}
		}
		for _, id := range ids {
			b.result(id, text, false, line, time.Time{}, r.out)
		}
	default:
		r.out.Problemf(line, "history message has role %q, which SWE-agent does not write; skipped", m.Role)
	}
}

// step reads a trajectory step: one request whose one call is the action,
// answered by the observation.
func (r *sweReader) step(m sweMessage, line int) {
	sc := r.scope("", line)
	b := sc.b
	b.request(line, time.Time{}, len(m.Response), nil)
	if strings.TrimSpace(m.Action) == "" {
		return
	}
	sc.n++
	c := sweActionCall(m.Action, line, sc.n)
	c.Result, c.HasResult, c.ResultLine = m.Observation, true, line
	b.call(c, r.out)
}

// sweActionCall is the call an action line stands for.
func sweActionCall(action string, line, n int) Call {
	action = strings.TrimSpace(action)
	name, _, _ := strings.Cut(action, " ")
	name, _, _ = strings.Cut(name, "\n")
	c := Call{ID: "action-" + strconv.Itoa(n), Tool: name, Line: line}
	c.SetArgsValue(jsonx.Value{Kind: jsonx.Object, Obj: []jsonx.Member{{Key: "action", Val: jsonx.Value{Kind: jsonx.String, Str: action}}}})
	return c
}
