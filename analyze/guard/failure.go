package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The failure detector (rules: detectors.failure) counts failures of the
// same call (same guard key): it steers after the call's steer_at-th
// failure and blocks the next identical call once it has failed block_at
// times. A success clears the call's count; a success of a cleared_by tool
// clears every count (hermes: after a mutation the next retry is a new
// experiment). blocks_as_failures and empty_is_failure widen what counts
// as a failure.

// failureDet counts failures of the same call.
type failureDet struct {
	base
	cfg *rules.Failure
	gen uint32
	// plain: calls are counted by their plain key (key: plain).
	plain bool
	ent   []countEnt
}

var _ = register("failure", newFailure)

// newFailure builds the detector when the rules enable it (detectors).
func newFailure(b build) detector {
	cfg := b.r.Detectors.Failure
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[failureDet](b.old)
	*d = failureDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, gen: 1, ent: reuse(d.ent, b.size), plain: cfg.Key == "plain"}
	return d
}

func (d *failureDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "failure", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *failureDet) before(c *callCtx) Verdict {
	kid, ok := c.keyOf(d.plain)
	if !ok {
		return Verdict{}
	}
	e := d.eff(c)
	d.ent = grow(d.ent, kid)
	if n := d.ent[kid].get(d.gen); e.on && e.blockAt > 0 && n >= e.blockAt {
		return d.verdict(Block, "failure", n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

func (d *failureDet) after(c *callCtx, before Verdict) Verdict {
	kid, ok := c.keyOf(d.plain)
	if !ok {
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
	d.ent = grow(d.ent, kid)
	if !failed {
		d.ent[kid].gen = 0
		if d.clears(c, d.cfg.ClearedBy) {
			d.gen++ // hermes: the next retry of every failing call is a new experiment
		}
		return Verdict{}
	}
	if n := d.ent[kid].inc(d.gen); e.steerAt > 0 && n >= e.steerAt {
		return d.verdict(Steer, "failure", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

func (d *failureDet) reset() { d.gen++ }
func (d *failureDet) clearKeys(keys []int32) {
	forget(d.ent, keys, func(e *countEnt) *uint32 { return &e.gen })
}

func (d *failureDet) save(w *snapbin.Writer) {
	w.Uint(uint64(d.gen))
	saveSlice(w, d.ent, saveCountEnt)
}

func (d *failureDet) load(r *snapbin.Reader) {
	d.gen = r.Uint32()
	d.ent = loadSlice(r, loadCountEnt)
}
