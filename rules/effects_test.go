package rules_test

import (
	"slices"
	"strings"
	"testing"

	. "github.com/loopgate/loopgate/rules"
)

// TestEffectsInRulesFile: a rules file extends the effect table (a class
// moves between effects, its rules win over the defaults), and its errors
// name file and line.
func TestEffectsInRulesFile(t *testing.T) {
	text := `extends: loopgate
classes:
  robot: [arm_move, arm_status]
effects:
  act: [robot, shell]
  by_argument:
    - tools: [class:robot]
      arg: mode
      values: [dry-run]
      effect: observe
    - tools: [str_replace_editor]
      arg: command
      values: [view]
      effect: act
`
	r, err := Parse([]byte(text), "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// How calls read by the table act: analyze/guard's TestCallActsRulesFile.
	if !r.ClassActs("robot") || !r.ClassActs("shell") || r.ClassActs("read") || !r.ClassActs("message") {
		t.Errorf("class effects: act %v observe %v", r.Effects.Act, r.Effects.Observe)
	}
	if by := r.Effects.ByArgument; len(by) == 0 || by[0].Arg != "mode" || len(by) < 2 || by[1].Effect != EffectAct {
		t.Errorf("by_argument: the file's rules must come first: %+v", by)
	}
	if slices.Contains(r.Effects.Observe, "shell") {
		t.Errorf("shell is still under observe: %v", r.Effects.Observe)
	}
	// The printed rules read back to the same table.
	out, err := r.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out, "printed.yaml")
	if err != nil {
		t.Fatalf("printed rules do not parse: %v\n%s", err, out)
	}
	if len(back.Effects.ByArgument) != len(r.Effects.ByArgument) {
		t.Errorf("by_argument after a round trip: %d rules, want %d", len(back.Effects.ByArgument), len(r.Effects.ByArgument))
	}

	for _, c := range []struct{ text, want string }{
		{"effects:\n  act: [robots]\n", `mine.yaml:2: effects.act names an unknown class "robots"`},
		{"effects:\n  acts: [write]\n", `mine.yaml:2: unknown key "acts" in effects; did you mean "act"?`},
		{"effects:\n  by_argument:\n    - tools: [cron]\n      arg: action\n      values: [list]\n      effect: maybe\n", `mine.yaml:6: effects.by_argument[0].effect must be act or observe, not "maybe"`},
		{"effects:\n  by_argument:\n    - tools: [cron]\n      values: [list]\n      effect: act\n", `effects.by_argument[0] needs arg`},
		{"effects:\n  by_argument:\n    - arg: action\n      values: [list]\n      effect: act\n", `effects.by_argument[0] needs tools`},
		{"effects: [write]\n", `mine.yaml:1: effects must be a mapping (act, observe, by_argument)`},
	} {
		_, err := Parse([]byte(c.text), "mine.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
	if err := r.Set("effects.act", "[write]"); err == nil {
		t.Error("Set(effects.act) is accepted; the effect table is changed in a rules file")
	}
}
