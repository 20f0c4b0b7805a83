package guard

import (
	"cmp"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The no_progress detector (rules: detectors.no_progress) counts
// successful calls returning the same result again: by call (the same key
// returning the same result as its last run; block_at blocks the next
// identical call) or by tool (the same tool returning the same result,
// any arguments). A failure clears the count.

// noProgressDet counts successful calls returning the same result again.
type noProgressDet struct {
	base
	cfg    *noProgressSettings
	gen    uint32
	byCall []progressEnt
	byTool map[toolResult]int
	// plain: calls are counted by their plain key (key: plain).
	plain bool
}

var _ = register(rules.Detector[noProgressSettings]{
	Name: "no_progress", Rank: 40, Place: 60,
	Overrides: overSteerBlock,
	Defaults: func(p *noProgressSettings) {
		p.By, p.Key = "call", "rules"
		p.SteerMessage = "{tool} returned the same result {count} times. Use the result you already have, or change the arguments."
		p.BlockMessage = "Blocked {tool}: this call already returned the same result {count} times. Use the result you already have."
	},
	Normalize: func(p *noProgressSettings) {
		if p.By == "" {
			p.By = "call"
		}
	},
	Check: func(c rules.Check, at string, p *noProgressSettings) error {
		if err := c.Key(at, p.Key); err != nil {
			return err
		}
		if err := c.Detectors(at, p.BlocksAsFailures); err != nil {
			return err
		}
		if p.By != "call" && p.By != "tool" {
			return c.Fail(at+".by", "%s.by must be call or tool, not %q", at, p.By)
		}
		if p.By == "tool" && p.BlockAt > 0 {
			return c.Fail(at+".block_at", "%s.block_at needs by: call (a new call of the tool may bring new information)", at)
		}
		return nil
	},
}, newNoProgress)

// noProgressSettings are detectors.no_progress's keys (docs/rules.md). The
// detector counts successful calls returning the same result again.
type noProgressSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	// Key: "rules" or "plain" (see failureSettings.Key).
	Key string `yaml:"key"`
	// By is "call" (same key, same result as its last run: hermes) or
	// "tool" (same tool, any arguments, same result: hermes PR #18075).
	By string `yaml:"by"`
	// SteerAt acts after the n-th identical result; BlockAt blocks the next
	// identical call once its result has repeated n times (By call only).
	SteerAt int `yaml:"steer_at"`
	BlockAt int `yaml:"block_at"`
	// BlocksAsFailures names the detectors whose blocks count as failed
	// runs of the call, which clear its count (hermes: a BLOCKED refusal is
	// a failure, and a failure pops the no-progress entry).
	BlocksAsFailures []string `yaml:"blocks_as_failures,flow"`
	SteerMessage     string   `yaml:"steer_message"`
	BlockMessage     string   `yaml:"block_message"`
}

// newNoProgress builds the detector when the rules enable it (detectors).
func newNoProgress(b build) detector {
	cfg, _ := b.r.Detectors["no_progress"].(*noProgressSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[noProgressDet](b.old)
	*d = noProgressDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, gen: 1, byCall: reuse(d.byCall, b.size), byTool: renewMap(d.byTool), plain: cfg.Key == "plain"}
	return d
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
	kid, ok := c.keyOf(d.plain)
	if !ok || d.cfg.By != "call" || c.acts || c.volatile {
		return Verdict{}
	}
	e := d.eff(c)
	d.byCall = grow(d.byCall, kid)
	if pe := &d.byCall[kid]; pe.gen == d.gen && e.on && e.blockAt > 0 && pe.p.n >= e.blockAt {
		p := pe.p
		return d.verdict(Block, "no_progress", p.n, e.blockMsg, c, nil)
	}
	return Verdict{}
}

func (d *noProgressDet) after(c *callCtx, before Verdict) Verdict {
	e := d.eff(c)
	if !e.on || c.acts || c.volatile {
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
		kid, ok := c.keyOf(d.plain)
		if !ok {
			return Verdict{}
		}
		d.byCall = grow(d.byCall, kid)
		pe := &d.byCall[kid]
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

func (d *noProgressDet) save(w *snapbin.Writer) {
	w.Uint(uint64(d.gen))
	saveSlice(w, d.byCall, func(w *snapbin.Writer, e *progressEnt) {
		w.Uint(uint64(e.gen))
		w.Word(e.p.hash)
		w.Int(int64(e.p.n))
	})
	saveMap(w, d.byTool, func(a, b toolResult) int {
		if c := cmp.Compare(a.tool, b.tool); c != 0 {
			return c
		}
		return cmp.Compare(a.hash, b.hash)
	}, func(w *snapbin.Writer, k toolResult, n int) {
		w.String(k.tool)
		w.Word(k.hash)
		w.Int(int64(n))
	})
}

func (d *noProgressDet) load(r *snapbin.Reader) {
	d.gen = r.Uint32()
	d.byCall = loadSlice(r, func(r *snapbin.Reader, e *progressEnt) {
		*e = progressEnt{gen: r.Uint32(), p: progress{hash: r.Word(), n: int(r.Int())}}
	})
	clear(d.byTool)
	for range r.Len() {
		k := toolResult{tool: r.String(), hash: r.Word()}
		d.byTool[k] = int(r.Int())
	}
}
