package rules

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/yamlstrict"
)

// normalize fills defaults the schema documents for values left empty.
func (r *Rules) normalize() {
	if r.Name == "" {
		base := filepath.Base(r.Source)
		r.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	if r.Scope.Reset == "" {
		r.Scope.Reset = "turn"
	}
	if r.Key.Style == "" {
		r.Key.Style = "sorted"
	}
	if r.Key.Numbers == "" {
		r.Key.Numbers = "as_written"
	}
	if r.Results.Failure == "" {
		r.Results.Failure = "loopgate"
	}
	if r.Results.Hash == "" {
		r.Results.Hash = "loopgate"
	}
	if r.Results.Envelope == "" {
		r.Results.Envelope = "strip"
	}
	if r.Classes == nil {
		r.Classes = DefaultClasses()
	}
	if _, ok := r.Classes["other"]; !ok {
		r.Classes["other"] = []string{}
	}
	if r.Effects.empty() {
		r.Effects = DefaultEffects()
	}
	for _, tk := range r.Key.Tools {
		if tk != nil && tk.Pick == "" {
			tk.Pick = "all"
		}
	}
	if c := r.Detectors.Cycle; c != nil && c.Check == "" {
		c.Check = "round"
	}
	if p := r.Detectors.NoProgress; p != nil && p.By == "" {
		p.By = "call"
	}
}

// problem is one validation failure; at is the dotted path of the value.
type validator struct {
	r      *Rules
	d      *decoder
	source string
}

func (v *validator) fail(at, format string, a ...any) error {
	line := 0
	if v.d != nil {
		for p := at; p != ""; {
			if l := v.d.line(p); l > 0 {
				line = l
				break
			}
			i := strings.LastIndexAny(p, ".[")
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	msg := fmt.Sprintf(format, a...)
	if line == 0 {
		return fmt.Errorf("%s: %s", v.source, msg)
	}
	return fmt.Errorf("%s:%d: %s", v.source, line, msg)
}

func oneOf(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

// validate checks what types alone cannot: enumerations, selectors, and
// thresholds that contradict each other. d may be nil (after Set).
func (r *Rules) validate(d *decoder) error {
	v := &validator{r: r, d: d, source: r.Source}
	if !oneOf(r.Scope.Reset, "turn", "session") {
		return v.fail("scope.reset", "scope.reset must be turn or session, not %q", r.Scope.Reset)
	}
	if err := v.selectors("scope.write_clears_reads.writers", r.Scope.WriteClearsReads.Writers); err != nil {
		return err
	}
	if err := v.selectors("scope.write_clears_reads.readers", r.Scope.WriteClearsReads.Readers); err != nil {
		return err
	}
	if err := v.selectors("scope.write_clears_reads.clear_all", r.Scope.WriteClearsReads.ClearAll); err != nil {
		return err
	}
	if w := r.Scope.WriteClearsReads; len(w.ClearAll) > 0 && len(w.Readers) == 0 {
		return v.fail("scope.write_clears_reads", "scope.write_clears_reads.clear_all needs readers")
	}
	if w := r.Scope.WriteClearsReads; len(w.Writers) > 0 && (len(w.Readers) == 0 || len(w.PathArgs) == 0) {
		return v.fail("scope.write_clears_reads", "scope.write_clears_reads needs readers and path_args as well as writers")
	}
	if err := v.selectors("scope.reset_command.tools", r.Scope.ResetCommand.Tools); err != nil {
		return err
	}
	if c := r.Scope.ResetCommand; len(c.Commands) > 0 && (len(c.Tools) == 0 || len(c.Args) == 0) {
		return v.fail("scope.reset_command", "scope.reset_command needs tools and args as well as commands")
	}
	if err := v.validateEffects(); err != nil {
		return err
	}
	if !oneOf(r.Key.Style, "sorted", "sorted_top", "insertion") {
		return v.fail("key.style", "key.style must be sorted, sorted_top or insertion, not %q", r.Key.Style)
	}
	if err := v.folds("key.fold", r.Key.Fold); err != nil {
		return err
	}
	if !oneOf(r.Key.Numbers, "as_written", "python") {
		return v.fail("key.numbers", "key.numbers must be as_written or python, not %q", r.Key.Numbers)
	}
	if !oneOf(r.Results.Failure, "loopgate", "hermes", "hermes-2026-06") {
		return v.fail("results.failure", "results.failure must be loopgate, hermes or hermes-2026-06, not %q", r.Results.Failure)
	}
	if !oneOf(r.Results.Hash, "loopgate", "hermes", "hermes-2026-06") {
		return v.fail("results.hash", "results.hash must be loopgate, hermes or hermes-2026-06, not %q", r.Results.Hash)
	}
	if !oneOf(r.Results.Envelope, "strip", "keep") {
		return v.fail("results.envelope", "results.envelope must be strip or keep, not %q", r.Results.Envelope)
	}
	if n := r.Native; len(n.Formats) > 0 && len(n.Classes) == 0 {
		return v.fail("native", "native.formats needs native.classes (the design's own tool names)")
	}
	for i, f := range r.Native.Formats {
		if !isWord(f) {
			return v.fail(fmt.Sprintf("native.formats[%d]", i), "native.formats: %q is not a format family such as hermes or nanobot", f)
		}
	}
	if u := r.Unattended.Rules; u != "" && !isPreset(u) {
		return v.fail("unattended.rules", "unattended.rules names an unknown preset %q (presets: %s)", u, strings.Join(PresetNames(), ", "))
	}
	for sel, tk := range r.Key.Tools {
		at := "key.tools." + sel
		if err := v.selector(at, sel); err != nil {
			return err
		}
		if tk == nil {
			return v.fail(at, "%s must be a mapping (args, pick, drop, fold, ignore)", at)
		}
		if !oneOf(tk.Pick, "all", "first") {
			return v.fail(at+".pick", "%s.pick must be all or first, not %q", at, tk.Pick)
		}
		if tk.Pick == "first" && len(tk.Args) == 0 {
			return v.fail(at+".pick", "%s.pick first needs an args list to pick from", at)
		}
		if err := v.folds(at+".fold", tk.Fold); err != nil {
			return err
		}
		for name, text := range tk.Defaults {
			if _, err := jsonx.ParseString(text); err != nil {
				return v.fail(at+".defaults."+name, "%s.defaults.%s must be JSON text (1, \"text\", true), not %q", at, name, text)
			}
		}
		for i, p := range tk.Drop {
			if _, err := parseDrop(p); err != nil {
				return v.fail(fmt.Sprintf("%s.drop[%d]", at, i), "%s.drop: %v", at, err)
			}
		}
	}
	for sel, t := range r.Tools {
		if err := v.tool(sel, t); err != nil {
			return err
		}
	}
	return v.detectors()
}

func (v *validator) folds(at string, folds []string) error {
	for i, f := range folds {
		if !oneOf(f, "trim", "lower") {
			return v.fail(fmt.Sprintf("%s[%d]", at, i), "%s may list trim and lower, not %q", at, f)
		}
	}
	return nil
}

func (v *validator) selectors(at string, sels []string) error {
	for i, s := range sels {
		if err := v.selector(fmt.Sprintf("%s[%d]", at, i), s); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) selector(at, s string) error {
	if s == "" {
		return v.fail(at, "%s names an empty tool", at)
	}
	if c, ok := strings.CutPrefix(s, "class:"); ok && !v.r.HasClass(c) {
		near := yamlstrict.Nearest(c, v.r.ClassNames(), 1)
		hint := ""
		if len(near) > 0 {
			hint = fmt.Sprintf(" (did you mean class:%s?)", near[0])
		}
		return v.fail(at, "%s names an unknown class %q%s; classes: %s", at, c, hint, strings.Join(v.r.ClassNames(), ", "))
	}
	return nil
}

// overrideFields says which override fields each detector accepts.
var overrideFields = map[string][]string{
	"repeat":       {"off", "steer_at", "block_at", "steer_message", "block_message"},
	"consecutive":  {"off", "steer_at", "block_at", "steer_message", "block_message"},
	"failure":      {"off", "steer_at", "block_at", "steer_message", "block_message"},
	"no_progress":  {"off", "steer_at", "block_at", "steer_message", "block_message"},
	"tool_failure": {"off", "steer_at", "block_at", "halt_at", "steer_message", "block_message", "halt_message"},
	"cycle":        {"off"},
	"dedup":        {"off", "block_message"},
	"stall":        {"off", "steer_at", "halt_at", "steer_message", "halt_message"},
	"cap":          {"off", "block_at", "block_message"},
}

func (v *validator) tool(sel string, t *Tool) error {
	at := "tools." + sel
	if err := v.selector(at, sel); err != nil {
		return err
	}
	if t == nil {
		return v.fail(at, "%s must be a mapping (steer_at, block_at, off, aliases or a detector name)", at)
	}
	for det, o := range t.overrides() {
		if o == nil {
			continue
		}
		set := o.setFields()
		for _, f := range set {
			if !oneOf(f, overrideFields[det]...) {
				return v.fail(at+"."+det+"."+f, "%s.%s.%s is not used by the %s detector (it takes %s)", at, det, f, det, strings.Join(overrideFields[det], ", "))
			}
		}
		if o.SteerAt != nil && o.BlockAt != nil && *o.SteerAt > 0 && *o.BlockAt > 0 && *o.SteerAt >= *o.BlockAt && (det == "repeat" || det == "consecutive") {
			return v.fail(at+"."+det+".steer_at", "%s.%s.steer_at (%d) must be below block_at (%d), or a steer would never happen", at, det, *o.SteerAt, *o.BlockAt)
		}
	}
	if t.SteerAt != nil && t.BlockAt != nil && *t.SteerAt > 0 && *t.BlockAt > 0 && *t.SteerAt >= *t.BlockAt {
		return v.fail(at+".steer_at", "%s.steer_at (%d) must be below block_at (%d), or a steer would never happen", at, *t.SteerAt, *t.BlockAt)
	}
	// The shorthand sets the repeat and consecutive detectors' thresholds
	// only: with both off it changed nothing, and a sweep of it gave the
	// same row for every value.
	if (t.SteerAt != nil || t.BlockAt != nil) && !v.r.Detectors.enabled("repeat") && !v.r.Detectors.enabled("consecutive") {
		field := "block_at"
		if t.BlockAt == nil {
			field = "steer_at"
		}
		var could []string
		for _, det := range []string{"failure", "no_progress", "tool_failure"} {
			if v.r.Detectors.enabled(det) {
				could = append(could, at+"."+det+"."+field)
			}
		}
		hint := "enable detectors.repeat or detectors.consecutive"
		if len(could) > 0 {
			hint += ", or set a threshold of a detector these rules enable: " + strings.Join(could, ", ")
		}
		return v.fail(at+"."+field, "%s.%s is a shorthand for the repeat and consecutive detectors, and these rules enable neither: it would change nothing (%s)", at, field, hint)
	}
	return nil
}

// enabled reports whether the rules turn the named detector on.
func (d *Detectors) enabled(name string) bool {
	switch name {
	case "repeat":
		return d.Repeat != nil && d.Repeat.Enabled
	case "consecutive":
		return d.Consecutive != nil && d.Consecutive.Enabled
	case "failure":
		return d.Failure != nil && d.Failure.Enabled
	case "no_progress":
		return d.NoProgress != nil && d.NoProgress.Enabled
	case "tool_failure":
		return d.ToolFailure != nil && d.ToolFailure.Enabled
	}
	return false
}

// overrides lists a tool entry's per-detector overrides by detector name.
func (t *Tool) overrides() map[string]*Override {
	return map[string]*Override{
		"repeat": t.Repeat, "consecutive": t.Consecutive, "cycle": t.Cycle, "failure": t.Failure,
		"tool_failure": t.ToolFailure, "no_progress": t.NoProgress, "dedup": t.Dedup,
		"stall": t.Stall, "cap": t.Cap, "pattern": t.Pattern, "stuck": t.Stuck,
		"failed_rounds": t.FailedRound, "content_loop": t.ContentLoop,
	}
}

// Override returns the tool entry's override for a detector, or nil.
func (t *Tool) Override(detector string) *Override { return t.overrides()[detector] }

func (o *Override) setFields() []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(o.Off != nil, "off")
	add(o.SteerAt != nil, "steer_at")
	add(o.BlockAt != nil, "block_at")
	add(o.HaltAt != nil, "halt_at")
	add(o.SteerMessage != nil, "steer_message")
	add(o.BlockMessage != nil, "block_message")
	add(o.HaltMessage != nil, "halt_message")
	return out
}

func (v *validator) detectorCommon(name, reset string, only, except []string) error {
	at := "detectors." + name
	if !oneOf(reset, "", "turn", "session") {
		return v.fail(at+".reset", "%s.reset must be turn or session (or left out to follow scope.reset), not %q", at, reset)
	}
	if err := v.selectors(at+".only", only); err != nil {
		return err
	}
	return v.selectors(at+".except", except)
}

// detectorKey checks a detector's key setting (rules or plain).
func (v *validator) detectorKey(name, key string) error {
	if !oneOf(key, "", "rules", "plain") {
		return v.fail("detectors."+name+".key", "detectors.%s.key must be rules or plain, not %q", name, key)
	}
	return nil
}

func (v *validator) detectorList(name string, list []string) error {
	for i, d := range list {
		if !oneOf(d, DetectorNames...) {
			return v.fail(fmt.Sprintf("detectors.%s.blocks_as_failures[%d]", name, i), "detectors.%s.blocks_as_failures names an unknown detector %q; detectors: %s", name, d, strings.Join(DetectorNames, ", "))
		}
	}
	return nil
}

func (v *validator) steerBelowHalt(name string, steer, halt int) error {
	if steer > 0 && halt > 0 && steer >= halt {
		return v.fail("detectors."+name+".steer_at", "detectors.%s.steer_at (%d) must be below halt_at (%d), or a steer would never happen", name, steer, halt)
	}
	return nil
}

func (v *validator) steerBelowBlock(name string, steer, block int) error {
	if steer > 0 && block > 0 && steer >= block {
		return v.fail("detectors."+name+".steer_at", "detectors.%s.steer_at (%d) must be below block_at (%d), or a steer would never happen", name, steer, block)
	}
	return nil
}

func (v *validator) detectors() error {
	ds := v.r.Detectors
	if p := ds.Repeat; p != nil {
		if err := v.detectorCommon("repeat", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if err := v.steerBelowBlock("repeat", p.SteerAt, p.BlockAt); err != nil {
			return err
		}
		if p.BlockAfterSteer && p.SteerAt == 0 && p.BlockAt > 0 {
			return v.fail("detectors.repeat.block_after_steer", "detectors.repeat.block_after_steer needs a steer_at, or nothing would ever be blocked")
		}
	}
	if p := ds.Consecutive; p != nil {
		if err := v.detectorCommon("consecutive", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if err := v.steerBelowBlock("consecutive", p.SteerAt, p.BlockAt); err != nil {
			return err
		}
		if err := v.steerBelowHalt("consecutive", p.SteerAt, p.HaltAt); err != nil {
			return err
		}
		if err := v.selectors("detectors.consecutive.free.tools", p.Free.Tools); err != nil {
			return err
		}
	}
	if p := ds.Pattern; p != nil {
		if err := v.detectorCommon("pattern", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if p.Laps < 2 || p.Laps > 100 {
			return v.fail("detectors.pattern.laps", "detectors.pattern.laps must be between 2 and 100, not %d", p.Laps)
		}
		if len(p.Periods) == 0 {
			return v.fail("detectors.pattern.periods", "detectors.pattern.periods must list at least one period")
		}
		for i, l := range p.Periods {
			if l < 1 || l > 100 {
				return v.fail(fmt.Sprintf("detectors.pattern.periods[%d]", i), "detectors.pattern.periods: %d is not between 1 and 100", l)
			}
		}
		if err := v.steerBelowBlock("pattern", p.SteerAt, p.BlockAt); err != nil {
			return err
		}
		if err := v.steerBelowHalt("pattern", p.SteerAt, p.HaltAt); err != nil {
			return err
		}
	}
	if p := ds.Stuck; p != nil {
		if err := v.detectorCommon("stuck", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if p.PairsAt == 1 || p.ErrorsAt == 1 {
			return v.fail("detectors.stuck.pairs_at", "detectors.stuck.pairs_at and errors_at must be 2 or more (one call is no repeat), or 0 for off")
		}
		if p.AlternatingAt != 0 && (p.AlternatingAt < 4 || p.AlternatingAt%2 != 0) {
			return v.fail("detectors.stuck.alternating_at", "detectors.stuck.alternating_at must be an even number of calls, 4 or more (two laps of A and B), or 0 for off, not %d", p.AlternatingAt)
		}
	}
	if p := ds.ContentLoop; p != nil {
		if err := v.detectorCommon("content_loop", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if p.Chunk < 1 || p.Chunk > 10000 {
			return v.fail("detectors.content_loop.chunk", "detectors.content_loop.chunk must be between 1 and 10000 characters, not %d", p.Chunk)
		}
		if p.Threshold < 2 {
			return v.fail("detectors.content_loop.threshold", "detectors.content_loop.threshold must be 2 or more (one chunk is no repeat), not %d", p.Threshold)
		}
		if p.History < p.Chunk || p.History > 1000000 {
			return v.fail("detectors.content_loop.history", "detectors.content_loop.history must be at least the chunk (%d) and at most 1000000 characters, not %d", p.Chunk, p.History)
		}
		if err := v.steerBelowHalt("content_loop", p.SteerAt, p.HaltAt); err != nil {
			return err
		}
	}
	if p := ds.FailedRound; p != nil {
		if err := v.detectorCommon("failed_rounds", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
	}
	if p := ds.Cycle; p != nil {
		if err := v.detectorCommon("cycle", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if p.Window < 2 || p.Window > 1000 {
			return v.fail("detectors.cycle.window", "detectors.cycle.window must be between 2 and 1000, not %d", p.Window)
		}
		if len(p.Periods) == 0 {
			return v.fail("detectors.cycle.periods", "detectors.cycle.periods must list at least one period")
		}
		for i, l := range p.Periods {
			if l < 1 || l > p.Window {
				return v.fail(fmt.Sprintf("detectors.cycle.periods[%d]", i), "detectors.cycle.periods: %d is not between 1 and the window (%d)", l, p.Window)
			}
		}
		if !oneOf(p.Check, "round", "call") {
			return v.fail("detectors.cycle.check", "detectors.cycle.check must be round or call, not %q", p.Check)
		}
	}
	if p := ds.Failure; p != nil {
		if err := v.detectorCommon("failure", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if err := v.detectorKey("failure", p.Key); err != nil {
			return err
		}
		if err := v.detectorList("failure", p.BlocksAsFailures); err != nil {
			return err
		}
		if err := v.selectors("detectors.failure.cleared_by", p.ClearedBy); err != nil {
			return err
		}
	}
	if p := ds.ToolFailure; p != nil {
		if err := v.detectorCommon("tool_failure", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if err := v.detectorList("tool_failure", p.BlocksAsFailures); err != nil {
			return err
		}
		if err := v.selectors("detectors.tool_failure.cleared_by", p.ClearedBy); err != nil {
			return err
		}
		if p.SteerAt > 0 && p.HaltAt > 0 && p.SteerAt >= p.HaltAt {
			return v.fail("detectors.tool_failure.steer_at", "detectors.tool_failure.steer_at (%d) must be below halt_at (%d)", p.SteerAt, p.HaltAt)
		}
	}
	if p := ds.NoProgress; p != nil {
		if err := v.detectorCommon("no_progress", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if err := v.detectorKey("no_progress", p.Key); err != nil {
			return err
		}
		if err := v.detectorList("no_progress", p.BlocksAsFailures); err != nil {
			return err
		}
		if !oneOf(p.By, "call", "tool") {
			return v.fail("detectors.no_progress.by", "detectors.no_progress.by must be call or tool, not %q", p.By)
		}
		if p.By == "tool" && p.BlockAt > 0 {
			return v.fail("detectors.no_progress.block_at", "detectors.no_progress.block_at needs by: call (a new call of the tool may bring new information)")
		}
	}
	if p := ds.Stall; p != nil {
		if err := v.detectorCommon("stall", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if err := v.detectorKey("stall", p.Key); err != nil {
			return err
		}
		if p.SteerAt > 0 && p.SteerAt < 2 {
			return v.fail("detectors.stall.steer_at", "detectors.stall.steer_at must be 2 or more (a streak of one call is no repeat), not %d", p.SteerAt)
		}
		if p.SteerAt > 0 && p.HaltAt > 0 && p.SteerAt > p.HaltAt {
			return v.fail("detectors.stall.steer_at", "detectors.stall.steer_at (%d) must not be above halt_at (%d)", p.SteerAt, p.HaltAt)
		}
		for i, l := range p.Periods {
			if l < 2 || l > 100 {
				return v.fail(fmt.Sprintf("detectors.stall.periods[%d]", i), "detectors.stall.periods: %d is not between 2 and 100 (period 1 is the streak)", l)
			}
		}
		if p.History < 0 || p.History > 10000 {
			return v.fail("detectors.stall.history", "detectors.stall.history must be between 0 and 10000, not %d", p.History)
		}
	}
	if p := ds.Cap; p != nil {
		if err := v.detectorCommon("cap", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
	}
	if p := ds.Dedup; p != nil {
		if err := v.detectorCommon("dedup", p.Reset, p.Only, p.Except); err != nil {
			return err
		}
		if p.DedupAt < 2 {
			return v.fail("detectors.dedup.dedup_at", "detectors.dedup.dedup_at must be 2 or more (the first call has no earlier result), not %d", p.DedupAt)
		}
	}
	return nil
}
