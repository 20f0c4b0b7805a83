package guard

import (
	"cmp"

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
// result_aware tools' streaks act only on unchanged results: at a
// threshold, when the streak's earlier results were all seen and one of
// them changed, the streak starts again from this call instead (Qwen Code's
// stateful reads: checkToolCallLoop and recordToolResult in
// loopDetectionService.ts at 00aa71b4a0a37df1c392eb9b90e1c53d008fdce5).

// consecutiveDet counts identical calls in an unbroken streak.
type consecutiveDet struct {
	base
	cfg     *consecutiveSettings
	lastKid int32 // -1: none
	streak  int
	// For result_aware tools: the results seen in the streak, how many in
	// a row were the same as the one before, and each key's latest result
	// (kept across streaks, as Qwen Code keeps its fingerprint).
	observed, unchanged int
	lastResult          map[int32]uint64
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
		if err := c.Selectors(at+".free.tools", p.Free.Tools); err != nil {
			return err
		}
		return c.Selectors(at+".result_aware", p.ResultAware)
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
	Free rules.ToolArgValues `yaml:"free"`
	// ResultAware: for these tools a streak that reaches a threshold only
	// acts when the results in it were the same; when one changed, the
	// streak starts again (Qwen Code's stateful reads, task_list).
	ResultAware  []string `yaml:"result_aware,flow"`
	SteerMessage string   `yaml:"steer_message"`
	BlockMessage string   `yaml:"block_message"`
	HaltMessage  string   `yaml:"halt_message"`
}

// newConsecutive builds the detector when the rules enable it (detectors).
func newConsecutive(b build) detector {
	cfg, _ := b.r.Detectors["consecutive"].(*consecutiveSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[consecutiveDet](b.old)
	*d = consecutiveDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, lastKid: -1}
	if len(cfg.ResultAware) > 0 {
		d.lastResult = map[int32]uint64{}
	}
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
	return len(f.Tools) > 0 && d.g.r.MatchesAny(f.Tools, c.ev.ClassName()) &&
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
	if d.carved(c, n, e) {
		return Verdict{}
	}
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

// resultAware reports whether the call's streak acts on its results.
func (d *consecutiveDet) resultAware(c *callCtx) bool {
	return d.lastResult != nil && d.g.r.MatchesAny(d.cfg.ResultAware, c.ev.ClassName())
}

// carved reports whether the n-th call of a result_aware streak, at a
// threshold, starts the streak again: every earlier result of the streak
// was seen, and they were not all the same.
func (d *consecutiveDet) carved(c *callCtx, n int, e *effective) bool {
	at := 0
	for _, t := range []int{e.steerAt, e.blockAt, e.haltAt} {
		if t > 0 && (at == 0 || t < at) {
			at = t
		}
	}
	return at > 0 && n >= at && d.resultAware(c) && d.observed >= n-1 && d.unchanged < n-2
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
	case d.lastResult != nil && d.carved(c, d.next(c), d.eff(c)):
		d.streak, d.lastKid, d.observed, d.unchanged = 1, c.kid, 0, 0
	default:
		n := d.next(c)
		if n == 1 {
			d.observed, d.unchanged = 0, 0
		}
		d.streak = n
		d.lastKid = c.kid
	}
}

// after notes a result_aware call's result for its streak.
func (d *consecutiveDet) after(c *callCtx, before Verdict) Verdict {
	if d.lastResult == nil || before.Action.Stops() || before.Action == Halt || !c.hasKey || !d.resultAware(c) {
		return Verdict{}
	}
	h := c.ev.ResultHash
	prev, seen := d.lastResult[c.kid]
	if c.kid == d.lastKid && d.streak > 0 {
		d.observed++
		switch {
		case !seen:
		case prev == h:
			d.unchanged++
		default:
			d.unchanged = 0
		}
	}
	d.lastResult[c.kid] = h
	return Verdict{}
}

func (d *consecutiveDet) reset() {
	d.lastKid, d.streak, d.observed, d.unchanged = -1, 0, 0, 0
	clear(d.lastResult)
}

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
	if d.lastResult != nil {
		w.Int(int64(d.observed))
		w.Int(int64(d.unchanged))
		saveMap(w, d.lastResult, cmp.Compare[int32], func(w *snapbin.Writer, k int32, h uint64) {
			w.Int(int64(k))
			w.Word(h)
		})
	}
}

func (d *consecutiveDet) load(r *snapbin.Reader) {
	d.lastKid, d.streak = r.Int32(), int(r.Int())
	if d.lastResult != nil {
		d.observed, d.unchanged = int(r.Int()), int(r.Int())
		clear(d.lastResult)
		for range r.Len() {
			k := r.Int32()
			d.lastResult[k] = r.Word()
		}
	}
}
