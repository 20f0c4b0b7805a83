package rules

import (
	"fmt"
	"reflect"
	"strings"
)

// The detectors, described once.
//
// detectorTable has one row per detector, in evaluation order (among
// verdicts of equal strength the first detector's wins). A row gives the
// detector's name, its settings type (a struct in rules.go), the fields
// its per-tool override reads (tools.SEL.NAME), the defaults a user gets
// by merely naming it, and the checks its settings need beyond their
// types. Everything else that names detectors is derived from the table:
// DetectorNames, strict loading and its defaults (load.go), validation
// (validate.go), the keys Set accepts and refuses (set.go), the
// effective rules that `loopgate rules print` writes, and the guard's
// registry (analyze/guard, which keys each detector's constructor by its
// name here and checks that the two agree).
//
// The YAML schema itself keeps two fields per detector, both named by the
// detector's name: its settings in Detectors and its override in Tool
// (their order is the order rules print writes them in). They are typed
// so that the guard reads its settings without a lookup; init refuses a
// row without both fields, or a field without a row.

// detectorSpec is one row of detectorTable.
type detectorSpec struct {
	name string
	// settings is the settings struct's type (Repeat, Stall, ...).
	settings reflect.Type
	// overrides are the fields tools.SEL.NAME takes.
	overrides []string
	// shorthand: tools.SEL.steer_at and block_at set this detector's
	// thresholds.
	shorthand bool
	// readsText: the detector reads the model's text, not calls
	// (Detectors.TextReaders).
	readsText bool
	// defaults fills in a settings value just made (Enabled already set).
	defaults func(any)
	// check validates settings beyond their types and the common keys
	// (reset, only, except), at "detectors.NAME".
	check func(v *validator, at string, s any) error
	// field and toolField are the indexes of the detector's fields in
	// Detectors and Tool.
	field, toolField int
}

// describe makes a row from a settings type's defaults and checks (either
// may be nil).
func describe[T any](name string, overrides []string, defaults func(*T), check func(v *validator, at string, p *T) error) detectorSpec {
	s := detectorSpec{name: name, settings: reflect.TypeOf((*T)(nil)).Elem(), overrides: overrides}
	if defaults != nil {
		s.defaults = func(p any) { defaults(p.(*T)) }
	}
	if check != nil {
		s.check = func(v *validator, at string, p any) error { return check(v, at, p.(*T)) }
	}
	return s
}

// withShorthand marks a row whose thresholds tools.SEL.steer_at and
// block_at set.
func withShorthand(s detectorSpec) detectorSpec {
	s.shorthand = true
	return s
}

// withText marks a row whose detector reads the model's text.
func withText(s detectorSpec) detectorSpec {
	s.readsText = true
	return s
}

// TextReaders names the enabled detectors that read the model's text
// (their rows in the detector table say so: withText).
func (d Detectors) TextReaders() []string {
	var names []string
	v := reflect.ValueOf(d)
	for i := range detectorTable {
		s := &detectorTable[i]
		if !s.readsText {
			continue
		}
		if f := v.Field(s.field); !f.IsNil() && f.Elem().FieldByName("Enabled").Bool() {
			names = append(names, s.name)
		}
	}
	return names
}

// The override fields a detector's per-tool entry may take.
var (
	overSteerBlock = []string{"off", "steer_at", "block_at", "steer_message", "block_message"}
	overAll        = []string{"off", "steer_at", "block_at", "halt_at", "steer_message", "block_message", "halt_message"}
	overHalt       = []string{"off", "halt_at", "halt_message"}
	overOff        = []string{"off"}
)

// detectorTable: every detector, in evaluation order.
var detectorTable = []detectorSpec{
	describe("dedup", []string{"off", "block_message"},
		func(p *Dedup) {
			p.DedupAt = 2
			p.Message = "{result}"
		},
		func(v *validator, at string, p *Dedup) error {
			if p.DedupAt < 2 {
				return v.fail(at+".dedup_at", "%s.dedup_at must be 2 or more (the first call has no earlier result), not %d", at, p.DedupAt)
			}
			return nil
		}),
	describe("cap", []string{"off", "block_at", "block_message"},
		func(p *Cap) {
			p.BlockMessage = "Blocked {tool}: it was already called {count} times in this scope, the limit."
		}, nil),
	describe("failure", overSteerBlock,
		func(p *Failure) {
			p.Key = "rules"
			p.SteerMessage = "{tool} failed {count} times with identical arguments. Read the error and change the call instead of retrying it unchanged."
			p.BlockMessage = "Blocked {tool}: this call already failed {count} times with identical arguments. Change the call or explain the blocker."
		},
		func(v *validator, at string, p *Failure) error {
			if err := v.detectorKey(at, p.Key); err != nil {
				return err
			}
			if err := v.detectorList(at, p.BlocksAsFailures); err != nil {
				return err
			}
			return v.selectors(at+".cleared_by", p.ClearedBy)
		}),
	describe("no_progress", overSteerBlock,
		func(p *NoProgress) {
			p.By, p.Key = "call", "rules"
			p.SteerMessage = "{tool} returned the same result {count} times. Use the result you already have, or change the arguments."
			p.BlockMessage = "Blocked {tool}: this call already returned the same result {count} times. Use the result you already have."
		},
		func(v *validator, at string, p *NoProgress) error {
			if err := v.detectorKey(at, p.Key); err != nil {
				return err
			}
			if err := v.detectorList(at, p.BlocksAsFailures); err != nil {
				return err
			}
			if !oneOf(p.By, "call", "tool") {
				return v.fail(at+".by", "%s.by must be call or tool, not %q", at, p.By)
			}
			if p.By == "tool" && p.BlockAt > 0 {
				return v.fail(at+".block_at", "%s.block_at needs by: call (a new call of the tool may bring new information)", at)
			}
			return nil
		}),
	describe("tool_failure", overAll,
		func(p *ToolFailure) {
			p.SteerMessage = "{tool} failed {count} times in a row. Diagnose the error before retrying."
			p.BlockMessage = "Blocked {tool}: it failed {count} times in a row. Change approach or use another tool."
			p.HaltMessage = "Stopped: {tool} failed {count} times in a row."
		},
		func(v *validator, at string, p *ToolFailure) error {
			if err := v.detectorList(at, p.BlocksAsFailures); err != nil {
				return err
			}
			if err := v.selectors(at+".cleared_by", p.ClearedBy); err != nil {
				return err
			}
			if p.SteerAt > 0 && p.HaltAt > 0 && p.SteerAt >= p.HaltAt {
				return v.fail(at+".steer_at", "%s.steer_at (%d) must be below halt_at (%d)", at, p.SteerAt, p.HaltAt)
			}
			return nil
		}),
	withShorthand(describe("repeat", overSteerBlock,
		func(p *Repeat) {
			p.SteerMessage = "{tool} was called {count} times with identical arguments. The earlier result is still in your context; use it instead of calling again."
			p.BlockMessage = "Blocked {tool}: called {count} times with identical arguments. The earlier result is in your context; use it instead of calling again."
		},
		func(v *validator, at string, p *Repeat) error {
			if err := v.steerBelowBlock(at, p.SteerAt, p.BlockAt); err != nil {
				return err
			}
			if p.BlockAfterSteer && p.SteerAt == 0 && p.BlockAt > 0 {
				return v.fail(at+".block_after_steer", "%s.block_after_steer needs a steer_at, or nothing would ever be blocked", at)
			}
			return nil
		})),
	withShorthand(describe("consecutive", overSteerBlock,
		func(p *Consecutive) {
			p.SteerMessage = "{tool} was called {count} times in a row with identical arguments. If it is not making progress, change approach."
			p.BlockMessage = "Blocked {tool}: called {count} times in a row with identical arguments. Change approach instead of repeating it."
			p.HaltMessage = "Stopped: {tool} was called {count} times in a row with identical arguments."
		},
		func(v *validator, at string, p *Consecutive) error {
			if err := v.steerBelowBlock(at, p.SteerAt, p.BlockAt); err != nil {
				return err
			}
			if err := v.steerBelowHalt(at, p.SteerAt, p.HaltAt); err != nil {
				return err
			}
			if err := v.selectors(at+".free.tools", p.Free.Tools); err != nil {
				return err
			}
			return v.selectors(at+".result_aware", p.ResultAware)
		})),
	describe("shell_inspection", overHalt,
		func(p *Inspection) {
			p.Args, p.HaltAt = []string{"command"}, 8
			p.HaltMessage = "Stopped: {count} shell commands in a row only inspected the repository (git status, diff, ls-files) without making progress."
		},
		func(v *validator, at string, p *Inspection) error {
			if len(p.Args) == 0 {
				return v.fail(at+".args", "%s.args must name the argument that holds the command", at)
			}
			return nil
		}),
	describe("pattern", overAll,
		func(p *Pattern) {
			p.Laps, p.Periods = 5, []int{1, 2, 3, 4, 5}
			p.SteerMessage = "The latest calls repeat a pattern of {period} call(s) {laps} times, ending with {tool}. Change approach instead of repeating it."
			p.BlockMessage = "Blocked {tool}: the latest calls repeat a pattern of {period} call(s) {laps} times. Change approach instead of repeating it."
			p.HaltMessage = "Stopped: the latest calls repeat a pattern of {period} call(s) {laps} times, ending with {tool}."
		},
		func(v *validator, at string, p *Pattern) error {
			if p.Laps < 2 || p.Laps > 100 {
				return v.fail(at+".laps", "%s.laps must be between 2 and 100, not %d", at, p.Laps)
			}
			if len(p.Periods) == 0 {
				return v.fail(at+".periods", "%s.periods must list at least one period", at)
			}
			for i, l := range p.Periods {
				if l < 1 || l > 100 {
					return v.fail(fmt.Sprintf("%s.periods[%d]", at, i), "%s.periods: %d is not between 1 and 100", at, l)
				}
			}
			if err := v.steerBelowBlock(at, p.SteerAt, p.BlockAt); err != nil {
				return err
			}
			return v.steerBelowHalt(at, p.SteerAt, p.HaltAt)
		}),
	describe("stall", []string{"off", "steer_at", "halt_at", "steer_message", "halt_message"},
		func(p *Stall) {
			p.SteerAt, p.Periods, p.History, p.Key = 3, []int{2, 3, 4}, 64, "rules"
			p.SteerMessage = "{tool} was called {count} times in a row with identical arguments and returned the same result each time. Do not repeat it; change the arguments, use another tool, or go on with what you have."
			p.HaltMessage = "Stopped {tool}: the same call returned the same result {count} times in a row."
			p.CycleMessage = "The last {count} rounds repeated the same cycle of {period} tool calls (ending with {tool}) with identical arguments and results. Do not repeat the cycle; change approach."
			p.CycleHaltMessage = "Stopped {tool}: the same cycle of {period} tool calls repeated {count} times with identical results."
		},
		func(v *validator, at string, p *Stall) error {
			if err := v.detectorKey(at, p.Key); err != nil {
				return err
			}
			if p.SteerAt > 0 && p.SteerAt < 2 {
				return v.fail(at+".steer_at", "%s.steer_at must be 2 or more (a streak of one call is no repeat), not %d", at, p.SteerAt)
			}
			if p.SteerAt > 0 && p.HaltAt > 0 && p.SteerAt > p.HaltAt {
				return v.fail(at+".steer_at", "%s.steer_at (%d) must not be above halt_at (%d)", at, p.SteerAt, p.HaltAt)
			}
			for i, l := range p.Periods {
				if l < 2 || l > 100 {
					return v.fail(fmt.Sprintf("%s.periods[%d]", at, i), "%s.periods: %d is not between 2 and 100 (period 1 is the streak)", at, l)
				}
			}
			if p.History < 0 || p.History > 10000 {
				return v.fail(at+".history", "%s.history must be between 0 and 10000, not %d", at, p.History)
			}
			return nil
		}),
	describe("stuck", overHalt,
		func(p *Stuck) {
			p.PairsAt, p.ErrorsAt, p.AlternatingAt = 4, 3, 6
			p.HaltMessage = "Stopped: the agent is stuck in a loop ({loop}: {count} calls)."
		},
		func(v *validator, at string, p *Stuck) error {
			if p.PairsAt == 1 || p.ErrorsAt == 1 {
				return v.fail(at+".pairs_at", "%s.pairs_at and errors_at must be 2 or more (one call is no repeat), or 0 for off", at)
			}
			if p.AlternatingAt != 0 && (p.AlternatingAt < 4 || p.AlternatingAt%2 != 0) {
				return v.fail(at+".alternating_at", "%s.alternating_at must be an even number of calls, 4 or more (two laps of A and B), or 0 for off, not %d", at, p.AlternatingAt)
			}
			return nil
		}),
	describe("failed_rounds", overHalt,
		func(p *FailedRound) {
			p.HaltMessage = "Stopped after {count} model responses in a row whose tool calls all failed."
		}, nil),
	describe("cycle", overOff,
		func(p *Cycle) {
			p.Window, p.Periods, p.Check = 10, []int{1, 2, 3}, "round"
			p.SteerMessage = "Loop detected: the last {window} tool calls follow a repeating pattern. Try a different approach."
		},
		func(v *validator, at string, p *Cycle) error {
			if p.Window < 2 || p.Window > 1000 {
				return v.fail(at+".window", "%s.window must be between 2 and 1000, not %d", at, p.Window)
			}
			if len(p.Periods) == 0 {
				return v.fail(at+".periods", "%s.periods must list at least one period", at)
			}
			for i, l := range p.Periods {
				if l < 1 || l > p.Window {
					return v.fail(fmt.Sprintf("%s.periods[%d]", at, i), "%s.periods: %d is not between 1 and the window (%d)", at, l, p.Window)
				}
			}
			if !oneOf(p.Check, "round", "call") {
				return v.fail(at+".check", "%s.check must be round or call, not %q", at, p.Check)
			}
			return nil
		}),
	withText(describe("content_loop", overOff,
		func(p *ContentLoop) {
			p.Chunk, p.Threshold, p.Spacing, p.MaxPeriods, p.History = 50, 10, 5, 5, 5000
			p.SteerMessage = "The response repeats the same text over and over. Stop, and take a different approach."
			p.HaltMessage = "Stopped: the response repeats the same text over and over."
		},
		func(v *validator, at string, p *ContentLoop) error {
			if p.Chunk < 1 || p.Chunk > 10000 {
				return v.fail(at+".chunk", "%s.chunk must be between 1 and 10000 characters, not %d", at, p.Chunk)
			}
			if p.Threshold < 2 {
				return v.fail(at+".threshold", "%s.threshold must be 2 or more (one chunk is no repeat), not %d", at, p.Threshold)
			}
			if p.History < p.Chunk || p.History > 1000000 {
				return v.fail(at+".history", "%s.history must be at least the chunk (%d) and at most 1000000 characters, not %d", at, p.Chunk, p.History)
			}
			return v.steerBelowHalt(at, p.SteerAt, p.HaltAt)
		})),
	describe("turn_cap", []string{"off", "halt_message"},
		func(p *TurnCap) {
			p.Soft, p.Hard, p.StuckAt = 100, 1000, 6
			p.HaltMessage = "Stopped: {count} calls in this turn, and the turn keeps repeating a call."
		},
		func(v *validator, at string, p *TurnCap) error {
			if p.Soft < 1 {
				return v.fail(at+".soft", "%s.soft must be 1 or more, not %d", at, p.Soft)
			}
			if p.Hard != 0 && p.Hard <= p.Soft {
				return v.fail(at+".hard", "%s.hard must be above soft (%d), or 0 for none, not %d", at, p.Soft, p.Hard)
			}
			if p.StuckAt == 1 {
				return v.fail(at+".stuck_at", "%s.stuck_at of 1 is no repeat; use 2 or more, or 0 for none", at)
			}
			return v.selectors(at+".result_aware", p.ResultAware)
		}),
	withText(describe("monologue", overOff,
		func(p *Monologue) {
			p.HaltAt = 3
			p.SteerMessage = "You have written the same message {count} times without running anything in between. Take a different approach."
			p.HaltMessage = "Stopped: the same message {count} times with no tool result in between."
		},
		func(v *validator, at string, p *Monologue) error {
			if p.SteerAt == 1 || p.HaltAt == 1 {
				return v.fail(at, "%s: a threshold of 1 is no repeat; use 2 or more", at)
			}
			return v.steerBelowHalt(at, p.SteerAt, p.HaltAt)
		})),
}

// DetectorNames lists the detectors in evaluation order (detectorTable).
var DetectorNames []string

// detectorByName and detectorByType index detectorTable.
var (
	detectorByName = map[string]*detectorSpec{}
	detectorByType = map[reflect.Type]*detectorSpec{}
)

func init() {
	if err := indexDetectors(); err != nil {
		panic(err)
	}
}

// indexDetectors derives DetectorNames and the indexes from the table,
// and checks the table against the schema's fields: each row has its
// field in Detectors and in Tool, with its settings type and *Override,
// and no field of Detectors is without a row.
func indexDetectors() error {
	_, inDetectors := fieldsOf(reflect.TypeOf(Detectors{}))
	_, inTool := fieldsOf(reflect.TypeOf(Tool{}))
	overrideType := reflect.TypeOf((*Override)(nil))
	for i := range detectorTable {
		s := &detectorTable[i]
		if detectorByName[s.name] != nil {
			return fmt.Errorf("rules: detector %q is described twice", s.name)
		}
		fi, ok := inDetectors[s.name]
		if !ok || reflect.TypeOf(Detectors{}).Field(fi).Type != reflect.PointerTo(s.settings) {
			return fmt.Errorf("rules: detector %q has no field %q of type *%s in Detectors", s.name, s.name, s.settings.Name())
		}
		ti, ok := inTool[s.name]
		if !ok || reflect.TypeOf(Tool{}).Field(ti).Type != overrideType {
			return fmt.Errorf("rules: detector %q has no override field %q in Tool", s.name, s.name)
		}
		for _, common := range []string{"Enabled", "Reset", "Only", "Except"} {
			if _, ok := s.settings.FieldByName(common); !ok {
				return fmt.Errorf("rules: the settings of detector %q lack %s", s.name, common)
			}
		}
		s.field, s.toolField = fi, ti
		detectorByName[s.name] = s
		detectorByType[s.settings] = s
		DetectorNames = append(DetectorNames, s.name)
	}
	if len(inDetectors) != len(detectorTable) {
		return fmt.Errorf("rules: Detectors has %d fields, the detector table %d rows", len(inDetectors), len(detectorTable))
	}
	return nil
}

// IsDetector reports whether name is a detector's name.
func IsDetector(name string) bool { return detectorByName[name] != nil }

// SetsByShorthand reports whether a tool entry's steer_at and block_at
// (tools.SEL.steer_at) set the named detector's thresholds.
func SetsByShorthand(detector string) bool {
	s := detectorByName[detector]
	return s != nil && s.shorthand
}

// OverrideFields lists the fields a tool entry's override of the named
// detector takes (tools.SEL.NAME.FIELD).
func OverrideFields(detector string) []string {
	if s := detectorByName[detector]; s != nil {
		return s.overrides
	}
	return nil
}

// enabled reports whether the rules turn the named detector on.
func (d *Detectors) enabled(name string) bool {
	s := detectorByName[name]
	if s == nil {
		return false
	}
	f := reflect.ValueOf(d).Elem().Field(s.field)
	return !f.IsNil() && f.Elem().FieldByName("Enabled").Bool()
}

// common returns the settings' keys every detector has.
func common(settings reflect.Value) (reset string, only, except []string) {
	v := settings.Elem()
	return v.FieldByName("Reset").String(), v.FieldByName("Only").Interface().([]string), v.FieldByName("Except").Interface().([]string)
}

// defaultSettings fills in a detector's settings just made (v, a pointer
// to its settings struct) with the defaults of its row; other structs are
// left as they are.
func defaultSettings(v reflect.Value) {
	if s := detectorByType[v.Type().Elem()]; s != nil && s.defaults != nil {
		s.defaults(v.Interface())
	}
}

// overrides lists a tool entry's per-detector overrides, in the table's
// order.
func (t *Tool) overrides() []namedOverride {
	tv := reflect.ValueOf(t).Elem()
	out := make([]namedOverride, 0, len(detectorTable))
	for i := range detectorTable {
		s := &detectorTable[i]
		out = append(out, namedOverride{s.name, tv.Field(s.toolField).Interface().(*Override)})
	}
	return out
}

type namedOverride struct {
	det string
	o   *Override
}

// Override returns the tool entry's override for a detector, or nil.
func (t *Tool) Override(detector string) *Override {
	s := detectorByName[detector]
	if s == nil {
		return nil
	}
	return reflect.ValueOf(t).Elem().Field(s.toolField).Interface().(*Override)
}

// detectors validates every detector the rules name: the common keys,
// then the row's checks.
func (v *validator) detectors() error {
	dv := reflect.ValueOf(&v.r.Detectors).Elem()
	for i := range detectorTable {
		s := &detectorTable[i]
		f := dv.Field(s.field)
		if f.IsNil() {
			continue
		}
		at := "detectors." + s.name
		reset, only, except := common(f)
		if err := v.detectorCommon(at, reset, only, except); err != nil {
			return err
		}
		if s.check != nil {
			if err := s.check(v, at, f.Interface()); err != nil {
				return err
			}
		}
	}
	return nil
}

// shorthandNames names the detectors the tool shorthand sets, for
// messages: "repeat or consecutive".
func shorthandNames(prefix, or string) string {
	var names []string
	for _, s := range detectorTable {
		if s.shorthand {
			names = append(names, prefix+s.name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + or + " " + names[len(names)-1]
}
