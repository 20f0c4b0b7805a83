package guard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The shell_inspection detector (rules: detectors.shell_inspection) is
// Qwen Code's shell-inspection stagnation guard, one of its always-on
// guards (QwenLM/qwen-code, packages/core/src/services/
// loopDetectionService.ts at commit 00aa71b4a0a37df1c392eb9b90e1c53d008fdce5:
// checkShellCommandStagnation, isGitOverviewInspectionCommand,
// isOverviewGitDiff, isGitRevisionToken; SHELL_COMMAND_STAGNATION_THRESHOLD
// 8). A model that keeps rewriting overview checks of the repository (git
// status, git diff --stat, git ls-files, ...) escapes the guard on
// identical calls, since no two commands are the same; Qwen Code puts all
// of them in one bucket and halts the turn at the 8th in a row.
//
// A call is an inspection when the first of the args that is text is a
// command whose every part (split at &&, ||, ;, &, | and newlines) is git
// status, git ls-files or git diff, with -C DIR and --no-pager allowed
// before the subcommand, and the diff names no path: only options and
// revisions (HEAD, @, HEAD~2, a hash, A..B). Any other call, of any tool,
// breaks the run, as every ToolCallRequest does upstream. It decides
// before the call runs, like upstream's check at the request; a call
// another detector stopped neither counts nor breaks the run.

// shellInspectionDet counts inspection commands in a row.
type shellInspectionDet struct {
	base
	cfg    *shellInspectionSettings
	streak int
	// inspects is before's reading of the call, for commit.
	inspects bool
}

var _ = register(rules.Detector[shellInspectionSettings]{
	Name: "shell_inspection", Rank: 80, Place: 140,
	Overrides: overHalt,
	Defaults: func(p *shellInspectionSettings) {
		p.Args, p.HaltAt = []string{"command"}, 8
		p.HaltMessage = "Stopped: {count} shell commands in a row only inspected the repository (git status, diff, ls-files) without making progress."
	},
	Check: func(c rules.Check, at string, p *shellInspectionSettings) error {
		if len(p.Args) == 0 {
			return c.Fail(at+".args", "%s.args must name the argument that holds the command", at)
		}
		return nil
	},
}, newShellInspection)

// shellInspectionSettings are detectors.shell_inspection's keys
// (docs/rules.md). The detector counts shell commands in a row that only
// look at the repository (Qwen Code's shell-inspection stagnation guard):
// every command of the chain is git status, git ls-files, or a git diff of
// no path. Any other call breaks the run; the turn halts at halt_at.
type shellInspectionSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	// Args are the argument names that may hold the command; the first
	// that is text is read.
	Args        []string `yaml:"args,flow"`
	HaltAt      int      `yaml:"halt_at"`
	HaltMessage string   `yaml:"halt_message"`
}

// newShellInspection builds the detector when the rules enable it.
func newShellInspection(b build) detector {
	cfg, _ := b.r.Detectors["shell_inspection"].(*shellInspectionSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[shellInspectionDet](b.old)
	*d = shellInspectionDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg}
	return d
}

func (d *shellInspectionDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "shell_inspection", effective{haltAt: d.cfg.HaltAt, haltMsg: d.cfg.HaltMessage}, d.cfg.Only, d.cfg.Except)
}

// command returns the call's command text: the first of args that is
// text.
func (d *shellInspectionDet) command(c *callCtx) (string, bool) {
	args := c.ev.arguments() // no object: no member

	for _, name := range d.cfg.Args {
		if v, ok := args.Get(name); ok && v.Kind == jsonx.String {
			return v.Str, true
		}
	}
	return "", false
}

func (d *shellInspectionDet) before(c *callCtx) Verdict {
	d.inspects = false
	e := d.eff(c)
	if !e.on {
		return Verdict{}
	}
	cmd, ok := d.command(c)
	if !ok || !gitOverviewOnly(cmd) {
		return Verdict{}
	}
	d.inspects = true
	n := d.streak + 1
	if e.haltAt > 0 && n >= e.haltAt {
		return d.verdict(Halt, "shell_inspection", n, e.haltMsg, c, nil)
	}
	return Verdict{}
}

// commit extends the run with an inspection and ends it with any other
// call.
func (d *shellInspectionDet) commit(c *callCtx, final Verdict) {
	switch {
	case stoppedByOther(final, "shell_inspection"):
	case d.inspects:
		d.streak++
	default:
		d.streak = 0
	}
}

func (d *shellInspectionDet) reset() { d.streak = 0 }

func (d *shellInspectionDet) save(w *snapbin.Writer) { w.Int(int64(d.streak)) }

func (d *shellInspectionDet) load(r *snapbin.Reader) { d.streak = int(r.Int()) }

// The patterns of Qwen Code's reading, compiled at first use: a process
// that never meets this detector (a hook call under other rules) does not
// pay for them. Go's \s and \b are ASCII where JavaScript's \s also takes
// Unicode spaces.
var inspectionPatterns = sync.OnceValue(func() (p struct{ split, git, ancestry, hash, rangeTok *regexp.Regexp }) {
	p.split = regexp.MustCompile(`&&|\|\||[;&|\n]`)
	p.git = regexp.MustCompile(`(?i)^git(?:\s+(?:-C\s+\S+|--no-pager))*\s+(status|diff|ls-files)\b`)
	p.ancestry = regexp.MustCompile(`^(?:HEAD|@)(?:[~^]\d*)+$`)
	p.hash = regexp.MustCompile(`(?i)^[0-9a-f]{7,40}$`)
	p.rangeTok = regexp.MustCompile(`^\S+\.{2,3}\S+$`)
	return p
})

// gitOverviewOnly reports whether every part of a shell command is an
// overview inspection of a git repository (isGitOverviewInspectionCommand):
// a chain that also stages, commits, runs anything else, or diffs a path
// makes progress.
func gitOverviewOnly(command string) bool {
	p := inspectionPatterns()
	parts := 0
	for _, seg := range p.split.Split(command, -1) {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			continue
		}
		parts++
		m := p.git.FindStringSubmatchIndex(seg)
		if m == nil {
			return false
		}
		if strings.EqualFold(seg[m[2]:m[3]], "diff") && !overviewDiff(p.ancestry, p.hash, p.rangeTok, seg[m[1]:]) {
			return false
		}
	}
	return parts > 0
}

// overviewDiff reports whether git diff's arguments name no path: no
// pathspec after "--", and every word an option or a revision
// (isOverviewGitDiff, isGitRevisionToken).
func overviewDiff(ancestry, hash, rangeTok *regexp.Regexp, args string) bool {
	words := strings.Fields(args)
	for i, w := range words {
		if w == "--" && i < len(words)-1 {
			return false
		}
	}
	for _, w := range words {
		revision := w == "HEAD" || w == "@" || ancestry.MatchString(w) || hash.MatchString(w) || rangeTok.MatchString(w)
		if !strings.HasPrefix(w, "-") && !revision {
			return false
		}
	}
	return true
}
