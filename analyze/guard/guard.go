package guard

import (
	"time"

	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/rules"
)

// Rules are what a guard does: its detectors, their thresholds and
// messages, what counts as the same call, the tools' classes (docs/rules.md).
// They are package rules' type, named here so that a program embedding the
// guard needs no other package: ParseRules, LoadRules and PresetRules give
// them, and their fields and methods are documented in package rules.
type Rules = rules.Rules

// ParseRules reads rules from YAML text (docs/rules.md), strictly: an
// unknown key or a wrong value is an error naming name and the line.
func ParseRules(data []byte, name string) (*Rules, error) { return rules.Parse(data, name) }

// LoadRules reads a rules file as ParseRules does.
func LoadRules(path string) (*Rules, error) { return rules.Load(path) }

// PresetRules returns one of the shipped presets by name (PresetNames).
func PresetRules(name string) (*Rules, error) { return rules.Preset(name) }

// PresetNames lists the shipped presets.
func PresetNames() []string { return rules.PresetNames() }

// Guard is the state of one guard over one agent scope of one session.
// It is not safe for concurrent use; build one Guard per scope.
type Guard struct {
	r    *rules.Rules
	dets []detector

	// ids hands out counting-epoch numbers (Verdict.Scope). A key's epoch
	// is fixed when the key is first counted after a reset that clears it
	// for every detector, so "same Key and Scope" means "the guard treated
	// these calls as the same call".
	ids int
	// epoch[k] is the epoch of key index k (see keyIndex), valid while its
	// gen is egen: clearing every epoch is egen++.
	epoch []epochEnt
	egen  uint32
	// ki numbers the keys of the calls this guard sees (callKey).
	ki *keyIndex
	// turnClearsAll: every detector resets at a user turn, so a turn is a
	// new epoch for every key (hermes' read/search streak spans turns).
	turnClearsAll bool

	// Time window (scope.window).
	timerSet    bool
	timerStart  time.Time
	pendingNote string

	// wholeResult reads the whole result of a call whose event held only its
	// head (SetResultSource); nil: the head is all there is.
	wholeResult func(*CallEvent) string

	// calls in flight between Before and After, latest last. A replay
	// calls After right after Before, so this holds one call or none and
	// is searched from the end: a map's insert and delete per call cost
	// more than the rest of Before.
	inflight []*callCtx
	// lastKey is the key of the latest call, for round-level verdicts.
	lastKey  string
	lastKid  int32
	lastTool string
	// spare is a call context After is done with, for the next Before.
	spare *callCtx

	// eff caches per-(detector, tool) thresholds and messages, and
	// roleOf the tools' roles by name; guards of the same rules that run one
	// after the other may share them (ruleCache).
	eff    map[effKey]*effective
	roleOf map[string]uint8

	// readers are the counted keys of reader tools not cleared since
	// (scope.write_clears_reads), and readerPos[k] is 1 + the position of
	// key index k in readers (0: not there); clearing is scratch for
	// clearReadsAfterWrite and clearObservers, actReach for clearObservers.
	// toolRole caches which tools read, write or clear every reader key.
	// clearsReads: the rules name readers, and writers or tools that clear
	// every reader key.
	readers   []readerKey
	readerPos []int32
	clearing  []int32
	actReach  []string
	// touched are the key indexes that calls may have given state (counts,
	// an epoch) since a user prompt last cleared them (UserPromptPaths),
	// each once (inTouched[k]); touchedAll: every key may hold state (a
	// restored guard). A prompt clears what no reader holds among these
	// alone: every other key holds nothing to clear, and going through
	// every key the session numbered at every prompt made the prompts'
	// cost grow with the session.
	touched     []int32
	inTouched   []bool
	touchedAll  bool
	toolRole    []uint8 // by tool index (keyIndex)
	clearsReads bool
	// byPath: readers are cleared by what each call does
	// (write_clears_reads.invalidate: path, callEffect).
	byPath bool

	// portable: the guard's state can be saved and restored in another
	// process (NewSavableGuard, AppendState).
	portable bool

	// plain: some detector keys calls with the plain key (key: plain);
	// plainTool caches by tool index whether a tool's plain key differs
	// from its key (0 unknown, 1 same, 2 differs), and plainBuf is reused
	// to build plain keys (plainkey.go).
	plain     bool
	plainTool []uint8
	plainBuf  []byte
}

type epochEnt struct {
	gen uint32
	e   int
}

// callCtx is what Before learned about a call, for After.
type callCtx struct {
	ev     *CallEvent
	key    string
	kid    int32 // the key's index (keyIndex), when hasKey
	tid    int32 // the tool's index (keyIndex)
	hasKey bool
	// pkid is the plain key's index and hasPlain says it is set (only
	// when a detector keys calls with key: plain; plainkey.go).
	pkid     int32
	hasPlain bool
	scope    int  // the key's epoch when Before saw the call
	command  bool // the manual reset command: neither counted nor checked
	// acts: under write_clears_reads.invalidate: path, the call acts
	// (callEffect); no_progress and dedup do not count it.
	acts bool
	// volatile: under invalidate: path, the call observes what running
	// processes write (shellcmd.Volatile: a log): a poll, which
	// no_progress and dedup do not count either.
	volatile bool
	// failed and hash are how the rules read the result (Guard.resultOf),
	// set by After.
	failed bool
	hash   uint64
}

// NewGuard returns a Guard running the rules. The rules must not be
// changed while the Guard is in use.
func NewGuard(r *Rules) *Guard {
	return newRuleCache(r).NewGuard(newKeyIndex(r, 0))
}

// NewSavableGuard returns a Guard running the rules whose state can be
// saved in one process and restored in another (AppendState,
// RestoreState), as the live hook does between two calls of an agent:
// long keys and hermes' result hashes use digests that are the same in
// every process (SHA-256) instead of this process's seeded hash. Its
// verdicts are NewGuard's.
func NewSavableGuard(r *Rules) *Guard {
	// A new guard has numbered and hashed nothing yet: its key index can
	// still switch to the shared digests.
	g := NewGuard(r)
	g.ki.portable = true
	g.portable = true
	return g
}

func (g *Guard) newID() int {
	g.ids++
	return g.ids
}

// epochOf returns the counting epoch of a key (by its index), starting one
// if needed.
func (g *Guard) epochOf(kid int32) int {
	g.epoch = grow(g.epoch, kid)
	p := &g.epoch[kid]
	if p.gen != g.egen {
		p.gen, p.e = g.egen, g.newID()
	}
	return p.e
}

// UserTurn is a genuine user message: detectors scoped to the turn start
// afresh (and the time window restarts). Under scope.reset: mentioned a
// message whose text is not known (UserPrompt is the one whose text is)
// may name anything: every count starts afresh.
func (g *Guard) UserTurn(t time.Time) {
	if g.r.Scope.Reset == "mentioned" {
		g.resetAll()
	}
	g.userTurn(t)
}

// userTurn is what every user message does.
func (g *Guard) userTurn(t time.Time) {
	for _, d := range g.dets {
		if d.resetsOnTurn() {
			d.reset()
		}
	}
	// Epochs end only when every detector resets at a turn: a session-wide
	// detector (hermes' read/search streak) still treats calls of earlier
	// turns as the same call.
	if g.turnClearsAll {
		g.egen++
	}
	if g.r.Scope.Reset == "turn" {
		g.timerSet = false
	}
	g.pendingNote = ""
	// A call whose After never came (a halted turn) is not kept forever.
	clear(g.inflight)
	g.inflight = g.inflight[:0]
}

// Compaction is a context compaction: it resets everything when the rules
// say so (scope.reset_on_compaction), and the detectors that care what is
// still in the model's context (dedup's pointer) learn of it either way.
func (g *Guard) Compaction() {
	for _, d := range g.dets {
		if c, ok := d.(compactor); ok {
			c.compacted()
		}
	}
	if g.r.Scope.ResetOnCompaction {
		g.resetAll()
		g.timerSet = false
	}
}

func (g *Guard) resetAll() {
	for _, d := range g.dets {
		d.reset()
	}
	g.egen++
}

// Before decides on a call before it runs. The caller has set ev.Class.
func (g *Guard) Before(ev *CallEvent) Verdict {
	c := g.spare
	if c != nil {
		g.spare = nil
		*c = callCtx{ev: ev}
	} else {
		c = &callCtx{ev: ev}
	}
	if i := g.inflightAt(ev); i >= 0 {
		g.inflight[i] = c // Before again without After: the latest counts
	} else {
		g.inflight = append(g.inflight, c)
	}
	if hasResetCommand(g.r, ev.Tool) && isResetCommand(g.r, ev.Tool, ev.arguments()) {
		// pi §3.9: the reset command clears everything, restarts the
		// timer, and is itself allowed and not recorded.
		c.command = true
		g.resetAll()
		g.timerSet, g.timerStart = !ev.Time.IsZero(), ev.Time
		g.lastKey, g.lastKid, g.lastTool = "", -1, ev.Tool
		return Verdict{Action: Allow}
	}
	g.checkWindow(ev)
	c.key, c.kid, c.hasKey = g.callKey(ev)
	c.tid = ev.tidx
	g.plainKey(c)
	g.touch(c)
	var role uint8 // under scope.write_clears_reads
	var fx shellcmd.Effect
	if g.byPath {
		role = g.role(ev.ClassName(), c.tid)
		switch {
		case role&roleClearAll != 0:
			// A tool whose reach nothing says (clear_all): its call
			// may have changed anything an earlier call observed.
			fx = shellcmd.Effect{Kind: shellcmd.EffectAct, All: true}
			c.acts = true
		case role&roleEffect != 0:
			fx = callEffect(g.r, ev, g.r.Scope.WriteClearsReads.PathArgs)
			c.acts = fx.Kind == shellcmd.EffectAct
			c.volatile = fx.Kind == shellcmd.EffectObserve && shellcmd.Volatile(fx.Paths)
		}
	}
	if c.hasKey {
		c.scope = g.epochOf(c.kid)
		switch {
		case g.byPath:
			if fx.Kind == shellcmd.EffectObserve && role&roleReader != 0 {
				g.noteObserver(c.kid, fx)
			}
		case g.clearsReads:
			role = g.role(ev.ClassName(), c.tid)
			g.noteReader(ev, c.key, c.kid, role)
		}
	}
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		v := d.before(c)
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	if best.Action == Allow && g.pendingNote != "" {
		best = Verdict{Action: Steer, Detector: "scope", Message: g.pendingNote}
	}
	g.pendingNote = ""
	best.Key, best.Scope = c.key, c.scope
	for _, d := range g.dets {
		d.commit(c, best)
	}
	switch {
	case g.byPath:
		if !best.Action.Stops() && c.acts {
			own := int32(-1)
			if c.hasKey {
				own = c.kid
			}
			g.clearObservers(fx, own)
		}
	case !best.Action.Stops() && c.hasKey && role&(roleWriter|roleClearAll) != 0:
		g.clearReadsAfterWrite(ev, c.kid, role)
	}
	g.lastKey, g.lastTool = c.key, ev.Tool
	g.lastKid = -1
	if c.hasKey {
		g.lastKid = c.kid
	}
	return best
}

// inflightAt returns the index of ev's call in g.inflight, or -1.
func (g *Guard) inflightAt(ev *CallEvent) int {
	for i := len(g.inflight) - 1; i >= 0; i-- {
		if g.inflight[i].ev == ev {
			return i
		}
	}
	return -1
}

// SetResultSource gives the guard the means to read the whole result of a
// call whose event holds only its head (CallEvent.ResultBytes longer than
// Result): dedup answers with an earlier result. f is called only for
// such events, at most once per answer; it must return the whole text.
func (g *Guard) SetResultSource(f func(*CallEvent) string) { g.wholeResult = f }

// After takes the call's result (ev.Result, ResultHash, Failed) and the
// verdict Before gave. It is called for every call, blocked ones too: a
// stopped call did not run, so result-based detectors skip it unless the
// design counts the block itself (blocked_count_as_failure).
func (g *Guard) After(ev *CallEvent, before Verdict) Verdict {
	i := g.inflightAt(ev)
	var c *callCtx
	if i < 0 {
		// After without Before: build the context now, count nothing new.
		c = &callCtx{ev: ev}
		c.key, c.kid, c.hasKey = g.callKey(ev)
		c.tid = ev.tidx
		g.plainKey(c)
		g.touch(c)
		if c.hasKey {
			c.scope = g.epochOf(c.kid)
		}
	} else {
		c = g.inflight[i]
		last := len(g.inflight) - 1
		copy(g.inflight[i:], g.inflight[i+1:])
		g.inflight[last] = nil
		g.inflight = g.inflight[:last]
	}
	if c.command {
		g.spare = c
		return Verdict{Action: Allow}
	}
	c.failed, c.hash = g.resultOf(ev)
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		v := d.after(c, before)
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	best.Key, best.Scope = c.key, c.scope
	g.spare = c
	return best
}

// Text takes a piece of the model's streamed text, in order, for the
// detectors that read it (content_loop); a call (Before) ends the stream.
// A halt ends the turn; a steer is feedback for the model.
func (g *Guard) Text(piece string) Verdict {
	return g.strongest(func(d detector) Verdict {
		if t, ok := d.(texter); ok {
			return t.text(piece)
		}
		return Verdict{}
	})
}

// Message takes the text of a model response that made no tool call, for
// the detectors that read the agent's own messages (monologue); call it
// after the response's Text. A halt ends the turn; a steer is feedback
// for the model.
func (g *Guard) Message(text string) Verdict {
	return g.strongest(func(d detector) Verdict {
		if m, ok := d.(messager); ok {
			return m.message(text)
		}
		return Verdict{}
	})
}

// strongest is the strongest verdict ask gets of the detectors (the first
// of equals), or an allow.
func (g *Guard) strongest(ask func(detector) Verdict) Verdict {
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		if v := ask(d); rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	return best
}

// EndRequest is called after all calls of one model response; round-level
// detectors (attractor's cycle check) may steer here. The caller attaches
// the steer to the request's last call.
func (g *Guard) EndRequest() Verdict {
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		v := d.endRequest()
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	if best.Action != Allow && g.lastKey != "" {
		kid := g.lastKid
		if kid < 0 {
			// A key the guard did not count (no key): numbered for its
			// epoch all the same, as before keys were numbered.
			kid = g.ki.intern(g.lastKey)
		}
		best.Key, best.Scope = g.lastKey, g.epochOf(kid)
	}
	return best
}

// checkWindow applies scope.window lazily at each call (pi §3.8): once the
// window has passed since the timer started, every counter is cleared and
// the timer restarts at this call.
func (g *Guard) checkWindow(ev *CallEvent) {
	w := time.Duration(g.r.Scope.Window)
	if w <= 0 || ev.Time.IsZero() {
		return
	}
	if !g.timerSet {
		g.timerSet, g.timerStart = true, ev.Time
		return
	}
	if ev.Time.Sub(g.timerStart) >= w {
		hadSteered := false
		for _, d := range g.dets {
			hadSteered = hadSteered || d.steeredAny()
		}
		g.resetAll()
		g.timerStart = ev.Time
		if hadSteered && g.r.Scope.WindowResetMessage != "" {
			g.pendingNote = g.fill(g.r.Scope.WindowResetMessage, &callCtx{ev: ev}, 0, nil)
		}
	}
}

// TurnForgets reports whether a genuine user turn leaves the guard in a
// state that nothing before the turn can change: every detector resets at
// a turn, and so does the time window's timer, if any. The live hook then
// rebuilds a session's guard from its latest turn only.
func (g *Guard) TurnForgets() bool {
	return g.turnClearsAll && (g.r.Scope.Window <= 0 || g.r.Scope.Reset == "turn")
}
