package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The repeat detector (rules: detectors.repeat) counts identical calls
// (same guard key) cumulatively within its scope: A-B-A-B counts A twice.
// It decides before the call runs: steer from steer_at, block from
// block_at. counts_blocked says whether a call it blocked still counts
// (nanobot) or not (pi: every later identical call is blocked again at the
// same count); steer_once and block_after_steer give pi's "steer a key
// once, then block it". A call another detector stopped is never counted.

// repeatDet counts identical calls cumulatively within its scope.
type repeatDet struct {
	base
	cfg *repeatSettings
	gen uint32
	ent []repeatEnt
	// steeredN counts the keys steered since the last reset.
	steeredN int
}

var _ = register(rules.Detector[repeatSettings]{
	Name: "repeat", Rank: 60, Place: 10,
	Overrides: overSteerBlock,
	Shorthand: true,
	Defaults: func(p *repeatSettings) {
		p.SteerMessage = "{tool} was called {count} times with identical arguments. The earlier result is still in your context; use it instead of calling again."
		p.BlockMessage = "Blocked {tool}: called {count} times with identical arguments. The earlier result is in your context; use it instead of calling again."
	},
	Check: func(c rules.Check, at string, p *repeatSettings) error {
		if err := c.SteerBelowBlock(at, p.SteerAt, p.BlockAt); err != nil {
			return err
		}
		if p.BlockAfterSteer && p.SteerAt == 0 && p.BlockAt > 0 {
			return c.Fail(at+".block_after_steer", "%s.block_after_steer needs a steer_at, or nothing would ever be blocked", at)
		}
		return nil
	},
}, newRepeat)

// repeatSettings are detectors.repeat's keys (docs/rules.md). The detector
// counts identical calls cumulatively within the scope (A-B-A-B included).
// Thresholds are call ordinals: steer_at 3 = the 3rd identical call is
// steered; block_at 4 = the 4th and later are blocked.
type repeatSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	SteerAt int      `yaml:"steer_at"`
	BlockAt int      `yaml:"block_at"`
	// CountsBlocked: a blocked call still counts (nanobot); otherwise the
	// count stays and every later identical call is blocked again (pi).
	CountsBlocked bool `yaml:"counts_blocked"`
	// SteerOnce: a key is steered at most once per scope (pi).
	SteerOnce bool `yaml:"steer_once"`
	// BlockAfterSteer: a key is blocked only after it was steered (pi).
	BlockAfterSteer bool   `yaml:"block_after_steer"`
	SteerMessage    string `yaml:"steer_message"`
	BlockMessage    string `yaml:"block_message"`
}

// newRepeat builds the detector when the rules enable it (detectors).
func newRepeat(b build) detector {
	cfg, _ := b.r.Detectors["repeat"].(*repeatSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[repeatDet](b.old)
	*d = repeatDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, gen: 1, ent: reuse(d.ent, b.size)}
	return d
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

func (d *repeatDet) save(w *snapbin.Writer) {
	w.Uint(uint64(d.gen))
	saveSlice(w, d.ent, func(w *snapbin.Writer, e *repeatEnt) {
		w.Uint(uint64(e.cgen))
		w.Uint(uint64(e.sgen))
		w.Int(int64(e.n))
	})
	w.Int(int64(d.steeredN))
}

func (d *repeatDet) load(r *snapbin.Reader) {
	d.gen = r.Uint32()
	d.ent = loadSlice(r, func(r *snapbin.Reader, e *repeatEnt) {
		*e = repeatEnt{cgen: r.Uint32(), sgen: r.Uint32(), n: int(r.Int())}
	})
	d.steeredN = int(r.Int())
}
