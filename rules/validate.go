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
	r.Detectors.normalize()
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
	if r.Scope.Reset == "mentioned" && r.Scope.WriteClearsReads.Invalidate != "path" {
		return v.fail("scope.reset", "scope.reset: mentioned needs scope.write_clears_reads.invalidate: path (a user's message clears the observations of the paths it names)")
	}
	if !oneOf(r.Scope.Reset, "turn", "session", "mentioned") {
		return v.fail("scope.reset", "scope.reset must be turn, session or mentioned, not %q", r.Scope.Reset)
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
	if w := r.Scope.WriteClearsReads; !oneOf(w.Invalidate, "", InvalidateAnyAct, InvalidatePath) {
		return v.fail("scope.write_clears_reads.invalidate", "scope.write_clears_reads.invalidate must be any_act or path, not %q", w.Invalidate)
	}
	if w := r.Scope.WriteClearsReads; w.Invalidate == InvalidatePath && (len(w.Readers) == 0 || len(w.Writers) > 0) {
		return v.fail("scope.write_clears_reads.invalidate", "scope.write_clears_reads.invalidate: path needs readers and works out what clears them from each call: leave writers out (clear_all may name tools whose every call clears everything)")
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

func (v *validator) tool(sel string, t *Tool) error {
	at := "tools." + sel
	if err := v.selector(at, sel); err != nil {
		return err
	}
	if t == nil {
		return v.fail(at, "%s must be a mapping (steer_at, block_at, off, aliases or a detector name)", at)
	}
	for _, no := range t.overrides() {
		det, o := no.det, no.o
		if o == nil {
			continue
		}
		set := o.setFields()
		for _, f := range set {
			if !oneOf(f, OverrideFields(det)...) {
				return v.fail(at+"."+det+"."+f, "%s.%s.%s is not used by the %s detector (it takes %s)", at, det, f, det, strings.Join(OverrideFields(det), ", "))
			}
		}
		if o.SteerAt != nil && o.BlockAt != nil && *o.SteerAt > 0 && *o.BlockAt > 0 && *o.SteerAt >= *o.BlockAt && SetsByShorthand(det) {
			return v.fail(at+"."+det+".steer_at", "%s.%s.steer_at (%d) must be below block_at (%d), or a steer would never happen", at, det, *o.SteerAt, *o.BlockAt)
		}
	}
	if t.SteerAt != nil && t.BlockAt != nil && *t.SteerAt > 0 && *t.BlockAt > 0 && *t.SteerAt >= *t.BlockAt {
		return v.fail(at+".steer_at", "%s.steer_at (%d) must be below block_at (%d), or a steer would never happen", at, *t.SteerAt, *t.BlockAt)
	}
	// The shorthand sets the repeat and consecutive detectors' thresholds
	// only: with both off it changed nothing, and a sweep of it gave the
	// same row for every value.
	if (t.SteerAt != nil || t.BlockAt != nil) && !v.shorthandUsed() {
		field := "block_at"
		if t.BlockAt == nil {
			field = "steer_at"
		}
		var could []string
		for _, det := range DetectorNames {
			if !SetsByShorthand(det) && v.r.Detectors.enabled(det) && oneOf(field, OverrideFields(det)...) {
				could = append(could, at+"."+det+"."+field)
			}
		}
		hint := "enable " + shorthandNames("detectors.", "or")
		if len(could) > 0 {
			hint += ", or set a threshold of a detector these rules enable: " + strings.Join(could, ", ")
		}
		return v.fail(at+"."+field, "%s.%s is a shorthand for the %s detectors, and these rules enable neither: it would change nothing (%s)", at, field, shorthandNames("", "and"), hint)
	}
	return nil
}

// shorthandUsed reports whether the rules enable a detector whose
// thresholds the tool shorthand sets.
func (v *validator) shorthandUsed() bool {
	for _, det := range DetectorNames {
		if SetsByShorthand(det) && v.r.Detectors.enabled(det) {
			return true
		}
	}
	return false
}

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

func (v *validator) detectorCommon(at, reset string, only, except []string) error {
	if !oneOf(reset, "", "turn", "session") {
		return v.fail(at+".reset", "%s.reset must be turn or session (or left out to follow scope.reset), not %q", at, reset)
	}
	if err := v.selectors(at+".only", only); err != nil {
		return err
	}
	return v.selectors(at+".except", except)
}

// detectorKey checks a detector's key setting (rules or plain).
func (v *validator) detectorKey(at, key string) error {
	if !oneOf(key, "", "rules", "plain") {
		return v.fail(at+".key", "%s.key must be rules or plain, not %q", at, key)
	}
	return nil
}

func (v *validator) detectorList(at string, list []string) error {
	for i, d := range list {
		if !IsDetector(d) {
			return v.fail(fmt.Sprintf("%s.blocks_as_failures[%d]", at, i), "%s.blocks_as_failures names an unknown detector %q; detectors: %s", at, d, strings.Join(DetectorNames, ", "))
		}
	}
	return nil
}

func (v *validator) steerBelowHalt(at string, steer, halt int) error {
	if steer > 0 && halt > 0 && steer >= halt {
		return v.fail(at+".steer_at", "%s.steer_at (%d) must be below halt_at (%d), or a steer would never happen", at, steer, halt)
	}
	return nil
}

func (v *validator) steerBelowBlock(at string, steer, block int) error {
	if steer > 0 && block > 0 && steer >= block {
		return v.fail(at+".steer_at", "%s.steer_at (%d) must be below block_at (%d), or a steer would never happen", at, steer, block)
	}
	return nil
}
