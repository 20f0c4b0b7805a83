package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The failed_rounds detector (rules: detectors.failed_rounds) counts model
// responses in a row whose tool calls all failed; a response with a
// successful call ends the run, one without calls (or with only calls the
// detector does not act on) leaves it as it is. At the halt_at-th such
// response the turn halts. Cline's consecutive-mistake limit (its SDK's
// session-runtime-orchestrator.ts, turn-finished: "When some tool calls
// failed and the turn had no successful tool calls, record a mistake;
// reset on productive turns"; MistakeTracker stops at the limit). A call
// a guard stopped did not run and counts neither way.

type failedRoundsDet struct {
	base
	cfg *failedRoundsSettings
	// failed and succeeded count the current response's calls; run is
	// the responses in a row whose calls all failed.
	failed, succeeded int
	run               int
	// lastTool is the tool of the latest call that failed in this
	// response (the message's {tool}).
	lastTool string
}

var _ = register(rules.Detector[failedRoundsSettings]{
	Name: "failed_rounds", Rank: 120, Place: 120,
	Overrides: overHalt,
	Defaults: func(p *failedRoundsSettings) {
		p.HaltMessage = "Stopped after {count} model responses in a row whose tool calls all failed."
	},
}, newFailedRounds)

// failedRoundsSettings are detectors.failed_rounds's keys (docs/rules.md).
// The detector counts model responses in a row whose calls all failed (a
// response with a successful call ends the run of them); the turn halts at
// halt_at (Cline's consecutive-mistake limit).
type failedRoundsSettings struct {
	Enabled     bool     `yaml:"enabled"`
	Reset       string   `yaml:"reset"`
	Only        []string `yaml:"only,flow"`
	Except      []string `yaml:"except,flow"`
	HaltAt      int      `yaml:"halt_at"`
	HaltMessage string   `yaml:"halt_message"`
}

// newFailedRounds builds the detector when the rules enable it (detectors).
func newFailedRounds(b build) detector {
	cfg, _ := b.r.Detectors["failed_rounds"].(*failedRoundsSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[failedRoundsDet](b.old)
	*d = failedRoundsDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg}
	return d
}

func (d *failedRoundsDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "failed_rounds", effective{haltAt: d.cfg.HaltAt, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *failedRoundsDet) after(c *callCtx, before Verdict) Verdict {
	if before.Action.Stops() || !d.eff(c).on {
		return Verdict{}
	}
	if c.failed {
		d.failed++
		d.lastTool = c.ev.Tool
	} else {
		d.succeeded++
	}
	return Verdict{}
}

func (d *failedRoundsDet) endRequest() Verdict {
	failed, succeeded, tool := d.failed, d.succeeded, d.lastTool
	d.failed, d.succeeded, d.lastTool = 0, 0, ""
	switch {
	case succeeded > 0:
		d.run = 0
	case failed > 0:
		d.run++
		e := d.g.resolve("failed_rounds", effective{haltAt: d.cfg.HaltAt, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except, tool)
		if e.haltAt > 0 && d.run >= e.haltAt {
			c := &callCtx{ev: &CallEvent{Tool: tool}}
			return d.verdict(Halt, "failed_rounds", d.run, e.haltMsg, c, nil)
		}
	}
	return Verdict{}
}

func (d *failedRoundsDet) reset() {
	d.failed, d.succeeded, d.run, d.lastTool = 0, 0, 0, ""
}

func (d *failedRoundsDet) save(w *snapbin.Writer) {
	w.Int(int64(d.failed))
	w.Int(int64(d.succeeded))
	w.Int(int64(d.run))
	w.String(d.lastTool)
}

func (d *failedRoundsDet) load(r *snapbin.Reader) {
	d.failed, d.succeeded, d.run = int(r.Int()), int(r.Int()), int(r.Int())
	d.lastTool = r.String()
}
