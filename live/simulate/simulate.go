// Package simulate drives transcripts through the live hook as an agent
// would (a prompt per turn, PreToolUse per call, PostToolUse with the real
// result unless the hook stopped the call), then compares every call's
// action with what a replay decides under the same rules: the check that
// the live guard is the replayed guard (docs/live.md, "Equivalence with
// replay"). `loopgate hook simulate` is its command.
//
// It sits beside the hook rather than in it: it reads transcripts (ingest)
// and replays them (analyze), which the hook itself never does.
package simulate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/decisionlog"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/redact"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/rules"
)

// Simulator drives transcripts through the live hook. Its zero value but
// Rules and StateDir sends Claude Code's events to the hook in this
// process.
type Simulator struct {
	Rules *rules.Rules
	// RulesArgs are the rules flags given to a hook process (Exec):
	// "--preset NAME" or "--rules FILE", for the rules of Rules.
	RulesArgs []string
	// StateDir holds the simulated sessions' states and decision logs.
	StateDir string
	// Exec runs every event through a new Binary process ("loopgate
	// hook"), as the agent does.
	Exec   bool
	Binary string
	// OwnBinary says Binary is the hook's own binary (loopgate-hook),
	// which takes the hook's flags without the word hook.
	OwnBinary bool
	// Agent is the agent whose events are sent ("": Claude Code).
	Agent string
	// Shadow runs the hook with --shadow: nothing is stopped, every call
	// runs and its result is logged.
	Shadow bool
	// Blocks sends each result as a list of one text block, as a Claude
	// Code tool_result's content may be, instead of a string.
	Blocks bool
	n      int
	// digest names Rules in the sessions' checkpoints (live.Config's
	// RulesDigest), worked out once: without it every event digested the
	// rules anew, a tenth of a simulated event.
	digest      []byte
	digestRules *rules.Rules
}

// rulesDigest is digest, for the Rules of now.
func (sim *Simulator) rulesDigest() []byte {
	if sim.digestRules != sim.Rules || sim.digest == nil {
		// nil when the rules do not encode: Handle then says so itself.
		sim.digest, _ = live.RulesValueDigest(sim.Rules)
		sim.digestRules = sim.Rules
	}
	return sim.digest
}

func (sim *Simulator) agentName() string {
	if sim.Agent == "" {
		return "claude-code"
	}
	return sim.Agent
}

// Verdict is an action as compared: action, detector, message.
type Verdict struct {
	Action, Detector, Message string
}

func (v Verdict) String() string {
	if v.Detector == "" {
		return v.Action
	}
	return v.Action + "/" + v.Detector
}

// Call is one call's verdict under the hook and under replay.
type Call struct {
	Index        int
	Tool         string
	Hook, Replay Verdict
}

// Same reports whether hook and replay agree on the call.
func (c Call) Same() bool { return c.Hook == c.Replay }

// Session is one session's calls.
type Session struct {
	File, Session, Agent string
	Calls                []Call
}

// Differences lists the calls whose verdicts differ.
func (s Session) Differences() []Call {
	var d []Call
	for _, c := range s.Calls {
		if !c.Same() {
			d = append(d, c)
		}
	}
	return d
}

// file simulates every session of a transcript file.
func (sim *Simulator) File(path string, opt ingest.Options) ([]Session, error) {
	var sessions []*ingest.Session
	ingest.ReadFile(path, opt, &ingest.Sink{OnSession: func(s *ingest.Session) { sessions = append(sessions, s) }})
	counter, _ := tokens.New(tokens.Chars4)
	tc := analyze.NewTokenCache(counter)
	var out []Session
	for _, s := range sessions {
		res, err := sim.session(s, path, tc)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

func (sim *Simulator) session(s *ingest.Session, path string, tc *analyze.TokenCache) (Session, error) {
	sim.n++
	res := Session{File: path, Session: s.ID, Agent: s.Agent}
	// Replay first: Prepare keeps the session's texts.
	sr, _ := analyze.Run(analyze.Prepare(s), sim.Rules, tc)
	replayed := map[int]Verdict{}
	for _, d := range sr.Decisions {
		replayed[d.Call] = Verdict{d.Action.String(), d.Detector, redact.Redact(d.Message)}
	}
	// Each simulated session has a session id of its own: transcripts may
	// share ids (copies, fixtures), and their states must not mix.
	sid := s.ID + "#" + strconv.Itoa(sim.n)
	logFile := filepath.Join(sim.StateDir, "simulate-"+strconv.Itoa(sim.n)+".jsonl")
	agent := sim.agentName()
	transcript := ""
	// Claude Code's and Codex's events name the session's transcript:
	// the hook reads call times and requests (Claude Code) and a shell
	// command's exit code (Codex) there.
	if s.Format == "claude-code" && (agent == "claude-code" || agent == "qwen-code") || s.Format == "codex" && agent == "codex" {
		if abs, err := filepath.Abs(path); err == nil {
			transcript = abs
		}
	}
	own := s.Format == live.Lookup(agent).Format
	// The result as the agent hands it to its hooks (Codex: the output
	// without its header), which replay's guard reads too.
	hookResult := ingest.HookResultOf(s.Format)
	ev := &eventWriter{agent: agent, sid: sid, scope: s.Agent, transcript: transcript, format: s.Format, platform: s.Platform, own: own}
	seen := map[string]int{}
	index, request := 0, 0
	var calls []Call
	for ti, t := range s.Turns {
		if t.CompactedBefore {
			if c := ev.compaction(); c != nil {
				if _, err := sim.send(c, logFile); err != nil {
					return res, err
				}
			}
		}
		// A turn that opens at a compaction's summary (Continued) has no
		// user's message: the agent sends no prompt event for it.
		if (ti > 0 || t.UserChars > 0) && !t.Continued {
			if _, err := sim.send(ev.prompt(t.UserText), logFile); err != nil {
				return res, err
			}
		}
		// A notice (ingest.Notice) is sent as the prompt event replay
		// hears it as, before the request after it.
		notices := t.Notices
		notice := func(upTo int) error {
			for len(notices) > 0 && notices[0].Request <= upTo {
				// A compaction inside the turn is sent as the compaction
				// event replay hears it as.
				if notices[0].Compaction {
					if c := ev.compaction(); c != nil {
						if _, err := sim.send(c, logFile); err != nil {
							return err
						}
					}
				} else if _, err := sim.send(ev.prompt(notices[0].Text), logFile); err != nil {
					return err
				}
				notices = notices[1:]
			}
			return nil
		}
		for ri, rq := range t.Requests {
			if err := notice(ri); err != nil {
				return res, err
			}
			request++
			for _, c := range rq.Calls {
				index++
				id := c.ID
				if id == "" {
					id = "call-" + strconv.Itoa(index)
				}
				if seen[id]++; seen[id] > 1 {
					id += "#" + strconv.Itoa(seen[id])
				}
				cc := callEvent{id: id, tool: c.Tool, argsOK: c.ArgsOK, args: c.ArgsRaw, time: c.Time, request: "r" + strconv.Itoa(request)}
				reply, err := sim.send(ev.pre(cc), logFile)
				if err != nil {
					return res, err
				}
				if !denied(reply) {
					result := c.Result
					if hookResult != nil && c.HasResult {
						result = hookResult(result)
					}
					cc.exit = int(c.ExitCode)
					if _, err := sim.send(ev.post(cc, result, c.IsError, sim.Blocks), logFile); err != nil {
						return res, err
					}
				}
				calls = append(calls, Call{Index: index, Tool: c.Tool, Replay: verdictOr(replayed[index])})
			}
		}
		if err := notice(len(t.Requests)); err != nil {
			return res, err
		}
	}
	hooked, err := readDecisions(logFile)
	if err != nil {
		return res, err
	}
	for i := range calls {
		calls[i].Hook = verdictOr(hooked[calls[i].Index])
	}
	res.Calls = calls
	return res, nil
}

func verdictOr(v Verdict) Verdict {
	if v.Action == "" || v.Action == "allow" {
		return Verdict{Action: "allow"}
	}
	return v
}

// send runs one hook event, in this process or in a new one.
func (sim *Simulator) send(event []byte, logFile string) ([]byte, error) {
	if !sim.Exec {
		cfg := live.Config{Protocol: live.Lookup(sim.agentName()), Rules: sim.Rules, RulesDigest: sim.rulesDigest(), StateDir: sim.StateDir, Log: logFile, Shadow: sim.Shadow, ContentText: ingest.ContentText,
			Results: live.ResultReading{Envelope: ingest.EnvelopeOf, Failed: ingest.ResultFailed, Outcomes: ingest.ClineOutcomes}}
		reply := live.Handle(cfg, event)
		if reply.Stderr != "" {
			return nil, fmt.Errorf("hook: %s", strings.TrimSpace(reply.Stderr))
		}
		return reply.Stdout, nil
	}
	args := append([]string{"hook", "--agent", sim.agentName(), "--state-dir", sim.StateDir, "--log", logFile}, sim.RulesArgs...)
	if sim.OwnBinary {
		args = args[1:]
	}
	if sim.Shadow {
		args = append(args, "--shadow")
	}
	cmd := exec.Command(sim.Binary, args...)
	cmd.Stdin = bytes.NewReader(event)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		return nil, fmt.Errorf("hook process: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// readDecisions reads a decision log: each call's latest verdict, by index.
func readDecisions(path string) (map[int]Verdict, error) {
	out := map[int]Verdict{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out, nil // a session without calls or prompts
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			l, jerr := decisionlog.Decode(line)
			if jerr != nil {
				return nil, fmt.Errorf("%s: %v", path, jerr)
			}
			if l.Call > 0 && l.Action != "" {
				out[l.Call] = Verdict{l.Action, l.Detector, l.Message}
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// eventWriter writes one agent's hook events for a session (docs/live.md,
// "Equivalence with replay"): the members the agent itself sends, and for
// a transcript of another agent's format (which the agent could not have
// written) the simulation's hints too: the format and platform
// (loopgate_format, loopgate_platform: replay runs a session under
// rules.ForSession of them), the call's time and model request
// (timestamp, loopgate_request) and arguments that are not JSON
// (tool_input_raw).
type eventWriter struct {
	// agent is the agent whose events are written (canonical name).
	agent              string
	sid, scope, source string
	transcript         string
	// format and platform of the transcript; own: the transcript is of
	// the agent's own format, and the events hold only what it sends.
	format, platform string
	own              bool
	turn             int
}

type callEvent struct {
	id, tool, args, request string
	argsOK                  bool
	time                    time.Time
	// exit is the exit code the transcript records apart from the result
	// (ingest.Call.ExitCode), which the OpenCode plugin and OpenHands'
	// observation send.
	exit int
}

func (e *eventWriter) turnID() string { return "turn-" + strconv.Itoa(e.turn) }

// hints are the simulation's members for a transcript of another format.
func (e *eventWriter) hints(b []byte) []byte {
	if e.own {
		return b
	}
	if e.format != "" {
		b = append(b, `,"loopgate_format":`+jsonx.Quote(e.format)...)
	}
	if e.platform != "" {
		b = append(b, `,"loopgate_platform":`+jsonx.Quote(e.platform)...)
	}
	return b
}

// subagent is the agent id the agent sends with a subagent's events: a
// scope named by the transcript's own agent id (a Claude Code sidechain
// without one, "sidechain-…", was written by a CLI that sends none).
func (e *eventWriter) subagent() string {
	if e.scope == "" || e.scope == "main" || strings.HasPrefix(e.scope, "sidechain-") {
		return ""
	}
	return e.scope
}

func (e *eventWriter) claudeHead(name string) []byte {
	b := []byte(`{"hook_event_name":` + jsonx.Quote(name) + `,"session_id":` + jsonx.Quote(e.sid))
	switch e.agent {
	case "codex":
		b = append(b, `,"turn_id":`+jsonx.Quote(e.turnID())...)
	case "opencode", "pi":
		// The plugin sends the session and the event only.
		return e.hints(b)
	}
	if e.transcript != "" {
		b = append(b, `,"transcript_path":`+jsonx.Quote(e.transcript)...)
	}
	b = append(b, `,"cwd":"/"`...)
	if a := e.subagent(); a != "" && e.agent != "qwen-code" {
		b = append(b, `,"agent_id":`+jsonx.Quote(a)...)
	}
	return e.hints(b)
}

// prompt is the agent's event of a user's message of this text: the
// turn's text as its reader kept it (ingest.Turn.UserText), which replay's
// guard reads too. Where the reader kept none, the event carries none
// either, and the hook, as replay, takes the message to name anything.
// But Qwen Code's blank prompt is no prompt at all (live's parseQwen): it
// gets a placeholder, with the hint that its text is not known
// (loopgate_prompt_unknown) for a transcript of another format; on Qwen
// Code's own transcripts the placeholder stands, as the agent always sends
// a text that its transcript's reader may not keep (scope.reset:
// mentioned then shows the difference).
func (e *eventWriter) prompt(text string) []byte {
	e.turn++
	unknown := false
	if text == "" && e.agent == "qwen-code" {
		text, unknown = "(the user's message)", !e.own
	}
	q := jsonx.Quote(text)
	if unknown {
		q += `,"loopgate_prompt_unknown":true`
	}
	switch e.agent {
	case "gemini-cli":
		return append(e.geminiHead("BeforeAgent", time.Time{}), `,"prompt":`+q+`}`...)
	case "openhands":
		return append(e.openHandsHead("UserPromptSubmit", "", nil), `,"message":`+q+`,"tool_response":null}`...)
	case "hermes":
		return append(e.hermesHead("pre_llm_call", "", nil),
			`,"extra":{"turn_id":`+jsonx.Quote(e.turnID())+`,"user_message":`+q+`,"is_first_turn":`+strconv.FormatBool(e.turn == 1)+`}}`...)
	}
	return append(e.claudeHead("UserPromptSubmit"), `,"prompt":`+q+`}`...)
}

// compaction is the agent's compaction event (nil: the agent has none a
// hook sees).
func (e *eventWriter) compaction() []byte {
	switch e.agent {
	case "claude-code":
		return append(e.claudeHead("SessionStart"), `,"source":"compact"}`...)
	case "qwen-code", "codex":
		return append(e.claudeHead("PreCompact"), `,"trigger":"auto"}`...)
	}
	// Gemini CLI's PreCompress fires before every model request, and the
	// hook does not take it for a compaction (live's parseGemini).
	return nil
}

// args are a call's arguments as the agent sends them: JSON, or (the
// simulation's hint) text that is not JSON.
func (e *eventWriter) args(b []byte, c callEvent) []byte {
	if c.argsOK {
		return append(append(b, `,"tool_input":`...), c.args...)
	}
	if e.own {
		return append(b, `,"tool_input":{}`...)
	}
	return append(b, `,"tool_input_raw":`+jsonx.Quote(c.args)...)
}

// callHints are the call's time and request, for a transcript of another
// format.
func (e *eventWriter) callHints(b []byte, c callEvent) []byte {
	if e.own {
		return b
	}
	if !c.time.IsZero() {
		b = append(b, `,"timestamp":`+jsonx.Quote(c.time.UTC().Format(time.RFC3339Nano))...)
	}
	return append(b, `,"loopgate_request":`+jsonx.Quote(c.request)...)
}

func (e *eventWriter) claudeCall(name string, c callEvent) []byte {
	b := append(e.claudeHead(name), `,"tool_name":`+jsonx.Quote(c.tool)+`,"tool_use_id":`+jsonx.Quote(c.id)...)
	if e.agent == "qwen-code" && !c.time.IsZero() {
		b = append(b, `,"timestamp":`+jsonx.Quote(c.time.UTC().Format(time.RFC3339Nano))...)
	}
	return e.callHints(e.args(b, c), c)
}

func (e *eventWriter) geminiHead(name string, t time.Time) []byte {
	b := []byte(`{"hook_event_name":` + jsonx.Quote(name) + `,"session_id":` + jsonx.Quote(e.sid) + `,"cwd":"/"`)
	if !t.IsZero() {
		// Gemini CLI stamps every event with the time it fires.
		b = append(b, `,"timestamp":`+jsonx.Quote(t.UTC().Format(time.RFC3339Nano))...)
	}
	return e.hints(b)
}

func (e *eventWriter) openHandsHead(name, tool string, c *callEvent) []byte {
	b := []byte(`{"event_type":` + jsonx.Quote(name) + `,"session_id":` + jsonx.Quote(e.sid) + `,"working_dir":"/","metadata":{}`)
	if c != nil {
		b = append(b, `,"tool_name":`+jsonx.Quote(tool)...)
		b = e.args(b, *c)
		b = e.callHints(b, *c)
	}
	return e.hints(b)
}

func (e *eventWriter) hermesHead(name, tool string, c *callEvent) []byte {
	b := []byte(`{"hook_event_name":` + jsonx.Quote(name) + `,"session_id":` + jsonx.Quote(e.sid) + `,"cwd":"/","profile":"default"`)
	if c != nil {
		b = append(b, `,"tool_name":`+jsonx.Quote(tool)...)
		b = e.args(b, *c)
		b = e.callHints(b, *c)
	}
	return e.hints(b)
}

func (e *eventWriter) hermesExtra(c callEvent) string {
	return `"tool_call_id":` + jsonx.Quote(c.id) + `,"turn_id":` + jsonx.Quote(e.turnID()) + `,"task_id":` + jsonx.Quote(e.sid)
}

func (e *eventWriter) pre(c callEvent) []byte {
	switch e.agent {
	case "gemini-cli":
		b := append(e.geminiHead("BeforeTool", c.time), `,"tool_name":`+jsonx.Quote(c.tool)...)
		return append(e.callHints(e.args(b, c), c), '}')
	case "openhands":
		return append(e.openHandsHead("PreToolUse", c.tool, &c), `,"tool_response":null}`...)
	case "hermes":
		return append(e.hermesHead("pre_tool_call", c.tool, &c), `,"extra":{`+e.hermesExtra(c)+`}}`...)
	}
	return append(e.claudeCall("PreToolUse", c), '}')
}

func (e *eventWriter) post(c callEvent, result string, isError, blocks bool) []byte {
	switch e.agent {
	case "gemini-cli":
		b := append(e.geminiHead("AfterTool", c.time), `,"tool_name":`+jsonx.Quote(c.tool)...)
		b = e.callHints(e.args(b, c), c)
		b = append(b, `,"tool_response":{"llmContent":`+jsonx.Quote(result)+`,"returnDisplay":`+jsonx.Quote(result)...)
		if isError {
			b = append(b, `,"error":{"message":`+jsonx.Quote(result)+`}`...)
		}
		return append(b, "}}"...)
	case "openhands":
		b := append(e.openHandsHead("PostToolUse", c.tool, &c),
			`,"tool_response":{"content":[{"type":"text","text":`+jsonx.Quote(result)+`}],"is_error":`+strconv.FormatBool(isError)...)
		if c.exit != 0 {
			// A terminal observation's exit code (is_error above is the
			// reader's reading of it).
			b = append(b, `,"exit_code":`+strconv.Itoa(c.exit)...)
		}
		return append(b, "}}"...)
	case "hermes":
		status, errType := `"ok"`, "null"
		if isError {
			status, errType = `"error"`, `"error"`
		}
		return append(e.hermesHead("post_tool_call", c.tool, &c), `,"extra":{`+e.hermesExtra(c)+`,"result":`+jsonx.Quote(result)+
			`,"status":`+status+`,"error_type":`+errType+`}}`...)
	case "codex":
		// Codex's PostToolUse has no error member and no failure event.
		return append(e.claudeCall("PostToolUse", c), `,"tool_response":`+jsonx.Quote(result)+`}`...)
	case "opencode", "pi":
		b := append(e.claudeCall("PostToolUse", c), `,"tool_response":`+jsonx.Quote(result)...)
		if isError {
			b = append(b, `,"is_error":true`...)
		}
		if c.exit != 0 && e.agent == "opencode" {
			b = append(b, `,"exit_code":`+strconv.Itoa(c.exit)...)
		}
		return append(b, '}')
	}
	if isError {
		return append(e.claudeCall("PostToolUseFailure", c), `,"error":`+jsonx.Quote(result)+`}`...)
	}
	if blocks {
		return append(e.claudeCall("PostToolUse", c), `,"tool_response":[{"type":"text","text":`+jsonx.Quote(result)+`}]}`...)
	}
	return append(e.claudeCall("PostToolUse", c), `,"tool_response":`+jsonx.Quote(result)+`}`...)
}

// Agents are the agents simulate writes events for.
var Agents = []string{"claude-code", "codex", "gemini-cli", "qwen-code", "openhands", "hermes", "opencode", "pi"}

// denied reports whether an answer keeps the call from running, in any
// agent's words.
func denied(reply []byte) bool {
	for _, w := range []string{`"permissionDecision":"deny"`, `"decision":"deny"`, `"decision":"block"`, `"block":true`} {
		if bytes.Contains(reply, []byte(w)) {
			return true
		}
	}
	return false
}
