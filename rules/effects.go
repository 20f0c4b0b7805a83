package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/loopgate/loopgate/internal/yamlstrict"
	"gopkg.in/yaml.v3"
)

// Effects says which tool calls act on the world and which only observe
// it. The truth of a replay depends on it (docs/cli.md, "What the numbers
// mean"): an observation that returns what an earlier identical one
// returned brought nothing new (redundant); an action that returns the same
// acknowledgement again (a click, a sent message) did something again, so it
// is never redundant, and a guard that stops it stopped an action whose
// worth only the user can judge.
//
// A class carries one effect; a class listed under neither effect observes
// (every call observed before effects existed). ByArgument refines the
// effect of single calls by an argument, for tools whose calls do both
// (OpenHands' str_replace_editor views and edits; hermes' process_manage
// polls and kills).
type Effects struct {
	// Act lists the classes whose calls act on the world.
	Act []string `yaml:"act,flow"`
	// Observe lists the classes whose calls only observe it.
	Observe []string `yaml:"observe,flow"`
	// ByArgument rules are tried in order before the class's effect; the
	// first whose tools name the call's tool and whose argument holds one
	// of its values decides.
	ByArgument []EffectRule `yaml:"by_argument"`
}

// EffectRule gives the calls of some tools an effect by one argument.
type EffectRule struct {
	// Tools are selectors (a tool name or class:NAME).
	Tools []string `yaml:"tools,flow"`
	// Arg is the top-level argument read; Values are compared with its
	// text trimmed and lower-cased. The value "*" matches any text that is
	// not blank: the argument's presence decides.
	Arg    string   `yaml:"arg"`
	Values []string `yaml:"values,flow"`
	// Effect is "act" or "observe".
	Effect string `yaml:"effect"`
}

// The two effects.
const (
	EffectAct     = "act"
	EffectObserve = "observe"
)

// DefaultEffects is the built-in effect table. Reading the transcripts of
// hermes, nanobot, Claude Code, Codex and OpenHands: the observation
// classes return what is there; write, delegate (a subagent's work),
// browser (pages navigated, clicked, typed into), message (sent to a
// person), schedule (jobs created), process (started or killed), plan (the
// task list shown to the user set) and memory (notes and skills kept across
// sessions written) change something outside the model's context. shell observes: most commands
// read (ls, cat, grep, git status, tests), and a command's text does not
// say which ones change things; a shell command repeated with the same
// output is counted redundant, and docs/rules.md says so.
func DefaultEffects() Effects {
	return Effects{
		Act:     []string{"write", "delegate", "browser", "message", "schedule", "process", "plan", "memory"},
		Observe: []string{"read", "search", "list", "web_search", "web_fetch", "poll", "shell", "other"},
		ByArgument: []EffectRule{
			// OpenHands' editor: "view" reads a file or lists a directory;
			// create, str_replace, insert and undo_edit write. The SDK's
			// planning_file_editor is the same editor kept to PLAN.md.
			{Tools: []string{"str_replace_editor", "file_editor", "planning_file_editor"}, Arg: "command", Values: []string{"view"}, Effect: EffectObserve},
			// hermes' process_manage (and its older name process) polls,
			// reads logs and waits, all observations, but also kills a
			// process or writes to its input.
			{Tools: []string{"process_manage", "process"}, Arg: "action", Values: []string{"kill", "write", "submit", "close"}, Effect: EffectAct},
			// Scheduling tools that only list or show their jobs (nanobot's
			// cron action "list", hermes' cronjob action "list").
			{Tools: []string{"class:schedule"}, Arg: "action", Values: []string{"list", "status", "get", "show"}, Effect: EffectObserve},
			// hermes' browser_console reads the page's console, but given
			// an expression it runs that JavaScript in the page
			// (NousResearch/hermes-agent tools/browser_tool.py, its
			// schema: "When 'expression' is provided, evaluates
			// JavaScript in the page context"), which may click, type or
			// navigate: real transcripts click a checkbox through it. The
			// code's effect cannot be read from its text, so it acts.
			{Tools: []string{"browser_console"}, Arg: "expression", Values: []string{"*"}, Effect: EffectAct},
			// Codex's write_stdin polls a running process when its chars
			// are empty and types into it otherwise: openai/codex's
			// write_stdin handler (codex-rs/core, WriteStdinHandler's
			// pre_tool_use_payload) says "Empty writes are background
			// polls" and reviews a non-empty write as a Bash command
			// typed into the shell. "\u0003" interrupts the process.
			{Tools: []string{"write_stdin"}, Arg: "chars", Values: []string{"*"}, Effect: EffectAct},
			// Anthropic's computer-use tool (computer, in class browser):
			// a screenshot, the cursor's position, a zoomed look and a
			// wait observe the screen; every other action acts
			// (platform.claude.com/docs/en/agents-and-tools/tool-use/computer-use-tool).
			{Tools: []string{"computer"}, Arg: "action", Values: []string{"screenshot", "cursor_position", "zoom", "wait"}, Effect: EffectObserve},
		},
	}
}

func (e *Effects) empty() bool {
	return e.Act == nil && e.Observe == nil && e.ByArgument == nil
}

// effectIndex is what compile derives from Effects.
type effectIndex struct {
	act   map[string]bool // class -> acts
	rules []EffectRule
}

func (r *Rules) compileEffects(idx *index) {
	e := r.Effects
	if e.empty() {
		e = DefaultEffects()
	}
	idx.effects.act = map[string]bool{}
	for _, c := range e.Act {
		idx.effects.act[c] = true
	}
	idx.effects.rules = e.ByArgument
}

// ToolEffect says what the calls of a tool do: act reports whether its
// class acts; byArgument, whether an effect rule may change that for some
// of its calls (then the call's arguments decide: analyze/guard reads
// them).
func (r *Rules) ToolEffect(tool string) (act, byArgument bool) {
	r.compileOnce()
	for _, er := range r.idx.effects.rules {
		if r.MatchesAny(er.Tools, tool) {
			byArgument = true
			break
		}
	}
	return r.idx.effects.act[r.ClassOf(tool)], byArgument
}

// ClassActs reports whether a class's calls act (before effect rules).
func (r *Rules) ClassActs(class string) bool {
	r.compileOnce()
	return r.idx.effects.act[class]
}

var effectsType = reflect.TypeOf(Effects{})

// decodeEffects extends the effect table: a class listed under act or
// observe moves there from the other list, and the file's by_argument
// rules come before the ones it extends (so that they win).
func (d *decoder) decodeEffects(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.errf(n, "%s must be a mapping (act, observe, by_argument)", path)
	}
	e := v.Interface().(Effects)
	if e.empty() {
		e = DefaultEffects()
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if err := d.checkNode(k, path); err != nil {
			return err
		}
		if first, dup := seen[k.Value]; dup {
			return d.file.RepeatedKey(k, yamlstrict.Where(path), first)
		}
		seen[k.Value] = k.Line
		p := join(path, k.Value)
		d.lines[p] = k.Line
		switch k.Value {
		case EffectAct, EffectObserve:
			var classes []string
			if err := d.decodeValue(val, reflect.ValueOf(&classes).Elem(), p); err != nil {
				return err
			}
			for _, c := range classes {
				e.Act, e.Observe = remove(e.Act, c), remove(e.Observe, c)
			}
			if k.Value == EffectAct {
				e.Act = appendNew(e.Act, classes...)
			} else {
				e.Observe = appendNew(e.Observe, classes...)
			}
		case "by_argument":
			var rs []EffectRule
			if err := d.decodeValue(val, reflect.ValueOf(&rs).Elem(), p); err != nil {
				return err
			}
			// A rule given again (a printed rules file read back) is
			// kept once, at its new place.
			for _, old := range e.ByArgument {
				if !slices.ContainsFunc(rs, func(x EffectRule) bool { return reflect.DeepEqual(x, old) }) {
					rs = append(rs, old)
				}
			}
			e.ByArgument = rs
		default:
			return d.file.UnknownKey(k, yamlstrict.Where(path), []string{EffectAct, EffectObserve, "by_argument"})
		}
	}
	v.Set(reflect.ValueOf(e))
	return nil
}

// validateEffects checks that the effect table names known classes, each
// under one effect, and that every effect rule is complete.
func (v *validator) validateEffects() error {
	e := v.r.Effects
	for _, list := range []struct {
		at      string
		classes []string
	}{{"effects.act", e.Act}, {"effects.observe", e.Observe}} {
		// The lists are merged with the table extended, so an index
		// would not be the file's: the error names the list.
		for _, c := range list.classes {
			if !v.r.HasClass(c) {
				return v.fail(list.at, "%s names an unknown class %q; classes: %s", list.at, c, strings.Join(v.r.ClassNames(), ", "))
			}
		}
	}
	for _, c := range e.Act {
		if contains(e.Observe, c) {
			return v.fail("effects", "class %q is listed under both act and observe", c)
		}
	}
	for i, er := range e.ByArgument {
		at := fmt.Sprintf("effects.by_argument[%d]", i)
		if len(er.Tools) == 0 {
			return v.fail(at, "%s needs tools (tool names or class:NAME)", at)
		}
		if err := v.selectors(at+".tools", er.Tools); err != nil {
			return err
		}
		if er.Arg == "" {
			return v.fail(at, "%s needs arg (the argument whose value decides)", at)
		}
		if len(er.Values) == 0 {
			return v.fail(at, "%s needs values (the argument's values that give the effect)", at)
		}
		if !oneOf(er.Effect, EffectAct, EffectObserve) {
			return v.fail(at+".effect", "%s.effect must be act or observe, not %q", at, er.Effect)
		}
	}
	return nil
}
