package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The consecutive detector (rules: detectors.consecutive) counts identical
// calls in an unbroken streak: any call with another key, of any tool
// (also tools outside its only list), breaks it. It decides before the
// call runs. counts_blocked lets a call it blocked extend the streak
// (hermes' read/search guard); reset_after_block starts the streak again
// after a block (a circuit breaker). halt_at halts the turn (Cline's hard
// stop), steer_once steers only the steer_at-th call of a streak (Cline's
// soft warning), per_request ends a streak with its model response
// (OpenCode's doom loop looks at one assistant message), and free calls
// neither count nor break a streak (Kilo Code's browser scrolls).

// consecutiveDet counts identical calls in an unbroken streak.
type consecutiveDet struct {
	base
	cfg     *consecutiveSettings
	lastKid int32 // -1: none
	streak  int
}

var _ = register(rules.Detector[consecutiveSettings]{
	Name: "consecutive", Rank: 70, Place: 20,
	Overrides: overSteerBlock,
	Shorthand: true,
	Defaults: func(p *consecutiveSettings) {
		p.SteerMessage = "{tool} was called {count} times in a row with identical arguments. If it is not making progress, change approach."
		p.BlockMessage = "Blocked {tool}: called {count} times in a row with identical arguments. Change approach instead of repeating it."
		p.HaltMessage = "Stopped: {tool} was called {count} times in a row with identical arguments."
	},
	Check: func(c rules.Check, at string, p *consecutiveSettings) error {
		if err := c.SteerBelowBlock(at, p.SteerAt, p.BlockAt); err != nil {
			return err
		}
		if err := c.SteerBelowHalt(at, p.SteerAt, p.HaltAt); err != nil {
			return err
		}
		return c.Selectors(at+".free.tools", p.Free.Tools)
	},
}, newConsecutive)

// consecutiveSettings are detectors.consecutive's keys (docs/rules.md). The
// detector counts identical calls in an unbroken streak: any call with
// another key (of any tool) breaks it.
type consecutiveSettings struct {
	Enabled       bool     `yaml:"enabled"`
	Reset         string   `yaml:"reset"`
	Only          []string `yaml:"only,flow"`
	Except        []string `yaml:"except,flow"`
	SteerAt       int      `yaml:"steer_at"`
	BlockAt       int      `yaml:"block_at"`
	CountsBlocked bool     `yaml:"counts_blocked"`
	// ResetAfterBlock: the streak starts again from zero after a block
	// (hermes PR #14059's circuit breaker).
	ResetAfterBlock bool `yaml:"reset_after_block"`
	// HaltAt: the turn halts from this ordinal on (Cline's hard stop).
	HaltAt int `yaml:"halt_at"`
	// SteerOnce: only the steer_at-th call of a streak is steered, not
	// the later ones (Cline's soft warning at exactly 3).
	SteerOnce bool `yaml:"steer_once"`
	// PerRequest: a streak ends with the model response it is in
	// (OpenCode looks at the parts of the current assistant message).
	PerRequest bool `yaml:"per_request"`
	// Free: calls of these tools whose argument holds one of the values
	// neither count nor break a streak (Kilo Code's browser scrolls).
	Free         rules.ToolArgValues `yaml:"free"`
	SteerMessage string              `yaml:"steer_message"`
	BlockMessage string              `yaml:"block_message"`
	HaltMessage  string              `yaml:"halt_message"`
}

// newConsecutive builds the detector when the rules enable it (detectors).
func newConsecutive(b build) detector {
	cfg, _ := b.r.Detectors["consecutive"].(*consecutiveSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[consecutiveDet](b.old)
	*d = consecutiveDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, lastKid: -1}
	return d
}

func (d *consecutiveDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "consecutive", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, haltAt: d.cfg.HaltAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

// free reports whether the call is one the streak ignores (free).
func (d *consecutiveDet) free(c *callCtx) bool {
	f := &d.cfg.Free
	return len(f.Tools) > 0 && d.g.r.MatchesAny(f.Tools, c.ev.Tool) &&
		rules.ArgValues{Arg: f.Arg, Values: f.Values}.Holds(c.ev.arguments())
}

func (d *consecutiveDet) next(c *callCtx) int {
	if d.streak > 0 && c.kid == d.lastKid {
		return d.streak + 1
	}
	return 1
}

func (d *consecutiveDet) before(c *callCtx) Verdict {
	if !c.hasKey {
		return Verdict{}
	}
	e := d.eff(c)
	if !e.on || d.free(c) {
		return Verdict{}
	}
	n := d.next(c)
	if e.haltAt > 0 && n >= e.haltAt {
		return d.verdict(Halt, "consecutive", n, e.haltMsg, c, nil)
	}
	if e.blockAt > 0 && n >= e.blockAt {
		return d.verdict(Block, "consecutive", n, e.blockMsg, c, nil)
	}
	if e.steerAt > 0 && (n == e.steerAt || n > e.steerAt && !d.cfg.SteerOnce) {
		return d.verdict(Steer, "consecutive", n, e.steerMsg, c, nil)
	}
	return Verdict{}
}

// commit extends or breaks the streak. Every call takes part, also calls
// of tools the detector does not act on: any other call breaks a streak.
// A call another detector stopped takes no part (stoppedByOther).
func (d *consecutiveDet) commit(c *callCtx, final Verdict) {
	switch {
	case stoppedByOther(final, "consecutive"):
	case len(d.cfg.Free.Tools) > 0 && d.free(c):
	case !c.hasKey:
		d.lastKid, d.streak = -1, 0
	case final.Action.Stops() && final.Detector == "consecutive" && d.cfg.ResetAfterBlock:
		d.lastKid, d.streak = -1, 0 // the breaker starts again from zero
	case final.Action.Stops() && !d.cfg.CountsBlocked:
	default:
		d.streak = d.next(c)
		d.lastKid = c.kid
	}
}

func (d *consecutiveDet) reset() { d.lastKid, d.streak = -1, 0 }

// endRequest ends the streak with its model response (per_request).
func (d *consecutiveDet) endRequest() Verdict {
	if d.cfg.PerRequest {
		d.reset()
	}
	return Verdict{}
}

func (d *consecutiveDet) clearKeys(keys []int32) {
	if d.streak == 0 {
		return
	}
	for _, k := range keys {
		if k == d.lastKid {
			d.lastKid, d.streak = -1, 0
			return
		}
	}
}

func (d *consecutiveDet) save(w *snapbin.Writer) {
	w.Int(int64(d.lastKid))
	w.Int(int64(d.streak))
}

func (d *consecutiveDet) load(r *snapbin.Reader) {
	d.lastKid, d.streak = r.Int32(), int(r.Int())
}
