package live

import (
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/rules"
)

// A session's guard state is not saved as such: its event log (the
// records below, one per line) is, and every hook call rebuilds the Guard
// by applying the log again, then applies its own record and appends it.
// Rebuilding and deciding run the same code (session.apply), so a decision
// made live is exactly the decision the log replays to, and the log holds
// nothing of the Guard's internals (which may change between versions).
//
// Record kinds:
//
//	P [turn [paths]]                a genuine user prompt, or the agent's new turn id: a new turn;
//	                                with paths (under scope.reset: mentioned), the prompt's text was
//	                                known and names these (one a line, maybe none)
//	S text                          a steer the agent could not show yet (Protocol.Deferred)
//	D                               the steers waiting were shown to the model
//	C                               a context compaction (takes effect at the next prompt)
//	B id time request tool ok args  a call, before it runs
//	A id hash flags result          its result (flags: f failed, b blank, e the agent's error flag, n the exit code 1 learnt apart)
//	E id                            the end of the model request whose last call is id
//	O tool ok args                  a call of another agent of the session that may have changed
//	                                what this one observed, written here by that agent's hook as
//	                                the call starts and again as it ends (guard.OtherAgentCall)
type record struct {
	kind    byte
	id      string
	time    int64 // unix nanoseconds, 0 when unknown
	request string
	tool    string
	argsOK  bool
	args    string // compact JSON when argsOK, else the raw text
	hash    uint64
	failed  bool
	blank   bool
	isError bool   // the agent's own error flag
	exit1   bool   // the exit code 1, learnt apart from the result (guard.CallEvent.ExitCode)
	result  string // kept only when the rules read it (rules.keepsResults)
	// size is the result's length when its text was not kept, being
	// longer than the rules read (guard.ResultTextBound); 0 otherwise.
	size int
	// A prompt's: known says its text was, and paths are the paths it
	// names (guard.MentionedPaths), one a line: what scope.reset:
	// mentioned reads of it, so that the log need not keep the text.
	known bool
	paths string
}

// call is one call of the session as the hook saw it.
type call struct {
	id      string
	index   int
	request string
	// ev is the call as the guard saw it, until its result is in (or it
	// did not run): the guard holds a call's event from Before to After
	// only, and nothing reads it after, so its memory goes to a later
	// call (session.events). nil once done.
	ev     *guard.CallEvent
	before guard.Verdict
	final  guard.Verdict
	ran    bool // the call runs (not stopped, not halted)
	done   bool // its result is in (or it did not run)
	halted bool // not shown to the guard: the turn had halted
	ended  bool // its request's end was applied
}

// session is the guard of one agent scope of one session, rebuilt from its
// log.
type session struct {
	// r are the rules as given: the tools' classes come from them, as in
	// replay; g runs the session's variant of them (rules.ForSession).
	r  *rules.Rules
	gr *rules.Rules
	g  *guard.Guard
	// keepResults: the guard reads results' texts (dedup's {result},
	// hermes' reading of failures and results), so the log keeps them;
	// textBound: none longer than this (guard.ResultTextBound; 0: any),
	// of which it keeps the length only.
	keepResults bool
	textBound   int

	calls map[string]*call
	// frozen are the done calls of the checkpoint the session was
	// restored from, not decoded (checkpoint.go): calls looks them up.
	frozen frozenCalls
	index  int
	// classes caches the tools' classes (a glob match per class entry).
	classes map[string]string
	// slab is memory for the calls to come: a rebuild makes thousands,
	// and allocating them one by one was a good part of a hook call. events
	// are the CallEvents of done calls, for the calls to come: a hook
	// process runs without garbage collection, and every page of memory
	// it touches for the first time costs a page fault (docs/performance.md,
	// "The live hook"), so a rebuild reuses the
	// events instead of touching a new one per call.
	slab   []call
	events []*guard.CallEvent
	// halted: the current turn was halted by the call numbered haltedAt.
	halted   bool
	haltedBy guard.Verdict
	haltedAt int
	// compacted: a compaction happened since the last prompt.
	compacted bool
	// bLines counts the log's call lines (B) applied or skipped: under
	// rules whose turn forgets everything, a prompt numbers the calls
	// after it from there, as a rebuild from the latest prompt does
	// (readLog), retried calls and unreadable B lines included.
	bLines int
	// promptAt is bLines at the latest prompt (P record): a call line
	// after it says a call came since (newRun).
	promptAt int
	// last is the latest call shown to the guard, whose request may still
	// be open (its end not applied).
	last *call
	// turn is the agent's id of the current turn (Event.TurnID), "" when
	// the agent gives none.
	turn string
	// pending are the steers waiting for a channel to the model (S
	// records since the last D or prompt).
	pending string
}

// newSession starts the guard of a session of the given transcript format
// and platform: replay runs each session under rules.ForSession of them.
func newSession(r *rules.Rules, format, platform string) *session {
	gr := r.ForSession(format, platform).Rules
	return &session{
		r: r, gr: gr, g: guard.NewSavableGuard(gr), keepResults: keepsResults(gr), textBound: textBound(gr),
		calls: map[string]*call{}, classes: map[string]string{},
	}
}

// keepsResults reports whether the guard reads a result's text beyond its
// hash and failed flag.
func keepsResults(r *rules.Rules) bool {
	return r.ReadsResultText() || r.ReadsWholeResults()
}

// textBound is the longest result text the log need keep: the bound of
// the detectors that read texts, when the results' failure and hash
// readings need none.
func textBound(r *rules.Rules) int {
	if r.ReadsWholeResults() {
		return 0
	}
	return guard.ResultTextBound(r)
}

// effect is what applying one record changed, for the hook's answer.
type effect struct {
	call *call
	// ended is the call whose request end was applied, and endVerdict
	// the verdict EndRequest gave (Allow: nothing).
	ended      *call
	endVerdict guard.Verdict
	// halt: this record halted the turn.
	halt bool
	// note: why nothing was done (a result without its call, ...).
	note string
}

// apply applies one record to the session. It is the only place where the
// guard is driven, for rebuilding and for deciding alike.
func (s *session) apply(rec *record) effect {
	switch rec.kind {
	case 'P':
		// The open request ends before the new turn, as in replay. The
		// session's first prompt finds a fresh guard; replay calls
		// UserTurn there too, which changes nothing a verdict shows.
		var eff effect
		if s.last != nil && !s.last.ended {
			eff = s.endRequest(s.last)
		}
		if s.g.TurnForgets() {
			// A rebuild then starts at the latest prompt (readLog), with
			// a new guard, knowing no call before it and numbering the
			// calls by the log's B lines before it: so does a session
			// that goes on in process or from a checkpoint, so that both
			// answer alike (and the checkpoint stays the size of a turn).
			s.g = guard.NewSavableGuard(s.gr)
			clear(s.calls)
			s.frozen = frozenCalls{}
			s.last = nil
			s.index = s.bLines
			s.compacted = false
		}
		if s.compacted {
			s.g.Compaction()
			s.compacted = false
		}
		if rec.known {
			// As replay's UserPrompt of the text: the paths it names.
			var paths []string
			if rec.paths != "" {
				paths = strings.Split(rec.paths, "\n")
			}
			s.g.UserPromptPaths(time.Time{}, paths)
		} else {
			s.g.UserTurn(time.Time{})
		}
		s.halted, s.haltedAt, s.haltedBy = false, 0, guard.Verdict{}
		s.turn = rec.id
		s.promptAt = s.bLines
		// The prompt's answer carries what waited (the hook reads it
		// before applying the prompt): nothing waits across a prompt, so a
		// rebuild from the latest prompt knows all that waits.
		s.pending = ""
		eff.halt = false
		return eff
	case 'S':
		s.pending = joinContext(s.pending, rec.result)
		return effect{}
	case 'D':
		s.pending = ""
		return effect{}
	case 'C':
		// ingest marks the turn after a compaction (Turn.CompactedBefore),
		// and replay resets at that turn's start: the compaction takes
		// effect at the next prompt, as there.
		s.compacted = true
		return effect{}
	case 'B':
		s.bLines++
		return s.before(rec)
	case 'A':
		return s.after(rec)
	case 'O':
		// A call of another agent of the session (written to this
		// scope's log by that agent's hook): what it changed clears
		// what this agent observed, as in replay.
		s.g.OtherAgentCall(&guard.CallEvent{Tool: rec.tool, ArgsOK: rec.argsOK, ArgsRaw: rec.args})
		return effect{}
	case 'E':
		c := s.call(rec.id)
		if c == nil || c.ended || c.halted {
			return effect{note: "request end of an unknown call"}
		}
		return s.endRequest(c)
	}
	return effect{note: "unknown record"}
}

// newCall returns memory for one call.
func (s *session) newCall() *call {
	if len(s.slab) == 0 {
		s.slab = make([]call, 256)
	}
	c := &s.slab[0]
	s.slab = s.slab[1:]
	return c
}

// call is the call of the id (nil if none). A result or request end
// mostly follows its call: the latest call is found without hashing its
// id. It is the call registered under its id, as a call with an id is
// registered when shown and never replaced (a second one with the same id
// is a retry: session.before).
func (s *session) call(id string) *call {
	if s.last != nil && id != "" && s.last.id == id {
		return s.last
	}
	return s.registered(id)
}

// registered is the call registered under id (nil if none): the session's,
// or one frozen in the checkpoint it was restored from, which becomes the
// session's.
func (s *session) registered(id string) *call {
	if c := s.calls[id]; c != nil || len(s.frozen.at) == 0 {
		return c
	}
	c := s.frozen.thaw(s, id)
	if c != nil {
		s.calls[id] = c
	}
	return c
}

// newEvent returns a CallEvent to fill in: a done call's, or new memory.
func (s *session) newEvent() *guard.CallEvent {
	if n := len(s.events); n > 0 {
		ev := s.events[n-1]
		s.events = s.events[:n-1]
		return ev
	}
	return new(guard.CallEvent)
}

// callEvent fills in a CallEvent of a call as the guard sees it: a call's
// record, or an open call of a checkpoint (checkpoint.go).
func (s *session) callEvent(index int, tool string, argsOK bool, args string, unixNano int64) *guard.CallEvent {
	ev := s.newEvent()
	// The whole event is assigned, the guard's memos of an earlier call
	// included.
	// The guard parses the arguments when it keys the call, and keys their
	// text when they do not parse (ArgsOK then turns false).
	*ev = guard.CallEvent{Index: index, Tool: tool, ArgsOK: argsOK, ArgsRaw: args}
	if unixNano != 0 {
		ev.Time = time.Unix(0, unixNano).UTC()
	}
	if rules.IsGateway(tool) {
		// Classed by the tool it calls, named in its arguments.
		ev.Class = s.r.ClassOf(ev.ClassName())
		return ev
	}
	class, ok := s.classes[tool]
	if !ok {
		class = s.r.ClassOf(tool)
		s.classes[tool] = class
	}
	ev.Class = class
	return ev
}

// finish marks c done and gives its event to the calls to come: the
// guard's After for it has run, and no one reads it after.
func (s *session) finish(c *call) {
	c.done = true
	if c.ev != nil {
		s.events = append(s.events, c.ev)
		c.ev = nil
	}
}

// expect sizes the session's tables for about n calls.
func (s *session) expect(n int) {
	s.calls = make(map[string]*call, n)
	s.slab = make([]call, n+1)
}

func (s *session) before(rec *record) effect {
	if old := s.registered(rec.id); old != nil && rec.id != "" {
		// The same call announced twice (a retried hook): the first one
		// stands, as the agent runs the call once.
		return effect{call: old, note: "call seen before"}
	}
	s.index++
	c := s.newCall() // zeroed
	c.id, c.index, c.request = rec.id, s.index, rec.request
	if rec.id != "" {
		s.calls[rec.id] = c
	}
	if s.halted {
		// replay: the calls after a halt in the same turn are not run and
		// not shown to the guard.
		c.halted, c.done, c.ended = true, true, true
		c.final = guard.Verdict{Action: guard.Halt, Detector: s.haltedBy.Detector, Count: s.haltedBy.Count,
			Message: "not run: the guard ended this turn at call " + strconv.Itoa(s.haltedAt)}
		c.before = c.final
		return effect{call: c}
	}
	var eff effect
	if s.last != nil && !s.last.ended && (rec.request == "" || rec.request != s.last.request) {
		// A call of another request: the previous request is over.
		eff = s.endRequest(s.last)
	}
	ev := s.callEvent(s.index, rec.tool, rec.argsOK, rec.args, rec.time)
	c.ev = ev
	v := s.g.Before(ev)
	c.before, c.final = v, v
	c.ran = !v.Action.Stops() && v.Action != guard.Halt
	s.last = c
	eff.call = c
	if !c.ran {
		// replay calls After at once for a call that did not run; the
		// detectors read no result of a stopped call.
		after := s.g.After(ev, v)
		guard.Raise(&c.final, &after)
		s.finish(c)
		if c.final.Action == guard.Halt {
			s.halt(c)
			eff.halt = true
		}
	}
	return eff
}

func (s *session) after(rec *record) effect {
	c := s.call(rec.id)
	switch {
	case c == nil:
		return effect{note: "result of a call the hook did not see"}
	case c.done:
		return effect{call: c, note: "result of a call that did not run or was already answered"}
	}
	ev := c.ev
	ev.ResultHash, ev.Failed, ev.IsError = rec.hash, rec.failed, rec.isError
	if rec.exit1 {
		ev.ExitCode = 1
	}
	// The detectors read the result's text only for dedup's {result}
	// and, when blank results count as failures, whether it is blank.
	ev.ResultBytes = rec.size
	switch {
	case rec.size > 0:
		ev.Result = ""
	case rec.result != "":
		ev.Result = rec.result
	case rec.blank:
		ev.Result = ""
	default:
		ev.Result = "(result not kept)"
	}
	after := s.g.After(ev, c.before)
	guard.Raise(&c.final, &after)
	s.finish(c)
	eff := effect{call: c}
	if c.final.Action == guard.Halt {
		s.halt(c)
		eff.halt = true
	}
	return eff
}

// endRequest applies the end of c's request (replay: EndRequest after the
// request's last call), raising c's verdict with it.
func (s *session) endRequest(c *call) effect {
	c.ended = true
	if c.halted {
		return effect{}
	}
	end := s.g.EndRequest()
	if end.Action > c.final.Action {
		guard.Raise(&c.final, &end)
	}
	eff := effect{ended: c, endVerdict: end}
	if c.final.Action == guard.Halt && !s.halted {
		s.halt(c)
		eff.halt = true
	}
	return eff
}

func (s *session) halt(c *call) {
	s.halted, s.haltedBy, s.haltedAt = true, c.final, c.index
}

// resultRecord builds the A record of a result, reading it as replay does
// (guard.ResultFacts). The hash is stable across processes (FNV-1a), as
// rebuilding compares hashes made by earlier hook calls. It is the hash
// the rules compare: with results.envelope "strip" (not "keep") that of
// the tool's output without the envelope its format declares, as replay
// compares (CallEvent.OutputHash).
func (s *session) resultRecord(id, result string, isError bool, exitCode int, envelope func(string) (string, string)) *record {
	norm, failed := guard.ResultFacts(result, isError)
	hash := stableHash(norm)
	if envelope != nil && s.gr.Results.Envelope != "keep" {
		if out, env := envelope(result); env != "" {
			outNorm, _ := guard.ResultFacts(out, isError)
			hash = stableHash(outNorm)
		}
	}
	rec := &record{kind: 'A', id: id, hash: hash, failed: failed, blank: isBlank(result), isError: isError, exit1: exitCode == 1}
	if s.keepResults {
		rec.result = result
		if s.textBound > 0 && len(result) > s.textBound {
			rec.result, rec.size = "", len(result)
		}
	}
	return rec
}

// promptRecord is the P record of a new turn: the prompt's text (""
// when the agent sent none, or the turn began without a prompt) is kept
// as the paths it names, when the rules read them (scope.reset:
// mentioned), each once.
func (s *session) promptRecord(turn, text string) *record {
	rec := &record{kind: 'P', id: turn}
	if text == "" || s.gr.Scope.Reset != "mentioned" {
		return rec
	}
	rec.known = true
	seen := map[string]bool{}
	var b strings.Builder
	for _, p := range guard.MentionedPaths(text) {
		if seen[p] {
			continue
		}
		seen[p] = true
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	rec.paths = b.String()
	return rec
}

func stableHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// isBlank is the failure detectors' empty_is_failure test.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
