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
//     call: of the action's first word when that is one of SWE-agent's
//     commands (arguments {"action": <the action>}), else of bash
//     (arguments {"command": <the action>}).
//   - A tool message answers each id of tool_call_ids (or its
//     tool_call_id).
//   - Demonstrations put in the history (is_demo, or message_type
//     "demonstration") are the prompt's examples, not the run: skipped,
//     and counted in the notes.
//   - Sub-agents' messages (agent other than the first seen) are their
//     own scope.
//   - A history that ends on a text action waiting (the submit that ended
//     the run) takes its observation from the trajectory's last step when
//     that step's action is the same.

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
	if path == "history" {
		r.lastObservation(doc, h, top)
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
	action  string // that call's action
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
			sc.waiting, sc.action = c.ID, strings.TrimSpace(m.Action)
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

// lastObservation gives the run's last text action its observation when
// the history ends before it: SWE-agent stops once the action submits (or
// exits), and the observation (the submitted diff) is then only in the
// trajectory's last step, whose action is the same.
func (r *sweReader) lastObservation(doc []byte, h *Head, top map[string]jsonx.RawMessage) {
	sc := r.scopes[r.first]
	if sc == nil || sc.waiting == "" || !rawIsArray(top["trajectory"]) {
		return
	}
	a, ok := readDocArray(doc, h, r.out, "trajectory")
	if !ok || len(a.elems) == 0 {
		return
	}
	var st sweMessage
	if err := jsonx.Unmarshal(a.elems[len(a.elems)-1], &st); err != nil || strings.TrimSpace(st.Action) != sc.action {
		return
	}
	sc.b.result(sc.waiting, st.Observation, false, a.line(len(a.elems)-1, h.Line), time.Time{}, r.out)
	sc.waiting = ""
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

// sweCommands are the commands SWE-agent's tool bundles put on the
// shell's PATH: 1.x's tools/*/bin (SWE-agent/SWE-agent at 3ea751c0:
// windowed, windowed_edit_*, search, submit, review_on_submit_m, forfeit,
// edit_anthropic, filemap, image_tools, web_browser) and the functions of
// 0.x's config/commands (defaults.sh, cursors_defaults.sh, search.sh,
// debug.sh, server_connection.sh, decompile.py, disassemble.py, before
// 34f55c7b). A text action starting with any other word is a plain shell
// command line.
var sweCommands = map[string]bool{
	"open": true, "goto": true, "scroll_down": true, "scroll_up": true, "create": true,
	"edit": true, "insert": true, "set_cursors": true,
	"find_file": true, "search_dir": true, "search_file": true,
	"submit": true, "exit_forfeit": true, "str_replace_editor": true, "filemap": true, "view_image": true,
	"decompile": true, "disassemble": true,
	"debug_start": true, "debug_add_breakpoint": true, "debug_continue": true, "debug_step": true,
	"debug_exec": true, "debug_stop": true,
	"connect_start": true, "connect_sendline": true, "connect_exec": true, "connect_stop": true,
	"click_mouse": true, "close_site": true, "double_click_mouse": true, "drag_mouse": true,
	"execute_script_on_page": true, "get_console_output": true, "move_mouse": true,
	"navigate_back": true, "navigate_forward": true, "open_site": true, "press_keys_on_page": true,
	"reload_page": true, "screenshot_site": true, "scroll_on_page": true,
	"set_browser_window_size": true, "type_text": true, "wait_time": true,
}

// sweActionCall is the call an action line stands for. SWE-agent runs
// every text action in its bash session (its commands are programs on the
// PATH), so an action that starts with none of its commands is a call of
// bash with {"command": <the action>}, read as a shell command (rm,
// python, sed -i act; cat, ls observe), as the function-calling configs
// write it; one of its commands is a call of that command with
// {"action": <the action>}.
func sweActionCall(action string, line, n int) Call {
	action = strings.TrimSpace(action)
	name := action
	if i := strings.IndexAny(name, " \t\n"); i >= 0 {
		name = name[:i]
	}
	key := "action"
	if !sweCommands[name] {
		name, key = "bash", "command"
	}
	c := Call{ID: "action-" + strconv.Itoa(n), Tool: name, Line: line}
	str := func(v string) jsonx.Value { return jsonx.Value{Kind: jsonx.String, Str: v} }
	args := []jsonx.Member{{Key: key, Val: str(action)}}
	// The editor's and create's own arguments, as their signatures put
	// them first (tools/edit_anthropic/config.yaml: "str_replace_editor
	// <command> <path> ...", tools/windowed/config.yaml: "create
	// <filename>"), so that a view is read as the look it is and a write
	// names its file, as in the function-calling configs.
	words := strings.Fields(action)
	switch {
	case name == "str_replace_editor" && len(words) >= 3:
		args = append(args, jsonx.Member{Key: "command", Val: str(words[1])}, jsonx.Member{Key: "path", Val: str(unquoteWord(words[2]))})
	case name == "create" && len(words) == 2:
		args = append(args, jsonx.Member{Key: "path", Val: str(unquoteWord(words[1]))})
	}
	c.SetArgsValue(jsonx.Value{Kind: jsonx.Object, Obj: args})
	return c
}

// unquoteWord drops the quotes around a shell word ('a.py', "a.py").
func unquoteWord(w string) string {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		return w[1 : len(w)-1]
	}
	return w
}
