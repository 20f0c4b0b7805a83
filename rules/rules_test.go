package rules_test

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	. "github.com/loopgate/loopgate/rules"
)

// TestBadRulesFiles loads every fixtures/rules/bad file; its first line
// says the error wanted ("# want: LINE: sentence", {DETECTORS} standing
// for the detectors' keys), and the error must be exactly
// "path:LINE: sentence".
func TestBadRulesFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "fixtures", "rules", "bad", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad fixtures found (%v)", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := strings.ReplaceAll(wantLine(t, path), "{DETECTORS}", schemaDetectors())
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want error %q", path, want)
			}
			if err.Error() != path+":"+want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), path+":"+want)
			}
		})
	}
}

// schemaDetectors lists the detectors' keys as an error message lists
// them: in the schema's order (Detectors).
func schemaDetectors() string {
	return SchemaDetectors()
}

func wantLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		t.Fatalf("%s is empty", path)
	}
	want, ok := strings.CutPrefix(sc.Text(), "# want: ")
	if !ok {
		t.Fatalf("%s: first line must be '# want: LINE: message'", path)
	}
	return want
}

func TestGoodRulesFiles(t *testing.T) {
	r, err := Load(filepath.Join("..", "fixtures", "rules", "good", "pi-tuned.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Preset("pi-loopguard")
	if r.Name != "pi-tuned" || time.Duration(r.Scope.Window) != 0 {
		t.Errorf("pi-tuned: name %q window %v", r.Name, time.Duration(r.Scope.Window))
	}
	if got := *r.Tools["class:read"].SteerAt; got != 5 {
		t.Errorf("class:read steer_at = %d, want 5", got)
	}
	// Unchanged parts come from the preset.
	if !reflect.DeepEqual(r.Detectors, base.Detectors) || !reflect.DeepEqual(r.Tools["class:shell"], base.Tools["class:shell"]) {
		t.Errorf("pi-tuned lost parts of the preset it extends")
	}
	if r.ClassOf("mcp_docs_get") != "read" || r.ClassOf("read_file") != "read" {
		t.Errorf("class table not extended: mcp_docs_get=%s read_file=%s", r.ClassOf("mcp_docs_get"), r.ClassOf("read_file"))
	}

	c, err := Load(filepath.Join("..", "fixtures", "rules", "good", "custom.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.ClassOf("kb_search") != "search" || c.ClassOf("grep") != "search" {
		t.Errorf("custom classes: kb_search=%s", c.ClassOf("kb_search"))
	}
	if e := c.ToolEntry("kb_lookup"); len(e) == 0 || e[0] != c.Tools["kb_search"] {
		t.Errorf("alias kb_lookup does not reach the kb_search entry")
	}
	if c.Value("detectors.repeat.enabled") != "true" || c.Detectors["cycle"] != nil {
		t.Errorf("named detectors must be on, others off")
	}
	// The effect table: the new class acts, one of its tools observes by an
	// argument, and the default table is kept (analyze/guard's
	// TestCallActsRulesFile reads calls by it).
	if !c.ClassActs(c.ClassOf("ticket_create")) || !c.ClassActs("write") || c.ClassActs(c.ClassOf("kb_search")) {
		t.Errorf("custom effects: act %v observe %v by_argument %v", c.Effects.Act, c.Effects.Observe, c.Effects.ByArgument)
	}
	if _, byArg := c.ToolEffect("ticket_list"); !byArg {
		t.Errorf("custom effects: no by_argument rule names ticket_list: %v", c.Effects.ByArgument)
	}
}

// TestPresetsRoundTrip: every preset's YAML parses back to equal rules.
func TestPresetsRoundTrip(t *testing.T) {
	for _, name := range PresetNames() {
		t.Run(name, func(t *testing.T) {
			r, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			if r.Name != name || r.Source != "preset:"+name {
				t.Errorf("name %q source %q", r.Name, r.Source)
			}
			y, err := r.YAML()
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(y, "roundtrip.yaml")
			if err != nil {
				t.Fatalf("Parse(YAML()): %v\n%s", err, y)
			}
			back.Source = r.Source
			ForgetIndex(back)
			ForgetIndex(r)
			if !reflect.DeepEqual(back, r) {
				y2, _ := back.YAML()
				t.Errorf("round trip changed the rules:\n%s", cmp.Diff(string(y), string(y2)))
			}
			text, err := PresetText(name)
			if err != nil || !strings.HasPrefix(string(text), "#") {
				t.Errorf("preset %s must start with a comment saying what it reproduces", name)
			}
		})
	}
}

func TestPresetUnknown(t *testing.T) {
	_, err := Preset("pi")
	if err == nil || !strings.Contains(err.Error(), "pi-loopguard") || !strings.Contains(err.Error(), "attractor") {
		t.Errorf("unknown preset error must list the presets, got %v", err)
	}
	if got := PresetNames(); got[0] != "loopgate" || len(got) != 19 {
		t.Errorf("PresetNames = %v", got)
	}
}

func TestPresetIsolation(t *testing.T) {
	a, _ := Preset("pi-loopguard")
	reflect.ValueOf(a.Detectors["repeat"]).Elem().FieldByName("BlockAt").SetInt(99)
	*a.Tools["class:read"].BlockAt = 99
	b, _ := Preset("pi-loopguard")
	if b.Value("detectors.repeat.block_at") == "99" || *b.Tools["class:read"].BlockAt == 99 {
		t.Errorf("changing one preset copy changed another")
	}
}

func TestSet(t *testing.T) {
	r, _ := Preset("pi-loopguard")
	cases := []struct{ key, value string }{
		{"tools.class:read.block_at", "7"},
		{"tools.read_file.steer_at", "2"},
		{"detectors.consecutive.block_at", "6"},
		{"detectors.repeat.block_at", "9"},
		{"scope.window", "5m"},
		{"tools.mcp.fs.read.repeat.block_message", "no"},
	}
	for _, c := range cases {
		if err := r.Set(c.key, c.value); err != nil {
			t.Errorf("Set(%s, %s): %v", c.key, c.value, err)
		}
	}
	if *r.Tools["class:read"].BlockAt != 7 || *r.Tools["read_file"].SteerAt != 2 ||
		r.Value("detectors.repeat.block_at") != "9" || time.Duration(r.Scope.Window) != 5*time.Minute {
		t.Errorf("Set did not change the values")
	}
	if r.Value("detectors.consecutive.enabled") != "true" || r.Value("detectors.consecutive.block_at") != "6" {
		t.Errorf("setting a key of an off detector must turn it on: %+v", r.Detectors["consecutive"])
	}
	if o := r.Tools["mcp.fs.read"]; o == nil || o.Override("repeat") == nil || *o.Override("repeat").BlockMessage != "no" {
		t.Errorf("a tool name with dots was not set")
	}
	// The copy Set works on is validated: r is unchanged on error.
	if err := r.Set("detectors.repeat.steer_at", "9"); err == nil || !strings.Contains(err.Error(), "must be below block_at") {
		t.Errorf("steer_at >= block_at accepted: %v", err)
	}
	if r.Value("detectors.repeat.steer_at") != "4" {
		t.Errorf("a failed Set changed the rules")
	}
	if err := r.Set("detectors.repeat.block_at", "-1"); err == nil || !strings.Contains(err.Error(), "must not be negative") {
		t.Errorf("negative accepted: %v", err)
	}
	if err := r.Set("tools.class:reed.block_at", "3"); err == nil || !strings.Contains(err.Error(), "unknown class") {
		t.Errorf("unknown class accepted: %v", err)
	}
}

func TestSetBadKey(t *testing.T) {
	r, _ := Preset("hermes")
	cases := []struct{ key, mention string }{
		{"detectors.repeat.blok_at", "detectors.repeat.block_at"},
		{"detectors.consecutiv.block_at", "detectors.consecutive.block_at"},
		{"scope.windw", "scope.window"},
		{"tools.class:read.blockat", "tools.class:read.block_at"},
		{"detectors.repeat", "detectors.repeat.block_at"},
		{"nonsense", "keys start with"},
	}
	for _, c := range cases {
		err := r.Set(c.key, "3")
		if err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("Set(%q): error %v, want it to mention %q", c.key, err, c.mention)
		}
	}
	keys := r.SettableKeys()
	for _, want := range []string{"detectors.repeat.block_at", "tools.class:read.block_at", "scope.window", "detectors.cycle.window", "tools.class:read.consecutive.block_message"} {
		found := false
		for _, k := range keys {
			found = found || k == want
		}
		if !found {
			t.Errorf("SettableKeys lacks %s", want)
		}
	}
	// Every listed key is accepted by Set.
	for _, k := range keys {
		c := r.Clone()
		v := valueFor(k)
		err := c.Set(k, v)
		if d := detectorDefault(k); err != nil && d != "" {
			// A value some detector's checks refuse: its default is
			// accepted.
			v, err = d, r.Clone().Set(k, d)
		}
		if err != nil {
			t.Errorf("SettableKeys lists %s but Set(%s, %s) fails: %v", k, k, v, err)
		}
	}
}

func TestClassOf(t *testing.T) {
	r, _ := Preset("loopgate")
	for tool, class := range map[string]string{
		"read_file": "read", "Read": "read", "search_files": "search", "Grep": "search", "list_dir": "list",
		"patch": "write", "MultiEdit": "write", "terminal": "shell", "exec": "shell", "execute_code": "shell",
		"web_extract": "web_fetch", "fetch_content": "web_fetch", "web_search": "web_search",
		"process": "poll", "shell_poll": "poll", "job_get_result": "poll", "delegate_task": "delegate",
		"Task": "delegate", "todo": "plan", "": "other",
		// The task lists and topic of Gemini CLI, Qwen Code, OpenCode, Roo
		// Code: each call sets them (acts), none changes a file.
		"update_topic": "plan", "write_todos": "plan", "todo_write": "plan", "todowrite": "plan",
		"update_todo_list": "plan", "file_editor": "write",
		// Cline's and Roo Code's subtasks and browser.
		"new_task": "delegate", "use_subagents": "delegate", "browser_action": "browser", "task": "delegate",
		"save_memory": "memory", "exit_plan_mode": "message", "ask_user": "message",
		// Copilot CLI's ripgrep search and its memory.
		"rg": "search", "store_memory": "memory",
		// Gemini CLI's plan mode and its subagents called as tools.
		"enter_plan_mode": "plan", "cli_help": "delegate", "codebase_investigator": "delegate",
		"generalist": "delegate", "browser_agent": "delegate", "delegate_to_agent": "delegate",
		// Qwen Code's names of Claude Code's tools take their classes.
		"skill": "read", "ask_user_question": "message", "task_create": "plan", "task_update": "plan",
		"task_get": "poll", "task_list": "poll", "task_output": "poll", "task_stop": "process",
		"question":  "message",
		"SearchWeb": "web_search", "FetchURL": "web_fetch",
		"list_powershell": "poll", "list_bash": "poll", "read_agent": "poll", "list_agents": "poll",
		"search_replace": "write", "generate_image": "write", "multiedit": "write", "planning_file_editor": "write", "delegate": "delegate",
		// Tools that act on the world (effects.go): the classes whose
		// effect is act.
		"message": "message", "send_message": "message", "browser_navigate": "browser",
		"browser_press": "browser", "cron": "schedule",
		"cronjob": "schedule", "KillBash": "process", "process_manage": "poll",
		// A browser tool that only looks at a page changing by itself.
		"browser_snapshot": "poll", "browser_vision": "poll",
		// Tools in no list, by the words of their name.
		"get_schema": "read", "mcp__supabase__list_tables": "read", "List_Budgets": "read",
		"getNodeTree": "read", "get_preview_status": "poll", "list_jobs": "poll", "mcp__ide__getDiagnostics": "poll",
		"run_tests": "other", "send_report": "other", "show_message": "other", "verify_code": "other", "session_get_state": "poll",
		// A verb after the server's or resource's name; an act word anywhere.
		"jira_get_issue": "read", "mcp_github_list_issues": "read", "web_search_clear_cache": "other", "get_or_create_user": "other",
		// Copilot CLI, Kimi CLI and SWE-agent tools that change things:
		// class other observes, so they read as looks.
		"create": "write", "insert": "write", "WriteFile": "write", "StrReplaceFile": "write",
		"Shell": "shell", "powershell": "shell", "stop_bash": "process",
		"TaskStop": "process", "SetTodoList": "plan", "write_bash": "poll", "read_bash": "poll",
		"TaskOutput": "poll", "run": "shell",
		"task_complete": "message", "browse_interactive": "browser", "report_intent": "plan",
		"AgentSwarm": "delegate", "WaitFor": "poll", "TodoList": "plan", "CronCreate": "schedule",
		"CronDelete": "schedule", "CronList": "poll",
		// Harbor's ATIF names for Terminus 2's keystrokes and task end.
		"bash_command": "shell", "mark_task_complete": "message",
		// Computer use: Anthropic's computer tool, and a computer-use
		// agent's tools of one action each; its screenshot and wait poll.
		"computer": "browser", "computer_click": "browser", "computer_key": "browser",
		"computer_scroll": "browser", "computer_screenshot": "poll", "computer_wait": "poll",
		"terminal_run_command": "shell",
	} {
		if got := r.ClassOf(tool); got != class {
			t.Errorf("ClassOf(%q) = %q, want %q", tool, got, class)
		}
	}
}

// TestHostileInput: alias bombs, deep nesting and huge files end in an
// error quickly, never a hang or a panic.
func TestHostileInput(t *testing.T) {
	bomb := `a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
name: *g
`
	deep := "name: x\ndetectors:\n  repeat:\n    only: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n"
	for name, data := range map[string]string{
		"alias bomb":     bomb,
		"alias in value": "name: &n x\ndescription: *n\n",
		"deep nesting":   deep,
		"huge":           "name: x\n#" + strings.Repeat("y", MaxFileSize),
		"binary":         "\x00\x01\xff: [",
		"huge int":       "detectors:\n  repeat:\n    block_at: 1e400\n",
		"tab":            "detectors:\n\trepeat: 1\n",
	} {
		start := time.Now()
		_, err := Parse([]byte(data), "hostile.yaml")
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.HasPrefix(err.Error(), "hostile.yaml") {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
	}
}

// FuzzParse: no input makes Parse panic or hang; errors name the source.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "fixtures", "rules", "*", "*.yaml"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, name := range PresetNames() {
		if data, err := PresetText(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if _, err := r.YAML(); err != nil {
			t.Errorf("YAML: %v", err)
		}
	})
}

// detectorDefault is the value a detector's key (detectors.NAME.FIELD)
// has when the detector is merely named, or "".
func detectorDefault(key string) string {
	segs := strings.Split(key, ".")
	if len(segs) != 3 || segs[0] != "detectors" {
		return ""
	}
	r, err := Parse([]byte("detectors:\n  "+segs[1]+": {}\n"), "default.yaml")
	if err != nil {
		return ""
	}
	return r.Value(key)
}

// valueFor returns a valid value for a settable key, by the key's type.
func valueFor(key string) string {
	switch key {
	case "detectors.pattern.periods":
		return "[1, 2]"
	case "detectors.stuck.alternating_at":
		return "8"
	case "detectors.content_loop.history":
		return "6000"
	case "scope.write_clears_reads.invalidate":
		return "any_act"
	case "key.numbers":
		return "python"
	case "results.failure", "results.hash":
		return "hermes"
	case "unattended.rules":
		return "hermes-strict"
	case "detectors.stall.periods":
		return "[2, 3]"
	case "key.style":
		return "insertion"
	case "detectors.cycle.check":
		return "call"
	case "detectors.no_progress.by":
		return "call"
	case "detectors.cycle.periods":
		return "[1, 2]"
	case "scope.window":
		return "9m"
	case "key.fold":
		return "[trim]"
	}
	if key == "scope.reset" || strings.HasPrefix(key, "detectors.") && strings.HasSuffix(key, ".reset") {
		return "session"
	}
	if strings.HasSuffix(key, ".pick") {
		return "all"
	}
	if strings.HasPrefix(key, "detectors.") && strings.HasSuffix(key, ".key") {
		return "plain"
	}
	if strings.HasSuffix(key, ".fold") {
		return "[lower]"
	}
	if strings.HasSuffix(key, "steer_at") {
		return "0"
	}
	switch LeafKind(key) {
	case reflect.Int:
		return "9"
	case reflect.Bool:
		return "true"
	case reflect.Slice:
		return "[]"
	case reflect.String:
		return "text"
	}
	return "?"
}

// TestCheckErrors is what `loopgate rules check FILE` says for each kind of
// mistake: "FILE:LINE: a plain sentence", the line being the offending
// key or value. (fixtures/rules/bad holds one file per kind as well.)
func TestCheckErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		kind, name, text, want string
	}{
		// A key given twice in one mapping.
		{"repeated key", "top", "name: a\nname: b\n", `2: key "name" is repeated at the top level (first given at line 1)`},
		{"repeated key", "detector", "detectors:\n  repeat:\n    block_at: 3\n    steer_at: 2\n    block_at: 4\n", `5: key "block_at" is repeated in detectors.repeat (first given at line 3)`},
		{"repeated key", "tool", "tools:\n  read_file: {block_at: 3}\n  read_file: {block_at: 4}\n", `3: key "read_file" is repeated in tools (first given at line 2)`},
		{"repeated key", "class", "classes:\n  read: [a]\n  read: [b]\n", `3: class "read" is repeated in classes (first given at line 2)`},
		{"repeated key", "detectors", "detectors:\n  repeat: {block_at: 3}\n  repeat: {block_at: 4}\n", `3: key "repeat" is repeated in detectors (first given at line 2)`},
		// A misspelt key: the nearest valid key is suggested.
		{"misspelt key", "top", "nmae: x\n", `1: unknown key "nmae" at the top level; did you mean "name"?`},
		{"misspelt key", "extends", "extend: pi-loopguard\n", `1: unknown key "extend" at the top level; did you mean "extends"?`},
		{"misspelt key", "scope", "scope:\n  windw: 2m\n", `2: unknown key "windw" in scope; did you mean "window"?`},
		{"misspelt key", "detector key", "detectors:\n  repeat:\n    stear_at: 3\n", `3: unknown key "stear_at" in detectors.repeat; did you mean "steer_at"?`},
		{"misspelt key", "detector name", "detectors:\n  consecutiv: {block_at: 3}\n", `2: unknown key "consecutiv" in detectors; did you mean "consecutive"?`},
		{"misspelt key", "tool entry", "tools:\n  read_file:\n    blockat: 3\n", `3: unknown key "blockat" in tools.read_file; did you mean "block_at"?`},
		{"misspelt key", "tool override", "tools:\n  read_file:\n    repet: {off: true}\n", `3: unknown key "repet" in tools.read_file; did you mean "repeat"?`},
		{"misspelt key", "key.tools", "key:\n  tools:\n    class:web_fetch:\n      arg: [url]\n", `4: unknown key "arg" in key.tools.class:web_fetch; did you mean "args"?`},
		{"misspelt key", "nothing near", "detectors:\n  loop: {}\n", `2: unknown key "loop" in detectors; valid keys: ` + schemaDetectors()},
		// A negative threshold.
		{"negative threshold", "detector", "detectors:\n  repeat:\n    block_at: -1\n", `3: detectors.repeat.block_at must not be negative (-1); use 0 to turn it off`},
		{"negative threshold", "tool shorthand", "tools:\n  class:read: {steer_at: -3}\n", `2: tools.class:read.steer_at must not be negative (-3); use 0 to turn it off`},
		{"negative threshold", "tool override", "tools:\n  read_file:\n    repeat: {block_at: -2}\n", `3: tools.read_file.repeat.block_at must not be negative (-2); use 0 to turn it off`},
		{"negative threshold", "halt", "detectors:\n  tool_failure:\n    halt_at: -8\n", `3: detectors.tool_failure.halt_at must not be negative (-8); use 0 to turn it off`},
		{"negative threshold", "period", "detectors:\n  cycle:\n    periods: [1, -2]\n", `3: detectors.cycle.periods[1] must not be negative (-2); a period is a cycle length, from 1 to the window`},
		{"zero period", "period", "detectors:\n  cycle:\n    periods: [0]\n", `3: detectors.cycle.periods: 0 is not between 1 and the window (10)`},
		{"negative threshold", "window", "scope:\n  window: -2m\n", `2: scope.window must not be negative`},
		// A class the class table does not know.
		{"unknown class", "tools", "tools:\n  class:reed: {block_at: 3}\n", `2: tools.class:reed names an unknown class "reed" (did you mean class:read?); classes: browser, delegate, list, memory, message, plan, poll, process, read, schedule, search, shell, web_fetch, web_search, write, other`},
		{"unknown class", "only", "detectors:\n  repeat:\n    only: [class:read, class:fetch]\n", `3: detectors.repeat.only[1] names an unknown class "fetch"; classes: browser, delegate, list, memory, message, plan, poll, process, read, schedule, search, shell, web_fetch, web_search, write, other`},
		{"unknown class", "except", "detectors:\n  no_progress:\n    except: [class:pol]\n", `3: detectors.no_progress.except[0] names an unknown class "pol" (did you mean class:poll?); classes: browser, delegate, list, memory, message, plan, poll, process, read, schedule, search, shell, web_fetch, web_search, write, other`},
		{"unknown class", "key.tools", "key:\n  tools:\n    class:webfetch: {args: [url]}\n", `3: key.tools.class:webfetch names an unknown class "webfetch" (did you mean class:web_fetch?); classes: browser, delegate, list, memory, message, plan, poll, process, read, schedule, search, shell, web_fetch, web_search, write, other`},
		{"unknown class", "writers", "scope:\n  write_clears_reads:\n    writers: [class:wrte]\n    readers: [class:read]\n    path_args: [path]\n", `3: scope.write_clears_reads.writers[0] names an unknown class "wrte" (did you mean class:write?); classes: browser, delegate, list, memory, message, plan, poll, process, read, schedule, search, shell, web_fetch, web_search, write, other`},
		// A value of the wrong type.
		{"wrong type", "number", "detectors:\n  repeat:\n    block_at: three\n", `3: detectors.repeat.block_at must be a whole number, not "three"`},
		{"wrong type", "fraction", "detectors:\n  repeat:\n    block_at: 2.5\n", `3: detectors.repeat.block_at must be a whole number, not "2.5"`},
		{"wrong type", "bool", "detectors:\n  repeat:\n    counts_blocked: maybe\n", `3: detectors.repeat.counts_blocked must be true or false, not "maybe"`},
		{"wrong type", "list", "detectors:\n  repeat:\n    only: class:read\n", `3: detectors.repeat.only must be a list such as [a, b], not "class:read"`},
		{"wrong type", "text", "detectors:\n  repeat:\n    steer_message: [a]\n", `3: detectors.repeat.steer_message must be text, not a list`},
		{"wrong type", "mapping", "scope: turn\n", `1: scope must be a mapping of keys (reset, window, window_reset_message, reset_on_compaction, write_clears_reads, reset_command), not "turn"`},
		{"wrong type", "tools", "tools: [read_file]\n", `1: tools must be a mapping, not a list`},
		{"wrong type", "duration", "scope:\n  window: 2 minutes\n", `2: scope.window must be a duration such as 2m or 90s, not "2 minutes"`},
		{"wrong type", "empty detector", "detectors:\n  repeat:\n", `2: detectors.repeat is empty; write "repeat: {}" to turn the detector on with its defaults, or give its keys (enabled, reset, only, except, steer_at, block_at, counts_blocked, steer_once, block_after_steer, steer_message, block_message)`},
		// An empty file.
		{"empty file", "nothing", "", `1: the rules file is empty`},
		{"empty file", "comments", "# rules to come\n# later\n", `1: the rules file is empty`},
		{"empty file", "blank", "  \n\n", `1: the rules file is empty`},
		{"empty file", "document marker", "---\n", `1: the rules file is empty`},
		{"empty file", "null", "~\n", `1: the rules file is empty`},
	}
	for _, c := range cases {
		t.Run(c.kind+"/"+c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.kind+"-"+c.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatalf("accepted:\n%s", c.text)
			}
			if got, want := err.Error(), path+":"+c.want; got != want {
				t.Errorf("error\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestPrintLoadPrint: `rules print` output is a rules file that --rules
// accepts back unchanged: print, load the printed file, print again gives
// the same text, for every preset and for files that extend one.
func TestPrintLoadPrint(t *testing.T) {
	dir := t.TempDir()
	sources := map[string]func() (*Rules, error){}
	for _, name := range PresetNames() {
		sources["preset "+name] = func() (*Rules, error) { return Preset(name) }
	}
	good, _ := filepath.Glob(filepath.Join("..", "fixtures", "rules", "good", "*.yaml"))
	for _, p := range good {
		sources["file "+filepath.Base(p)] = func() (*Rules, error) { return Load(p) }
	}
	if len(sources) < len(PresetNames())+1 {
		t.Fatalf("no good rules fixtures found")
	}
	for label, load := range sources {
		t.Run(label, func(t *testing.T) {
			r, err := load()
			if err != nil {
				t.Fatal(err)
			}
			first, err := r.YAML()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, strings.ReplaceAll(label, " ", "-")+".yaml")
			if err := os.WriteFile(path, first, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatalf("the printed rules do not load: %v\n%s", err, first)
			}
			if back.Name != r.Name {
				t.Errorf("name %q came back as %q", r.Name, back.Name)
			}
			back.Source = r.Source // the header names the source
			second, err := back.YAML()
			if err != nil {
				t.Fatal(err)
			}
			if string(first) != string(second) {
				t.Errorf("print -> load -> print changed the text:\n%s", cmp.Diff(string(first), string(second)))
			}
			// And the behaviour: equal rules, field by field.
			ForgetIndex(back)
			ForgetIndex(r)
			if !reflect.DeepEqual(back, r) {
				t.Errorf("print -> load changed the rules")
			}
		})
	}
}

// TestDocsCoverSchema: docs/rules.md names every key of the schema, and
// has one section per preset.
func TestDocsCoverSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	var walk func(typ reflect.Type, path string)
	seen := map[reflect.Type]bool{}
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Map || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeOf(Duration(0)) || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(doc, "`"+name+"`") && !strings.Contains(doc, "."+name+"`") && !strings.Contains(doc, "`"+name+",") && !strings.Contains(doc, " "+name+"`") && !strings.Contains(doc, "."+name+".") {
				t.Errorf("docs/rules.md does not document %s%s", path, name)
			}
			walk(typ.Field(i).Type, path+name+".")
		}
	}
	walk(reflect.TypeOf(Rules{}), "")
	for _, name := range PresetNames() {
		if !strings.Contains(doc, "### `"+name+"`") {
			t.Errorf("docs/rules.md has no section for the preset %s", name)
		}
	}
}

// TestPresetGroups: every preset is in one of compare's groups, and a name
// that is no preset in none.
func TestPresetGroups(t *testing.T) {
	groups := map[string]bool{}
	for _, g := range PresetGroups() {
		groups[g] = true
	}
	for _, name := range PresetNames() {
		if !groups[PresetGroup(name)] {
			t.Errorf("preset %s has group %q, not one of %v", name, PresetGroup(name), PresetGroups())
		}
	}
	if g := PresetGroup("my-rules"); g != "" {
		t.Errorf("PresetGroup(my-rules) = %q, want none", g)
	}
}
