package guard

import (
	"fmt"
	"strconv"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The pattern detector (rules: detectors.pattern) looks, before each call
// runs, at the scope's calls with this one appended: when the latest
// laps x k calls repeat the pattern of the latest k (k in periods), it is
// a detection. Gemini CLI's tool-call loop (loopDetectionService.ts,
// checkToolCallLoop): 5 identical calls in a row, or 5 laps of a cycle of
// 2 to 5 calls. Its thresholds count detections in the scope (Gemini CLI's
// detectedCount): block_at 1 blocks the call of the first detection,
// halt_at 2 halts the turn at the second.

// patternDet keeps the latest calls' keys and the detections so far.
type patternDet struct {
	base
	cfg *patternSettings
	// history holds the latest keys, oldest first (a call without a key
	// gets a unique negative number, equal to no other call).
	history []int32
	anon    int32
	hits    int
	maxLen  int
}

var _ = register(rules.Detector[patternSettings]{
	Name: "pattern", Rank: 90, Place: 100,
	Overrides: overAll,
	Defaults: func(p *patternSettings) {
		p.Laps, p.Periods = 5, []int{1, 2, 3, 4, 5}
		p.SteerMessage = "The latest calls repeat a pattern of {period} call(s) {laps} times, ending with {tool}. Change approach instead of repeating it."
		p.BlockMessage = "Blocked {tool}: the latest calls repeat a pattern of {period} call(s) {laps} times. Change approach instead of repeating it."
		p.HaltMessage = "Stopped: the latest calls repeat a pattern of {period} call(s) {laps} times, ending with {tool}."
	},
	Check: func(c rules.Check, at string, p *patternSettings) error {
		if p.Laps < 2 || p.Laps > 100 {
			return c.Fail(at+".laps", "%s.laps must be between 2 and 100, not %d", at, p.Laps)
		}
		if len(p.Periods) == 0 {
			return c.Fail(at+".periods", "%s.periods must list at least one period", at)
		}
		for i, l := range p.Periods {
			if l < 1 || l > 100 {
				return c.Fail(fmt.Sprintf("%s.periods[%d]", at, i), "%s.periods: %d is not between 1 and 100", at, l)
			}
		}
		if err := c.SteerBelowBlock(at, p.SteerAt, p.BlockAt); err != nil {
			return err
		}
		return c.SteerBelowHalt(at, p.SteerAt, p.HaltAt)
	},
}, newPattern)

// patternSettings are detectors.pattern's keys (docs/rules.md). The
// detector looks, before each call runs, at the calls of the scope with
// this one: when the latest laps x k calls repeat a pattern of k calls (k
// in periods), it is a detection (Gemini CLI's tool-call loop: 5 identical
// calls in a row, or 5 laps of a cycle of up to 5 calls). Thresholds count
// detections in the scope: block_at 1 blocks the call of the first, halt_at
// 2 halts at the second.
type patternSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	Laps    int      `yaml:"laps"`
	Periods []int    `yaml:"periods,flow"`
	SteerAt int      `yaml:"steer_at"`
	BlockAt int      `yaml:"block_at"`
	HaltAt  int      `yaml:"halt_at"`
	// CountsBlocked: a call this detector stopped still enters the
	// history (Gemini CLI records the call before it checks).
	CountsBlocked bool   `yaml:"counts_blocked"`
	SteerMessage  string `yaml:"steer_message"`
	BlockMessage  string `yaml:"block_message"`
	HaltMessage   string `yaml:"halt_message"`
}

// newPattern builds the detector when the rules enable it (detectors).
func newPattern(b build) detector {
	cfg, _ := b.r.Detectors["pattern"].(*patternSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[patternDet](b.old)
	longest := 0
	for _, p := range cfg.Periods {
		longest = max(longest, p)
	}
	*d = patternDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, history: reuse(d.history, 0), maxLen: longest * cfg.Laps}
	return d
}

func (d *patternDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "pattern", effective{steerAt: d.cfg.SteerAt, blockAt: d.cfg.BlockAt, haltAt: d.cfg.HaltAt, steerMsg: d.cfg.SteerMessage, blockMsg: d.cfg.BlockMessage, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

// keyOf is the call's entry in the history.
func (d *patternDet) keyOf(c *callCtx) int32 {
	if c.hasKey {
		return c.kid
	}
	return d.anon - 1
}

// match returns the smallest period whose laps the history would complete
// with key appended, or 0.
func (d *patternDet) match(key int32) int {
	h := d.history
	n := len(h) + 1
	at := func(i int) int32 { // the history with key appended
		if i == len(h) {
			return key
		}
		return h[i]
	}
	for _, p := range d.cfg.Periods {
		need := p * d.cfg.Laps
		if n < need {
			continue
		}
		ok := true
		for i := n - need; i < n-p && ok; i++ {
			ok = at(i) == at(i+p)
		}
		if ok {
			return p
		}
	}
	return 0
}

func (d *patternDet) before(c *callCtx) Verdict {
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	p := d.match(d.keyOf(c))
	if p == 0 {
		return Verdict{}
	}
	n := d.hits + 1
	extra := map[string]string{"period": strconv.Itoa(p), "laps": strconv.Itoa(d.cfg.Laps)}
	switch {
	case e.haltAt > 0 && n >= e.haltAt:
		return d.verdict(Halt, "pattern", n, e.haltMsg, c, extra)
	case e.blockAt > 0 && n >= e.blockAt:
		return d.verdict(Block, "pattern", n, e.blockMsg, c, extra)
	case e.steerAt > 0 && n >= e.steerAt:
		return d.verdict(Steer, "pattern", n, e.steerMsg, c, extra)
	}
	return Verdict{}
}

// commit counts a detection this detector's verdict carried, and enters
// the call in the history, unless another detector stopped it (it never
// reached this check) or this one did and blocked calls do not count.
func (d *patternDet) commit(c *callCtx, final Verdict) {
	if final.Detector == "pattern" && final.Action != Allow {
		d.hits++
	}
	if stoppedByOther(final, "pattern") || (final.Action.Stops() && !d.cfg.CountsBlocked) {
		return
	}
	key := d.keyOf(c)
	if !c.hasKey {
		d.anon--
	}
	d.history = append(d.history, key)
	if len(d.history) > 2*d.maxLen {
		d.history = append(d.history[:0], d.history[len(d.history)-d.maxLen:]...)
	}
}

func (d *patternDet) reset() {
	d.history = d.history[:0]
	d.hits = 0
}

func (d *patternDet) save(w *snapbin.Writer) {
	saveSlice(w, d.history, func(w *snapbin.Writer, k *int32) { w.Int(int64(*k)) })
	w.Int(int64(d.anon))
	w.Int(int64(d.hits))
}

func (d *patternDet) load(r *snapbin.Reader) {
	d.history = loadSlice(r, func(r *snapbin.Reader, k *int32) { *k = r.Int32() })
	d.anon = r.Int32()
	d.hits = int(r.Int())
}
