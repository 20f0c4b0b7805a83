package ingest

// mini-swe-agent trajectories (<instance>.traj.json, or last_mini_run.traj.json):
// {"info": {...}, "messages": [...], "trajectory_format": "mini-swe-agent-1"}
// as minisweagent/run/utils/save.py writes them, or, in older versions and
// its test data, the bare messages array. The messages are plain chat
// messages: the model's action is the one fenced code block of its reply
// (```bash ...``` by the default config's action_regex; the
// ```mswea_bash_command fence of some versions), and the harness answers
// with a user message holding the command's output. Format reference:
// docs/formats/mini-swe-agent.md.
//
// Readings taken:
//   - The first user message is the task, a turn. A later user message
//     comes from the harness: the output of the action before it when one
//     waits, else its own feedback (a format error, a limit), not a turn;
//     the session notes count those. One that carries what the person at
//     the keyboard did in interactive mode (miniHuman: an interruption, a
//     rejected command, a new task) is a turn as well, after it answers the
//     action waiting.
//   - An assistant message is a request; its action block, when it has
//     exactly one, is a call of the tool "bash" with arguments {"command":
//     <the block>}: with none or several, mini-swe-agent runs nothing and
//     answers with a format error (DefaultAgent.parse_action in 1.x,
//     models/utils/actions_text.py parse_regex_actions in 2.x, both "not
//     exactly one action"). Tool calls on the message (tool-calling
//     models) are calls too, answered by tool messages.
//   - A 2.x format error (extra.interrupt_type FormatError) stands for a
//     reply the model gave and the harness refused before keeping it: a
//     request with no call.
//   - 2.x's closing "exit" message (agents/default.py: Submitted, a limit,
//     an uncaught exception) answers the call still waiting: the submit
//     command's output went into it, not into an observation.
//   - A result is an error (miniFailed) when the command failed or never
//     ran: the exit status 2.x keeps beside the text (extra.returncode
//     non-zero, extra.exception_info, or the UserRejection of interactive
//     mode), else the status its observation template printed
//     (<returncode>N</returncode>, after an <exception> block in 2.x's
//     default; "returncode": N in the JSON of 2.x's mini.yaml), or 1.x's
//     texts for a rejected or timed-out command.

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

const formatMiniSWEAgent = "mini-swe-agent"

func init() {
	register(&Format{
		ID:        formatMiniSWEAgent,
		Family:    "swe-agent",
		Reads:     "mini-swe-agent trajectories *.traj.json: messages whose assistant replies carry one bash code block and whose user messages carry its output.",
		Detection: `An object whose trajectory_format starts with "mini-swe-agent", or a .traj.json file holding a chat messages array (or an object with messages and info).`,
		Priority:  37,
		Sniff: func(h *Head) bool {
			if strings.HasPrefix(h.String("trajectory_format"), "mini-swe-agent") {
				return true
			}
			if !strings.HasSuffix(h.Name, ".traj.json") {
				return false
			}
			if h.Array {
				return h.Has("role")
			}
			return rawIsArray(h.Keys["messages"]) && rawIsObject(h.Keys["info"])
		},
		ParseDoc: parseMiniSWEAgent,
	})
}

// miniAction finds the action block: a fenced block whose info string is
// bash or mswea_bash_command, as mini-swe-agent's action_regex does.
var miniAction = lazyre.New("(?s)```(?:bash|mswea_bash_command)\\s*\\n(.*?)\\n```")

// miniStatus reads the exit status an observation template printed:
// 1.x's and 2.x's default (<returncode>N</returncode>, after 2.x's
// <exception> block when the command raised) and 2.x's mini.yaml, a JSON
// object ("returncode": N). Both templates put it first.
var miniStatus = lazyre.New(`^\s*(?:<exception>(?s:.*?)</exception>\s*)?(?:<returncode>|\{\s*"returncode":\s*)(-?\d+|None|null)`)

// miniExtra is what mini-swe-agent 2.x keeps beside an observation
// (models/utils/actions_text.py, actions_toolcall.py: returncode,
// exception_info; agents/interactive.py: interrupt_type).
type miniExtra struct {
	Returncode    jsonx.RawMessage `json:"returncode"`
	ExceptionInfo string           `json:"exception_info"`
	InterruptType string           `json:"interrupt_type"`
	ExitStatus    string           `json:"exit_status"`
	ModelResponse jsonx.RawMessage `json:"model_response"`
}

// miniHumanPrefixes start the harness messages that carry the user's own
// input in interactive mode: InteractiveAgent's interruption (Ctrl-C, then
// a comment), rejection of a command in confirm mode, and new task typed
// when the agent wants to finish (minisweagent/agents/interactive.py, 1.x
// "Command ... your command", 2.x "Commands ... your commands", which 2.x
// also marks with extra.interrupt_type).
var miniHumanPrefixes = []string{
	"Interrupted by user: ",
	"The user added a new task: ",
	"Command not executed. The user rejected your command with the following message: ",
	"Commands not executed. The user rejected your commands with the following message: ",
}

// miniHuman reports whether a harness message carries the user's input,
// and what the user said ("" for an interruption with no comment, which
// the agent writes as "Temporary interruption caught.").
func miniHuman(text string, extra *miniExtra) (bool, string) {
	for _, p := range miniHumanPrefixes {
		if said, ok := strings.CutPrefix(text, p); ok {
			if said == "Temporary interruption caught." {
				said = ""
			}
			return true, said
		}
	}
	if extra != nil {
		switch extra.InterruptType {
		case "UserInterruption", "UserNewTask", "UserRejection":
			return true, text
		}
	}
	return false, ""
}

// miniFailed reports whether an observation says its command failed or
// never ran.
func miniFailed(text string, extra *miniExtra) bool {
	if extra != nil {
		if extra.ExceptionInfo != "" || extra.InterruptType == "UserRejection" {
			return true
		}
		if rc := strings.TrimSpace(string(extra.Returncode)); rc != "" && rc != "null" {
			return rc != "0"
		}
	}
	if m := miniStatus.Get().FindStringSubmatch(text); m != nil {
		return m[1] != "0"
	}
	// 1.x's InteractiveAgent ("Command not executed. The user rejected
	// your command ...", 2.x says "Commands") and its default
	// timeout_template ("The last command <command>...</command> timed
	// out and has been killed.").
	return strings.HasPrefix(text, "Command not executed.") || strings.HasPrefix(text, "Commands not executed.") ||
		(strings.HasPrefix(text, "The last command <command>") && strings.Contains(text, "timed out and has been killed"))
}

// miniResponse reads a Responses API reply (its output items): one request,
// its function_call items the calls, whose ids it returns in pending.
func miniResponse(b *sessionBuilder, output jsonx.RawMessage, line int, pending []string, out *Sink) []string {
	var items []struct {
		Type      string           `json:"type"`
		CallID    string           `json:"call_id"`
		ID        string           `json:"id"`
		Name      string           `json:"name"`
		Arguments jsonx.RawMessage `json:"arguments"`
		Content   jsonx.RawMessage `json:"content"`
	}
	_ = jsonx.Unmarshal(output, &items)
	chars := 0
	for _, it := range items {
		if it.Type == "message" {
			t, _ := contentText(it.Content)
			chars += len(t)
		}
	}
	b.request(line, time.Time{}, chars, nil)
	for _, it := range items {
		if it.Type != "function_call" {
			continue
		}
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		c := Call{ID: id, Tool: it.Name, Line: line}
		c.SetArgsField(it.Arguments)
		b.call(c, out)
		pending = append(pending, id)
	}
	return pending
}

func parseMiniSWEAgent(doc []byte, h *Head, out *Sink) {
	var path []string
	if !rawIsArray(bytes.TrimSpace(doc)) {
		path = []string{"messages"}
	}
	a, ok := readDocArray(doc, h, out, path...)
	if !ok {
		return
	}
	b := newSessionBuilder(&Session{Format: formatMiniSWEAgent, ID: strings.TrimSuffix(fileStem(h.Name), ".traj"), Line: a.line(0, h.Line)}, 0)
	b.doc = a.multiLine
	waiting := ""
	var pending []string // the last reply's tool calls still unanswered
	feedback, actions, refused := 0, 0, 0
	for i, raw := range a.elems {
		line := a.line(i, h.Line)
		var m struct {
			Role       string           `json:"role"`
			Content    jsonx.RawMessage `json:"content"`
			ToolCalls  []chatToolCall   `json:"tool_calls"`
			ToolCallID string           `json:"tool_call_id"`
			Extra      *miniExtra       `json:"extra"`
			// The Responses API models' messages (models/
			// litellm_response_model.py and its kin): the reply is the
			// response object (object "response", its output items), a
			// result a function_call_output item.
			Type   string           `json:"type"`
			Object string           `json:"object"`
			Output jsonx.RawMessage `json:"output"`
			CallID string           `json:"call_id"`
		}
		if err := jsonx.Unmarshal(raw, &m); err != nil {
			out.Problemf(line, "message %d is not a chat message (%s); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
			continue
		}
		text, _ := contentText(m.Content)
		if m.Role == "" {
			switch {
			case m.Object == "response" && rawIsArray(m.Output):
				pending = miniResponse(b, m.Output, line, pending[:0], out)
				continue
			case m.Type == "function_call_output":
				text, _ = contentText(m.Output)
				b.result(m.CallID, text, miniFailed(text, m.Extra), line, time.Time{}, out)
				pending = slices.DeleteFunc(pending, func(id string) bool { return id == m.CallID })
				continue
			}
		}
		switch m.Role {
		case "system":
		case "user":
			switch {
			case len(b.s.Turns) == 0:
				b.turn(line, time.Time{}, len(text))
				keepUserText(b.s, text)
			default:
				human, said := miniHuman(text, m.Extra)
				switch {
				case waiting != "":
					b.result(waiting, text, miniFailed(text, m.Extra), line, time.Time{}, out)
					waiting = ""
				case !human:
					feedback++
				}
				if m.Extra != nil && m.Extra.InterruptType == "FormatError" {
					// 2.x parses the reply before keeping it: one it
					// refused (no tool call, no or several action blocks)
					// is not among the messages, only this error. It was
					// a request all the same (info.model_stats.api_calls
					// counts it), with no call.
					said, _ := contentText(m.Extra.ModelResponse)
					b.request(line, time.Time{}, len(said), nil)
					refused++
				}
				if human {
					b.turn(line, time.Time{}, len(said))
					keepUserText(b.s, said)
				}
			}
		case "assistant":
			b.request(line, time.Time{}, len(text), nil)
			pending = pending[:0]
			for _, tc := range m.ToolCalls {
				c := Call{ID: tc.ID, Tool: tc.Function.Name, Line: line}
				c.SetArgsField(tc.Function.Arguments)
				b.call(c, out)
				pending = append(pending, tc.ID)
			}
			if len(m.ToolCalls) > 0 {
				continue
			}
			if subs := miniAction.Get().FindAllStringSubmatch(text, 2); len(subs) == 1 {
				sub := subs[0]
				actions++
				c := Call{ID: "action-" + strconv.Itoa(actions), Tool: "bash", Line: line}
				c.SetArgsValue(jsonx.Value{Kind: jsonx.Object, Obj: []jsonx.Member{{Key: "command", Val: jsonx.Value{Kind: jsonx.String, Str: sub[1]}}}})
				b.call(c, out)
				waiting = c.ID
			}
		case "tool":
			b.result(m.ToolCallID, text, miniFailed(text, m.Extra), line, time.Time{}, out)
			pending = slices.DeleteFunc(pending, func(id string) bool { return id == m.ToolCallID })
		case "exit":
			// 2.x ends the run with an exit message. Submitted comes from
			// the command that submitted, before its output became an
			// observation: the message (the submission) is that call's
			// result. Other statuses (a limit, an uncaught exception) end
			// the run; a call still waiting then failed.
			id := waiting
			if id == "" && len(pending) > 0 {
				id = pending[0]
			}
			if id != "" {
				status := ""
				if m.Extra != nil {
					status = m.Extra.ExitStatus
				}
				b.result(id, text, status != "" && status != "Submitted", line, time.Time{}, out)
				waiting = ""
				pending = slices.DeleteFunc(pending, func(p string) bool { return p == id })
			}
		default:
			out.Problemf(line, "message %d has role %q; skipped", i+1, m.Role)
		}
	}
	if refused > 0 {
		b.s.Notes = append(b.s.Notes, strconv.Itoa(refused)+" model repl(ies) refused for their format (2.x FormatError) read as requests with no call: the reply itself was not kept")
	}
	if feedback > 0 {
		b.s.Notes = append(b.s.Notes, strconv.Itoa(feedback)+" harness message(s) answering no action (format errors, limits) are not turns")
	}
	b.finish(out)
}
