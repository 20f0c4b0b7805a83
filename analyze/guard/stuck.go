package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The stuck detector (rules: detectors.stuck) is OpenHands' StuckDetector
// (openhands/controller/stuck.py) over the calls that ran, checked after
// each call as OpenHands checks before its next step; each loop it finds
// halts the turn (AgentStuckInLoopError):
//
//   - repeating_action_observation: the latest pairs_at calls are the same
//     call returning the same result;
//   - repeating_action_error: the latest errors_at calls are the same call
//     and all failed (any error texts);
//   - repeating_action_observation_pattern: the latest alternating_at calls
//     alternate between two calls, each returning the same result every
//     time (a0=a2=a4, a1=a3=a5 for calls and results alike).
//
// A call is its key (OpenHands compares actions field by field), a result
// its hash and failure; with shell_by_status a shell call's result is its
// success or failure only (OpenHands compares command observations by
// command and exit code, not output). A blocked call did not run and
// takes no part. The monologue and context-window checks need the agent's
// messages and condensation events, which the call stream does not carry.

// stuckEntry is one call that ran: its key (a unique negative number
// without one), how its result compares, and whether it failed.
type stuckEntry struct {
	kid    int32
	hash   uint64
	failed bool
}

type stuckDet struct {
	base
	cfg *stuckSettings
	// history holds the latest calls, oldest first.
	history []stuckEntry
	anon    int32
	keep    int
}

var _ = register(rules.Detector[stuckSettings]{
	Name: "stuck", Rank: 110, Place: 110,
	Overrides: overHalt,
	Defaults: func(p *stuckSettings) {
		p.PairsAt, p.ErrorsAt, p.AlternatingAt = 4, 3, 6
		p.HaltMessage = "Stopped: the agent is stuck in a loop ({loop}: {count} calls)."
	},
	Check: func(c rules.Check, at string, p *stuckSettings) error {
		if p.PairsAt == 1 || p.ErrorsAt == 1 {
			return c.Fail(at+".pairs_at", "%s.pairs_at and errors_at must be 2 or more (one call is no repeat), or 0 for off", at)
		}
		if p.AlternatingAt != 0 && (p.AlternatingAt < 4 || p.AlternatingAt%2 != 0) {
			return c.Fail(at+".alternating_at", "%s.alternating_at must be an even number of calls, 4 or more (two laps of A and B), or 0 for off, not %d", at, p.AlternatingAt)
		}
		return nil
	},
}, newStuck)

// stuckSettings are detectors.stuck's keys (docs/rules.md). The detector is
// OpenHands' StuckDetector over the calls that ran, checked after each
// call: the same call returning the same result pairs_at times in a row;
// the same call failing errors_at times in a row; an A/B alternation of
// calls and results over alternating_at calls. Each halts the turn.
type stuckSettings struct {
	Enabled       bool     `yaml:"enabled"`
	Reset         string   `yaml:"reset"`
	Only          []string `yaml:"only,flow"`
	Except        []string `yaml:"except,flow"`
	PairsAt       int      `yaml:"pairs_at"`
	ErrorsAt      int      `yaml:"errors_at"`
	AlternatingAt int      `yaml:"alternating_at"`
	// ShellByStatus: shell calls' results compare by success or failure
	// only (OpenHands compares a command's observations by command and
	// exit code, not by output).
	ShellByStatus bool   `yaml:"shell_by_status"`
	HaltMessage   string `yaml:"halt_message"`
}

// newStuck builds the detector when the rules enable it (detectors).
func newStuck(b build) detector {
	cfg, _ := b.r.Detectors["stuck"].(*stuckSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[stuckDet](b.old)
	*d = stuckDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, history: reuse(d.history, 0),
		keep: max(cfg.PairsAt, cfg.ErrorsAt, cfg.AlternatingAt, 1)}
	return d
}

func (d *stuckDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "stuck", effective{haltAt: 1, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

func (d *stuckDet) after(c *callCtx, before Verdict) Verdict {
	if before.Action.Stops() {
		return Verdict{} // it did not run
	}
	ent := stuckEntry{kid: c.kid, hash: c.hash, failed: c.failed}
	if !c.hasKey {
		d.anon--
		ent.kid = d.anon - 1
	}
	if d.cfg.ShellByStatus && d.g.r.ClassOf(c.ev.ClassName()) == "shell" {
		ent.hash = 0
		if c.failed {
			ent.hash = 1
		}
	}
	d.history = append(d.history, ent)
	if len(d.history) > 2*d.keep {
		d.history = append(d.history[:0], d.history[len(d.history)-d.keep:]...)
	}
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	loop, n := d.stuck()
	if loop == "" {
		return Verdict{}
	}
	return d.verdict(Halt, "stuck", n, e.haltMsg, c, map[string]string{"loop": loop})
}

// stuck returns the loop the latest calls make, in OpenHands' order of
// checks, and its length in calls.
func (d *stuckDet) stuck() (string, int) {
	h := d.history
	last := func(n int) []stuckEntry {
		if n <= 0 || len(h) < n {
			return nil
		}
		return h[len(h)-n:]
	}
	if t := last(d.cfg.PairsAt); t != nil {
		same := true
		for _, x := range t[1:] {
			same = same && x.kid == t[0].kid && x.hash == t[0].hash
		}
		if same {
			return "repeating_action_observation", len(t)
		}
	}
	if t := last(d.cfg.ErrorsAt); t != nil {
		same := true
		for _, x := range t {
			same = same && x.kid == t[0].kid && x.failed
		}
		if same {
			return "repeating_action_error", len(t)
		}
	}
	if t := last(d.cfg.AlternatingAt); t != nil {
		same := true
		for i := 2; i < len(t) && same; i++ {
			same = t[i].kid == t[i-2].kid && t[i].hash == t[i-2].hash
		}
		if same {
			return "repeating_action_observation_pattern", len(t)
		}
	}
	return "", 0
}

func (d *stuckDet) reset() { d.history = d.history[:0] }

func (d *stuckDet) save(w *snapbin.Writer) {
	saveSlice(w, d.history, func(w *snapbin.Writer, e *stuckEntry) {
		w.Int(int64(e.kid))
		w.Word(e.hash)
		w.Bool(e.failed)
	})
	w.Int(int64(d.anon))
}

func (d *stuckDet) load(r *snapbin.Reader) {
	d.history = loadSlice(r, func(r *snapbin.Reader, e *stuckEntry) {
		*e = stuckEntry{kid: r.Int32(), hash: r.Word(), failed: r.Bool()}
	})
	d.anon = r.Int32()
}
