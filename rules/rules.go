// Package rules is loopgate's rules schema: what resets a guard's counters,
// how a call's key is built, which tool belongs to which class, the
// per-tool thresholds, and the detectors with their exact message texts.
//
// One engine (package analyze) runs every guard design; each design is a
// preset, an embedded rules file under presets/. Rules files are YAML,
// loaded strictly (load.go): an unknown key, a repeated key, a wrong type, a
// negative threshold or an unknown class is an error naming file and line.
//
// The detectors' settings are not described here: each detector registers
// its own (RegisterDetector, detectors.go) from its file in package
// analyze/guard, which holds its settings type, defaults, checks,
// per-tool override fields and logic. Validation, the keys Set accepts,
// the effective rules YAML() prints and DetectorNames are derived from the
// registrations. A new detector is that file and its section in
// docs/rules.md; nothing here changes.
package rules

import (
	"encoding/binary"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"gopkg.in/yaml.v3"
)

// Rules is one guard configuration: a preset or a user's rules file.
// Field order is the order YAML() prints them in.
type Rules struct {
	// Name is the preset name or the name the file gives itself.
	Name string `yaml:"name"`
	// Description says in one line what the rules reproduce.
	Description string `yaml:"description"`
	// NotReplayed lists the parts of the design that replay cannot check,
	// each with why (the model's text is not in the call stream; a check
	// asks a model): reports say these were not checked, rather than that
	// they found nothing.
	NotReplayed []string `yaml:"not_replayed"`
	// Source is where the rules came from ("preset:NAME" or a path).
	Source string `yaml:"-"`

	Scope      Scope            `yaml:"scope"`
	Key        KeyRules         `yaml:"key"`
	Results    Results          `yaml:"results"`
	Classes    ClassTable       `yaml:"classes"`
	Effects    Effects          `yaml:"effects"`
	Native     Native           `yaml:"native"`
	Unattended Unattended       `yaml:"unattended"`
	Tools      map[string]*Tool `yaml:"tools"`
	Detectors  Detectors        `yaml:"detectors"`

	// idx is derived from the fields above by compile (never printed).
	idx *index
	// nativeTools marks the variant ForSession makes for the design's own
	// agent.
	nativeTools bool
}

// Results says how the detectors read a call's result: which results are
// failures, and when two results are the same.
type Results struct {
	// Failure is "loopgate" (the transcript's error flag or an
	// error-shaped result) or "hermes" (hermes-agent's own
	// classify_tool_failure / _detect_tool_failure).
	Failure string `yaml:"failure"`
	// Hash is "loopgate" (the agent's guard notes and trailing white space
	// removed) or "hermes" (the agent's guard notes removed, then a JSON
	// result canonicalized with sorted keys, any other text as it is).
	Hash string `yaml:"hash"`
	// Envelope is "strip" (two results are the same when the tool's
	// outputs are: the envelope the transcript format declares around
	// them, a wall time or a run's id, is left out; loopgate's reading)
	// or "keep" (the results as recorded, envelope included: what an
	// upstream guard that sees them compares).
	Envelope string `yaml:"envelope"`
}

// Native names the transcript formats of the design's own agent. On their
// sessions the rules name tools as the design does: Classes replaces the
// class table, so a class selector names exactly the design's tools
// (nanobot's local-call guard covers read_file, not
// mcp_filesystem_read_file). On other agents' sessions the default table
// translates the design's tools to theirs.
type Native struct {
	// Formats are format families: a session's format matches when it is
	// the family or starts with the family and "-" ("hermes" matches
	// "hermes-gateway").
	Formats []string `yaml:"formats,flow"`
	// Classes is the design's own class table (tools not listed are
	// "other").
	Classes ClassTable `yaml:"classes"`
}

// Unattended names the rules that apply instead in sessions no one
// watches (hermes: hard stops are on by default outside its interactive
// platforms).
type Unattended struct {
	// Rules is the preset used in unattended sessions ("" = off).
	Rules string `yaml:"rules"`
	// Attended are the platforms someone watches; a session whose
	// transcript names another platform is unattended, one that names none
	// is attended.
	Attended []string `yaml:"attended,flow"`
}

// Scope says what resets the counters.
type Scope struct {
	// Reset is "turn" (each genuine user message starts afresh),
	// "session" (nothing resets but the events below) or "mentioned" (a
	// user message clears the observations of the paths it names, every
	// count when its text is not known; needs write_clears_reads.invalidate:
	// path).
	Reset string `yaml:"reset"`
	// Window, when set, clears every counter once this much time has passed
	// since the first call counted (pi-tools-loop-guard: 2m). Checked lazily
	// at each call with the transcript's timestamps; calls without a time
	// never trigger it.
	Window Duration `yaml:"window"`
	// WindowResetMessage is a steer attached to the first call after a
	// window reset when some key had been steered ("" = silent).
	WindowResetMessage string `yaml:"window_reset_message"`
	// ResetOnCompaction clears every counter at a context compaction.
	ResetOnCompaction bool `yaml:"reset_on_compaction"`
	// WriteClearsReads: a write that names a path clears the counters of
	// earlier reads whose key contains that path.
	WriteClearsReads WriteClears `yaml:"write_clears_reads"`
	// ResetCommand: a call that runs one of these commands clears every
	// counter; the call itself is allowed and not counted.
	ResetCommand ResetCommand `yaml:"reset_command"`
}

// WriteClears configures write awareness (off when Writers is empty).
type WriteClears struct {
	// Writers are the tool selectors whose calls clear reads.
	Writers []string `yaml:"writers,flow"`
	// Readers are the selectors whose keys get cleared.
	Readers []string `yaml:"readers,flow"`
	// PathArgs are the argument names holding the written path; the first
	// non-empty string wins.
	PathArgs []string `yaml:"path_args,flow"`
	// ClearAll are the selectors whose calls clear the counters of every
	// reader key, path or not: a shell command can change any file, and
	// its arguments do not say which.
	ClearAll []string `yaml:"clear_all,flow"`
	// Invalidate is how calls clear readers: "any_act" (or "", the
	// default) by writers' path arguments and clear_all as above; "path"
	// by what each call does (docs/rules.md, "Shell commands: observe or
	// act"): an act naming paths (a write, apply_patch, a shell command
	// that writes plain paths) clears the readers that observed an
	// overlapping path, an act of unknown reach clears every reader, and
	// a shell command that acts is neither a reader nor counted by
	// no_progress or dedup. Writers are not used then; a call of a tool in
	// clear_all acts with unknown reach, whatever its class's effect says
	// (tools nothing says the reach of: loopgate's preset names
	// class:other).
	Invalidate string `yaml:"invalidate"`
}

// The values of write_clears_reads.invalidate.
const (
	InvalidateAnyAct = "any_act"
	InvalidatePath   = "path"
)

// InvalidatesByPath reports whether the rules clear readers by what each
// call does (write_clears_reads.invalidate: path).
func (r *Rules) InvalidatesByPath() bool {
	w := &r.Scope.WriteClearsReads
	return w.Invalidate == InvalidatePath && len(w.Readers) > 0
}

// ResetCommand configures a manual reset (off when Commands is empty).
type ResetCommand struct {
	// Tools are the selectors whose calls may carry the command.
	Tools []string `yaml:"tools,flow"`
	// Args are the argument names holding the command text.
	Args []string `yaml:"args,flow"`
	// Commands match after trimming and lower-casing the argument.
	Commands []string `yaml:"commands,flow"`
}

// KeyRules says how a call's key (its signature) is built.
type KeyRules struct {
	// Style encodes the arguments: "sorted" (keys sorted at every level,
	// Python json.dumps(sort_keys=True)), "sorted_top" (top level only,
	// pi's callKey), or "insertion" (as written, JSON.stringify).
	Style string `yaml:"style"`
	// Ignore lists top-level argument names left out of every key
	// (volatile arguments such as timeout or ids).
	Ignore []string `yaml:"ignore,flow"`
	// Fold lists foldings applied to every string value: "trim", "lower".
	Fold []string `yaml:"fold,flow"`
	// Numbers is "as_written" (a number's literal text) or "python" (as
	// Python's json.dumps writes json.loads of it: 1e2 and 100.0 are one
	// value, 100 another).
	Numbers string `yaml:"numbers"`
	// Tools refines the key per tool selector.
	Tools map[string]*ToolKey `yaml:"tools"`
}

// ToolKey refines the key of the tools a selector names.
type ToolKey struct {
	// Args, when set, keeps only these top-level arguments.
	Args []string `yaml:"args,flow"`
	// Pick is "all" (the key is the kept arguments as an object) or
	// "first" (the key is the text of the first kept argument that is set
	// and not empty, nanobot's url/query; none set: the call gets no key
	// and is never counted).
	Pick string `yaml:"pick"`
	// Drop removes fields: "name" (top level), "a.b" (nested), or
	// "edits[].newText" (in every element of an array).
	Drop []string `yaml:"drop,flow"`
	// Fold replaces key.fold for these tools.
	Fold []string `yaml:"fold,flow"`
	// Ignore adds top-level volatile arguments for these tools.
	Ignore []string `yaml:"ignore,flow"`
	// Defaults fills in top-level arguments a call leaves out, each given
	// as JSON text (hermes' read_file: offset 1, limit 500), so that a call
	// that writes a default out is the same call as one that does not.
	Defaults map[string]string `yaml:"defaults"`
}

// Tool holds per-tool thresholds and messages. Its map key is a selector:
// a tool name, or "class:NAME"; Aliases name more tools it applies to. An
// exact tool name wins over an alias, which wins over a class.
type Tool struct {
	// Aliases are more tool names this entry applies to.
	Aliases []string `yaml:"aliases,flow,omitempty"`
	// Off exempts the tools from every detector.
	Off bool `yaml:"off,omitempty"`
	// SteerAt and BlockAt are shorthands for the repeat and consecutive
	// detectors (call ordinals; 0 = never).
	SteerAt *int `yaml:"steer_at,omitempty"`
	BlockAt *int `yaml:"block_at,omitempty"`
	// Overrides are the per-detector overrides by detector name
	// (tools.SEL.NAME; written after the keys above, in schema order).
	Overrides map[string]*Override `yaml:"-"`
}

// Override changes one detector for some tools; unset fields inherit.
type Override struct {
	Off          *bool   `yaml:"off,omitempty"`
	SteerAt      *int    `yaml:"steer_at,omitempty"`
	BlockAt      *int    `yaml:"block_at,omitempty"`
	HaltAt       *int    `yaml:"halt_at,omitempty"`
	SteerMessage *string `yaml:"steer_message,omitempty"`
	BlockMessage *string `yaml:"block_message,omitempty"`
	HaltMessage  *string `yaml:"halt_message,omitempty"`
}

// ToolArgValues selects calls of some tools by an argument's value
// (ArgValues); no tools selects none.
type ToolArgValues struct {
	Tools  []string `yaml:"tools,flow"`
	Arg    string   `yaml:"arg"`
	Values []string `yaml:"values,flow"`
}

// ArgValues names an argument and the values that select a call, compared
// with the argument's text trimmed and lower-cased.
type ArgValues struct {
	Arg    string   `yaml:"arg"`
	Values []string `yaml:"values,flow"`
}

// Holds reports whether the call's arguments hold one of the values.
func (a ArgValues) Holds(args jsonx.Value) bool {
	if a.Arg == "" {
		return false
	}
	v, ok := args.Get(a.Arg)
	if !ok || v.Kind == jsonx.Null {
		return false
	}
	t := strings.ToLower(strings.TrimSpace(v.Text()))
	for _, want := range a.Values {
		if t == strings.ToLower(strings.TrimSpace(want)) {
			return true
		}
	}
	return false
}

// Duration is a time.Duration written as "2m" in YAML.
type Duration time.Duration

// MarshalYAML writes the duration as text ("0s" when unset).
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// String returns the rules' name.
func (r *Rules) String() string { return r.Name }

// ClassOf returns the class of a tool name: "read", "search", "list",
// "write", "shell", "web_search", "web_fetch", "poll", "delegate",
// "browser", "message", "schedule", "process", a class the rules add, or
// "other". tool may be a call name (CallName): a gateway call takes the
// class a rules file gave the gateway itself, by name or glob, else the
// class the words of the called tool's name give it. The class lists are
// not asked of the called tool's name: they name agents' own tools, whose
// arguments the rules read by name (a path, a command), and a server's
// read_file or execute_command gets its arguments inside the gateway's.
func (r *Rules) ClassOf(tool string) string {
	r.compileOnce()
	if c, ok := r.idx.classOf[tool]; ok {
		return c
	}
	words := tool
	if gateway, inner, ok := splitCallName(tool); ok {
		if c, ok := r.idx.classOf[gateway]; ok {
			return c
		}
		tool, words = gateway, inner
	}
	for _, p := range r.idx.classPatterns {
		if ok, _ := path.Match(p.pattern, tool); ok {
			return p.class
		}
	}
	if c, ok := r.idx.words.classOf(words); ok {
		return c
	}
	return "other"
}

// Matches reports whether a selector ("NAME", "class:NAME" or "*") names
// the tool. Of a call name (CallName), NAME names the gateway.
func (r *Rules) Matches(selector, tool string) bool {
	if selector == "*" {
		return true
	}
	if c, ok := strings.CutPrefix(selector, "class:"); ok {
		return r.ClassOf(tool) == c
	}
	// A call name selected by its gateway's name: the name, then callNameSep.
	return selector == tool || len(tool) > len(selector) && tool[len(selector)] == callNameSep[0] && tool[:len(selector)] == selector
}

// MatchesAny reports whether one of the selectors names the tool.
func (r *Rules) MatchesAny(selectors []string, tool string) bool {
	for _, s := range selectors {
		if r.Matches(s, tool) {
			return true
		}
	}
	return false
}

// Selects reports whether a detector with these only/except lists applies
// to the tool (an empty only list selects every tool).
func (r *Rules) Selects(only, except []string, tool string) bool {
	if len(only) > 0 && !r.MatchesAny(only, tool) {
		return false
	}
	return !r.MatchesAny(except, tool)
}

// ToolEntry returns the tool entries that apply to a tool, most specific
// first: the exact name, then aliases, then the class entry. Of a call
// name (CallName), the exact name and aliases are the gateway's, the class
// the call's.
func (r *Rules) ToolEntry(tool string) []*Tool {
	r.compileOnce()
	var out []*Tool
	name := ToolOf(tool)
	if t, ok := r.Tools[name]; ok {
		out = append(out, t)
	}
	if t, ok := r.idx.alias[name]; ok {
		out = append(out, t)
	}
	if t, ok := r.Tools["class:"+r.ClassOf(tool)]; ok {
		out = append(out, t)
	}
	return out
}

// ClassNames lists the class names of the table, sorted, "other" last.
func (r *Rules) ClassNames() []string {
	names := make([]string, 0, len(r.Classes)+1)
	for c := range r.Classes {
		if c != "other" {
			names = append(names, c)
		}
	}
	sort.Strings(names)
	return append(names, "other")
}

// ClassTable maps a class to its tool names; a name may be a glob
// ("*_poll"). A rules file's classes extend the defaults: a name given
// under a class leaves the class it had before.
type ClassTable map[string][]string

// MarshalYAML writes the table with one flow list per class, sorted.
func (c ClassTable) MarshalYAML() (any, error) {
	names := make([]string, 0, len(c))
	for name := range c {
		names = append(names, name)
	}
	sort.Strings(names)
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, name := range names {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, tool := range c[name] {
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: tool})
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, seq)
	}
	return m, nil
}

// DefaultClasses is the built-in class table (docs/rules.md, "Tool classes",
// extended with the tool names seen in hermes, nanobot, Claude Code, Codex,
// OpenHands and Cline CLI transcripts (Cline CLI's read_files, editor,
// run_commands), and Gemini CLI's and Qwen Code's own names:
// google-gemini/gemini-cli packages/core/src/tools/tool-names.ts, as the
// published 0.61.0 bundle names them, SHELL_TOOL_NAME run_shell_command,
// GREP_TOOL_NAME grep_search, LS_TOOL_NAME list_directory, EDIT_TOOL_NAME
// replace, READ_MANY_FILES_TOOL_NAME read_many_files, WEB_SEARCH_TOOL_NAME
// google_web_search, AGENT_TOOL_NAME invoke_agent; Qwen Code 0.24.4's
// ToolNames, chunks/chunk-RSWOFJBY.js of its bundle, share run_shell_command,
// grep_search and list_directory, and name its subagent tool agent).
func DefaultClasses() ClassTable {
	return ClassTable{
		// Skill and documentation loaders read instructions kept on disk:
		// Claude Code's Skill, Gemini CLI's activate_skill (a skill's
		// SKILL.md), Cline's load_mcp_documentation (the MCP server guide,
		// cline/cline src/shared/tools.ts at 61e122dc).
		"read": {"read_file", "Read", "read", "ctx_read", "skill_view", "read_many_files",
			"mcp_filesystem_read_file", "mcp_filesystem_read_text_file",
			"mcp_filesystem_read_multiple_files", "NotebookRead", "view", "read_files",
			"Skill", "activate_skill", "load_mcp_documentation",
			// Qwen Code's snake_case names of Claude Code's tools (ToolNames
			// beside ToolDisplayNames, QwenLM/qwen-code packages/core/src/tools/tool-names.ts at 00ac46fe):
			// skill is Skill, ask_user_question AskUserQuestion, task_create
			// and task_update TaskCreate and TaskUpdate, task_get, task_list
			// and task_output TaskGet, TaskList and TaskOutput, task_stop
			// TaskStop; each takes the class of its counterpart. Real Qwen
			// Code 0.14 recordings call skill and ask_user_question.
			"skill"},
		// Claude Code's ToolSearch looks up the definitions of its deferred
		// tools. Copilot CLI's rg is its ripgrep search under that name
		// (real 1.0.18 recordings: pattern, path, output_mode, head_limit,
		// -n, -C, as its grep takes); as `other` each call cleared every
		// count.
		"search": {"grep", "glob", "find_files", "search_files", "search", "session_search",
			"Grep", "Glob", "ctx_grep", "ctx_find", "code_search", "mcp_filesystem_search_files", "grep_search",
			"ToolSearch", "rg"},
		// hermes' skills_list (tools/skills_tool.py) lists the installed
		// skills; Codex's list_mcp_resources and
		// list_mcp_resource_templates list an MCP server's resources.
		"list": {"list_dir", "LS", "ls", "list_files", "list_directory", "mcp_filesystem_list_directory",
			"mcp_filesystem_list_directory_with_sizes", "mcp_filesystem_directory_tree",
			"skills_list", "list_mcp_resources", "list_mcp_resource_templates"},
		// Cline's write_to_file (FILE_NEW) and replace_in_file (FILE_EDIT),
		// cline/cline src/shared/tools.ts at 61e122dc; hermes'
		// skill_manage, which creates, edits and deletes a skill's files
		// (NousResearch/hermes-agent tools/skill_manager_tool.py at
		// 544ac55e): it names no path, so it may change any. OpenHands'
		// file_editor (the software-agent-sdk's FileEditorTool, V1 events'
		// tool_name) is str_replace_editor's successor, with the same
		// commands: its view observes by the effects' command rule
		// (DefaultEffects), its create, str_replace, insert and undo_edit
		// write; left in other, a create was an observation. Its
		// planning_file_editor is the same editor kept to PLAN.md
		// (ToolAnnotations readOnlyHint false). Roo Code's
		// search_replace (one old_string replaced in file_path) and
		// generate_image (an image saved at path), RooCodeInc/Roo-Code
		// src/core/prompts/tools/native-tools at cb836567. OpenCode's
		// multiedit (Tool.define("multiedit"), packages/opencode/src/tool/
		// multiedit.ts): several edits of filePath.
		//
		// GitHub Copilot CLI's create ({"path", "file_text"}: it creates
		// the file, github/copilot-sdk test/snapshots/builtin_tools/
		// should_create_a_new_file.yaml at cc0438d6), which SWE-agent's
		// create shares, with its insert (SWE-agent/SWE-agent tools/
		// windowed/bin/create, tools/windowed_edit_replace/bin/insert at
		// 3ea751c0); Kimi CLI's WriteFile ({"path", "content", "mode"})
		// and StrReplaceFile ({"path", "edit"}) (MoonshotAI/kimi-cli
		// src/kimi_cli/tools/file/write.py, replace.py at 4a550eff).
		"write": {"write_file", "edit_file", "edit", "write", "patch", "apply_patch",
			"Write", "Edit", "MultiEdit", "NotebookEdit", "str_replace_editor", "file_editor", "replace", "editor",
			"write_to_file", "replace_in_file", "skill_manage", "search_replace", "generate_image", "multiedit",
			"planning_file_editor", "create", "insert", "WriteFile", "StrReplaceFile"},
		// Claude Code's PowerShell runs a PowerShell command as Bash runs a
		// shell's (https://code.claude.com/docs/en/tools-reference). Kimi
		// CLI's Shell ({"command", "timeout", "run_in_background"},
		// src/kimi_cli/tools/shell/__init__.py at 4a550eff); Copilot CLI's
		// powershell, its shell tool on Windows where bash is on other
		// systems (copilot-sdk test/harness/util.ts, ShellConfig);
		// OpenHands' run, the CmdRunAction's name ({"command",
		// "is_input"}: openhands/core/schema/action.py and
		// openhands/events/action/commands.py, OpenHands/OpenHands at
		// d6fab190), as the resolver's output and the trajectories without
		// tool_call_metadata name their calls. Harbor's bash_command, the
		// call its ATIF trajectories give each command of Terminus 2
		// ({"keystrokes", "duration"}: keys sent to the tmux session) and
		// of mini-swe-agent ({"command"}) (laude-institute/harbor
		// src/harbor/agents/terminus_2/terminus_2.py,
		// agents/installed/mini_swe_agent.py).
		"shell": {"exec", "terminal", "bash", "Bash", "shell", "exec_command",
			"execute_code", "execute_bash", "ctx_shell", "local_shell", "run_shell_command", "run_commands",
			"PowerShell", "Shell", "powershell", "run", "bash_command",
			// A computer-use agent's terminal ({"command"}), beside its
			// computer_* tools (below; Harbor's "navigator" agent 0.1.0 in
			// refreshdotdev/harbor-trajectories).
			"terminal_run_command"},
		// Kimi CLI's SearchWeb and FetchURL (src/kimi_cli/tools/web/
		// search.py and fetch.py at 4a550eff): the words of their names made
		// them reads of files.
		"web_search": {"web_search", "WebSearch", "search_web", "google_web_search", "SearchWeb"},
		"web_fetch":  {"web_fetch", "web_extract", "fetch_content", "WebFetch", "fetch", "FetchURL"},
		// Claude Code's TaskOutput (2.1, after BashOutput) returns what a
		// background command or agent has written so far, CronList the
		// session's scheduled prompts, which fire and expire by themselves,
		// and TaskList and TaskGet the task list, which the teammates of an
		// agent team share and update as they claim and finish tasks
		// (https://code.claude.com/docs/en/tools-reference,
		// https://code.claude.com/docs/en/agent-teams): by their verbs they
		// were reads, and a lead's second look was answered from its first.
		// Its ListAgents (CLI 2.1.22x, in real sessions; no documentation
		// page) lists the peer sessions it can message with their state
		// ("Peer sessions (7): <name> [<id>] · interactive · busy · ..."),
		// which changes as they work: a second look while waiting for a
		// peer to become idle was answered from the first.
		// Kimi CLI's and Kimi Code's TaskOutput are the same (Kimi CLI
		// src/kimi_cli/tools/background at 4a550eff); Kimi Code's WaitFor
		// waits for background tasks to finish (MoonshotAI/kimi-code
		// packages/agent-core-v2/src/agent/tools/task/task-wait/
		// task-wait.md at d723cc47). Copilot CLI's read_bash and write_bash
		// (read_powershell, write_powershell on Windows) read a running
		// shell's output and type into it, as Codex's write_stdin
		// (copilot-sdk test/harness/util.ts, ShellConfig).
		"poll": {"process_manage", "process", "write_stdin", "BashOutput", "TaskOutput", "task_output", "task_get", "task_list",
			"CronList", "TaskList", "TaskGet", "ListAgents", "command_status", "*_poll", "*_get_result",
			"read_bash", "write_bash", "read_powershell", "write_powershell", "WaitFor",
			// Copilot CLI's list_powershell (list_bash) lists the shell
			// sessions running now ("<no active shell sessions>" in a real
			// recording), read_agent reads a background agent's state and
			// output ({"agent_id", "wait"}), list_agents lists them
			// (BuiltInTools, copilot-sdk dotnet/src/ToolSet.cs at
			// cc0438d6): what they show changes by itself, as TaskOutput's.
			// Their name words made them reads.
			"list_powershell", "list_bash", "read_agent", "list_agents"},
		// Cline's new_task (a new task started with this one's context)
		// and use_subagents, Roo Code's and Kilo Code's new_task (a
		// subtask in another mode), OpenCode's task (Tool.define("task"),
		// packages/opencode/src/tool/task.ts), OpenHands' delegate (the
		// SDK's DelegateTool, which spawns sub-agents): work handed to
		// another run. Copilot CLI's task starts a sub-agent (copilot-sdk
		// dotnet/src/ToolSet.cs BuiltInTools, and its sub-agent hook
		// tests: "Parent tool hooks fire for task"); OpenHands' delegate
		// action (AgentDelegateAction: agent, inputs;
		// openhands/events/action/agent.py at d6fab190) is named so in
		// the resolver's output and trajectories without
		// tool_call_metadata. Kimi Code's AgentSwarm launches several
		// subagents from one prompt template (MoonshotAI/kimi-code
		// packages/agent-core-v2/src/features/swarm at d723cc47).
		// Gemini CLI called a subagent through delegate_to_agent, then
		// ("one tool per agent", from #17346 until #25053) through a tool
		// named after the agent: cli_help, codebase_investigator,
		// generalist, browser_agent (packages/core/src/agents/*.ts,
		// google-gemini/gemini-cli at 570f0235^), as real recordings of
		// that time call cli_help; invoke_agent since.
		"delegate": {"spawn", "spawn_agent", "delegate_task", "Task", "Agent", "agent", "invoke_agent",
			"new_task", "use_subagents", "task", "delegate", "AgentSwarm",
			"delegate_to_agent", "cli_help", "codebase_investigator", "generalist", "browser_agent"},
		// Browser actions (hermes' browser toolset, OpenHands' browser
		// tools, the Playwright MCP server's names, Cline's and Roo Code's
		// browser_action: launch, click, type, scroll, close); the browser tools
		// that only look (browser_snapshot, browser_console,
		// browser_get_images, browser_vision) stay in other. OpenHands'
		// browse_interactive action is its browser tool's call
		// (BrowseInteractiveAction: browser_actions, code that clicks and
		// types; openhands/events/action/browse.py at d6fab190).
		"browser": {"browser_navigate", "browser_click", "browser_type", "browser_press",
			"browser_press_key", "browser_scroll", "browser_back", "browser_go_back",
			"browser_navigate_back", "browser_forward", "browser_select_option",
			"browser_hover", "browser_drag", "browser_fill_form", "browser_file_upload",
			"browser_handle_dialog", "browser_dialog", "browser_cdp", "browser_exec",
			"browser_evaluate", "browser_close", "browser_close_tab", "browser_switch_tab",
			"browser", "browser_action", "browse_interactive",
			// Computer use: Anthropic's computer tool, named computer, one
			// tool whose action argument clicks, types, presses keys,
			// scrolls or takes a screenshot (the screenshot and the
			// cursor's position only look: by_argument, effects.go;
			// platform.claude.com/docs/en/agents-and-tools/tool-use/computer-use-tool,
			// and vercel/ai packages/anthropic/src/tool/computer_20250124.ts),
			// and the same actions as tools of their own, as a
			// computer-use agent calls them in real Harbor trajectories
			// (its "navigator" 0.1.0: computer_click, computer_key,
			// computer_scroll, computer_screenshot, computer_wait;
			// refreshdotdev/harbor-trajectories). A click or key press
			// repeated acted again: never a redundant observation.
			"computer", "computer_click", "computer_double_click", "computer_key", "computer_type",
			"computer_scroll", "computer_drag", "computer_move"},
		// Messages and notifications sent to a person, and questions put
		// to the user (nanobot's message, hermes' send_message and
		// clarify, Claude Code's AskUserQuestion). Also what an agent
		// hands the user to read or approve: Cline's attempt_completion,
		// ask_followup_question and plan_mode_respond (cline/cline
		// src/shared/tools.ts at 61e122dc), Claude Code's ExitPlanMode and
		// Gemini CLI's and Qwen Code's exit_plan_mode and Gemini CLI's
		// ask_user (EXIT_PLAN_MODE_TOOL_NAME, ASK_USER_TOOL_NAME,
		// packages/core/src/tools/definitions/base-declarations.ts at 5411f113),
		// OpenHands' finish; and hermes' text_to_speech, which writes an
		// audio file and returns it as a MEDIA: attachment for the chat
		// (NousResearch/hermes-agent tools/tts_tool.py at 00067189). Claude
		// Code's SendMessage sends a message to another agent of its team
		// (https://code.claude.com/docs/en/tools-reference), and its
		// SendUserFile (CLI 2.1.22x, in real sessions) delivers files to the
		// user ({"files", "caption", "display"}: "1 file delivered to
		// user."): the same call again delivers them again. Its
		// PushNotification (in CLI 2.1.19x's deferred tool list) sends a
		// one-line message to the user's desktop or phone ({"message"};
		// pingdotgg/t3code apps/server/src/orchestration-v2/Adapters/
		// claudePushNotification.ts at 4c264e17 answers it in a
		// PostToolUse hook; /config "Push when Claude decides",
		// https://github.com/anthropics/claude-code/issues/60208):
		// another call sends another; in other it cleared every
		// observation.
		// Codex's request_user_input puts questions with options to the
		// user and returns the answers (openai/codex
		// codex-rs/core/src/tools/handlers/request_user_input.rs; real
		// rollouts of Codex 0.104 call it): listed here, or its word
		// "request", an act: word, leaves it in other, which observes.
		// Copilot CLI's ask_user, exit_plan_mode (the user approves the
		// plan: exit_plan_mode.requested) and task_complete (the model's
		// summary of the finished task: session.task_complete), its
		// counterparts of AskUserQuestion, ExitPlanMode and
		// attempt_completion (github/copilot-sdk dotnet/src/ToolSet.cs
		// BuiltInTools, docs/features/agent-loop.md and
		// streaming-events.md at cc0438d6). Harbor's mark_task_complete,
		// Terminus 2's "task_complete": true as its ATIF trajectories name
		// it: the first asks the agent to confirm, and the same call again
		// ends the task (laude-institute/harbor src/harbor/agents/
		// terminus_2/terminus_2.py); in other it was a look, and the
		// confirming second a repeat.
		"message": {"message", "send_message", "notify", "send_notification",
			"send_email", "yb_send_dm", "clarify", "AskUserQuestion", "SendMessage", "SendUserFile", "PushNotification",
			"attempt_completion", "ask_followup_question", "plan_mode_respond", "ExitPlanMode", "exit_plan_mode", "ask_user",
			"finish", "text_to_speech", "request_user_input", "task_complete", "mark_task_complete", "ask_user_question",
			// OpenCode's question asks the user and returns the answers
			// (Tool.define("question"), packages/opencode/src/tool/
			// question.ts, anomalyco/opencode at 08103a5d).
			"question"},
		// The agent's own task list or plan, shown to the user: each call
		// sets it, so the same call again is a new act, not a look.
		// Claude Code's TodoWrite, TaskCreate and TaskUpdate, and its
		// EnterPlanMode, which switches the session to plan mode (a mode of
		// the agent: no file changes); Codex's
		// update_plan, which sends the plan to the client as an event and
		// answers "Plan updated" (openai/codex
		// codex-rs/core/src/tools/handlers/plan.rs at 234a0e5a); hermes'
		// todo (older name) and todo_list, which writes the list when
		// given todos and reads it without (NousResearch/hermes-agent
		// tools/todo_tool.py at 038653c4: read and write share the tool,
		// so it acts). Gemini CLI's write_todos and update_topic, which
		// sets the topic and intent the CLI shows the user ("Update Topic
		// Context"; google-gemini/gemini-cli
		// packages/core/src/tools/definitions/base-declarations.ts at
		// 5411f113): real recordings call
		// update_topic before nearly every batch, and as a tool of no
		// class each call cleared every count. Qwen Code's todo_write (its ToolNames), OpenCode's
		// todowrite (packages/opencode/src/tool/todo.ts) and Roo Code's
		// and Kilo Code's update_todo_list keep the agent's task list.
		// Kimi CLI's SetTodoList ({"todos"}: it sets the list,
		// src/kimi_cli/tools/todo/__init__.py at 4a550eff); Copilot CLI's
		// report_intent ({"intent"}), which sets the intent its UI shows
		// and answers "Intent logged", as update_plan answers "Plan
		// updated" (github/copilot-sdk test/snapshots at cc0438d6); the
		// model calls it beside most of its tool calls, the same intent
		// again while the work goes on. Kimi Code's TodoList writes the
		// list when given todos and reads it without (packages/
		// agent-core-v2/src/agent/tools/todo-list/todoListTool.ts at
		// d723cc47): as hermes' todo, it acts (its words made it a read).
		// Gemini CLI's enter_plan_mode is EnterPlanMode's counterpart
		// (ENTER_PLAN_MODE_TOOL_NAME, base-declarations.ts at 5411f113).
		"plan": {"TodoWrite", "TaskCreate", "TaskUpdate", "task_create", "task_update", "EnterPlanMode", "enter_plan_mode", "update_plan", "todo", "todo_list",
			"write_todos", "update_topic", "todo_write", "todowrite", "update_todo_list",
			"SetTodoList", "report_intent", "TodoList"},
		// What the agent keeps across sessions: hermes' memory (add,
		// replace, remove write MEMORY.md or USER.md,
		// NousResearch/hermes-agent tools/memory_tool.py at 029cfb25).
		// Gemini CLI's and Qwen Code's save_memory (gemini-cli
		// packages/core/src/tools/memoryTool.ts, v0.9.0) appends a fact to
		// the GEMINI.md (QWEN.md) memory file. Copilot CLI's store_memory
		// stores a fact for later sessions (real 1.0.10 recordings: subject
		// or category, fact, citations, reason).
		"memory": {"memory", "save_memory", "store_memory"},
		// Scheduled jobs (nanobot's cron, hermes' cronjob and
		// cronjob_manage, Claude Code's CronCreate and CronDelete, which
		// schedule and cancel a prompt of the session; Kimi Code's are the
		// same, packages/agent-core-v2/src/agent/tools/cron at d723cc47).
		// Claude Code's ScheduleWakeup ({"delaySeconds", "reason",
		// "prompt"}: "Next wakeup scheduled for 14:32:00") and
		// RemoteTrigger ({"action": "create"|"list", "body"}: a cron
		// trigger of a cloud session), in real 2.1.x sessions: by_argument
		// makes RemoteTrigger's list an observation.
		"schedule": {"cron", "cronjob", "cronjob_manage", "schedule", "schedule_task",
			"CronCreate", "CronDelete", "ScheduleWakeup", "RemoteTrigger"},
		// Starting or killing processes (Claude Code's KillBash and
		// KillShell, and in 2.1 TaskStop, which stops a background task, and
		// Monitor, which starts a command in the background and feeds each
		// line it prints back to the model:
		// https://code.claude.com/docs/en/tools-reference; Kimi CLI's
		// TaskStop is the same); hermes' process_manage polls, and its kill
		// action is an effect rule (DefaultEffects). Copilot CLI's
		// stop_bash (stop_powershell) ends a running shell.
		"process": {"KillBash", "KillShell", "TaskStop", "task_stop", "Monitor", "kill_process", "start_process",
			"stop_bash", "stop_powershell"},
		"other": {},
	}
}

// index is what compile derives for fast lookups.
type index struct {
	classOf       map[string]string
	classPatterns []classPattern
	// words are the entries that class a tool by the words of its name
	// (verb:, word:), tried after the names and globs.
	words   wordClasses
	alias   map[string]*Tool
	keyID   uint64
	effects effectIndex
	// variants are the rules ForSession derived from these.
	variants variants
}

type classPattern struct{ pattern, class string }

func (r *Rules) compileOnce() {
	if r.idx == nil {
		r.compile()
	}
}

// compile rebuilds the index; called after loading and after Set.
func (r *Rules) compile() {
	idx := &index{}
	idx.classOf = make(map[string]string, idx.words.reserve(r.Classes))
	aliases := 0
	for _, t := range r.Tools {
		aliases += len(t.Aliases)
	}
	idx.alias = make(map[string]*Tool, aliases)
	classes := make([]string, 0, len(r.Classes))
	for c := range r.Classes {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		for _, name := range r.Classes[c] {
			switch {
			case idx.words.add(name, c):
			case strings.ContainsAny(name, "*?["):
				idx.classPatterns = append(idx.classPatterns, classPattern{name, c})
			default:
				idx.classOf[name] = c
			}
		}
	}
	sels := make([]string, 0, len(r.Tools))
	for s := range r.Tools {
		sels = append(sels, s)
	}
	sort.Strings(sels)
	for _, s := range sels {
		for _, a := range r.Tools[s].Aliases {
			if _, taken := idx.alias[a]; !taken {
				idx.alias[a] = r.Tools[s]
			}
		}
	}
	idx.keyID = internKeyRules(r.Key, r.Classes)
	r.idx = idx
	r.compileEffects(idx)
}

// KeyID identifies, within this process, everything a call's guard key depends on:
// the key section and the class table. Two rules with the same KeyID give
// every call the same key, so a replay of many configurations (compare,
// sweep) builds each call's key once per distinct key section instead of
// once per configuration. It is never 0.
func (r *Rules) KeyID() uint64 {
	r.compileOnce()
	return r.idx.keyID
}

// keyIDs interns key sections: keyText of (key, classes) maps to a small
// number.
var keyIDs = struct {
	sync.Mutex
	ids map[string]uint64
}{ids: map[string]uint64{}}

func internKeyRules(k KeyRules, c ClassTable) uint64 {
	text := keyText(nil, k, c)
	keyIDs.Lock()
	defer keyIDs.Unlock()
	id, ok := keyIDs.ids[string(text)]
	if !ok {
		id = uint64(len(keyIDs.ids) + 1)
		keyIDs.ids[string(text)] = id
	}
	return id
}

// keyText appends a text of everything in a key section and a class
// table, maps in sorted order, that two of them share only when they are
// equal (nil and empty told apart: a tool's nil fold inherits key.fold, an
// empty one folds nothing). It is written by hand: encoding/json's first
// use in a process builds its encoders by reflection, which cost a live
// hook call, which parses its rules each time, more than its other work
// on the rules (docs/performance.md, "The live hook, every preset").
// TestKeyTextSeesEveryField checks that it reads every field.
func keyText(b []byte, k KeyRules, c ClassTable) []byte {
	b = appendText(b, k.Style)
	b = appendStrings(b, k.Ignore)
	b = appendStrings(b, k.Fold)
	b = appendText(b, k.Numbers)
	b = appendMap(b, k.Tools, func(b []byte, t *ToolKey) []byte {
		if t == nil {
			return append(b, '~')
		}
		b = append(b, '!')
		b = appendStrings(b, t.Args)
		b = appendText(b, t.Pick)
		b = appendStrings(b, t.Drop)
		b = appendStrings(b, t.Fold)
		b = appendStrings(b, t.Ignore)
		return appendMap(b, t.Defaults, appendText)
	})
	return appendMap(b, c, appendStrings)
}

// appendText appends a string as its length and its bytes. Every part of
// the text is written so (a string by its length, a list and a map by their
// counts, a nil one as ~, a tool's key as ~ or !): read from the start,
// the text says where each part ends, so that two texts are equal only
// when what they were written from is. Quoting each string
// (strconv.AppendQuote) was a tenth of the instructions of a replay of a
// small file, which loads every preset (docs/performance.md, "Presets
// loaded").
func appendText(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendStrings appends a list, nil as ~.
func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, '~')
	}
	b = binary.AppendUvarint(append(b, '['), uint64(len(list)))
	for _, s := range list {
		b = appendText(b, s)
	}
	return b
}

// appendMap appends a map in its keys' order, nil as ~.
func appendMap[V any](b []byte, m map[string]V, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, '~')
	}
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(append(b, '{'), uint64(len(keys)))
	for _, key := range keys {
		b = appendText(b, key)
		b = value(b, m[key])
	}
	return b
}

// HasClass reports whether the class table knows a class.
func (r *Rules) HasClass(c string) bool {
	_, ok := r.Classes[c]
	return ok || c == "other"
}
