package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The tool_failure detector (rules: detectors.tool_failure) counts the
// failures of one tool, whatever its arguments; a success of the tool
// clears its count. steer_at and halt_at act after the n-th failure;
// block_at blocks the tool's next call, or, with trip_on_result (hermes PR
// #14059's breaker), answers the n-th failing result itself and starts
// the count again.

// toolFailureDet counts failures of one tool, any arguments.
type toolFailureDet struct {
	base
	cfg    *toolFailureSettings
	counts map[string]int
}

var _ = register(rules.Detector[toolFailureSettings]{
	Name: "tool_failure", Rank: 50, Place: 50,
	Overrides: overAll,
	Defaults: func(p *toolFailureSettings) {
		p.SteerMessage = "{tool} failed {count} times in a row. Diagnose the error before retrying."
		p.BlockMessage = "Blocked {tool}: it failed {count} times in a row. Change approach or use another tool."
		p.HaltMessage = "Stopped: {tool} failed {count} times in a row."
	},
	Check: func(c rules.Check, at string, p *toolFailureSettings) error {
		if err := c.Detectors(at, p.BlocksAsFailures); err != nil {
			return err
		}
		if err := c.Selectors(at+".cleared_by", p.ClearedBy); err != nil {
			return err
		}
		if p.SteerAt > 0 && p.HaltAt > 0 && p.SteerAt >= p.HaltAt {
			return c.Fail(at+".steer_at", "%s.steer_at (%d) must be below halt_at (%d)", at, p.SteerAt, p.HaltAt)
		}
		return nil
	},
}, newToolFailure)

// toolFailureSettings are detectors.tool_failure's keys (docs/rules.md).
// The detector counts failures of one tool whatever its arguments; a
// success of that tool clears its count.
type toolFailureSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	// SteerAt and HaltAt act after the n-th failure; BlockAt blocks the
	// tool's next call once it has failed n times.
	SteerAt int `yaml:"steer_at"`
	BlockAt int `yaml:"block_at"`
	HaltAt  int `yaml:"halt_at"`
	// ResetAfterBlock clears the tool's count after a block.
	ResetAfterBlock bool `yaml:"reset_after_block"`
	// TripOnResult: block_at acts on the n-th failing result itself (hermes
	// PR #14059's breaker): that call ran, the block message is added to
	// its result (a steer), and the count starts again.
	TripOnResult     bool     `yaml:"trip_on_result"`
	BlocksAsFailures []string `yaml:"blocks_as_failures,flow"`
	EmptyIsFailure   bool     `yaml:"empty_is_failure"`
	// ClearedBy: as for Failure, clearing every tool's count.
	ClearedBy    []string `yaml:"cleared_by,flow"`
	SteerMessage string   `yaml:"steer_message"`
	BlockMessage string   `yaml:"block_message"`
	HaltMessage  string   `yaml:"halt_message"`
}

// newToolFailure builds the detector when the rules enable it (detectors).
func newToolFailure(b build) detector {
	cfg, _ := b.r.Detectors["tool_failure"].(*toolFailureSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[toolFailureDet](b.old)
	*d = toolFailureDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, counts: renewMap(d.counts)}
	return d
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

func (d *toolFailureDet) save(w *snapbin.Writer) { saveCounts(w, d.counts) }
func (d *toolFailureDet) load(r *snapbin.Reader) { loadCounts(r, d.counts) }
