package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The dedup detector (rules: detectors.dedup) does not run an identical
// call from dedup_at on: the earlier result is returned instead ({result}
// in its message). A write that clears reads (scope.write_clears_reads)
// also drops their kept results. ignore_failures keeps no failed result
// to answer from; unless_args leaves alone the calls that give any of
// those arguments (Qwen Code answers whole-file reads only).

// dedupDet answers an identical call from the earlier result.
type dedupDet struct {
	base
	cfg *dedupSettings
	gen uint32
	ent []dedupEnt
}

var _ = register(rules.Detector[dedupSettings]{
	Name: "dedup", Rank: 10, Place: 70,
	Overrides:       []string{"off", "block_message"},
	ReadsResultText: true,
	Defaults: func(p *dedupSettings) {
		p.DedupAt = 2
		p.Message = "{result}"
	},
	Check: func(c rules.Check, at string, p *dedupSettings) error {
		if p.DedupAt < 2 {
			return c.Fail(at+".dedup_at", "%s.dedup_at must be 2 or more (the first call has no earlier result), not %d", at, p.DedupAt)
		}
		return nil
	},
}, newDedup)

// dedupSettings are detectors.dedup's keys (docs/rules.md). The detector
// answers an identical call from the earlier result instead of running it.
type dedupSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	// DedupAt is the call ordinal from which identical calls are deduped
	// (2 = every repeat).
	DedupAt int `yaml:"dedup_at"`
	// Message is returned instead of running the call ({result} is the
	// earlier result).
	Message string `yaml:"message"`
	// IgnoreFailures: a failed call leaves nothing to answer from (Claude
	// Code and Qwen Code record a read only when it succeeded).
	IgnoreFailures bool `yaml:"ignore_failures"`
	// UnlessArgs: calls that give any of these arguments are left alone,
	// neither answered nor remembered (Qwen Code answers only whole-file
	// reads: no offset, limit or pages).
	UnlessArgs []string `yaml:"unless_args,flow"`
}

// newDedup builds the detector when the rules enable it (detectors).
func newDedup(b build) detector {
	cfg, _ := b.r.Detectors["dedup"].(*dedupSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[dedupDet](b.old)
	*d = dedupDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, gen: 1, ent: reuse(d.ent, b.size)}
	return d
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

// skips reports whether the call gives one of the unless_args.
func (d *dedupDet) skips(c *callCtx) bool {
	if len(d.cfg.UnlessArgs) == 0 {
		return false
	}
	args := c.ev.arguments()
	for _, a := range d.cfg.UnlessArgs {
		if _, ok := args.Get(a); ok {
			return true
		}
	}
	return false
}

func (d *dedupDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c)
	if !e.on || d.skips(c) {
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
	if c.hasKey && d.eff(c).on && !d.skips(c) {
		d.ent = grow(d.ent, c.kid)
		p := &d.ent[c.kid]
		if p.sgen != d.gen {
			p.sgen, p.n = d.gen, 0
		}
		p.n++
	}
}

func (d *dedupDet) after(c *callCtx, before Verdict) Verdict {
	if c.hasKey && !before.Action.Stops() && d.eff(c).on && !(c.failed && d.cfg.IgnoreFailures) && !d.skips(c) {
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

func (d *dedupDet) save(w *snapbin.Writer) {
	w.Uint(uint64(d.gen))
	saveSlice(w, d.ent, func(w *snapbin.Writer, e *dedupEnt) {
		w.Uint(uint64(e.sgen))
		w.Uint(uint64(e.rgen))
		w.Int(int64(e.n))
		w.String(e.res)
	})
}

func (d *dedupDet) load(r *snapbin.Reader) {
	d.gen = r.Uint32()
	d.ent = loadSlice(r, func(r *snapbin.Reader, e *dedupEnt) {
		*e = dedupEnt{sgen: r.Uint32(), rgen: r.Uint32(), n: int(r.Int()), res: r.String()}
	})
}
