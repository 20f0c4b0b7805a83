package guard

import (
	"testing"
	"time"

	"github.com/loopgate/loopgate/rules"
)

// TestPendingArgumentsDecideAlike: a guard given a call's arguments as
// their compact text, unparsed (setArgs, pending, as a replay of a
// Claude Code transcript gives them), decides exactly as one given them
// parsed, message and key included, under every preset and under key
// rules that leave out, drop, fill in and fold arguments. The streams mix
// the argument shapes the presets' rules read: paths of writes that clear
// reads, the cap's free and counted arguments, pi's reset command, and
// the placeholders of messages.
func TestPendingArgumentsDecideAlike(t *testing.T) {
	sets := map[string]*rules.Rules{}
	for _, name := range rules.PresetNames() {
		sets[name] = preset(t, name)
	}
	for i, text := range []string{
		"name: ignore\nkey: {style: sorted, ignore: [timeout]}\ndetectors: {repeat: {block_at: 2, block_message: '{args}|{arg:path}|{json:b}|{args_sha256}'}}",
		"name: top\nkey: {style: sorted_top}\ndetectors: {repeat: {block_at: 2}}",
		"name: insertion\nkey: {style: insertion, ignore: [timeout]}\ndetectors: {repeat: {block_at: 2}}",
		"name: python\nkey: {style: sorted, numbers: python}\ndetectors: {repeat: {block_at: 2}}",
		"name: fold\nkey: {style: sorted, fold: [trim, lower]}\ndetectors: {repeat: {block_at: 2}}",
		"name: tools\nkey: {style: sorted, tools: {edit: {drop: ['edits[].newText']}, read_file: {args: [path, offset], defaults: {offset: '1'}}}}\ndetectors: {repeat: {block_at: 2}}",
	} {
		sets[string(rune('a'+i))] = parseRules(t, text)
	}
	tools := []string{"read_file", "read", "Read", "terminal", "bash", "web_search", "delegate_task", "edit", "write_file", "Write", "grep"}
	argsList := []string{
		`{"path":"/a"}`, `{"offset":1,"path":"/b"}`, `{"path":"/a","offset":1.0}`, `{"path":"/a","offset":1.50,"limit":1e3}`, `{"file_path":"/a","content":"x\ny \"z\""}`,
		`{"query":" Q ","timeout":5}`, `{"command":"echo '/loopguard reset'"}`, `{"command":"ls","timeout":30}`,
		`{"action":"list"}`, `{"tasks":[{"goal":"a"},{"goal":"b"}]}`, `{"edits":[{"oldText":"a","newText":"b"}],"path":"/a"}`,
		`{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}`, `{"k\n":1,"a":2}`, `null`, `"text"`, `[1,2]`, `{}`,
	}
	seed := uint64(7)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(n))
	}
	for name, r := range sets {
		var steps []step
		for i := 0; i < 2000; i++ {
			s := step{tool: tools[next(len(tools))], args: argsList[next(len(argsList))], result: []string{"A", "B", ""}[next(3)],
				failed: next(5) == 0, user: next(30) == 0, round: next(2) == 0}
			if next(2) == 0 {
				s.at = time.Duration(i) * 5 * time.Second
			}
			steps = append(steps, s)
		}
		parsed, pending := NewGuard(r), NewGuard(r)
		for i, s := range steps {
			a := applyStepWith(parsed, r, i, s, compactArgs(false))
			b := applyStepWith(pending, r, i, s, compactArgs(true))
			if *a != *b {
				t.Fatalf("%s step %d (%s %s): parsed %+v, pending %+v", name, i+1, s.tool, s.args, *a, *b)
			}
		}
	}
}

// compactArgs writes a parsed call's arguments compact, and leaves them
// unparsed when pending.
func compactArgs(pending bool) func(*CallEvent) {
	return func(ev *CallEvent) {
		if !ev.ArgsOK {
			return
		}
		ev.ArgsRaw = ev.args.String()
		if pending {
			ev.setArgs(nil, true, true)
		} else {
			ev.setArgs(ev.args, true, false)
		}
	}
}
