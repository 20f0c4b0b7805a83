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
	cfg    *capSettings
	counts map[string]int
}

var _ = register(rules.Detector[capSettings]{
	Name: "cap", Rank: 20, Place: 90,
	Overrides: []string{"off", "block_at", "block_message"},
	Defaults: func(p *capSettings) {
		p.BlockMessage = "Blocked {tool}: it was already called {count} times in this scope, the limit."
	},
}, newCap)

// capSettings are detectors.cap's keys (docs/rules.md). The detector blocks
// a tool's calls once it has made block_at - 1 of them in the scope,
// whatever their arguments (hermes' per-turn caps: 50 web_search calls, 50
// subagents). Calls it blocks are not counted.
type capSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	BlockAt int      `yaml:"block_at"`
	// CountList names a list argument: a call whose list is not empty
	// counts as its length (hermes counts the subagents of a delegate_task
	// batch, `len(tasks)`), admitted up to the cap.
	CountList string `yaml:"count_list"`
	// Free: calls whose argument holds one of these values are neither
	// counted nor blocked (hermes' delegate_task list, steer and stop
	// actions spawn nothing).
	Free         rules.ArgValues `yaml:"free"`
	BlockMessage string          `yaml:"block_message"`
}

// newCap builds the detector when the rules enable it (detectors).
func newCap(b build) detector {
	cfg, _ := b.r.Detectors["cap"].(*capSettings)
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
