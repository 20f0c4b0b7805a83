package guard

import (
	"cmp"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The turn_cap detector (rules: detectors.turn_cap) bounds the calls of a
// scope adaptively: past soft calls it halts only when the scope looks
// stuck (some call repeated stuck_at times in it), and past hard calls it
// halts whatever the calls. It follows Qwen Code's always-on per-turn cap
// (packages/core/src/services/loopDetectionService.ts at
// 00aa71b4a0a37df1c392eb9b90e1c53d008fdce5: checkTurnToolCallCap,
// shouldHaltOnTurnToolCallCap, DEFAULT_MAX_TOOL_CALLS_PER_TURN 100,
// ADAPTIVE_CAP_HARD_MULTIPLIER 10, GLOBAL_DUPLICATE_THRESHOLD 6).
//
// The stuck signal is the most any one key was called in the scope,
// counted as the calls are made. The calls of result_aware tools (Qwen
// Code's stateful reads, task_list) are counted by their results instead:
// how many results in a row of that call were the same, which a changed
// result starts again from one, and which a model response that brought
// no result of that call clears (recordToolResult, the streak decay at
// each finished round-trip).

type turnCapDet struct {
	base
	cfg *turnCapSettings
	// total counts the scope's calls; repeats each key's calls (not of
	// result_aware tools), and peak the most of them.
	total   int
	repeats map[int32]int
	peak    int
	// results holds a result_aware key's latest result and how many in a
	// row were the same; fresh marks the keys that had a result since the
	// last model response ended.
	results map[int32]resultRun
}

// resultRun is a result_aware key's run of identical results.
type resultRun struct {
	hash  uint64
	seen  bool // hash is set
	same  int  // results in a row equal to hash (0: the run was cleared)
	fresh bool
}

var _ = register(rules.Detector[turnCapSettings]{
	Name: "turn_cap", Rank: 150, Place: 150,
	Overrides: []string{"off", "halt_message"},
	Defaults: func(p *turnCapSettings) {
		p.Soft, p.Hard, p.StuckAt = 100, 1000, 6
		p.HaltMessage = "Stopped: {count} calls in this turn, and the turn keeps repeating a call."
	},
	Check: func(c rules.Check, at string, p *turnCapSettings) error {
		if p.Soft < 1 {
			return c.Fail(at+".soft", "%s.soft must be 1 or more, not %d", at, p.Soft)
		}
		if p.Hard != 0 && p.Hard <= p.Soft {
			return c.Fail(at+".hard", "%s.hard must be above soft (%d), or 0 for none, not %d", at, p.Soft, p.Hard)
		}
		if p.StuckAt == 1 {
			return c.Fail(at+".stuck_at", "%s.stuck_at of 1 is no repeat; use 2 or more, or 0 for none", at)
		}
		return c.Selectors(at+".result_aware", p.ResultAware)
	},
}, newTurnCap)

// turnCapSettings are detectors.turn_cap's keys (docs/rules.md): past Soft
// calls the scope halts when some call was made StuckAt times in it; past
// Hard calls (0: never) it halts whatever the calls. The calls of
// ResultAware tools count by their results: the results in a row of one
// call that were the same.
type turnCapSettings struct {
	Enabled     bool     `yaml:"enabled"`
	Reset       string   `yaml:"reset"`
	Only        []string `yaml:"only,flow"`
	Except      []string `yaml:"except,flow"`
	Soft        int      `yaml:"soft"`
	Hard        int      `yaml:"hard"`
	StuckAt     int      `yaml:"stuck_at"`
	ResultAware []string `yaml:"result_aware,flow"`
	HaltMessage string   `yaml:"halt_message"`
}

// newTurnCap builds the detector when the rules enable it (detectors).
func newTurnCap(b build) detector {
	cfg, _ := b.r.Detectors["turn_cap"].(*turnCapSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[turnCapDet](b.old)
	*d = turnCapDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, repeats: renewMap(d.repeats), results: renewMap(d.results)}
	return d
}

// eff is the call's settings: whether it takes part (the detector's only
// and except, a tool's off) and its halt message.
func (d *turnCapDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "turn_cap", effective{haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

// counts reports whether the call takes part.
func (d *turnCapDet) counts(c *callCtx) bool { return d.eff(c).on }

// resultAware reports whether the call's repeats count by its results.
func (d *turnCapDet) resultAware(c *callCtx) bool {
	return len(d.cfg.ResultAware) > 0 && d.g.r.MatchesAny(d.cfg.ResultAware, c.ev.ClassName())
}

// stuck is the stuck signal with this call counted.
func (d *turnCapDet) stuck(c *callCtx) int {
	s := max(d.peak, d.resultPeak())
	if c.hasKey && !d.resultAware(c) {
		s = max(s, d.repeats[c.kid]+1)
	}
	return s
}

// resultPeak is the longest current run of identical results.
func (d *turnCapDet) resultPeak() int {
	p := 0
	for _, r := range d.results {
		p = max(p, r.same)
	}
	return p
}

func (d *turnCapDet) before(c *callCtx) Verdict {
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	n := d.total + 1
	if n <= d.cfg.Soft {
		return Verdict{}
	}
	if d.cfg.Hard > 0 && n > d.cfg.Hard || d.cfg.StuckAt > 0 && d.stuck(c) >= d.cfg.StuckAt {
		return d.verdict(Halt, "turn_cap", n, e.haltMsg, c, nil)
	}
	return Verdict{}
}

// commit counts the call: Qwen Code counts every call it is asked to run.
func (d *turnCapDet) commit(c *callCtx, _ Verdict) {
	if !d.counts(c) {
		return
	}
	d.total++
	if c.hasKey && !d.resultAware(c) {
		d.repeats[c.kid]++
		d.peak = max(d.peak, d.repeats[c.kid])
	}
}

// after counts a result_aware call's result.
func (d *turnCapDet) after(c *callCtx, before Verdict) Verdict {
	if before.Action.Stops() || before.Action == Halt || !c.hasKey || !d.resultAware(c) || !d.counts(c) {
		return Verdict{}
	}
	r := d.results[c.kid]
	h := c.ev.ResultHash
	if r.seen && r.hash == h {
		r.same++
	} else {
		r.same = 1
	}
	r.hash, r.seen, r.fresh = h, true, true
	d.results[c.kid] = r
	return Verdict{}
}

// endRequest clears the runs of the keys that brought no result in the
// model response just ended (the model moved on to other work).
func (d *turnCapDet) endRequest() Verdict {
	for k, r := range d.results {
		if !r.fresh {
			r.same = 0
		}
		r.fresh = false
		d.results[k] = r
	}
	return Verdict{}
}

func (d *turnCapDet) reset() {
	d.total, d.peak = 0, 0
	clear(d.repeats)
	clear(d.results)
}

func (d *turnCapDet) save(w *snapbin.Writer) {
	w.Int(int64(d.total))
	w.Int(int64(d.peak))
	saveMap(w, d.repeats, cmp.Compare[int32], func(w *snapbin.Writer, k int32, n int) {
		w.Int(int64(k))
		w.Int(int64(n))
	})
	saveMap(w, d.results, cmp.Compare[int32], func(w *snapbin.Writer, k int32, r resultRun) {
		w.Int(int64(k))
		w.Word(r.hash)
		w.Bool(r.seen)
		w.Int(int64(r.same))
		w.Bool(r.fresh)
	})
}

func (d *turnCapDet) load(r *snapbin.Reader) {
	d.total, d.peak = int(r.Int()), int(r.Int())
	clear(d.repeats)
	for range r.Len() {
		k := r.Int32()
		d.repeats[k] = int(r.Int())
	}
	clear(d.results)
	for range r.Len() {
		k := r.Int32()
		d.results[k] = resultRun{hash: r.Word(), seen: r.Bool(), same: int(r.Int()), fresh: r.Bool()}
	}
}
