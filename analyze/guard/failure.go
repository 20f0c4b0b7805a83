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
	cfg *failureSettings
	gen uint32
	// plain: calls are counted by their plain key (key: plain).
	plain bool
	ent   []countEnt
}

var _ = register(rules.Detector[failureSettings]{
	Name: "failure", Rank: 30, Place: 40,
	Overrides: overSteerBlock,
	Defaults: func(p *failureSettings) {
		p.Key = "rules"
		p.SteerMessage = "{tool} failed {count} times with identical arguments. Read the error and change the call instead of retrying it unchanged."
		p.BlockMessage = "Blocked {tool}: this call already failed {count} times with identical arguments. Change the call or explain the blocker."
	},
	Check: func(c rules.Check, at string, p *failureSettings) error {
		if err := c.Key(at, p.Key); err != nil {
			return err
		}
		if err := c.Detectors(at, p.BlocksAsFailures); err != nil {
			return err
		}
		return c.Selectors(at+".cleared_by", p.ClearedBy)
	},
}, newFailure)

// failureSettings are detectors.failure's keys (docs/rules.md). The
// detector counts failures of the same call (same key). steer_at: steer
// after the call's n-th failure; block_at: block the next identical call
// once it has failed n times (the count shown is the failures so far).
type failureSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	// Key is "rules" (the call's key under the key section) or "plain"
	// (the key without the per-tool key.tools entries: every argument as
	// written, after key.style, numbers, ignore and fold). hermes'
	// tool_guardrails hashes a call's raw arguments, while its read guard
	// keys read_file on (path, offset, limit) with defaults filled in.
	Key     string `yaml:"key"`
	SteerAt int    `yaml:"steer_at"`
	BlockAt int    `yaml:"block_at"`
	// BlocksAsFailures names the detectors whose blocks count as failures
	// of the call (hermes June 2026: the read/search guard's BLOCKED
	// refusals were tool results containing "error", so they counted; its
	// guardrail blocks never reached after_call, so they did not).
	BlocksAsFailures []string `yaml:"blocks_as_failures,flow"`
	// EmptyIsFailure: an empty result counts as a failure too (hermes PR
	// #14059: "a tool result that is an error or empty").
	EmptyIsFailure bool `yaml:"empty_is_failure"`
	// ClearedBy are the selectors of calls whose success clears every
	// failure count (hermes Aug 2026: a successful mutation makes the next
	// retry a new experiment, not a replay).
	ClearedBy    []string `yaml:"cleared_by,flow"`
	SteerMessage string   `yaml:"steer_message"`
	BlockMessage string   `yaml:"block_message"`
}

// newFailure builds the detector when the rules enable it (detectors).
func newFailure(b build) detector {
	cfg, _ := b.r.Detectors["failure"].(*failureSettings)
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
