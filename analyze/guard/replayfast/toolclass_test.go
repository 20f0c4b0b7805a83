package replayfast

import (
	"slices"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// TestUpstreamToolClasses: the tools the built-in table classes from their
// agents' sources (docs/rules.md, "Tool classes") get the class, the
// effect and the reach on files their source says: the same tables the
// truth of a replay and the guard's path invalidation read.
func TestUpstreamToolClasses(t *testing.T) {
	r, err := guard.PresetRules("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	const none, observe, act = shellcmd.EffectNone, shellcmd.EffectObserve, shellcmd.EffectAct
	for _, c := range []struct {
		tool, args, class string
		acts              bool
		kind              uint8
		all               bool
		paths             []string
	}{
		// Cline's file writers act on the file they name.
		{"write_to_file", `{"path":"src/a.ts","content":"x"}`, "write", true, act, false, []string{"src/a.ts"}},
		{"replace_in_file", `{"path":"src/a.ts","diff":"..."}`, "write", true, act, false, []string{"src/a.ts"}},
		// hermes' skill_manage names no path: any file may have changed.
		{"skill_manage", `{"action":"edit","name":"deploy","content":"x"}`, "write", true, act, true, nil},
		// What is handed to the user: a reply may come with files changed.
		{"attempt_completion", `{"result":"done"}`, "message", true, act, true, nil},
		{"ask_followup_question", `{"question":"which?"}`, "message", true, act, true, nil},
		{"plan_mode_respond", `{"response":"plan"}`, "message", true, act, true, nil},
		{"ExitPlanMode", `{"plan":"1. x"}`, "message", true, act, true, nil},
		{"finish", `{"message":"done"}`, "message", true, act, true, nil},
		{"SendMessage", `{"to":"researcher","message":"go on"}`, "message", true, act, true, nil},
		// Claude Code 2.1's background tasks: reading one's output so far
		// polls; stopping one, or starting a command that streams lines
		// back (Monitor), acts on processes, with unknown reach.
		{"TaskOutput", `{"task_id":"b1","block":true}`, "poll", false, none, false, nil},
		{"TaskStop", `{"task_id":"b1"}`, "process", true, act, true, nil},
		{"Monitor", `{"command":"tail -f app.log"}`, "process", true, act, true, nil},
		// Its scheduled prompts: creating or cancelling one acts; the list
		// changes by itself as they fire and expire.
		{"CronCreate", `{"cron":"*/5 * * * *","prompt":"check the build"}`, "schedule", true, act, true, nil},
		{"CronDelete", `{"id":"c1"}`, "schedule", true, act, true, nil},
		{"CronList", `{}`, "poll", false, none, false, nil},
		{"ScheduleWakeup", `{"delaySeconds":90,"reason":"build","prompt":"go on"}`, "schedule", true, act, true, nil},
		{"RemoteTrigger", `{"action":"create","body":{"cron_expression":"0 0 * * *"}}`, "schedule", true, act, true, nil},
		{"RemoteTrigger", `{"action":"list"}`, "schedule", false, none, false, nil},
		// The task list an agent team shares changes as teammates work.
		{"TaskList", `{}`, "poll", false, none, false, nil},
		{"TaskGet", `{"taskId":"1"}`, "poll", false, none, false, nil},
		// So do the peer sessions it can message, busy or idle.
		{"ListAgents", `{}`, "poll", false, none, false, nil},
		{"SendUserFile", `{"files":["/w/list.md"],"caption":"list"}`, "message", true, act, true, nil},
		{"PushNotification", `{"message":"Build finished: 3 tests fail"}`, "message", true, act, true, nil},
		// Its PowerShell tool is read as a shell command.
		{"PowerShell", `{"command":"Get-Content src/a.ts"}`, "shell", false, observe, false, []string{"src/a.ts"}},
		{"text_to_speech", `{"text":"hello"}`, "message", true, act, true, nil},
		{"request_user_input", `{"questions":[{"id":"platform","question":"Where?","options":[{"label":"Web"}]}]}`, "message", true, act, true, nil},
		// A task list or plan acts on the agent, on no file.
		{"TodoWrite", `{"todos":[{"content":"x","status":"pending"}]}`, "plan", true, none, false, nil},
		{"TaskCreate", `{"subject":"x"}`, "plan", true, none, false, nil},
		{"TaskUpdate", `{"taskId":"1","status":"completed"}`, "plan", true, none, false, nil},
		{"EnterPlanMode", `{}`, "plan", true, none, false, nil},
		{"update_plan", `{"plan":[{"step":"x","status":"in_progress"}]}`, "plan", true, none, false, nil},
		{"todo", `{"todos":[{"id":"1","content":"x"}]}`, "plan", true, none, false, nil},
		{"todo", `{}`, "plan", true, none, false, nil},
		// hermes' memory writes its two files, wherever its home is.
		{"memory", `{"action":"add","target":"memory","content":"x"}`, "memory", true, act, false, []string{"memories/MEMORY.md", "memories/USER.md"}},
		// Loaders and listings only look.
		{"Skill", `{"skill":"pdf"}`, "read", false, observe, true, nil},
		{"activate_skill", `{"name":"code-reviewer"}`, "read", false, observe, true, nil},
		{"load_mcp_documentation", `{}`, "read", false, observe, true, nil},
		{"ToolSearch", `{"query":"select:Read"}`, "search", false, observe, true, nil},
		{"skills_list", `{}`, "list", false, observe, true, nil},
		{"list_mcp_resources", `{"server":"x"}`, "list", false, observe, true, nil},
		// Still unknown: neither observes files nor acts on them by its
		// effect (the preset's clear_all makes the guard treat its calls
		// as acts of unknown reach).
		{"use_mcp_tool", `{"server_name":"x","tool_name":"y"}`, "other", false, none, false, nil},
		// A gateway call is classed by the tool it names.
		{"use_mcp_tool", `{"server_name":"x","tool_name":"create_issue","arguments":"{}"}`, "other", false, none, false, nil},
		{"use_mcp_tool", `{"server_name":"x","tool_name":"get_schema","arguments":"{\"path\":\"a.go\"}"}`, "read", false, observe, true, nil},
		{"use_mcp_tool", `{"server_name":"x","tool_name":"get_job_status","arguments":{"id":"7"}}`, "poll", false, none, false, nil},
		{"access_mcp_resource", `{"server_name":"x","uri":"file:///repo/a.go"}`, "read", false, observe, true, nil},
		// A page snapshot observes no file; it is polled.
		{"browser_snapshot", `{}`, "poll", false, none, false, nil},
		// Named with a verb that reads: an observation of unknown reach.
		{"get_schema", `{"table":"users"}`, "read", false, observe, true, nil},
		{"mcp__github__list_issues", `{"repo":"a/b"}`, "read", false, observe, true, nil},
		{"get_deployment_status", `{"id":"7"}`, "poll", false, none, false, nil},
	} {
		v, err := jsonx.ParseString(c.args)
		if err != nil {
			t.Fatal(err)
		}
		ev := &guard.CallEvent{Tool: c.tool, ArgsRaw: c.args, ArgsOK: true}
		SetArgs(ev, &v, false, false)
		ev.Class = r.ClassOf(ev.ClassName())
		if ev.Class != c.class {
			t.Errorf("%s: class %q, want %q", c.tool, ev.Class, c.class)
		}
		if got := CallActs(r, ev); got != c.acts {
			t.Errorf("%s %s: acts %v, want %v", c.tool, c.args, got, c.acts)
		}
		fx := Effect(r, ev)
		if fx.Kind != c.kind || fx.All != c.all || !slices.Equal(fx.Paths, c.paths) {
			t.Errorf("%s %s: effect %+v, want kind %v all %v paths %v", c.tool, c.args, fx, c.kind, c.all, c.paths)
		}
	}
}

// TestPlanAndMemoryInvalidate: between two identical reads, setting the
// task list changes nothing the read sees; hermes' memory changes its own
// files only; a completion handed to the user may come back with any file
// changed.
func TestPlanAndMemoryInvalidate(t *testing.T) {
	r, err := guard.PresetRules("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	effect := func(tool, args string) shellcmd.Effect {
		v, err := jsonx.ParseString(args)
		if err != nil {
			t.Fatal(err)
		}
		ev := &guard.CallEvent{Tool: tool, Class: r.ClassOf(tool), ArgsRaw: args, ArgsOK: true}
		SetArgs(ev, &v, false, false)
		return Effect(r, ev)
	}
	readA := effect("read_file", `{"path":"/repo/a.go"}`)
	readMem := effect("read_file", `{"path":"/srv/hermes/memories/MEMORY.md"}`)
	for _, c := range []struct {
		name, tool, args string
		obs              shellcmd.Effect
		want             bool
	}{
		{"TodoWrite, a.go", "TodoWrite", `{"todos":[]}`, readA, false},
		{"update_plan, a.go", "update_plan", `{"plan":[]}`, readA, false},
		{"memory, a.go", "memory", `{"action":"add","content":"x"}`, readA, false},
		{"memory, MEMORY.md", "memory", `{"action":"add","content":"x"}`, readMem, true},
		{"attempt_completion, a.go", "attempt_completion", `{"result":"done"}`, readA, true},
		{"write_to_file a.go, a.go", "write_to_file", `{"path":"a.go","content":"x"}`, readA, true},
		{"write_to_file b.go, a.go", "write_to_file", `{"path":"b.go","content":"x"}`, readA, false},
	} {
		if got := effect(c.tool, c.args).Invalidates(c.obs); got != c.want {
			t.Errorf("%s: invalidates %v, want %v", c.name, got, c.want)
		}
	}
}
