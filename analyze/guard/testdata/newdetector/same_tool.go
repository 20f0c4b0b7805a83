package guard

import (
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// An example detector, not part of loopgate: TestNewDetectorIsOneFile
// copies the module, drops this file into analyze/guard and its section
// (rules.md beside it) into docs/rules.md, and runs the registry tests,
// to show that a new detector needs nothing else.
//
// The same_tool detector (rules: detectors.same_tool) counts calls of one
// tool in a row, whatever their arguments; a call of another tool ends
// the run. At the halt_at-th call in a row the turn halts.

type sameToolDet struct {
	base
	cfg  *sameToolSettings
	tool string
	run  int
}

var _ = register(rules.Detector[sameToolSettings]{
	Name: "same_tool", Rank: 1000, Place: 1000,
	Overrides: overHalt,
	Defaults: func(p *sameToolSettings) {
		p.HaltAt = 20
		p.HaltMessage = "Stopped: {tool} was called {count} times in a row."
	},
	Check: func(c rules.Check, at string, p *sameToolSettings) error {
		if p.HaltAt == 1 {
			return c.Fail(at+".halt_at", "%s.halt_at must be 2 or more (one call is no run), or 0 for off", at)
		}
		return nil
	},
}, newSameTool)

// sameToolSettings are detectors.same_tool's keys (docs/rules.md).
type sameToolSettings struct {
	Enabled     bool     `yaml:"enabled"`
	Reset       string   `yaml:"reset"`
	Only        []string `yaml:"only,flow"`
	Except      []string `yaml:"except,flow"`
	HaltAt      int      `yaml:"halt_at"`
	HaltMessage string   `yaml:"halt_message"`
}

// newSameTool builds the detector when the rules enable it (detectors).
func newSameTool(b build) detector {
	cfg, _ := b.r.Detectors["same_tool"].(*sameToolSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[sameToolDet](b.old)
	*d = sameToolDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg}
	return d
}

func (d *sameToolDet) before(c *callCtx) Verdict {
	if c.ev.Tool != d.tool {
		d.tool, d.run = c.ev.Tool, 0
	}
	e := d.effOf(c, "same_tool", effective{haltAt: d.cfg.HaltAt, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
	if !e.on {
		return Verdict{}
	}
	d.run++
	if e.haltAt > 0 && d.run >= e.haltAt {
		return d.verdict(Halt, "same_tool", d.run, e.haltMsg, c, nil)
	}
	return Verdict{}
}

func (d *sameToolDet) reset() { d.tool, d.run = "", 0 }

func (d *sameToolDet) save(w *snapbin.Writer) {
	w.String(d.tool)
	w.Int(int64(d.run))
}

func (d *sameToolDet) load(r *snapbin.Reader) {
	d.tool = r.String()
	d.run = int(r.Int())
}
