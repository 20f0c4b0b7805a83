package rules

import (
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// TestCallActs: the default effect table, by class and by argument, on the
// tool names the agents' transcripts and sources use.
func TestCallActs(t *testing.T) {
	r, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, args string
		act        bool
	}{
		// Observations.
		{"read_file", `{"path": "a"}`, false},
		{"search_files", `{"pattern": "x"}`, false},
		{"terminal", `{"command": "rm -rf build"}`, false}, // shell observes
		{"web_fetch", `{"url": "https://x"}`, false},
		{"browser_snapshot", `{}`, false},
		{"some_mcp_tool", `{}`, false}, // other observes
		// Actions, by class.
		{"write_file", `{"path": "a"}`, true},
		{"delegate_task", `{"goal": "g"}`, true},
		{"spawn", `{"task": "t"}`, true},
		{"browser_navigate", `{"url": "https://x"}`, true},
		{"browser_click", `{"ref": "@e1"}`, true},
		{"browser_type", `{"ref": "@e1", "text": "hi"}`, true},
		{"browser_press", `{"key": "Enter"}`, true},
		{"browser_scroll", `{"direction": "down"}`, true},
		{"message", `{"content": "hi"}`, true},
		{"send_message", `{"target": "telegram", "message": "hi"}`, true},
		{"cronjob", `{"action": "create"}`, true},
		{"cron", `{"action": "add", "message": "m"}`, true},
		{"KillBash", `{"shell_id": "1"}`, true},
		// By argument.
		{"cron", `{"action": "list"}`, false},
		{"cronjob", `{"action": " LIST "}`, false},
		{"str_replace_editor", `{"command": "view", "path": "a"}`, false},
		{"str_replace_editor", `{"command": "str_replace", "path": "a"}`, true},
		{"process_manage", `{"action": "poll", "session_id": "s"}`, false},
		{"process_manage", `{"action": "kill", "session_id": "s"}`, true},
		{"process", `{"action": "kill"}`, true},
		// Arguments that are not JSON: the class decides.
		{"str_replace_editor", `not json`, true},
		{"process_manage", `not json`, false},
	}
	for _, c := range cases {
		args, err := jsonx.ParseString(c.args)
		ok := err == nil
		if got := r.CallActs(c.tool, args, ok); got != c.act {
			t.Errorf("CallActs(%s %s) = %v, want %v", c.tool, c.args, got, c.act)
		}
		classAct, byArg := r.ToolEffect(c.tool)
		if !byArg && classAct != c.act {
			t.Errorf("ToolEffect(%s) = %v without effect rules, but the call acts: %v", c.tool, classAct, c.act)
		}
	}
}

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
	parse := func(s string) jsonx.Value { v, _ := jsonx.ParseString(s); return v }
	for _, c := range []struct {
		tool, args string
		act        bool
	}{
		{"arm_move", `{}`, true},
		{"arm_move", `{"mode": "dry-run"}`, false},
		{"terminal", `{"command": "ls"}`, true},             // shell moved to act
		{"str_replace_editor", `{"command": "view"}`, true}, // the file's rule comes first
		{"read_file", `{"path": "a"}`, false},
		{"message", `{"content": "x"}`, true}, // the defaults are kept
	} {
		if got := r.CallActs(c.tool, parse(c.args), true); got != c.act {
			t.Errorf("CallActs(%s %s) = %v, want %v", c.tool, c.args, got, c.act)
		}
	}
	if contains(r.Effects.Observe, "shell") {
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
