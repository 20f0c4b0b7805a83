package analyze

import (
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// detector is one loop detector's state inside a Guard. before proposes a
// verdict without changing state; commit then records the call given the
// verdict the Guard chose (so each design's rule on counting blocked calls
// applies); after sees the result; endRequest runs after a model response.
type detector interface {
	before(c *callCtx) Verdict
	commit(c *callCtx, final Verdict)
	after(c *callCtx, before Verdict) Verdict
	endRequest() Verdict
	reset()
	resetsOnTurn() bool
	// clearKeys forgets the counts of these keys, by their index in the
	// guard's keyIndex (write_clears_reads). The list has no duplicates.
	clearKeys(keys []int32)
	steeredAny() bool
}

// buildDetectors returns the rules' detectors in rules.DetectorNames order.
// size is the number of keys expected (their tables grow past it). old
// are the detectors of a guard of the same rules that is done (or nil):
// the new ones take their memory, in a fresh state.
func buildDetectors(g *Guard, r *rules.Rules, size int, old []detector) []detector {
	out := old[:0]
	ds := r.Detectors
	turn := func(reset string) bool {
		if reset == "" {
			reset = r.Scope.Reset
		}
		return reset == "turn"
	}
	// Each detector is built from a literal, so that nothing of the old
	// state survives but the tables' memory (zeroed by reuse).
	for _, name := range rules.DetectorNames {
		switch name {
		case "dedup":
			if cfg := ds.Dedup; cfg != nil && cfg.Enabled {
				d := recycled[dedupDet](old, len(out))
				*d = dedupDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, gen: 1, ent: reuse(d.ent, size)}
				out = append(out, d)
			}
		case "failure":
			if cfg := ds.Failure; cfg != nil && cfg.Enabled {
				d := recycled[failureDet](old, len(out))
				*d = failureDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, gen: 1, ent: reuse(d.ent, size)}
				out = append(out, d)
			}
		case "no_progress":
			if cfg := ds.NoProgress; cfg != nil && cfg.Enabled {
				d := recycled[noProgressDet](old, len(out))
				*d = noProgressDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, gen: 1, byCall: reuse(d.byCall, size), byTool: renewMap(d.byTool)}
				out = append(out, d)
			}
		case "tool_failure":
			if cfg := ds.ToolFailure; cfg != nil && cfg.Enabled {
				d := recycled[toolFailureDet](old, len(out))
				*d = toolFailureDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, counts: renewMap(d.counts)}
				out = append(out, d)
			}
		case "repeat":
			if cfg := ds.Repeat; cfg != nil && cfg.Enabled {
				d := recycled[repeatDet](old, len(out))
				*d = repeatDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, gen: 1, ent: reuse(d.ent, size)}
				out = append(out, d)
			}
		case "consecutive":
			if cfg := ds.Consecutive; cfg != nil && cfg.Enabled {
				d := recycled[consecutiveDet](old, len(out))
				*d = consecutiveDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, lastKid: -1}
				out = append(out, d)
			}
		case "stall":
			if cfg := ds.Stall; cfg != nil && cfg.Enabled {
				d := recycled[stallDet](old, len(out))
				*d = stallDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, kid: -1, history: reuse(d.history, 0)}
				out = append(out, d)
			}
		case "cap":
			if cfg := ds.Cap; cfg != nil && cfg.Enabled {
				d := recycled[capDet](old, len(out))
				*d = capDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, counts: renewMap(d.counts)}
				out = append(out, d)
			}
		case "cycle":
			if cfg := ds.Cycle; cfg != nil && cfg.Enabled {
				d := recycled[cycleDet](old, len(out))
				*d = cycleDet{base: d.renew(g, turn(cfg.Reset)), cfg: cfg, history: reuse(d.history, 0)}
				out = append(out, d)
			}
		}
	}
	return out
}

// recycled returns old[i] if it is a *T (the same rules build the same
// detectors in the same order), else a new T.
func recycled[T any, P interface {
	*T
	detector
}](old []detector, i int) P {
	if i < len(old) {
		if d, ok := old[i].(P); ok {
			return d
		}
	}
	return new(T)
}

// reuse returns n zero values in s's memory when it has room for them.
//
// Only s's length is cleared (dropping what it points to), not its whole
// capacity: these tables only ever grow by append (grow appends zeros), so
// what lies beyond the length is never read before it is written. Clearing
// the capacity cost the largest session's table size on every session: a
// 50-configuration sweep of the 1 GiB corpus spent 38% of its CPU there.
func reuse[T any](s []T, n int) []T {
	clear(s)
	return append(s[:0], make([]T, n)...)
}

// renewMap returns m emptied, or a new map.
func renewMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	clear(m)
	return m
}

// base holds what every detector shares, and no-op defaults.
type base struct {
	g    *Guard
	turn bool
	effs []*effective // by tool index (effOf)
	// clearsBy caches clears by tool index: 0 unknown, 1 no, 2 yes.
	clearsBy []uint8
}

// renew returns a fresh base for guard g, in b's memory.
func (b *base) renew(g *Guard, turn bool) base {
	return base{g: g, turn: turn, effs: reuse(b.effs, 0), clearsBy: reuse(b.clearsBy, 0)}
}

func (b *base) resetsOnTurn() bool              { return b.turn }
func (b *base) before(*callCtx) Verdict         { return Verdict{} }
func (b *base) commit(*callCtx, Verdict)        {}
func (b *base) after(*callCtx, Verdict) Verdict { return Verdict{} }
func (b *base) endRequest() Verdict             { return Verdict{} }
func (b *base) clearKeys([]int32)               {}
func (b *base) steeredAny() bool                { return false }

// clears reports whether a successful call of this tool clears every count
// (a detector's cleared_by), worked out once per tool.
func (b *base) clears(c *callCtx, sels []string) bool {
	if len(sels) == 0 {
		return false
	}
	b.clearsBy = grow(b.clearsBy, c.tid)
	m := &b.clearsBy[c.tid]
	if *m == 0 {
		*m = 1
		if b.g.r.MatchesAny(sels, c.ev.Tool) {
			*m = 2
		}
	}
	return *m == 2
}

func (b *base) verdict(a Action, det string, count int, msg string, c *callCtx, extra map[string]string) Verdict {
	return Verdict{Action: a, Detector: det, Count: count, Message: b.g.fill(msg, c, count, extra)}
}

// ranAsFailure says how a failure detector sees a call: whether it ran
// (or was refused by a detector whose blocks count as failures) and
// whether it failed.
func ranAsFailure(c *callCtx, before Verdict, blocksAsFailures []string, emptyFails bool) (counted, failed bool) {
	if before.Action.Stops() {
		if before.Action == Block {
			for _, d := range blocksAsFailures {
				if d == before.Detector {
					return true, true
				}
			}
		}
		return false, false
	}
	return true, c.failed || (emptyFails && strings.TrimSpace(c.ev.Result) == "")
}

// stoppedByOther reports whether another detector stopped the call: the
// winning detector's stop is read as a guard layered before this one, so
// the call never reached this detector's check and neither counts nor
// breaks a streak here. hermes (reference/guards.md §2.2): a call blocked
// by tool_guardrails is not executed, so its read/search guard in
// tools/file_tools.py never sees it.
func stoppedByOther(final Verdict, det string) bool {
	return final.Action.Stops() && final.Detector != det
}

// The detectors keep their per-key state in slices indexed by the key's
// number (keyIndex); an entry counts only while its gen is the detector's
// gen, so a reset is gen++ and forgetting one key is setting its gen to 0
// (gens start at 1).

// countEnt is a per-key count.
type countEnt struct {
	gen uint32
	n   int
}

func (e *countEnt) get(gen uint32) int {
	if e.gen != gen {
		return 0
	}
	return e.n
}

func (e *countEnt) inc(gen uint32) int {
	if e.gen != gen {
		e.gen, e.n = gen, 0
	}
	e.n++
	return e.n
}

func forget[T any](ent []T, keys []int32, gen func(*T) *uint32) {
	for _, k := range keys {
		if int(k) < len(ent) {
			*gen(&ent[k]) = 0
		}
	}
}

// repeatDet counts identical calls cumulatively within its scope.
type repeatDet struct {
	base
	cfg *rules.Repeat
	gen uint32
	ent []repeatEnt
	// steeredN counts the keys steered since the last reset.
	steeredN int
}

// repeatEnt is a key's count (valid while cgen is the gen) and whether it
// was steered (while sgen is): write_clears_reads clears counts only.
type repeatEnt struct {
	cgen, sgen uint32
	n          int
}

func (d *repeatDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "repeat", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *repeatDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	d.ent = grow(d.ent, c.kid)
	p := &d.ent[c.kid]
	n := 1
	if p.cgen == d.gen {
		n += p.n
	}
	steered := p.sgen == d.gen
	if e.blockAt > 0 && n >= e.blockAt && (!d.cfg.BlockAfterSteer || steered) {
		return d.verdict(Block, "repeat", n, e.blockMsg, c, nil)
	}
	if e.steerAt > 0 && n >= e.steerAt && !(d.cfg.SteerOnce && steered) {
		// Without block_after_steer a steer belongs below the block
		// threshold; with it (pi, §3.12 "gte") an unsteered key is steered
		// first, whatever its count.
		if d.cfg.BlockAfterSteer || e.blockAt == 0 || n < e.blockAt {
			return d.verdict(Steer, "repeat", n, e.steerMsg, c, nil)
		}
	}
	return Verdict{}
}

func (d *repeatDet) commit(c *callCtx, final Verdict) {
	if !c.hasKey || !d.eff(c).on {
		return
	}
	if stoppedByOther(final, "repeat") || (final.Action.Stops() && !d.cfg.CountsBlocked) {
		// pi: a blocked call is not recorded. counts_blocked (nanobot)
		// counts this detector's own blocks only: a call another detector
		// stopped first never reached this check (see stoppedByOther).
		return
	}
	d.ent = grow(d.ent, c.kid)
	p := &d.ent[c.kid]
	if p.cgen != d.gen {
		p.cgen, p.n = d.gen, 0
	}
	p.n++
	if final.Action == Steer && final.Detector == "repeat" && p.sgen != d.gen {
		p.sgen = d.gen
		d.steeredN++
	}
}

func (d *repeatDet) reset() {
	d.gen++
	d.steeredN = 0
}

// clearKeys forgets counts but not steers: pi §3.7 keeps steeredKeys.
func (d *repeatDet) clearKeys(keys []int32) {
	forget(d.ent, keys, func(e *repeatEnt) *uint32 { return &e.cgen })
}
func (d *repeatDet) steeredAny() bool { return d.steeredN > 0 }

// consecutiveDet counts identical calls in an unbroken streak.
type consecutiveDet struct {
	base
	cfg     *rules.Consecutive
	lastKid int32 // -1: none
	streak  int
}

func (d *consecutiveDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "consecutive", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *consecutiveDet) next(c *callCtx) int {
	if d.streak > 0 && c.kid == d.lastKid {
		return d.streak + 1
	}
	return 1
}

func (d *consecutiveDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	n := d.next(c)
	if e.blockAt > 0 && n >= e.blockAt {
		return d.verdict(Block, "consecutive", n, e.blockMsg, c, nil)
	}
	if e.steerAt > 0 && n >= e.steerAt {
		return d.verdict(Steer, "consecutive", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

// commit extends or breaks the streak. Every call takes part, also calls
// of tools the detector does not act on: any other call breaks a streak.
// A call another detector stopped takes no part (stoppedByOther).
func (d *consecutiveDet) commit(c *callCtx, final Verdict) {
	switch {
	case stoppedByOther(final, "consecutive"):
	case !c.hasKey:
		d.lastKid, d.streak = -1, 0
	case final.Action.Stops() && final.Detector == "consecutive" && d.cfg.ResetAfterBlock:
		d.lastKid, d.streak = -1, 0 // the breaker starts again from zero
	case final.Action.Stops() && !d.cfg.CountsBlocked:
	default:
		d.streak = d.next(c)
		d.lastKid = c.kid
	}
}

func (d *consecutiveDet) reset() { d.lastKid, d.streak = -1, 0 }

func (d *consecutiveDet) clearKeys(keys []int32) {
	if d.streak == 0 {
		return
	}
	for _, k := range keys {
		if k == d.lastKid {
			d.lastKid, d.streak = -1, 0
			return
		}
	}
}

// cycleDet looks for a window of calls repeating one pattern.
type cycleDet struct {
	base
	cfg     *rules.Cycle
	history []string
	anon    int
}

func (d *cycleDet) commit(c *callCtx, final Verdict) {
	if e := d.effOf(c, "cycle", effective{}, d.cfg.Only, d.cfg.Except); !e.on {
		return
	}
	if final.Action.Stops() && !d.cfg.CountsBlocked {
		return
	}
	key := c.key
	if !c.hasKey {
		// A call without a key never matches another.
		d.anon++
		key = "\x00unkeyed" + strconv.Itoa(d.anon)
	}
	d.history = append(d.history, key)
	if w := d.cfg.Window; len(d.history) > 2*w {
		d.history = append(d.history[:0], d.history[len(d.history)-w:]...)
	}
}

// period returns the period of the repeating window, or 0.
func (d *cycleDet) period() int {
	w := d.cfg.Window
	if len(d.history) < w {
		return 0
	}
	recent := d.history[len(d.history)-w:]
	for _, l := range d.cfg.Periods {
		if l < 1 || l > w || (d.cfg.PeriodMustDivide && w%l != 0) {
			continue
		}
		periodic := true
		for i := l; i < w && periodic; i++ {
			periodic = recent[i] == recent[i%l]
		}
		if periodic {
			return l
		}
	}
	return 0
}

func (d *cycleDet) check(c *callCtx) Verdict {
	l := d.period()
	if l == 0 {
		return Verdict{}
	}
	w := d.cfg.Window
	extra := map[string]string{"window": strconv.Itoa(w), "period": strconv.Itoa(l)}
	return d.verdict(Steer, "cycle", w, d.cfg.SteerMessage, c, extra)
}

func (d *cycleDet) after(c *callCtx, before Verdict) Verdict {
	if d.cfg.Check != "call" {
		return Verdict{}
	}
	return d.check(c)
}

func (d *cycleDet) endRequest() Verdict {
	if d.cfg.Check != "round" || len(d.history) == 0 {
		return Verdict{}
	}
	ev := &CallEvent{Tool: d.g.lastTool}
	return d.check(&callCtx{ev: ev, key: d.g.lastKey})
}

func (d *cycleDet) reset() { d.history = d.history[:0] }

// failureDet counts failures of the same call.
type failureDet struct {
	base
	cfg *rules.Failure
	gen uint32
	ent []countEnt
}

func (d *failureDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "failure", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *failureDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c)
	d.ent = grow(d.ent, c.kid)
	if n := d.ent[c.kid].get(d.gen); e.on && e.blockAt > 0 && n >= e.blockAt {
		return d.verdict(Block, "failure", n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

func (d *failureDet) after(c *callCtx, before Verdict) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	counted, failed := ranAsFailure(c, before, d.cfg.BlocksAsFailures, d.cfg.EmptyIsFailure)
	if !counted {
		return Verdict{}
	}
	d.ent = grow(d.ent, c.kid)
	if !failed {
		d.ent[c.kid].gen = 0
		if d.clears(c, d.cfg.ClearedBy) {
			d.gen++ // hermes: the next retry of every failing call is a new experiment
		}
		return Verdict{}
	}
	if n := d.ent[c.kid].inc(d.gen); e.steerAt > 0 && n >= e.steerAt {
		return d.verdict(Steer, "failure", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

func (d *failureDet) reset() { d.gen++ }
func (d *failureDet) clearKeys(keys []int32) {
	forget(d.ent, keys, func(e *countEnt) *uint32 { return &e.gen })
}

// toolFailureDet counts failures of one tool, any arguments.
type toolFailureDet struct {
	base
	cfg    *rules.ToolFailure
	counts map[string]int
}

func (d *toolFailureDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "tool_failure", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, haltAt: d.cfg.HaltAt,
		steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *toolFailureDet) before(c *callCtx) Verdict {
	if d.cfg.TripOnResult {
		return Verdict{} // the breaker trips on the failing result (after)
	}
	e := d.eff(c)
	if n := d.counts[c.ev.Tool]; e.on && e.blockAt > 0 && n >= e.blockAt {
		return d.verdict(Block, "tool_failure", n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

func (d *toolFailureDet) commit(c *callCtx, final Verdict) {
	if final.Action == Block && final.Detector == "tool_failure" && d.cfg.ResetAfterBlock {
		delete(d.counts, c.ev.Tool)
	}
}

func (d *toolFailureDet) after(c *callCtx, before Verdict) Verdict {
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	counted, failed := ranAsFailure(c, before, d.cfg.BlocksAsFailures, d.cfg.EmptyIsFailure)
	if !counted {
		return Verdict{}
	}
	if !failed {
		delete(d.counts, c.ev.Tool)
		if d.clears(c, d.cfg.ClearedBy) {
			clear(d.counts)
		}
		return Verdict{}
	}
	d.counts[c.ev.Tool]++
	n := d.counts[c.ev.Tool]
	if e.haltAt > 0 && n >= e.haltAt {
		return d.verdict(Halt, "tool_failure", n, e.haltMsg, c, nil)
	}
	if d.cfg.TripOnResult && e.blockAt > 0 && n >= e.blockAt {
		// hermes PR #14059: the n-th failing call ran; the breaker's error
		// comes back with its result, and the count starts again.
		delete(d.counts, c.ev.Tool)
		return d.verdict(Steer, "tool_failure", n, e.blockMsg, c, nil)
	}
	if e.steerAt > 0 && n >= e.steerAt {
		return d.verdict(Steer, "tool_failure", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

func (d *toolFailureDet) reset() { clear(d.counts) }

// noProgressDet counts successful calls returning the same result again.
type noProgressDet struct {
	base
	cfg    *rules.NoProgress
	gen    uint32
	byCall []progressEnt
	byTool map[toolResult]int
}

// progressEnt is a key's progress, valid while gen is the detector's gen.
type progressEnt struct {
	gen uint32
	p   progress
}

type progress struct {
	hash uint64
	n    int
}

type toolResult struct {
	tool string
	hash uint64
}

func (d *noProgressDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "no_progress", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *noProgressDet) before(c *callCtx) Verdict {
	if !c.hasKey || d.cfg.By != "call" {
		return Verdict{}
	}
	e := d.eff(c)
	d.byCall = grow(d.byCall, c.kid)
	if pe := &d.byCall[c.kid]; pe.gen == d.gen && e.on && e.blockAt > 0 && pe.p.n >= e.blockAt {
		p := pe.p
		return d.verdict(Block, "no_progress", p.n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

func (d *noProgressDet) after(c *callCtx, before Verdict) Verdict {
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	counted, failed := ranAsFailure(c, before, d.cfg.BlocksAsFailures, false)
	if !counted {
		return Verdict{}
	}
	var n int
	if d.cfg.By == "tool" {
		if failed {
			return Verdict{}
		}
		k := toolResult{c.ev.Tool, c.hash}
		d.byTool[k]++
		n = d.byTool[k]
	} else {
		if !c.hasKey {
			return Verdict{}
		}
		d.byCall = grow(d.byCall, c.kid)
		pe := &d.byCall[c.kid]
		if failed {
			pe.gen = 0
			return Verdict{}
		}
		if pe.gen == d.gen && pe.p.n > 0 && pe.p.hash == c.hash {
			pe.p.n++
		} else {
			pe.gen, pe.p = d.gen, progress{c.hash, 1}
		}
		n = pe.p.n
	}
	if e.steerAt > 0 && n >= e.steerAt {
		return d.verdict(Steer, "no_progress", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

func (d *noProgressDet) reset() {
	d.gen++
	clear(d.byTool)
}

func (d *noProgressDet) clearKeys(keys []int32) {
	forget(d.byCall, keys, func(e *progressEnt) *uint32 { return &e.gen })
}

// dedupDet answers an identical call from the earlier result.
type dedupDet struct {
	base
	cfg *rules.Dedup
	gen uint32
	ent []dedupEnt
}

// dedupEnt is how often a key was seen (valid while sgen is the gen) and
// its first result (while rgen is).
type dedupEnt struct {
	sgen, rgen uint32
	n          int
	res        string
}

func (d *dedupDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "dedup", effective{blockAt: d.cfg.DedupAt, blockMsg: d.cfg.Message}, d.cfg.Only, d.cfg.Except)
}

func (d *dedupDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	d.ent = grow(d.ent, c.kid)
	p := &d.ent[c.kid]
	n := 1
	if p.sgen == d.gen {
		n += p.n
	}
	if p.rgen == d.gen && n >= e.blockAt {
		return d.verdict(Dedup, "dedup", n, e.blockMsg, c, map[string]string{"result": p.res})
	}
	return Verdict{}
}

func (d *dedupDet) commit(c *callCtx, final Verdict) {
	if c.hasKey && d.eff(c).on {
		d.ent = grow(d.ent, c.kid)
		p := &d.ent[c.kid]
		if p.sgen != d.gen {
			p.sgen, p.n = d.gen, 0
		}
		p.n++
	}
}

func (d *dedupDet) after(c *callCtx, before Verdict) Verdict {
	if c.hasKey && !before.Action.Stops() && d.eff(c).on {
		d.ent = grow(d.ent, c.kid)
		if p := &d.ent[c.kid]; p.rgen != d.gen {
			p.rgen, p.res = d.gen, c.ev.Result
		}
	}
	return Verdict{}
}

func (d *dedupDet) reset() { d.gen++ }

func (d *dedupDet) clearKeys(keys []int32) {
	for _, k := range keys {
		if int(k) < len(d.ent) {
			d.ent[k].sgen, d.ent[k].rgen = 0, 0
		}
	}
}

// stallDet watches the calls that ran for a streak of identical calls
// returning the same result, and for a cycle of calls repeating with the
// same results (hermes' observe_call, agent/tool_guardrails.py).
type stallDet struct {
	base
	cfg *rules.Stall
	// The streak: the key index and result hash of its calls, and its
	// length (0: none).
	kid   int32
	hash  uint64
	count int
	// history holds the latest calls for the cycle check, oldest first.
	history []stallEntry
	anon    int32
}

// stallEntry is one call in the cycle history: its key index (a unique
// negative number for a call without a key), its result hash, and whether
// its tool is exempt from the messages.
type stallEntry struct {
	kid    int32
	hash   uint64
	exempt bool
}

func (d *stallDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "stall", effective{steerAt: d.cfg.SteerAt, haltAt: d.cfg.HaltAt, steerMsg: d.cfg.SteerMessage, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *stallDet) after(c *callCtx, before Verdict) Verdict {
	if before.Action.Stops() {
		return Verdict{} // it did not run: hermes observes the calls that ran
	}
	e := d.eff(c)
	kid := c.kid
	if !c.hasKey {
		d.anon--
		kid = d.anon - 1 // never equal to another call
	}
	if c.hasKey && d.count > 0 && kid == d.kid && c.hash == d.hash {
		d.count++
	} else {
		d.kid, d.hash, d.count = kid, c.hash, 1
	}
	if len(d.cfg.Periods) > 0 {
		d.history = append(d.history, stallEntry{kid, c.hash, !e.on})
		if h := max(d.cfg.History, 1); len(d.history) > 2*h {
			d.history = append(d.history[:0], d.history[len(d.history)-h:]...)
		}
	}
	if e.on && e.steerAt > 0 && d.count >= e.steerAt {
		extra := map[string]string{"ordinal": ordinal(d.count)}
		if e.haltAt > 0 && d.count >= e.haltAt {
			return d.verdict(Halt, "stall", d.count, e.haltMsg, c, extra)
		}
		return d.verdict(Steer, "stall", d.count, e.steerMsg, c, extra)
	}
	period, laps := d.cycle()
	if period == 0 {
		return Verdict{}
	}
	extra := map[string]string{"period": strconv.Itoa(period)}
	if d.cfg.HaltAt > 0 && laps >= d.cfg.HaltAt {
		return d.verdict(Halt, "stall", laps, d.cfg.CycleHaltMessage, c, extra)
	}
	return d.verdict(Steer, "stall", laps, d.cfg.CycleMessage, c, extra)
}

// cycle returns the smallest period whose trailing laps (same keys and
// results, position by position) number steer_at or more, and the laps,
// or 0. A cycle made only of exempt tools does not count. hermes'
// _detect_identical_cycle, over the latest History calls.
func (d *stallDet) cycle() (period, laps int) {
	need := d.cfg.SteerAt
	if need <= 0 {
		return 0, 0
	}
	h := d.history
	if len(h) > d.cfg.History {
		h = h[len(h)-d.cfg.History:]
	}
	n := len(h)
	for _, p := range d.cfg.Periods {
		if n < p*need {
			continue
		}
		laps := 1
		for {
			base := n - p*(laps+1)
			if base < 0 {
				break
			}
			equal := true
			for i := 0; i < p && equal; i++ {
				a, b := h[base+i], h[n-p+i]
				equal = a.kid == b.kid && a.hash == b.hash
			}
			if !equal {
				break
			}
			laps++
		}
		if laps < need {
			continue
		}
		exempt := true
		for _, t := range h[n-p:] {
			exempt = exempt && t.exempt
		}
		if !exempt {
			return p, laps
		}
	}
	return 0, 0
}

func (d *stallDet) reset() {
	d.kid, d.count = -1, 0
	d.history = d.history[:0]
}

// ordinal writes 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st... as hermes'
// _ordinal does.
func ordinal(n int) string {
	suffix := "th"
	if m := n % 100; m < 11 || m > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// capDet blocks a tool once it has made its allowed number of calls in the
// scope, whatever their arguments.
type capDet struct {
	base
	cfg    *rules.Cap
	counts map[string]int
}

func (d *capDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "cap", effective{blockAt: d.cfg.BlockAt, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *capDet) before(c *callCtx) Verdict {
	e := d.eff(c)
	if !e.on || e.blockAt <= 0 || d.free(c) {
		return Verdict{}
	}
	if n := d.counts[c.ev.Tool]; n+1 >= e.blockAt {
		return d.verdict(Block, "cap", n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

// free reports whether the call is one the cap neither counts nor blocks.
func (d *capDet) free(c *callCtx) bool {
	return c.ev.ArgsOK && d.cfg.Free.Holds(c.ev.Args)
}

// commit counts the call unless the cap itself refused it: hermes checks
// its caps first and counts a call before its other guards look at it. A
// call with a non-empty count_list counts as the list's length, admitted
// up to the cap (hermes' reserve_subagent_spawns: `admitted = min(count,
// available)`).
func (d *capDet) commit(c *callCtx, final Verdict) {
	e := d.eff(c)
	if !e.on || (final.Action.Stops() && final.Detector == "cap") || d.free(c) {
		return
	}
	n := 1
	if d.cfg.CountList != "" && c.ev.ArgsOK {
		if v, ok := c.ev.Args.Get(d.cfg.CountList); ok && v.Kind == jsonx.Array && len(v.Arr) > 0 {
			n = len(v.Arr)
		}
	}
	if e.blockAt > 0 {
		n = min(n, max(e.blockAt-1-d.counts[c.ev.Tool], 0))
	}
	d.counts[c.ev.Tool] += n
}

func (d *capDet) reset() { clear(d.counts) }
