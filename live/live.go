// Package live runs loopgate's guard inside a running agent: `loopgate hook`
// is the command that Claude Code, Codex, Gemini CLI, hermes-agent,
// OpenHands, Cursor and Cline run before and after each tool call. It reads
// one hook event, decides with the same Guard that replay runs (package
// analyze/guard), answers in the agent's protocol (agents.go), and keeps each
// session's state in a state directory (state.go), file-locked because the
// hooks of parallel calls run at the same moment.
//
// The package depends on the guard engine and the rules only: it knows no
// transcript format (beyond the few members of a Claude Code transcript
// line that give a call its time and model request, transcript.go) and no
// report.
package live

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// Config is how the hook runs.
type Config struct {
	Protocol *Protocol
	Rules    *rules.Rules
	// RulesText is what Rules were parsed from (SourceText), when known:
	// a session's checkpoint is tagged with its digest, and
	// otherwise with a digest of Rules' every setting, which costs more
	// (encoding/json's first use in a process; docs/performance.md,
	// "The live hook").
	RulesText []byte
	// RulesDigest is RulesDigest(RulesText) when the caller has it (the
	// rules cache is named by it): the text is then not digested again.
	RulesDigest []byte
	// RulesName names the rules in the decision log.
	RulesName string
	StateDir  string
	// Shadow: never block or steer; only record what the guard would do.
	Shadow bool
	// Log is the decision log (JSONL) to append to; "" for none.
	Log string
	// TTL: sessions untouched this long are removed (0: never).
	TTL time.Duration
	// LockWait bounds the wait for a session's lock.
	LockWait time.Duration
	// NoCheckpoint: rebuild every session from its log alone, neither
	// reading nor writing checkpoints (checkpoint.go).
	NoCheckpoint bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// ContentText reads a result given as a list of content blocks (a
	// Claude Code tool_result's content) as the transcript readers read
	// it (ingest.ContentText); nil keeps the blocks' JSON text.
	ContentText func(raw []byte) string
	// Results reads a result's text as the agent's transcript reader
	// does (its envelope, an error its text reports): results.go. The
	// zero value reads the text as it is.
	Results ResultReading
}

// SourceText is Config.RulesText of rules parsed from text under the
// source name given to rules.Parse.
func SourceText(source string, text []byte) []byte {
	return append([]byte(source+"\x00"), text...)
}

// RulesDigest is the digest of a rules text (SourceText) that names its
// cached rules (CachedRules) and tags a session's checkpoints: digested
// once for both, as a preset's text is tens of kilobytes.
func RulesDigest(text []byte) []byte {
	sum := sha256.Sum256(text)
	return sum[:]
}

// PresetDigest is RulesDigest(text) of a built-in preset's text
// (SourceText("preset:"+name, rules.PresetText(name))), taken from a table
// written at development time (preset_digests.go) when the text is the one
// the table was made from: SHA-256 of a preset's tens of kilobytes was a
// fifteenth of a hook call's instructions (docs/performance.md, "The live
// hook, every preset"). The text's length and CRC-32, which cost a
// fiftieth of that, guard against a table left stale: any other text is
// digested.
func PresetDigest(name string, text []byte) []byte {
	for _, d := range presetDigests {
		if d.name == name && len(text) == d.size && crc32.ChecksumIEEE(text) == d.crc {
			sum := d.sha256
			return sum[:]
		}
	}
	return RulesDigest(text)
}

// presetDigest is a preset's entry in presetDigests.
type presetDigest struct {
	name   string
	size   int
	crc    uint32
	sha256 [sha256.Size]byte
}

// rulesDigest is RulesDigest(c.RulesText), nil when the text is not known.
func (c *Config) rulesDigest() []byte {
	if c.RulesDigest != nil || c.RulesText == nil {
		return c.RulesDigest
	}
	return RulesDigest(c.RulesText)
}

// Reply is the hook's answer: what to write on stdout and stderr, and the
// exit status.
type Reply struct {
	Stdout []byte
	Stderr string
	Exit   int
}

// Handle decides one hook event. It never fails: whatever goes wrong (a
// malformed event, unreadable state, an internal error, a panic), the call
// is allowed, and the problem is said on stderr and in the decision log.
func Handle(cfg Config, input []byte) (reply Reply) {
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	dl := &decisionLog{path: cfg.Log, shadow: cfg.Shadow, rules: cfg.RulesName, now: now}
	if cfg.Protocol != nil {
		dl.agent = cfg.Protocol.Agent
	}
	defer func() {
		if p := recover(); p != nil {
			reply = failOpen(dl, fmt.Sprintf("internal error: %v", p))
		}
	}()
	if cfg.Protocol == nil || cfg.Rules == nil {
		return failOpen(dl, "hook not configured (no agent or no rules)")
	}
	ev, err := cfg.Protocol.ParseEvent(input)
	if err != nil {
		return failOpen(dl, err.Error())
	}
	if ev.Kind == KindOther || ev.Kind == KindStart && ev.Source != "compact" {
		return Reply{}
	}
	if ev.resultBlocks != nil && cfg.ContentText != nil {
		ev.Result = cfg.ContentText(ev.resultBlocks)
	}
	if ev.Kind == KindPost && cfg.Protocol.resultFacts != nil {
		cfg.Protocol.resultFacts(&ev)
	}
	cfg.Results.readOutcomes(&ev)
	cfg.Results.readError(&ev)
	h := &hook{cfg: cfg, ev: &ev, dl: dl, now: now}
	a, notes, err := h.run()
	if err != nil {
		return failOpen(dl, err.Error())
	}
	reply.Stderr = strings.Join(notes, "\n")
	if reply.Stderr != "" {
		reply.Stderr = "loopgate: " + strings.ReplaceAll(reply.Stderr, "\n", "\nloopgate: ") + "\n"
		for _, n := range notes {
			dl.problem(&ev, n)
		}
	}
	if cfg.Shadow {
		a = Answer{}
	}
	reply.Stdout = cfg.Protocol.reply(&ev, a)
	if err := dl.flush(); err != nil {
		reply.Stderr += "loopgate: decision log: " + err.Error() + "\n"
	}
	return reply
}

// failOpen allows the call and says why on stderr and in the log.
func failOpen(dl *decisionLog, msg string) Reply {
	dl.problem(nil, msg)
	r := Reply{Stderr: "loopgate: " + msg + " (allowed: the hook fails open)\n"}
	if err := dl.flush(); err != nil {
		r.Stderr += "loopgate: decision log: " + err.Error() + "\n"
	}
	return r
}

// hook is one hook call.
type hook struct {
	cfg Config
	ev  *Event
	dl  *decisionLog
	now func() time.Time
	idx *txIndex // the transcript's index, once read
	// call is the event's call as the log keeps it, once read (callOf).
	call *record
}

func (h *hook) run() (Answer, []string, error) {
	cfg, ev := h.cfg, h.ev
	if err := ensureDir(cfg.StateDir); err != nil {
		return Answer{}, nil, fmt.Errorf("state directory: %w", err)
	}
	expire(cfg.StateDir, cfg.TTL, h.now())
	files := filesOf(cfg.StateDir, ev.Session)
	wait := cfg.LockWait
	if wait <= 0 {
		wait = 5 * time.Second
	}
	lock, err := lockFile(files.lock, wait)
	if err != nil {
		return Answer{}, nil, fmt.Errorf("state lock: %w", err)
	}
	defer unlock(lock)
	t := h.now()
	os.Chtimes(files.lock, t, t) // expiry reads the files' times

	var notes []string
	// A call's time, request and scope from the transcript (Claude Code).
	var tx txCall
	haveTx := false
	if ev.Transcript != "" && ev.CallID != "" && (ev.Kind == KindPre || ev.Kind == KindPost) {
		idx := loadIndex(files.index)
		h.idx = idx
		if _, ok := idx.calls[ev.CallID]; !ok {
			if err := idx.update(files.index, ev.Transcript); err != nil && !errors.Is(err, os.ErrNotExist) {
				notes = append(notes, "transcript: "+err.Error())
			}
		}
		tx, haveTx = idx.calls[ev.CallID]
	}
	scope := ev.Agent
	if scope == "" && haveTx {
		scope = tx.agent
	}
	if scope == "" {
		scope = "main"
	}
	logPath := files.log(scope)
	tag := ""
	if !cfg.NoCheckpoint {
		tag, _ = checkpointTag(cfg.Rules, cfg.rulesDigest(), ev.Format, ev.Platform) // "": no checkpoint
	}
	fresh := func() *session { return newSession(cfg.Rules, ev.Format, ev.Platform) }
	s, pos, problems, err := openSession(logPath, fresh, tag)
	if err != nil {
		return Answer{}, notes, fmt.Errorf("session state: %w", err)
	}
	notes = append(notes, problems...)
	h.dl.session, h.dl.scope = ev.Session, scope

	var out []byte
	apply := func(rec *record) effect {
		out = rec.encode(out)
		return s.apply(rec)
	}
	var a Answer
	turn, newTurn := ev.TurnID, ev.TurnID != "" && ev.Kind == KindPre && ev.TurnID != s.turn
	if !newTurn && ev.Kind == KindPre && newRun(s, ev) {
		turn, newTurn = runTurn(ev), true
	}
	if newTurn {
		// The agent's turn id changed with no prompt event seen (hermes
		// without its pre_llm_call hook, a Codex turn the hook missed the
		// prompt of), or a Cline CLI run began before its start reached
		// the hook (newRun): a new turn, as a prompt would start it. What
		// waited for a prompt's answer waits on.
		carry := s.pending
		eff := apply(&record{kind: 'P', id: turn})
		h.dl.event(ev, "prompt", nil)
		a.Context = h.roundContext(eff)
		if carry != "" {
			apply(&record{kind: 'S', result: carry})
		}
	}
	switch ev.Kind {
	case KindPrompt:
		if lateRunStart(s, ev) {
			// Its turn began at the run's first call: a second one would
			// count the turn twice and forget what the run has seen.
			break
		}
		// The prompt's answer shows what waited (Protocol.Deferred).
		waiting := s.pending
		eff := apply(s.promptRecord(ev.TurnID, ev.Prompt))
		h.dl.event(ev, "prompt", nil)
		a.Context = joinContext(waiting, h.roundContext(eff))
	case KindCompact:
		apply(&record{kind: 'C'})
		h.dl.event(ev, "compaction", nil)
	case KindStop:
		if s.last != nil && !s.last.ended {
			eff := apply(&record{kind: 'E', id: s.last.id})
			a.Context = h.roundContext(eff)
		}
	case KindPre:
		pre := h.pre(s, apply, tx, haveTx)
		pre.Context = joinContext(a.Context, pre.Context)
		a = pre
	case KindPost:
		a = h.post(s, apply)
	}
	if cfg.Protocol.Deferred && ev.Kind != KindPrompt {
		// The agent shows no context during a turn: a steer waits for the
		// next prompt's answer, or for the reason of a call denied before
		// it, the first words the model reads from the hook.
		if a.Context != "" {
			apply(&record{kind: 'S', result: a.Context})
			a.Context = ""
		}
		if a.Deny && s.pending != "" {
			a.Reason = joinContext(a.Reason, s.pending)
			apply(&record{kind: 'D'})
		}
	}
	// A log read empty (pos.size 0) is a scope's first: its name joins
	// the session's list of scopes once its first lines are written.
	newScope := len(out) > 0 && pos.size == 0
	if err := appendLines(logPath, out); err != nil {
		return Answer{}, notes, fmt.Errorf("session state: %w", err)
	}
	if newScope {
		if err := appendLines(files.agents, []byte(filepath.Base(logPath)+"\n")); err != nil {
			notes = append(notes, "session state: "+err.Error())
		}
	}
	if ev.Kind == KindPre && !a.Deny || ev.Kind == KindPost {
		if err := h.tellOthers(files, logPath, s); err != nil {
			notes = append(notes, "other agents of the session: "+err.Error())
		}
	}
	if tag != "" && pos.whole && len(out) > 0 {
		var refused *refusedFile
		if err := h.saveCheckpoint(logPath, tag, pos, out, problems, s); errors.As(err, &refused) {
			notes = append(notes, "snapshot not written: "+err.Error())
		}
	}
	// Under the lock, so that a session's lines keep their order.
	if err := h.dl.flush(); err != nil {
		notes = append(notes, "decision log: "+err.Error())
	}
	return a, notes, nil
}

// tellOthers writes the call of this hook event to the logs of the
// session's other agent scopes (an O record), when it may change what they
// observed (guard.ActsForOthers): subagents run beside each other and
// beside the main agent, on the same files, and a sibling's write into a
// directory makes another agent's earlier listing of it stale. It is told
// as the call starts and again as it ends, as replay hears another agent's
// call at its start and end. A result event that does not repeat the
// call's input tells nothing (its start was told). Under the session's
// lock.
func (h *hook) tellOthers(files sessionFiles, own string, s *session) error {
	if h.ev.Tool == "" || len(h.ev.Input) == 0 {
		return nil
	}
	tool, args, ok := h.callOf()
	if !guard.ActsForOthers(s.gr, &guard.CallEvent{Tool: tool, ArgsOK: ok, ArgsRaw: args}) {
		return nil
	}
	list, err := os.ReadFile(files.agents)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	rec := (&record{kind: 'O', tool: tool, argsOK: ok, args: args}).encode(nil)
	self := filepath.Base(own)
	for name := range strings.SplitSeq(string(list), "\n") {
		// Only the names this hook writes: a scope log of this session.
		if name == "" || name == self || !strings.HasPrefix(name, files.base+".") || !strings.HasSuffix(name, ".log") || strings.ContainsAny(name, "/\\") {
			continue
		}
		if err := appendLines(filepath.Join(files.dir, name), rec); err != nil {
			return err
		}
	}
	return nil
}

// saveCheckpoint writes the session's checkpoint as covering the log read
// (pos) and the lines just appended (out). It is best effort: when it
// cannot be written (a call in flight, a full disk), the checkpoint before
// stays, and the next call applies more of the log; the caller says so
// only when the checkpoint file was refused (refusedFile).
func (h *hook) saveCheckpoint(logPath, tag string, pos logPos, out []byte, problems []string, s *session) error {
	fi, err := os.Stat(logPath)
	if err != nil {
		return err
	}
	pos.dev, pos.ino = fileID(fi)
	pos.size += int64(len(out))
	pos.lines += bytes.Count(out, []byte{'\n'})
	pos.crc = crc32.Update(pos.crc, crcTable, out)
	if pos.size != fi.Size() {
		return nil // not the log this call read and wrote
	}
	return writeCheckpoint(checkpointPath(logPath), tag, pos, problems, s)
}

// callOf is the call of this hook event as the log keeps it: the guard's
// name of the tool (an MCP tool's own name joined when the event gives it,
// rules.MCPCallName) and its arguments (compact JSON when ok, else the raw
// text).
// It is read once per event: the call's start is both logged and told to
// the session's other agents (tellOthers).
func (h *hook) callOf() (tool, args string, ok bool) {
	if c := h.call; c != nil {
		return c.tool, c.args, c.argsOK
	}
	ev := h.ev
	c := &record{tool: rules.MCPCallName(ev.Tool, ev.MCPTool)}
	if ev.RawInput {
		c.args = string(ev.Input)
	} else {
		c.args, c.argsOK = readArgs(ev.Input)
	}
	h.call = c
	return c.tool, c.args, c.argsOK
}

func (h *hook) pre(s *session, apply func(*record) effect, tx txCall, haveTx bool) Answer {
	ev := h.ev
	// The guard's name of the tool: an MCP tool's own name joined when the
	// event gives it (rules.MCPCallName), kept in the log so that the
	// session rebuilds as it decided.
	rec := &record{kind: 'B', id: ev.CallID}
	if rec.id == "" {
		// No call ids (Gemini, OpenHands, hermes): numbered here, and a
		// result goes to the latest running call of its tool.
		rec.id = "#" + strconv.Itoa(s.index+1)
	}
	rec.tool, rec.args, rec.argsOK = h.callOf()
	rec.request = ev.Request
	switch {
	case haveTx:
		rec.time, rec.request = tx.time, tx.request
	case !ev.Time.IsZero():
		rec.time = ev.Time.UnixNano()
	default:
		rec.time = h.now().UnixNano()
	}
	eff := apply(rec)
	c := eff.call
	var a Answer
	a.Context = h.roundContext(eff)
	if c == nil {
		return a
	}
	if eff.note != "" {
		// The same call announced again (a retried hook): answered as the
		// first time, not logged twice.
		h.dl.problem(ev, fmt.Sprintf("call %q: %s", c.id, eff.note))
	} else {
		if !c.ran {
			h.endIfComplete(s, c, apply)
		}
		h.dl.call(ev, c, rec)
	}
	v := c.final
	switch v.Action {
	case guard.Block, guard.Dedup:
		a.Deny, a.Reason = true, v.Message
	case guard.Halt:
		msg := v.Message
		if c.halted {
			// A call after the halt in the same turn: the model is told
			// again why the turn ended (the decision log keeps replay's
			// "not run" marking).
			msg = s.haltedBy.Message
		}
		a.Deny, a.Reason = true, msg
		a.Halt, a.HaltReason = true, msg
	case guard.Steer:
		if h.cfg.Protocol.PreContext {
			a.Context = joinContext(a.Context, v.Message)
		}
	}
	return a
}

func (h *hook) post(s *session, apply func(*record) effect) Answer {
	ev := h.ev
	id := ev.CallID
	if id == "" {
		args, _ := readArgs(ev.Input)
		id = s.runningCall(rules.MCPCallName(ev.Tool, ev.MCPTool), args)
	}
	c := s.registered(id)
	if c == nil || c.done {
		// A result of a call the hook did not decide (installed mid-call),
		// or of one it stopped (shadow mode: the call ran anyway): the
		// guard has nothing to learn, the log keeps the result.
		h.dl.result(ev, id, c)
		return Answer{}
	}
	rec := s.resultRecord(id, ev.Result, ev.IsError, ev.ExitCode, h.cfg.Results.envelope(ev.Format))
	eff := apply(rec)
	var a Answer
	if !h.cfg.Protocol.PreContext && c.before.Action == guard.Steer {
		a.Context = c.before.Message
	}
	if c.final.Action != c.before.Action && c.final.Action == guard.Steer {
		a.Context = joinContext(a.Context, c.final.Message)
	}
	ended := h.endIfComplete(s, c, apply)
	a.Context = joinContext(a.Context, ended)
	if eff.halt || c.final.Action == guard.Halt {
		a.Halt, a.HaltReason = true, c.final.Message
	}
	h.dl.result(ev, id, c)
	return a
}

// endIfComplete ends c's request once every call of it is done: at once
// when the request is not known (each call is then a round of its own),
// else when the transcript's calls of the request are all done. It
// returns the round's steer message, if any.
func (h *hook) endIfComplete(s *session, c *call, apply func(*record) effect) string {
	if c.ended || c.halted {
		return ""
	}
	if c.request != "" {
		if h.idx == nil {
			h.idx = loadIndex(filesOf(h.cfg.StateDir, h.ev.Session).index)
		}
		for _, id := range h.idx.byRequest[c.request] {
			if o := s.registered(id); o == nil || !o.done {
				return ""
			}
		}
	}
	eff := apply(&record{kind: 'E', id: c.id})
	return h.roundContext(eff)
}

// roundContext logs a request end that steered, and returns its message.
func (h *hook) roundContext(eff effect) string {
	if eff.ended == nil || eff.endVerdict.Action == guard.Allow {
		return ""
	}
	h.dl.end(h.ev, eff.ended)
	if eff.endVerdict.Action == guard.Steer {
		return eff.endVerdict.Message
	}
	return ""
}

// runningCall is the call a result without a call id belongs to: of the
// calls of the tool that ran and have no result, the first whose arguments
// are the result's (OpenHands' PostToolUse, Gemini's AfterTool and
// hermes' post_tool_call carry the call's arguments), else the first in
// call order (agents report results in the order of their calls:
// OpenHands' observations follow its actions').
func (s *session) runningCall(tool, args string) string {
	first := ""
	for i := 1; i <= s.index; i++ {
		// Not s.registered: a frozen call is done.
		c := s.calls["#"+strconv.Itoa(i)]
		if c == nil || !c.ran || c.done || c.ev == nil || c.ev.Tool != tool {
			continue
		}
		if args != "" && c.ev.ArgsRaw == args {
			return c.id
		}
		if first == "" {
			first = c.id
		}
	}
	return first
}

// readArgs reads a tool input as the readers of transcripts read an
// argument object: JSON kept as its compact text, anything else as raw
// text that is not JSON.
func readArgs(input []byte) (string, bool) {
	if len(input) == 0 {
		return "", false
	}
	v, err := jsonx.Parse(input)
	if err != nil {
		return string(input), false
	}
	return v.String(), true
}

func joinContext(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// runTurnPrefix starts the turn id of a turn the hook began at a Cline CLI
// run's first call (newRun); the call's time follows, in Unix nanoseconds.
const runTurnPrefix = "run-seen-at:"

// newRun reports whether a call is the first of a Cline CLI run whose
// start the hook has not seen. The CLI (@cline/core 3.0.65, dist/index.js,
// its runtime hooks' beforeRun) starts the hook's agent_start file at each
// prompt without waiting for it (detached unless blockingRunStartHooks,
// which the CLI never sets), so under load the run's first tool_call can
// reach the session's state first, and be decided as if the user had sent
// nothing. Each run counts its model turns from 1 (@cline/agents,
// Agent.execute resets iteration to 0 and adds 1 per model request), and
// the tool_call hooks of all the calls of one model turn run before any of
// them runs (prepareToolExecution for each, then the executions): so a
// call of the first model turn after a call that is done (its result in,
// or stopped) begins a new run, unless a prompt came since. A run whose
// first call comes in a later model turn is not told this way: its start
// counts when it arrives.
func newRun(s *session, ev *Event) bool {
	return ev.RunIteration == 1 && s.last != nil && s.last.done && s.promptAt < s.bLines
}

// runTurn is the id of the turn newRun began at ev.
func runTurn(ev *Event) string {
	var at int64
	if !ev.Time.IsZero() {
		at = ev.Time.UnixNano()
	}
	return runTurnPrefix + strconv.FormatInt(at, 10)
}

// lateRunStart reports whether a prompt event is the start of the run
// whose turn newRun already began: sent (its time) no later than that
// run's first call, it arrived after it.
func lateRunStart(s *session, ev *Event) bool {
	at, ok := strings.CutPrefix(s.turn, runTurnPrefix)
	if !ok || ev.Time.IsZero() {
		return false
	}
	t, err := strconv.ParseInt(at, 10, 64)
	return err == nil && t != 0 && ev.Time.UnixNano() <= t
}
