package cli

// `loopgate hook simulate`: drive transcripts through the live hook as an
// agent would (a prompt per turn, PreToolUse per call, PostToolUse with the
// real result unless the hook stopped the call), then compare every call's
// action with what `loopgate replay` decides under the same rules. It is the
// check that the live guard is the replayed guard (docs/live.md).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/redact"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/rules"
)

func hookSimulateCommand() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "feed transcripts through the hook as the agent would and compare each call's action with replay",
		ArgsUsage: "PATH...",
		Flags: []cli.Flag{
			agentFlag(), rulesFlag, presetFlag, inputFormatFlag,
			&cli.StringFlag{Name: "state-dir", Usage: "state `DIR` for the simulated sessions (default: a temporary directory, removed after)"},
			&cli.BoolFlag{Name: "exec", Usage: "run every hook event through a new 'loopgate hook' process, as the agent does (slower)"},
			&cli.BoolFlag{Name: "verbose", Usage: "list every call, not only those whose actions differ"},
		},
		Action: runHookSimulate,
	}
}

func runHookSimulate(c *cli.Context) error {
	agent := live.Canonical(c.String("agent"))
	if c.String("agent") == "" {
		agent = "claude-code"
	}
	if !slices.Contains(simulatedAgents, agent) {
		return usageError("simulate writes the hook events of %s, not %q", strings.Join(simulatedAgents, ", "), c.String("agent"))
	}
	r, err := loadRules(c)
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usageError("simulate needs transcript PATHs")
	}
	dir := c.String("state-dir")
	if dir == "" {
		if dir, err = os.MkdirTemp("", "loopgate-simulate-"); err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
		defer os.RemoveAll(dir)
	}
	sim := &simulator{agent: agent, rules: r, rulesArgs: hookRulesArgs(c), stateDir: dir, exec: c.Bool("exec")}
	if sim.exec {
		if sim.binary, err = os.Executable(); err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
	}
	var problems int
	files := ingest.Expand(c.Args().Slice(), func(p ingest.Problem) {
		problems++
		fmt.Fprintf(c.App.ErrWriter, "loopgate: %s:%d: %s\n", p.File, p.Line, p.Message)
	})
	if len(files) == 0 {
		return cli.Exit("no transcript found", ExitUsage)
	}
	w := bufio.NewWriter(c.App.Writer)
	defer w.Flush()
	total, differ := 0, 0
	for _, f := range files {
		results, err := sim.file(f, ingest.Options{Format: c.String("input-format")})
		if err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
		for _, res := range results {
			total += len(res.Calls)
			d := res.Differences()
			differ += len(d)
			fmt.Fprintf(w, "%s %s/%s: %d calls, %d as replay\n", res.File, res.Session, res.Agent, len(res.Calls), len(res.Calls)-len(d))
			for _, cc := range res.Calls {
				if c.Bool("verbose") || !cc.Same() {
					fmt.Fprintf(w, "  call %d %s: hook %s, replay %s\n", cc.Index, cc.Tool, cc.Hook, cc.Replay)
				}
			}
		}
	}
	fmt.Fprintf(w, "%d calls, %d with the same action, detector and message as replay, %d differ\n", total, total-differ, differ)
	if differ > 0 {
		w.Flush()
		return cli.Exit("", ExitFindings)
	}
	return nil
}

// hookRulesArgs are the rules flags to pass on to a hook process.
func hookRulesArgs(c *cli.Context) []string {
	if f := c.String("rules"); f != "" {
		return []string{"--rules", f}
	}
	if p := c.String("preset"); p != "" {
		return []string{"--preset", p}
	}
	return nil
}

type simulator struct {
	rules     *rules.Rules
	rulesArgs []string
	stateDir  string
	exec      bool
	binary    string
	// agent is the agent whose events are sent ("": Claude Code).
	agent string
	// shadow runs the hook with --shadow: nothing is stopped, every call
	// runs and its result is logged.
	shadow bool
	// blocks sends each result as a list of one text block, as a Claude
	// Code tool_result's content may be, instead of a string.
	blocks bool
	n      int
}

func (sim *simulator) agentName() string {
	if sim.agent == "" {
		return "claude-code"
	}
	return sim.agent
}

// simVerdict is an action as compared: action, detector, message.
type simVerdict struct {
	Action, Detector, Message string
}

func (v simVerdict) String() string {
	if v.Detector == "" {
		return v.Action
	}
	return v.Action + "/" + v.Detector
}

// simCall is one call's verdict under the hook and under replay.
type simCall struct {
	Index        int
	Tool         string
	Hook, Replay simVerdict
}

// Same reports whether hook and replay agree on the call.
func (c simCall) Same() bool { return c.Hook == c.Replay }

// simSession is one session's calls.
type simSession struct {
	File, Session, Agent string
	Calls                []simCall
}

// Differences lists the calls whose verdicts differ.
func (s simSession) Differences() []simCall {
	var d []simCall
	for _, c := range s.Calls {
		if !c.Same() {
			d = append(d, c)
		}
	}
	return d
}

// file simulates every session of a transcript file.
func (sim *simulator) file(path string, opt ingest.Options) ([]simSession, error) {
	var sessions []*ingest.Session
	ingest.ReadFile(path, opt, &ingest.Sink{OnSession: func(s *ingest.Session) { sessions = append(sessions, s) }})
	counter, _ := tokens.New(tokens.Chars4)
	tc := analyze.NewTokenCache(counter)
	var out []simSession
	for _, s := range sessions {
		res, err := sim.session(s, path, tc)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

func (sim *simulator) session(s *ingest.Session, path string, tc *analyze.TokenCache) (simSession, error) {
	sim.n++
	res := simSession{File: path, Session: s.ID, Agent: s.Agent}
	// Replay first: Prepare keeps the session's texts.
	sr, _ := analyze.Run(analyze.Prepare(s), sim.rules, tc)
	replayed := map[int]simVerdict{}
	for _, d := range sr.Decisions {
		replayed[d.Call] = simVerdict{d.Action.String(), d.Detector, redact.Redact(d.Message)}
	}
	// Each simulated session has a session id of its own: transcripts may
	// share ids (copies, fixtures), and their states must not mix.
	sid := s.ID + "#" + strconv.Itoa(sim.n)
	logFile := filepath.Join(sim.stateDir, "simulate-"+strconv.Itoa(sim.n)+".jsonl")
	agent := sim.agentName()
	transcript := ""
	if s.Format == "claude-code" && (agent == "claude-code" || agent == "qwen-code") {
		if abs, err := filepath.Abs(path); err == nil {
			transcript = abs
		}
	}
	own := s.Format == live.Lookup(agent).Format
	ev := &eventWriter{agent: agent, sid: sid, scope: s.Agent, transcript: transcript, format: s.Format, platform: s.Platform, own: own}
	seen := map[string]int{}
	index, request := 0, 0
	var calls []simCall
	for ti, t := range s.Turns {
		if t.CompactedBefore {
			if c := ev.compaction(); c != nil {
				if _, err := sim.send(c, logFile); err != nil {
					return res, err
				}
			}
		}
		if ti > 0 || t.UserChars > 0 {
			if _, err := sim.send(ev.prompt(), logFile); err != nil {
				return res, err
			}
		}
		for _, rq := range t.Requests {
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
					if _, err := sim.send(ev.post(cc, c.Result, c.IsError, sim.blocks), logFile); err != nil {
						return res, err
					}
				}
				calls = append(calls, simCall{Index: index, Tool: c.Tool, Replay: simVerdictOr(replayed[index])})
			}
		}
	}
	hooked, err := readDecisions(logFile)
	if err != nil {
		return res, err
	}
	for i := range calls {
		calls[i].Hook = simVerdictOr(hooked[calls[i].Index])
	}
	res.Calls = calls
	return res, nil
}

func simVerdictOr(v simVerdict) simVerdict {
	if v.Action == "" || v.Action == "allow" {
		return simVerdict{Action: "allow"}
	}
	return v
}

// send runs one hook event, in this process or in a new one.
func (sim *simulator) send(event []byte, logFile string) ([]byte, error) {
	if !sim.exec {
		cfg := live.Config{Protocol: live.Lookup(sim.agentName()), Rules: sim.rules, StateDir: sim.stateDir, Log: logFile, Shadow: sim.shadow, ContentText: ingest.ContentText}
		reply := live.Handle(cfg, event)
		if reply.Stderr != "" {
			return nil, fmt.Errorf("hook: %s", strings.TrimSpace(reply.Stderr))
		}
		return reply.Stdout, nil
	}
	args := append([]string{"hook", "--agent", sim.agentName(), "--state-dir", sim.stateDir, "--log", logFile}, sim.rulesArgs...)
	if sim.shadow {
		args = append(args, "--shadow")
	}
	cmd := exec.Command(sim.binary, args...)
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
func readDecisions(path string) (map[int]simVerdict, error) {
	out := map[int]simVerdict{}
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
			var l live.DecisionLine
			if jerr := jsonx.Unmarshal(line, &l); jerr != nil {
				return nil, fmt.Errorf("%s: %v", path, jerr)
			}
			if l.Call > 0 && l.Action != "" {
				out[l.Call] = simVerdict{l.Action, l.Detector, l.Message}
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

func (e *eventWriter) prompt() []byte {
	e.turn++
	switch e.agent {
	case "gemini-cli":
		return append(e.geminiHead("BeforeAgent", time.Time{}), `,"prompt":"(the user's message)"}`...)
	case "openhands":
		return append(e.openHandsHead("UserPromptSubmit", "", nil), `,"message":"(the user's message)","tool_response":null}`...)
	case "hermes":
		return append(e.hermesHead("pre_llm_call", "", nil),
			`,"extra":{"turn_id":`+jsonx.Quote(e.turnID())+`,"user_message":"(the user's message)","is_first_turn":`+strconv.FormatBool(e.turn == 1)+`}}`...)
	}
	return append(e.claudeHead("UserPromptSubmit"), `,"prompt":"(the user's message)"}`...)
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
		return append(e.openHandsHead("PostToolUse", c.tool, &c),
			`,"tool_response":{"content":[{"type":"text","text":`+jsonx.Quote(result)+`}],"is_error":`+strconv.FormatBool(isError)+`}}`...)
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

// simulatedAgents are the agents simulate writes events for.
var simulatedAgents = []string{"claude-code", "codex", "gemini-cli", "qwen-code", "openhands", "hermes", "opencode", "pi"}

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
