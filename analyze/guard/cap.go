package guard

import (
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The cap detector (rules: detectors.cap) limits a tool's calls in the
// scope, whatever their arguments (hermes' per-turn caps): from block_at
// on the tool is blocked, and a call the cap blocked is not counted.
// count_list counts a call as the length of a list argument, and free
// names the calls it neither counts nor blocks.

// capDet blocks a tool once it has made its allowed number of calls in the
// scope, whatever their arguments.
type capDet struct {
	base
	cfg    *rules.Cap
	counts map[string]int
}

var _ = register("cap", newCap)

// newCap builds the detector when the rules enable it (detectors).
func newCap(b build) detector {
	cfg := b.r.Detectors.Cap
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[capDet](b.old)
	*d = capDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, counts: renewMap(d.counts)}
	return d
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
	return c.ev.ArgsOK && d.cfg.Free.Arg != "" && d.cfg.Free.Holds(c.ev.arguments())
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
		if v, ok := c.ev.arguments().Get(d.cfg.CountList); ok && v.Kind == jsonx.Array && len(v.Arr) > 0 {
			n = len(v.Arr)
		}
	}
	if e.blockAt > 0 {
		n = min(n, max(e.blockAt-1-d.counts[c.ev.Tool], 0))
	}
	d.counts[c.ev.Tool] += n
}

func (d *capDet) reset() { clear(d.counts) }

func (d *capDet) save(w *snapbin.Writer) { saveCounts(w, d.counts) }
func (d *capDet) load(r *snapbin.Reader) { loadCounts(r, d.counts) }
