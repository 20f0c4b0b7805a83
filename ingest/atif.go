package ingest

// ATIF, the Agent Trajectory Interchange Format (Harbor,
// docs/rfcs/0001-trajectory-format.md, ATIF-v1.0 to v1.7): one JSON
// document {"schema_version": "ATIF-v1.x", "session_id", "agent": {name,
// version, model_name}, "steps": [...], "final_metrics"}. A step has a
// source (system, user or agent), a message, and for agent steps
// reasoning_content, tool_calls [{tool_call_id, function_name, arguments}],
// observation {results: [{source_call_id, content}]} and metrics
// {prompt_tokens (cached included), completion_tokens, cached_tokens}.
// hermes' NeMo-Relay exports and Harbor's agents write it. Format
// reference: docs/formats/atif.md.
//
// Readings taken:
//   - A user step opens a turn. An agent step is one request: its text is
//     message plus reasoning_content, its usage the step's metrics, its
//     calls the tool_calls, answered by the results of the same step's
//     observation (by source_call_id; ids repeated within a step, as in a
//     redacted file, are joined in order), else by a later step's.
//   - System steps, and steps of a source the spec does not name, carry no
//     turn or request; the session notes count the latter.
//   - An observation result without source_call_id answers the same
//     step's calls still waiting: results and calls in order when they are
//     as many; one result for several calls is their shared output, given
//     to the step's last call (the others are answered with no text of
//     their own). Harbor's own agents write every result so: Terminus 2
//     omits the id because "all commands share the same terminal output"
//     and the observation "applies to the entire step", and its
//     mini-swe-agent converter adds each command's output to its step as
//     a result without id (laude-institute/harbor src/harbor/agents/
//     terminus_2/terminus_2.py and agents/installed/mini_swe_agent.py, as
//     vendored in refreshdotdev/harbor-trajectories at 22dafa68). In a step
//     with no call, such a result answers none (the spec's non-tool
//     actions and subagent delegations).
//   - Results are errors only in Harbor's conversions of mini-swe-agent
//     runs (atifFailed); ATIF has no error flag.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatATIF = "atif"

func init() {
	register(&Format{
		ID:        formatATIF,
		Family:    "atif",
		Reads:     "ATIF (Agent Trajectory Interchange Format, Harbor) trajectories: schema_version ATIF-v1.x, steps with tool_calls and observation results.",
		Detection: `A JSON object with steps and a schema_version starting with "ATIF".`,
		Priority:  38,
		Sniff: func(h *Head) bool {
			return !h.Array && strings.HasPrefix(h.String("schema_version"), "ATIF") && rawIsArray(h.Keys["steps"])
		},
		ParseDoc: parseATIF,
	})
}

type atifStep struct {
	Source      string           `json:"source"`
	Timestamp   string           `json:"timestamp"`
	ModelName   string           `json:"model_name"`
	Message     jsonx.RawMessage `json:"message"`
	Reasoning   string           `json:"reasoning_content"`
	ToolCalls   []atifToolCall   `json:"tool_calls"`
	Observation *struct {
		Results []struct {
			SourceCallID string           `json:"source_call_id"`
			Content      jsonx.RawMessage `json:"content"`
		} `json:"results"`
	} `json:"observation"`
	Metrics *struct {
		Prompt     *int64 `json:"prompt_tokens"`
		Completion int64  `json:"completion_tokens"`
		Cached     int64  `json:"cached_tokens"`
	} `json:"metrics"`
}

type atifToolCall struct {
	ID        string           `json:"tool_call_id"`
	Name      string           `json:"function_name"`
	Arguments jsonx.RawMessage `json:"arguments"`
}

func parseATIF(doc []byte, h *Head, out *Sink) {
	a, ok := readDocArray(doc, h, out, "steps")
	if !ok {
		return
	}
	var top struct {
		SessionID string `json:"session_id"`
		Agent     struct {
			Name      string `json:"name"`
			ModelName string `json:"model_name"`
			Extra     struct {
				AgentConfig struct {
					FormatError string `json:"format_error_template"`
				} `json:"agent_config"`
			} `json:"extra"`
		} `json:"agent"`
	}
	_ = jsonx.Unmarshal(doc, &top) // members of other types leave their defaults
	failed := atifFailed(top.Agent.Name, top.Agent.Extra.AgentConfig.FormatError)
	s := &Session{Format: formatATIF, ID: top.SessionID, Model: top.Agent.ModelName, Line: a.line(0, h.Line)}
	if s.ID == "" {
		s.ID = fileStem(h.Name)
	}
	b := newSessionBuilder(s, 0)
	b.doc = a.multiLine
	other := map[string]int{}
	// Harbor's conversion of a Codex rollout makes a user step of every
	// role-user message the model was given (codex.py reads response_items
	// only), the context Codex injects as such (AGENTS.md, the
	// environment) among them: those open no turn, as in the Codex reader
	// (codexInjected).
	injected := 0
	for i, raw := range a.elems {
		line := a.line(i, h.Line)
		var st atifStep
		if err := jsonx.Unmarshal(raw, &st); err != nil {
			out.Problemf(line, "step %d is not an ATIF step (%s); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
			continue
		}
		t := parseTime(st.Timestamp)
		text, _ := contentText(st.Message)
		switch st.Source {
		case "user":
			if top.Agent.Name == "codex" && codexInjected(text) {
				injected++
				continue
			}
			b.turn(line, t, len(text))
			keepUserText(b.s, text)
		case "agent":
			atifAgentStep(b, st, text, line, t, failed, out)
		case "system":
		default:
			other[st.Source]++
		}
	}
	s.Notes = append(s.Notes, countNotes(other, `step(s) of source "%s" (not system, user or agent) carry no turn or request; skipped`)...)
	if injected > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d user step(s) of context Codex injects (AGENTS.md, environment) open no turn", injected))
	}
	b.finish(out)
}

func atifAgentStep(b *sessionBuilder, st atifStep, text string, line int, t time.Time, failed func(string) bool, out *Sink) {
	if b.s.Model == "" {
		b.s.Model = st.ModelName
	}
	var u *Usage
	if m := st.Metrics; m != nil && m.Prompt != nil {
		u = &Usage{Input: *m.Prompt, Output: m.Completion, CacheRead: m.Cached}
	}
	b.request(line, t, len(text)+len(st.Reasoning), u)
	ref := b.lastRef()
	calls := make([]Call, len(st.ToolCalls))
	for i, tc := range st.ToolCalls {
		calls[i] = Call{ID: tc.ID, Tool: tc.Name, Time: t, Line: line}
		calls[i].SetArgsField(tc.Arguments)
	}
	// Results of the same step join its calls first, in order for a
	// repeated id; the rest go to calls of earlier steps.
	var later, idless []int
	if st.Observation != nil {
		for ri, res := range st.Observation.Results {
			if res.SourceCallID == "" {
				idless = append(idless, ri)
				continue
			}
			joined := false
			for ci := range calls {
				if calls[ci].ID == res.SourceCallID && !calls[ci].HasResult {
					text, _ := contentText(res.Content)
					calls[ci].Result, calls[ci].HasResult, calls[ci].ResultLine = text, true, line
					calls[ci].IsError = failed(text)
					joined = true
					break
				}
			}
			if !joined {
				later = append(later, ri)
			}
		}
	}
	atifStepResults(calls, st, idless, line, failed)
	for _, c := range calls {
		b.callAt(ref, c, out)
	}
	for _, ri := range later {
		res := st.Observation.Results[ri]
		text, _ := contentText(res.Content)
		b.result(res.SourceCallID, text, failed(text), line, t, out)
	}
}

// atifStepResults answers the step's waiting calls with its results that
// name no call (the idless indexes): in order when they are as many or
// more (the rest answer none), one result shared by several calls goes to
// the last of them and the others get no text. More calls than results,
// for more than one result, pairs in order and leaves the rest waiting.
func atifStepResults(calls []Call, st atifStep, idless []int, line int, failed func(string) bool) {
	if len(idless) == 0 {
		return
	}
	var waiting []int
	for ci := range calls {
		if !calls[ci].HasResult {
			waiting = append(waiting, ci)
		}
	}
	if len(waiting) == 0 {
		return
	}
	if len(idless) == 1 {
		for _, ci := range waiting {
			calls[ci].HasResult, calls[ci].ResultLine = true, line
		}
		text, _ := contentText(st.Observation.Results[idless[0]].Content)
		last := &calls[waiting[len(waiting)-1]]
		last.Result, last.IsError = text, failed(text)
		return
	}
	for i := 0; i < len(idless) && i < len(waiting); i++ {
		text, _ := contentText(st.Observation.Results[idless[i]].Content)
		c := &calls[waiting[i]]
		c.Result, c.HasResult, c.ResultLine = text, true, line
		c.IsError = failed(text)
	}
}

// atifFailed returns how to tell a failed result of the agent named: none
// fails where ATIF marks none (the spec has no error flag). Harbor's conversion
// of a mini-swe-agent run (agent.name "mini-swe-agent") keeps the
// observations as mini-swe-agent wrote them, so they are read as its own
// reader reads them (miniFailed: a non-zero <returncode>, a rejected or
// timed-out command); it also keeps the agent's format_error_template in
// agent.extra.agent_config, and an observation made from it answers a
// reply mini-swe-agent refused without running anything, which Harbor
// still turned into a call of the reply's first command.
//
// Harbor's conversion of a Codex rollout (agent.name "codex",
// laude-institute/harbor src/harbor/agents/installed/codex.py,
// _parse_output_blob) keeps a tool's output text as Codex wrote it, so it
// is read as the Codex reader reads it: a non-zero exit code in the shell
// output's header, a patch that did not apply, or one of the answers Codex
// gives when its own handling of the call fails (codexToolFailure, e.g. a
// code-mode script's "Script failed"). An output Codex wrote as a list of
// content items (the code-mode exec tool's) Harbor keeps as Python's
// str() of the list, "[{'type': 'input_text', 'text': '...'}, ...]": its
// first item's text is what the Codex reader's result begins with.
func atifFailed(agent, formatError string) func(string) bool {
	if agent == "codex" {
		return func(text string) bool {
			if first, ok := pyInputTextHead(text); ok {
				text = first
			}
			return codexExitCode(text) != 0 || strings.HasPrefix(text, codexPatchRejected) || codexToolFailure(text)
		}
	}
	if agent != "mini-swe-agent" {
		return func(string) bool { return false }
	}
	head, _, _ := strings.Cut(formatError, "{{")
	head = strings.TrimSpace(head)
	return func(text string) bool {
		if head != "" && strings.HasPrefix(strings.TrimSpace(text), head) {
			return true
		}
		return miniFailed(text, nil)
	}
}

// pyInputTextPrefix begins Python's str() of a list of content items whose
// first is an input_text item (repr of a dict in insertion order).
const pyInputTextPrefix = "[{'type': 'input_text', 'text': "

// pyInputTextHead returns the text of the first item of Python's str() of
// a list of input_text items: the Python string literal after
// pyInputTextPrefix, unescaped. ok is false when text is not such a list
// or the literal does not end.
func pyInputTextHead(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, pyInputTextPrefix)
	if !ok || rest == "" || (rest[0] != '\'' && rest[0] != '"') {
		return "", false
	}
	quote := rest[0]
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == quote:
			return b.String(), true
		case c != '\\':
			b.WriteByte(c)
		case i+1 < len(rest):
			i++
			switch e := rest[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x', 'u', 'U':
				n := 2
				if e == 'u' {
					n = 4
				} else if e == 'U' {
					n = 8
				}
				if i+n >= len(rest) {
					return "", false
				}
				v, err := strconv.ParseUint(rest[i+1:i+1+n], 16, 32)
				if err != nil {
					return "", false
				}
				b.WriteRune(rune(v))
				i += n
			default: // \\, \', \"
				b.WriteByte(e)
			}
		}
	}
	return "", false
}
