package guard

// Tests of what counts as the same call (callkey.go) and of what acts on
// the world (callActs): keys from parsed arguments and from their compact
// text, under every preset and every way a key section changes arguments.
//
//	go test ./analyze/guard -run '^$' -bench CallKey -benchmem

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// keyRuleSets are key sections that change arguments in each way a key
// can: members left out, kept by name, dropped by path, filled in, folded,
// numbers as Python writes them, and each style.
var keyRuleSets = []string{
	"key: {style: sorted, ignore: [timeout]}",
	"key: {style: sorted_top}",
	"key: {style: insertion}",
	"key: {style: sorted, numbers: python}",
	"key: {style: sorted, fold: [trim, lower]}",
	"key: {style: sorted, tools: {Edit: {drop: ['edits[].new']}}}",
	"key: {style: sorted, tools: {Read: {args: [path, offset]}}}",
	"key: {style: sorted, tools: {Read: {defaults: {offset: '1'}}}}",
	"key: {style: insertion, tools: {Read: {defaults: {offset: '1'}}}}",
}

// TestCallKeyFromCompactText: a key built from the arguments' compact text
// (appendCallKeyText, as a replay builds it for calls that hold that text)
// is the key built from the parsed arguments, under every preset and every
// way a key section changes arguments.
func TestCallKeyFromCompactText(t *testing.T) {
	var sets []*rules.Rules
	for _, name := range rules.PresetNames() {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, r)
	}
	for _, text := range keyRuleSets {
		r, err := rules.Parse([]byte(text), "test.yaml")
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		sets = append(sets, r)
	}
	calls := []struct{ tool, args string }{
		{"Read", `{"path":"a.go","offset":2}`},
		{"Read", `{"offset":2.50,"path":"a.go","limit":1e3}`},
		{"Read", `{"path":"a.go"}`},
		{"Bash", `{"command":"  LS -la\n","timeout":30,"description":"list"}`},
		{"Bash", `{"timeout":30}`},
		{"Edit", `{"path":"x","edits":[{"old":"a","new":"b"},{"new":"c","old":"d"}]}`},
		{"Write", `{"file_path":"/a","content":"x\"\\\n\ty"}`},
		{"web_fetch", `{"url":" HTTPS://Example.com ","timeout":5}`},
		{"web_search", `{"query":"Go"}`},
		{"terminal", `{"command":"ls","b":{"d":[{"z":1,"y":2}],"c":null}}`},
		{"x", `[{"b":1,"a":2},"s",3]`},
		{"x", `"just a string"`},
		{"x", `{"k\n":1,"a":2}`}, // a key with an escape: built from the value
		{"x", `{}`},
	}
	unparsed := 0
	for _, r := range sets {
		for _, c := range calls {
			args, err := jsonx.ParseString(c.args)
			if err != nil {
				t.Fatalf("%s: %v", c.args, err)
			}
			want, wantOK := appendCallKeyWith(r, nil, toolKeyFor(r, c.tool), c.tool, args, true, c.args)
			text, ok, done := appendCallKeyText([]byte("p"), textKeyFor(r, toolKeyFor(r, c.tool)), c.tool, args.String())
			switch {
			case done && (string(text) != "p"+string(want) || ok != wantOK):
				t.Errorf("%s (%s) %s %s: from the unparsed text %q, %v; from the value %q, %v",
					r.Name, r.Key.Style, c.tool, c.args, text, ok, want, wantOK)
			case !done && string(text) != "p":
				t.Errorf("%s %s %s: declined, but wrote %q", r.Name, c.tool, c.args, text)
			case done:
				unparsed++
			}
		}
	}
	// Many keys come from the text alone (113 of 266 when written): the
	// sets that write numbers as Python does, or fold, never do.
	if unparsed < len(sets)*len(calls)/3 {
		t.Errorf("only %d of %d keys built from the unparsed text", unparsed, len(sets)*len(calls))
	}
}

func TestCallKey(t *testing.T) {
	nanobot, _ := rules.Preset("nanobot")
	pi, _ := rules.Preset("pi-loopguard")
	breaker, _ := rules.Preset("hermes-breaker")
	lg, _ := rules.Preset("loopgate")
	v := func(s string) jsonx.Value {
		x, err := jsonx.ParseString(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	cases := []struct {
		r      *rules.Rules
		tool   string
		args   string
		want   string
		wantOK bool
	}{
		{nanobot, "web_search", `{"query":"  Example  ","count":3}`, "web_search::example", true},
		{nanobot, "web_search", `{"query":"","search_term":"B"}`, "web_search::b", true},
		{nanobot, "web_search", `{"query":"  "}`, "", false},
		{nanobot, "web_fetch", `{"extractMode":"text","url":"https://X.org/"}`, "web_fetch::https://x.org/", true},
		{nanobot, "web_fetch", `["https://x.org"]`, "", false},
		{nanobot, "read_file", `{"path":"b","offset":{"z":1,"a":2}}`, `read_file::{"offset":{"a":2,"z":1},"path":"b"}`, true},
		{pi, "read", `{"path":"b","offset":{"z":1,"a":2},"id":"x"}`, `read::{"offset":{"z":1,"a":2},"path":"b"}`, true},
		{pi, "bash", `"just-a-string"`, `bash::"just-a-string"`, true},
		{pi, "bash", `null`, `bash::null`, true},
		{breaker, "terminal", `{"z":1,"a":2}`, `terminal::{"z":1,"a":2}`, true},
		// Ignored members first, in the middle and last; none ignored.
		{lg, "terminal", `{"timeout":5,"z":1,"toolCallId":"c","a":2,"spanId":"s"}`, `terminal::{"a":2,"z":1}`, true},
		{lg, "terminal", `{"z":{"timeout":1},"a":2}`, `terminal::{"a":2,"z":{"timeout":1}}`, true},
		{pi, "edit", `{"path":"a","id":"x","edits":[{"oldText":"o","newText":"n"}]}`, `edit::{"edits":[{"oldText":"o"}],"path":"a"}`, true},
	}
	for _, c := range cases {
		args := v(c.args)
		got, ok := callKey(c.r, c.tool, args, true, c.args)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%s CallKey(%s, %s) = %q, %v; want %q, %v", c.r.Name, c.tool, c.args, got, ok, c.want, c.wantOK)
		}
		// AppendCallKey appends the same key to a buffer's content, and
		// leaves the buffer as it was without a key.
		buf, ok := appendCallKey(c.r, []byte("before|"), c.tool, args, true, c.args)
		if string(buf) != "before|"+c.want || ok != c.wantOK {
			t.Errorf("%s AppendCallKey(%s, %s) = %q, %v; want %q, %v", c.r.Name, c.tool, c.args, buf, ok, "before|"+c.want, c.wantOK)
		}
		// Keying does not change the arguments (canonicalArgs shares
		// them when nothing is left out).
		if args.String() != v(c.args).String() {
			t.Errorf("%s CallKey(%s, %s) changed the arguments to %s", c.r.Name, c.tool, c.args, args.String())
		}
	}
	if got, ok := callKey(pi, "bash", jsonx.Value{}, false, "{not json"); got != "bash::{not json" || !ok {
		t.Errorf("unparsed args key = %q", got)
	}
}

// TestCallActs: callActs reads the default effect table, by class and by argument, on the
// tool names the agents' transcripts and sources use.
func TestCallActs(t *testing.T) {
	r, err := rules.Preset("loopgate")
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
		{"terminal", `{"command": "cat build.log"}`, false}, // a shell command that reads
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
		// A shell command that writes or whose reach is unknown.
		{"terminal", `{"command": "rm -rf build"}`, true},
		{"Bash", `{"command": "make"}`, true},
		// By argument.
		{"cron", `{"action": "list"}`, false},
		{"cronjob", `{"action": " LIST "}`, false},
		{"str_replace_editor", `{"command": "view", "path": "a"}`, false},
		{"str_replace_editor", `{"command": "str_replace", "path": "a"}`, true},
		{"process_manage", `{"action": "poll", "session_id": "s"}`, false},
		{"process_manage", `{"action": "kill", "session_id": "s"}`, true},
		{"process", `{"action": "kill"}`, true},
		// hermes' browser_console reads the console, or runs the
		// expression it is given.
		{"browser_console", `{}`, false},
		{"browser_console", `{"clear": true}`, false},
		{"browser_console", `{"expression": "document.querySelector('input').click()"}`, true},
		{"browser_console", `{"expression": "  "}`, false},
		{"browser_console", `{"expression": null}`, false},
		// Codex's write_stdin: empty chars wait for output, any other
		// text is typed into the process.
		{"write_stdin", `{"session_id": 3, "chars": ""}`, false},
		{"write_stdin", `{"session_id": 3, "chars": "\u0003"}`, true},
		{"write_stdin", `{"session_id": 3, "chars": "y\n"}`, true},
		{"write_stdin", `{"session_id": 3}`, false},
		// Anthropic's computer tool: a screenshot, the cursor's position,
		// a zoom and a wait look; a click, a key or typed text act. A
		// computer-use agent's tools of one action each, by their class.
		{"computer", `{"action": "screenshot"}`, false},
		{"computer", `{"action": "cursor_position"}`, false},
		{"computer", `{"action": "left_click", "coordinate": [10, 20]}`, true},
		{"computer", `{"action": "type", "text": "hi"}`, true},
		{"computer_click", `{"x": 500, "y": 500, "button": "left"}`, true},
		{"computer_key", `{"keys": "pagedown"}`, true},
		{"computer_screenshot", `{}`, false},
		{"terminal_run_command", `{"command": "cat /workspace/report.txt"}`, false},
		{"terminal_run_command", `{"command": "cat <<EOF > /workspace/report.txt\nx\nEOF"}`, true},
		// Arguments that are not JSON: the class decides.
		{"str_replace_editor", `not json`, true},
		{"process_manage", `not json`, false},
	}
	for _, c := range cases {
		ev := &CallEvent{Tool: c.tool, ArgsRaw: c.args, ArgsOK: true}
		if got := callActs(r, ev); got != c.act {
			t.Errorf("callActs(%s %s) = %v, want %v", c.tool, c.args, got, c.act)
		}
		// A shell call's effect is its command's (shellcmd), not its
		// class's.
		classAct, byArg := r.ToolEffect(c.tool)
		if !byArg && classAct != c.act && r.ClassOf(c.tool) != "shell" {
			t.Errorf("ToolEffect(%s) = %v without effect rules, but the call acts: %v", c.tool, classAct, c.act)
		}
	}
}

// TestCallActsRulesFile: a rules file's effect table (its class acting,
// its by_argument rules before the defaults it keeps) decides as it says.
func TestCallActsRulesFile(t *testing.T) {
	custom, err := rules.Load(filepath.Join("..", "..", "fixtures", "rules", "good", "custom.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mine, err := rules.Parse([]byte(`extends: loopgate
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
`), "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r          *rules.Rules
		tool, args string
		act        bool
	}{
		{custom, "ticket_create", `{}`, true},
		{custom, "ticket_list", `{"status": "Open"}`, false},
		{custom, "ticket_list", `{"status": "any"}`, true},
		{custom, "write_file", `{}`, true},
		{custom, "kb_search", `{}`, false},
		{mine, "arm_move", `{}`, true},
		{mine, "arm_move", `{"mode": "dry-run"}`, false},
		{mine, "terminal", `{"command": "ls"}`, true},             // shell moved to act
		{mine, "str_replace_editor", `{"command": "view"}`, true}, // the file's rule comes first
		{mine, "read_file", `{"path": "a"}`, false},
		{mine, "message", `{"content": "x"}`, true}, // the defaults are kept
	} {
		ev := &CallEvent{Tool: c.tool, ArgsRaw: c.args, ArgsOK: true}
		if got := callActs(c.r, ev); got != c.act {
			t.Errorf("%s: callActs(%s %s) = %v, want %v", c.r.Name, c.tool, c.args, got, c.act)
		}
	}
}

// benchCalls are tool calls shaped like the generated corpus's: reads,
// shell commands, edits, web lookups, and arguments that are not JSON.
var benchCalls = []struct{ tool, raw string }{
	{"read_file", `{"path":"/src/app/server.go","offset":120,"limit":200}`},
	{"terminal", `{"command":"go test ./... -run TestServer -count=1","timeout":120,"workdir":"/src/app"}`},
	{"search_files", `{"pattern":"func (s \\*Server)","path":"/src/app","file_glob":"*.go"}`},
	{"edit_file", `{"path":"/src/app/server.go","edits":[{"oldText":"return nil","newText":"return err"}]}`},
	{"web_search", `{"query":"  Golang YAML strict decoding  "}`},
	{"web_fetch", `{"url":"https://example.com/docs/Config.html"}`},
	{"exec", `{"command":"npm install","working_dir":"/src/web"}`},
	{"bash", `ls -la /src/app && git status`},
}

// BenchmarkCallKey keys benchCalls under every preset (the presets differ
// in canonical style, ignored arguments and folding).
func BenchmarkCallKey(b *testing.B) {
	type call struct {
		tool, raw string
		args      jsonx.Value
		ok        bool
	}
	calls := make([]call, len(benchCalls))
	var bytes int64
	for i, c := range benchCalls {
		v, err := jsonx.ParseString(c.raw)
		calls[i] = call{c.tool, c.raw, v, err == nil}
		bytes += int64(len(c.raw))
	}
	for _, name := range rules.PresetNames() {
		r, err := rules.Preset(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			// One op keys every call of benchCalls once.
			b.SetBytes(bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range calls {
					_, _ = callKey(r, c.tool, c.args, c.ok, c.raw)
				}
			}
		})
		// As the replay keys calls: in a reused buffer (appendCallKey).
		b.Run(name+"/append", func(b *testing.B) {
			b.SetBytes(bytes)
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				for _, c := range calls {
					buf, _ = appendCallKey(r, buf[:0], c.tool, c.args, c.ok, c.raw)
				}
			}
		})
	}
}

// FuzzCallKey builds keys for any tool name and argument text under every
// preset.
func FuzzCallKey(f *testing.F) {
	f.Add("read_file", `{"path": "a.txt", "offset": 1}`)
	f.Add("web_fetch", `{"url": "https://example.com", "timeout": 5}`)
	f.Add("edit", `{"path": "x", "edits": [{"oldText": "a", "newText": "b"}]}`)
	f.Add("exec", `{"command": "  LS  ", "timeout": 30}`)
	f.Add("bash", `not json`)
	f.Add("Read", `[1, 2]`)
	f.Add("", `{"": null, "a": {"b": {"c": [true, false, 1e9]}}}`)
	var presets []*rules.Rules
	for _, name := range rules.PresetNames() {
		r, err := rules.Preset(name)
		if err != nil {
			f.Fatalf("preset %s: %v", name, err)
		}
		presets = append(presets, r)
	}
	f.Fuzz(func(t *testing.T, tool, raw string) {
		args, err := jsonx.ParseString(raw)
		argsOK := err == nil
		for _, r := range presets {
			key, ok := callKey(r, tool, args, argsOK, raw)
			again, ok2 := callKey(r, tool, args, argsOK, raw)
			if key != again || ok != ok2 {
				t.Fatalf("%s: two keys for one call: %q, %q", r.Name, key, again)
			}
			if ok && !strings.HasPrefix(key, tool+keySeparator) {
				t.Fatalf("%s: key %q does not start with the tool name", r.Name, key)
			}
			// From the arguments' compact text, as a replay keys calls that
			// hold it: the same key (TestCallKeyFromCompactText).
			if argsOK {
				if fromText, ok3, done := appendCallKeyText(nil, textKeyFor(r, toolKeyFor(r, tool)), tool, args.String()); done && (string(fromText) != key || ok3 != ok) {
					t.Fatalf("%s: key from the compact text %q, %v; from the value %q, %v", r.Name, fromText, ok3, key, ok)
				}
			}
			_ = r.ClassOf(tool)
			_, _ = writePath(r, tool, args)
			_ = isResetCommand(r, tool, args)
			// Sorted styles: the model's argument order must not matter.
			if argsOK && args.Kind == jsonx.Object && keyStyle(r) != jsonx.Compact && uniqueKeys(args) {
				rev := args
				rev.Obj = make([]jsonx.Member, len(args.Obj))
				for i, m := range args.Obj {
					rev.Obj[len(args.Obj)-1-i] = m
				}
				revRaw := rev.String()
				k2, ok2 := callKey(r, tool, rev, true, revRaw)
				if k2 != key || ok2 != ok {
					t.Fatalf("%s (style %s): reordering the arguments changes the key:\n %q\n %q", r.Name, r.Key.Style, key, k2)
				}
			}
		}
	})
}

func uniqueKeys(v jsonx.Value) bool {
	seen := map[string]bool{}
	for _, m := range v.Obj {
		if seen[m.Key] {
			return false
		}
		seen[m.Key] = true
	}
	return true
}
