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
//   - The first user message is the task: the only turn. Every later user
//     message comes from the harness: the output of the action before it
//     when one waits, else its own feedback (a format error, a limit), not
//     a turn; the session notes count those.
//   - An assistant message is a request; its action block, when it has
//     one, is a call of the tool "bash" with arguments {"command": <the
//     block>}. Tool calls on the message (tool-calling models) are calls
//     too, answered by tool messages.
//   - A result whose output starts with a non-zero <returncode> is an error.

import (
	"bytes"
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
// miniReturnCode reads the exit status the default observation template
// puts first ("<returncode>1</returncode>"): a non-zero one is an error
// result.
var miniReturnCode = lazyre.New(`^\s*<returncode>(-?\d+)</returncode>`)

var miniAction = lazyre.New("(?s)```(?:bash|mswea_bash_command)\\s*\\n(.*?)\\n```")

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
	feedback, actions := 0, 0
	for i, raw := range a.elems {
		line := a.line(i, h.Line)
		var m struct {
			Role       string           `json:"role"`
			Content    jsonx.RawMessage `json:"content"`
			ToolCalls  []chatToolCall   `json:"tool_calls"`
			ToolCallID string           `json:"tool_call_id"`
		}
		if err := jsonx.Unmarshal(raw, &m); err != nil {
			out.Problemf(line, "message %d is not a chat message (%s); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
			continue
		}
		text, _ := contentText(m.Content)
		switch m.Role {
		case "system":
		case "user":
			switch {
			case len(b.s.Turns) == 0:
				b.turn(line, time.Time{}, len(text))
				keepUserText(b.s, text)
			case waiting != "":
				rc := miniReturnCode.Get().FindStringSubmatch(text)
				b.result(waiting, text, rc != nil && rc[1] != "0", line, time.Time{}, out)
				waiting = ""
			default:
				feedback++
			}
		case "assistant":
			b.request(line, time.Time{}, len(text), nil)
			for _, tc := range m.ToolCalls {
				c := Call{ID: tc.ID, Tool: tc.Function.Name, Line: line}
				c.SetArgsField(tc.Function.Arguments)
				b.call(c, out)
			}
			if len(m.ToolCalls) > 0 {
				continue
			}
			if sub := miniAction.Get().FindStringSubmatch(text); sub != nil {
				actions++
				c := Call{ID: "action-" + strconv.Itoa(actions), Tool: "bash", Line: line}
				c.SetArgsValue(jsonx.Value{Kind: jsonx.Object, Obj: []jsonx.Member{{Key: "command", Val: jsonx.Value{Kind: jsonx.String, Str: sub[1]}}}})
				b.call(c, out)
				waiting = c.ID
			}
		case "tool":
			b.result(m.ToolCallID, text, false, line, time.Time{}, out)
		default:
			out.Problemf(line, "message %d has role %q; skipped", i+1, m.Role)
		}
	}
	if feedback > 0 {
		b.s.Notes = append(b.s.Notes, strconv.Itoa(feedback)+" harness message(s) answering no action (format errors, limits) are not turns")
	}
	b.finish(out)
}
