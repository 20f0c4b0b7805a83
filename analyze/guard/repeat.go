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
	cfg *rules.Repeat
	gen uint32
	ent []repeatEnt
	// steeredN counts the keys steered since the last reset.
	steeredN int
}

var _ = register("repeat", newRepeat)

// newRepeat builds the detector when the rules enable it (detectors).
func newRepeat(b build) detector {
	cfg := b.r.Detectors.Repeat
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
