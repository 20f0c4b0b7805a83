package guard

import (
	"fmt"
	"strconv"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The cycle detector (rules: detectors.cycle) steers when the latest
// window calls repeat one pattern of one of the given periods (the whole
// window repeats the pattern of its oldest calls). It checks after each
// model response (check: round, attractor) or after each call (check:
// call); period_must_divide skips periods that do not divide the window.
// It only steers.

// cycleDet looks for a window of calls repeating one pattern.
type cycleDet struct {
	base
	cfg     *cycleSettings
	history []string
	anon    int
}

var _ = register(rules.Detector[cycleSettings]{
	Name: "cycle", Rank: 130, Place: 30,
	Overrides: overOff,
	Defaults: func(p *cycleSettings) {
		p.Window, p.Periods, p.Check = 10, []int{1, 2, 3}, "round"
		p.SteerMessage = "Loop detected: the last {window} tool calls follow a repeating pattern. Try a different approach."
	},
	Normalize: func(p *cycleSettings) {
		if p.Check == "" {
			p.Check = "round"
		}
	},
	Check: func(c rules.Check, at string, p *cycleSettings) error {
		if p.Window < 2 || p.Window > 1000 {
			return c.Fail(at+".window", "%s.window must be between 2 and 1000, not %d", at, p.Window)
		}
		if len(p.Periods) == 0 {
			return c.Fail(at+".periods", "%s.periods must list at least one period", at)
		}
		for i, l := range p.Periods {
			if l < 1 || l > p.Window {
				return c.Fail(fmt.Sprintf("%s.periods[%d]", at, i), "%s.periods: %d is not between 1 and the window (%d)", at, l, p.Window)
			}
		}
		if p.Check != "round" && p.Check != "call" {
			return c.Fail(at+".check", "%s.check must be round or call, not %q", at, p.Check)
		}
		return nil
	},
}, newCycle)

// cycleSettings are detectors.cycle's keys (docs/rules.md). The detector
// looks at the last Window calls: when the whole window repeats a pattern
// of one of the Periods, it steers (warning only).
type cycleSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	Window  int      `yaml:"window"`
	Periods []int    `yaml:"periods,flow"`
	// PeriodMustDivide skips periods that do not divide the window
	// (attractor: with window 10, period 3 is never checked).
	PeriodMustDivide bool `yaml:"period_must_divide"`
	// Check is "round" (after each model response, attractor) or "call"
	// (after each call).
	Check         string `yaml:"check"`
	CountsBlocked bool   `yaml:"counts_blocked"`
	SteerMessage  string `yaml:"steer_message"`
}

// newCycle builds the detector when the rules enable it (detectors).
func newCycle(b build) detector {
	cfg, _ := b.r.Detectors["cycle"].(*cycleSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[cycleDet](b.old)
	*d = cycleDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, history: reuse(d.history, 0)}
	return d
}

func (d *cycleDet) commit(c *callCtx, final Verdict) {
	if e := d.effOf(c, "cycle", effective{}, d.cfg.Only, d.cfg.Except); !e.on {
		return
	}
	if final.Action.Stops() && !d.cfg.CountsBlocked {
		return
	}
	key := c.key
	if !c.hasKey {
		// A call without a key never matches another.
		d.anon++
		key = "\x00unkeyed" + strconv.Itoa(d.anon)
	}
	d.history = append(d.history, key)
	if w := d.cfg.Window; len(d.history) > 2*w {
		d.history = append(d.history[:0], d.history[len(d.history)-w:]...)
	}
}

// period returns the period of the repeating window, or 0.
func (d *cycleDet) period() int {
	w := d.cfg.Window
	if len(d.history) < w {
		return 0
	}
	recent := d.history[len(d.history)-w:]
	for _, l := range d.cfg.Periods {
		if l < 1 || l > w || (d.cfg.PeriodMustDivide && w%l != 0) {
			continue
		}
		periodic := true
		for i := l; i < w && periodic; i++ {
			periodic = recent[i] == recent[i%l]
		}
		if periodic {
			return l
		}
	}
	return 0
}

func (d *cycleDet) check(c *callCtx) Verdict {
	l := d.period()
	if l == 0 {
		return Verdict{}
	}
	w := d.cfg.Window
	extra := map[string]string{"window": strconv.Itoa(w), "period": strconv.Itoa(l)}
	return d.verdict(Steer, "cycle", w, d.cfg.SteerMessage, c, extra)
}

func (d *cycleDet) after(c *callCtx, before Verdict) Verdict {
	if d.cfg.Check != "call" {
		return Verdict{}
	}
	return d.check(c)
}

func (d *cycleDet) endRequest() Verdict {
	if d.cfg.Check != "round" || len(d.history) == 0 {
		return Verdict{}
	}
	ev := &CallEvent{Tool: d.g.lastTool}
	return d.check(&callCtx{ev: ev, key: d.g.lastKey})
}

func (d *cycleDet) reset() { d.history = d.history[:0] }

func (d *cycleDet) save(w *snapbin.Writer) {
	saveSlice(w, d.history, func(w *snapbin.Writer, k *string) { w.String(*k) })
	w.Int(int64(d.anon))
}

func (d *cycleDet) load(r *snapbin.Reader) {
	d.history = loadSlice(r, func(r *snapbin.Reader, k *string) { *k = r.String() })
	d.anon = int(r.Int())
}
