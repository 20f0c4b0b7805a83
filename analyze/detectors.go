package analyze

import (
	"strconv"
	"strings"

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
	// clearKeys forgets the counts of these keys (write_clears_reads).
	clearKeys(keys map[string]struct{})
	steeredAny() bool
}

// buildDetectors returns the rules' detectors in rules.DetectorNames order.
func buildDetectors(g *Guard, r *rules.Rules) []detector {
	var out []detector
	ds := r.Detectors
	turn := func(reset string) bool {
		if reset == "" {
			reset = r.Scope.Reset
		}
		return reset == "turn"
	}
	for _, name := range rules.DetectorNames {
		switch name {
		case "dedup":
			if d := ds.Dedup; d != nil && d.Enabled {
				out = append(out, &dedupDet{base: base{g, turn(d.Reset)}, cfg: d, seen: map[string]int{}, results: map[string]string{}})
			}
		case "failure":
			if d := ds.Failure; d != nil && d.Enabled {
				out = append(out, &failureDet{base: base{g, turn(d.Reset)}, cfg: d, counts: map[string]int{}})
			}
		case "no_progress":
			if d := ds.NoProgress; d != nil && d.Enabled {
				out = append(out, &noProgressDet{base: base{g, turn(d.Reset)}, cfg: d, byCall: map[string]progress{}, byTool: map[toolResult]int{}})
			}
		case "tool_failure":
			if d := ds.ToolFailure; d != nil && d.Enabled {
				out = append(out, &toolFailureDet{base: base{g, turn(d.Reset)}, cfg: d, counts: map[string]int{}})
			}
		case "repeat":
			if d := ds.Repeat; d != nil && d.Enabled {
				out = append(out, &repeatDet{base: base{g, turn(d.Reset)}, cfg: d, counts: map[string]int{}, steered: map[string]bool{}})
			}
		case "consecutive":
			if d := ds.Consecutive; d != nil && d.Enabled {
				out = append(out, &consecutiveDet{base: base{g, turn(d.Reset)}, cfg: d})
			}
		case "cycle":
			if d := ds.Cycle; d != nil && d.Enabled {
				out = append(out, &cycleDet{base: base{g, turn(d.Reset)}, cfg: d})
			}
		}
	}
	return out
}

// base holds what every detector shares, and no-op defaults.
type base struct {
	g    *Guard
	turn bool
}

func (b *base) resetsOnTurn() bool              { return b.turn }
func (b *base) before(*callCtx) Verdict         { return Verdict{} }
func (b *base) commit(*callCtx, Verdict)        {}
func (b *base) after(*callCtx, Verdict) Verdict { return Verdict{} }
func (b *base) endRequest() Verdict             { return Verdict{} }
func (b *base) clearKeys(map[string]struct{})   {}
func (b *base) steeredAny() bool                { return false }

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
	return true, c.ev.Failed || (emptyFails && strings.TrimSpace(c.ev.Result) == "")
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

func deleteKeys[V any](m map[string]V, keys map[string]struct{}) {
	for k := range keys {
		delete(m, k)
	}
}

// repeatDet counts identical calls cumulatively within its scope.
type repeatDet struct {
	base
	cfg     *rules.Repeat
	counts  map[string]int
	steered map[string]bool
}

func (d *repeatDet) eff(tool string) *effective {
	return d.g.resolve("repeat", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except, tool)
}

func (d *repeatDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c.ev.Tool)
	if !e.on {
		return Verdict{}
	}
	n := d.counts[c.key] + 1
	steered := d.steered[c.key]
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
	if !c.hasKey || !d.eff(c.ev.Tool).on {
		return
	}
	if stoppedByOther(final, "repeat") || (final.Action.Stops() && !d.cfg.CountsBlocked) {
		// pi: a blocked call is not recorded. counts_blocked (nanobot)
		// counts this detector's own blocks only: a call another detector
		// stopped first never reached this check (see stoppedByOther).
		return
	}
	d.counts[c.key]++
	if final.Action == Steer && final.Detector == "repeat" {
		d.steered[c.key] = true
	}
}

func (d *repeatDet) reset() {
	clear(d.counts)
	clear(d.steered)
}

// clearKeys forgets counts but not steers: pi §3.7 keeps steeredKeys.
func (d *repeatDet) clearKeys(keys map[string]struct{}) { deleteKeys(d.counts, keys) }
func (d *repeatDet) steeredAny() bool                   { return len(d.steered) > 0 }

// consecutiveDet counts identical calls in an unbroken streak.
type consecutiveDet struct {
	base
	cfg     *rules.Consecutive
	lastKey string
	streak  int
}

func (d *consecutiveDet) eff(tool string) *effective {
	return d.g.resolve("consecutive", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except, tool)
}

func (d *consecutiveDet) next(c *callCtx) int {
	if d.streak > 0 && c.key == d.lastKey {
		return d.streak + 1
	}
	return 1
}

func (d *consecutiveDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c.ev.Tool)
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
		d.lastKey, d.streak = "", 0
	case final.Action.Stops() && final.Detector == "consecutive" && d.cfg.ResetAfterBlock:
		d.lastKey, d.streak = "", 0 // the breaker starts again from zero
	case final.Action.Stops() && !d.cfg.CountsBlocked:
	default:
		d.streak = d.next(c)
		d.lastKey = c.key
	}
}

func (d *consecutiveDet) reset() { d.lastKey, d.streak = "", 0 }

func (d *consecutiveDet) clearKeys(keys map[string]struct{}) {
	if _, ok := keys[d.lastKey]; ok && d.streak > 0 {
		d.lastKey, d.streak = "", 0
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
	if e := d.g.resolve("cycle", effective{}, d.cfg.Only, d.cfg.Except, c.ev.Tool); !e.on {
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
	cfg    *rules.Failure
	counts map[string]int
}

func (d *failureDet) eff(tool string) *effective {
	return d.g.resolve("failure", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except, tool)
}

func (d *failureDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c.ev.Tool)
	if n := d.counts[c.key]; e.on && e.blockAt > 0 && n >= e.blockAt {
		return d.verdict(Block, "failure", n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

func (d *failureDet) after(c *callCtx, before Verdict) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c.ev.Tool)
	if !e.on {
		return Verdict{}
	}
	counted, failed := ranAsFailure(c, before, d.cfg.BlocksAsFailures, d.cfg.EmptyIsFailure)
	if !counted {
		return Verdict{}
	}
	if !failed {
		delete(d.counts, c.key)
		return Verdict{}
	}
	d.counts[c.key]++
	if n := d.counts[c.key]; e.steerAt > 0 && n >= e.steerAt {
		return d.verdict(Steer, "failure", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

func (d *failureDet) reset()                             { clear(d.counts) }
func (d *failureDet) clearKeys(keys map[string]struct{}) { deleteKeys(d.counts, keys) }

// toolFailureDet counts failures of one tool, any arguments.
type toolFailureDet struct {
	base
	cfg    *rules.ToolFailure
	counts map[string]int
}

func (d *toolFailureDet) eff(tool string) *effective {
	return d.g.resolve("tool_failure", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, haltAt: d.cfg.HaltAt,
		steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except, tool)
}

func (d *toolFailureDet) before(c *callCtx) Verdict {
	e := d.eff(c.ev.Tool)
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
	e := d.eff(c.ev.Tool)
	if !e.on {
		return Verdict{}
	}
	counted, failed := ranAsFailure(c, before, d.cfg.BlocksAsFailures, d.cfg.EmptyIsFailure)
	if !counted {
		return Verdict{}
	}
	if !failed {
		delete(d.counts, c.ev.Tool)
		return Verdict{}
	}
	d.counts[c.ev.Tool]++
	n := d.counts[c.ev.Tool]
	if e.haltAt > 0 && n >= e.haltAt {
		return d.verdict(Halt, "tool_failure", n, e.haltMsg, c, nil)
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
	byCall map[string]progress
	byTool map[toolResult]int
}

type progress struct {
	hash uint64
	n    int
}

type toolResult struct {
	tool string
	hash uint64
}

func (d *noProgressDet) eff(tool string) *effective {
	return d.g.resolve("no_progress", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except, tool)
}

func (d *noProgressDet) before(c *callCtx) Verdict {
	if !c.hasKey || d.cfg.By != "call" {
		return Verdict{}
	}
	e := d.eff(c.ev.Tool)
	if p, ok := d.byCall[c.key]; ok && e.on && e.blockAt > 0 && p.n >= e.blockAt {
		return d.verdict(Block, "no_progress", p.n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

func (d *noProgressDet) after(c *callCtx, before Verdict) Verdict {
	e := d.eff(c.ev.Tool)
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
		k := toolResult{c.ev.Tool, c.ev.ResultHash}
		d.byTool[k]++
		n = d.byTool[k]
	} else {
		if !c.hasKey {
			return Verdict{}
		}
		if failed {
			delete(d.byCall, c.key)
			return Verdict{}
		}
		p := d.byCall[c.key]
		if p.n > 0 && p.hash == c.ev.ResultHash {
			p.n++
		} else {
			p = progress{c.ev.ResultHash, 1}
		}
		d.byCall[c.key] = p
		n = p.n
	}
	if e.steerAt > 0 && n >= e.steerAt {
		return d.verdict(Steer, "no_progress", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

func (d *noProgressDet) reset() {
	clear(d.byCall)
	clear(d.byTool)
}

func (d *noProgressDet) clearKeys(keys map[string]struct{}) { deleteKeys(d.byCall, keys) }

// dedupDet answers an identical call from the earlier result.
type dedupDet struct {
	base
	cfg     *rules.Dedup
	seen    map[string]int
	results map[string]string
}

func (d *dedupDet) eff(tool string) *effective {
	return d.g.resolve("dedup", effective{blockAt: d.cfg.DedupAt, blockMsg: d.cfg.Message}, d.cfg.Only, d.cfg.Except, tool)
}

func (d *dedupDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c.ev.Tool)
	if !e.on {
		return Verdict{}
	}
	n := d.seen[c.key] + 1
	res, ok := d.results[c.key]
	if ok && n >= e.blockAt {
		return d.verdict(Dedup, "dedup", n, e.blockMsg, c, map[string]string{"result": res})
	}
	return Verdict{}
}

func (d *dedupDet) commit(c *callCtx, final Verdict) {
	if c.hasKey && d.eff(c.ev.Tool).on {
		d.seen[c.key]++
	}
}

func (d *dedupDet) after(c *callCtx, before Verdict) Verdict {
	if c.hasKey && !before.Action.Stops() && d.eff(c.ev.Tool).on {
		if _, ok := d.results[c.key]; !ok {
			d.results[c.key] = c.ev.Result
		}
	}
	return Verdict{}
}

func (d *dedupDet) reset() {
	clear(d.seen)
	clear(d.results)
}

func (d *dedupDet) clearKeys(keys map[string]struct{}) {
	deleteKeys(d.seen, keys)
	deleteKeys(d.results, keys)
}
