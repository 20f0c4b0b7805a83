package guard

import (
	"fmt"
	"strconv"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The stall detector (rules: detectors.stall) is hermes' stall guard over
// the calls that ran: a streak of identical calls returning the same
// result, and a cycle of 2 or more calls whose trailing laps repeat with
// the same keys and results (looked for only when the streak did not
// fire). It steers the steer_at-th call of a streak or lap of a cycle and
// halts at halt_at; only and except choose the tools that get the
// messages, while every call takes part.

// stallDet watches the calls that ran for a streak of identical calls
// returning the same result, and for a cycle of calls repeating with the
// same results (hermes' observe_call, agent/tool_guardrails.py).
type stallDet struct {
	base
	cfg *stallSettings
	// The streak: the key index and result hash of its calls, and its
	// length (0: none).
	kid   int32
	hash  uint64
	count int
	// history holds the latest calls for the cycle check, oldest first.
	history []stallEntry
	anon    int32
	// plain: calls are compared by their plain key (key: plain).
	plain bool
}

var _ = register(rules.Detector[stallSettings]{
	Name: "stall", Rank: 100, Place: 80,
	Overrides: []string{"off", "steer_at", "halt_at", "steer_message", "halt_message"},
	Defaults: func(p *stallSettings) {
		p.SteerAt, p.Periods, p.History, p.Key = 3, []int{2, 3, 4}, 64, "rules"
		p.SteerMessage = "{tool} was called {count} times in a row with identical arguments and returned the same result each time. Do not repeat it; change the arguments, use another tool, or go on with what you have."
		p.HaltMessage = "Stopped {tool}: the same call returned the same result {count} times in a row."
		p.CycleMessage = "The last {count} rounds repeated the same cycle of {period} tool calls (ending with {tool}) with identical arguments and results. Do not repeat the cycle; change approach."
		p.CycleHaltMessage = "Stopped {tool}: the same cycle of {period} tool calls repeated {count} times with identical results."
	},
	Check: func(c rules.Check, at string, p *stallSettings) error {
		if err := c.Key(at, p.Key); err != nil {
			return err
		}
		if p.SteerAt > 0 && p.SteerAt < 2 {
			return c.Fail(at+".steer_at", "%s.steer_at must be 2 or more (a streak of one call is no repeat), not %d", at, p.SteerAt)
		}
		if p.SteerAt > 0 && p.HaltAt > 0 && p.SteerAt > p.HaltAt {
			return c.Fail(at+".steer_at", "%s.steer_at (%d) must not be above halt_at (%d)", at, p.SteerAt, p.HaltAt)
		}
		for i, l := range p.Periods {
			if l < 2 || l > 100 {
				return c.Fail(fmt.Sprintf("%s.periods[%d]", at, i), "%s.periods: %d is not between 2 and 100 (period 1 is the streak)", at, l)
			}
		}
		if p.History < 0 || p.History > 10000 {
			return c.Fail(at+".history", "%s.history must be between 0 and 10000, not %d", at, p.History)
		}
		return nil
	},
}, newStall)

// stallSettings are detectors.stall's keys (docs/rules.md). The detector
// watches calls that ran for two shapes of no progress (hermes' stall
// guards, Aug-Sep 2026): a streak of consecutive identical calls returning
// the same result, and a cycle of 2 or more calls repeating with the same
// results lap after lap. Only and except choose the tools that get its
// messages; every call takes part in the streak and the cycle.
type stallSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	// Key: "rules" or "plain" (see failureSettings.Key).
	Key string `yaml:"key"`
	// SteerAt: the n-th identical call of a streak, or the n-th lap of a
	// cycle, is steered; HaltAt: the turn halts there (0 = never).
	SteerAt int `yaml:"steer_at"`
	HaltAt  int `yaml:"halt_at"`
	// Periods are the cycle lengths tried, smallest first (empty: no
	// cycle check); History is how many calls are kept for it.
	Periods      []int  `yaml:"periods,flow"`
	History      int    `yaml:"history"`
	SteerMessage string `yaml:"steer_message"`
	HaltMessage  string `yaml:"halt_message"`
	// CycleMessage and CycleHaltMessage are the cycle's texts ({period},
	// {count} = laps).
	CycleMessage     string `yaml:"cycle_message"`
	CycleHaltMessage string `yaml:"cycle_halt_message"`
}

// newStall builds the detector when the rules enable it (detectors).
func newStall(b build) detector {
	cfg, _ := b.r.Detectors["stall"].(*stallSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[stallDet](b.old)
	*d = stallDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, kid: -1, history: reuse(d.history, 0), plain: cfg.Key == "plain"}
	return d
}

// stallEntry is one call in the cycle history: its key index (a unique
// negative number for a call without a key), its result hash, and whether
// its tool is exempt from the messages.
type stallEntry struct {
	kid    int32
	hash   uint64
	exempt bool
}

func (d *stallDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "stall", effective{steerAt: d.cfg.SteerAt, haltAt: d.cfg.HaltAt, steerMsg: d.cfg.SteerMessage, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *stallDet) after(c *callCtx, before Verdict) Verdict {
	if before.Action.Stops() {
		return Verdict{} // it did not run: hermes observes the calls that ran
	}
	e := d.eff(c)
	kid, hasKey := c.keyOf(d.plain)
	if !hasKey {
		d.anon--
		kid = d.anon - 1 // never equal to another call
	}
	if hasKey && d.count > 0 && kid == d.kid && c.hash == d.hash {
		d.count++
	} else {
		d.kid, d.hash, d.count = kid, c.hash, 1
	}
	if len(d.cfg.Periods) > 0 {
		d.history = append(d.history, stallEntry{kid, c.hash, !e.on})
		if h := max(d.cfg.History, 1); len(d.history) > 2*h {
			d.history = append(d.history[:0], d.history[len(d.history)-h:]...)
		}
	}
	if e.on && e.steerAt > 0 && d.count >= e.steerAt {
		extra := map[string]string{"ordinal": ordinal(d.count)}
		if e.haltAt > 0 && d.count >= e.haltAt {
			return d.verdict(Halt, "stall", d.count, e.haltMsg, c, extra)
		}
		return d.verdict(Steer, "stall", d.count, e.steerMsg, c, extra)
	}
	period, laps := d.cycle()
	if period == 0 {
		return Verdict{}
	}
	extra := map[string]string{"period": strconv.Itoa(period)}
	if d.cfg.HaltAt > 0 && laps >= d.cfg.HaltAt {
		return d.verdict(Halt, "stall", laps, d.cfg.CycleHaltMessage, c, extra)
	}
	return d.verdict(Steer, "stall", laps, d.cfg.CycleMessage, c, extra)
}

// cycle returns the smallest period whose trailing laps (same keys and
// results, position by position) number steer_at or more, and the laps,
// or 0. A cycle made only of exempt tools does not count. hermes'
// _detect_identical_cycle, over the latest History calls.
func (d *stallDet) cycle() (period, laps int) {
	need := d.cfg.SteerAt
	if need <= 0 {
		return 0, 0
	}
	h := d.history
	if len(h) > d.cfg.History {
		h = h[len(h)-d.cfg.History:]
	}
	n := len(h)
	for _, p := range d.cfg.Periods {
		if n < p*need {
			continue
		}
		laps := 1
		for {
			base := n - p*(laps+1)
			if base < 0 {
				break
			}
			equal := true
			for i := 0; i < p && equal; i++ {
				a, b := h[base+i], h[n-p+i]
				equal = a.kid == b.kid && a.hash == b.hash
			}
			if !equal {
				break
			}
			laps++
		}
		if laps < need {
			continue
		}
		exempt := true
		for _, t := range h[n-p:] {
			exempt = exempt && t.exempt
		}
		if !exempt {
			return p, laps
		}
	}
	return 0, 0
}

func (d *stallDet) reset() {
	d.kid, d.count = -1, 0
	d.history = d.history[:0]
}

// ordinal writes 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st... as hermes'
// _ordinal does.
func ordinal(n int) string {
	suffix := "th"
	if m := n % 100; m < 11 || m > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

func (d *stallDet) save(w *snapbin.Writer) {
	w.Int(int64(d.kid))
	w.Word(d.hash)
	w.Int(int64(d.count))
	saveSlice(w, d.history, func(w *snapbin.Writer, e *stallEntry) {
		w.Int(int64(e.kid))
		w.Word(e.hash)
		w.Bool(e.exempt)
	})
	w.Int(int64(d.anon))
}

func (d *stallDet) load(r *snapbin.Reader) {
	d.kid, d.hash, d.count = r.Int32(), r.Word(), int(r.Int())
	d.history = loadSlice(r, func(r *snapbin.Reader, e *stallEntry) {
		*e = stallEntry{kid: r.Int32(), hash: r.Word(), exempt: r.Bool()}
	})
	d.anon = r.Int32()
}
