package guard

import (
	"hash/fnv"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The monologue detector (rules: detectors.monologue) watches the model's
// responses that made no tool call, fed with Guard.Message: the same text
// halt_at times in a row with no tool result between them is the agent
// talking to itself. It follows OpenHands' StuckDetector._is_stuck_monologue
// (openhands/controller/stuck.py at 156d0686c46aafb0fa9d291da6421fb6f64dddc0):
// the last three agent MessageActions equal (dataclass equality: the same
// content), with no Observation between the first and the last. There, an
// LLM response with tool calls becomes the tools' actions, not a message
// (CodeActAgent's response_to_actions), and the user's messages are left
// out of the history it looks at, so neither breaks the run here; a call
// that runs brings an observation, and does.
//
// Only a hash of the latest message is kept: equality is all the check
// needs, and a session's text is not held.

type monologueDet struct {
	base
	cfg *monologueSettings
	// last is the hash of the latest message; run how many messages in a
	// row had it with no call between.
	last uint64
	run  int
}

var _ = register(rules.Detector[monologueSettings]{
	Name: "monologue", Rank: 160, Place: 160,
	Overrides: overOff,
	ReadsText: true,
	Defaults: func(p *monologueSettings) {
		p.HaltAt = 3
		p.SteerMessage = "You have written the same message {count} times without running anything in between. Take a different approach."
		p.HaltMessage = "Stopped: the same message {count} times with no tool result in between."
	},
	Check: func(c rules.Check, at string, p *monologueSettings) error {
		if p.SteerAt == 1 || p.HaltAt == 1 {
			return c.Fail(at, "%s: a threshold of 1 is no repeat; use 2 or more", at)
		}
		return c.SteerBelowHalt(at, p.SteerAt, p.HaltAt)
	},
}, newMonologue)

// monologueSettings are detectors.monologue's keys (docs/rules.md): the
// same message SteerAt or HaltAt times in a row, with no call that ran
// between them.
type monologueSettings struct {
	Enabled      bool     `yaml:"enabled"`
	Reset        string   `yaml:"reset"`
	Only         []string `yaml:"only,flow"`
	Except       []string `yaml:"except,flow"`
	SteerAt      int      `yaml:"steer_at"`
	HaltAt       int      `yaml:"halt_at"`
	SteerMessage string   `yaml:"steer_message"`
	HaltMessage  string   `yaml:"halt_message"`
}

// newMonologue builds the detector when the rules enable it (detectors).
func newMonologue(b build) detector {
	cfg, _ := b.r.Detectors["monologue"].(*monologueSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[monologueDet](b.old)
	*d = monologueDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg}
	return d
}

// commit: a call that ran brings its result, an observation between the
// messages. A halted call never ran.
func (d *monologueDet) commit(_ *callCtx, final Verdict) {
	if final.Action != Halt {
		d.run = 0
	}
}

// message takes one response's text (a response without tool calls).
func (d *monologueDet) message(text string) Verdict {
	h := fnv.New64a()
	h.Write([]byte(text))
	sum := h.Sum64()
	if d.run > 0 && sum == d.last {
		d.run++
	} else {
		d.last, d.run = sum, 1
	}
	c := &callCtx{ev: &CallEvent{}}
	switch {
	case d.cfg.HaltAt > 0 && d.run >= d.cfg.HaltAt:
		return d.verdict(Halt, "monologue", d.run, d.cfg.HaltMessage, c, nil)
	case d.cfg.SteerAt > 0 && d.run >= d.cfg.SteerAt:
		return d.verdict(Steer, "monologue", d.run, d.cfg.SteerMessage, c, nil)
	}
	return Verdict{}
}

func (d *monologueDet) reset() { d.last, d.run = 0, 0 }

func (d *monologueDet) save(w *snapbin.Writer) {
	w.Word(d.last)
	w.Int(int64(d.run))
}

func (d *monologueDet) load(r *snapbin.Reader) {
	d.last = r.Word()
	d.run = int(r.Int())
}
