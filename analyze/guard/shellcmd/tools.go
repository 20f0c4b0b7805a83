package shellcmd

import (
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Tools are the agents' shell tools by name, whatever class a rules file
// gives them, read from each agent's tool definitions: Claude Code's Bash
// ({"command", "run_in_background"}), Codex's exec_command ({"cmd",
// "workdir", "shell": the shell binary, not a command}), shell
// ({"command": ["bash", "-lc", ...], "workdir"}) and shell_command
// ({"command", "workdir"}) (openai/codex, codex-rs/core/src/tools/spec.rs),
// and local_shell, whose call is its action ({"type": "exec", "command":
// [...], "working_directory"}: LocalShellExecAction, codex-rs/protocol/src/
// models.rs), hermes' terminal ({"command", "background"}), Gemini CLI's
// run_shell_command ({"command", "dir_path", "is_background"}: Gemini CLI
// 0.61.0's getShellDeclaration, SHELL_PARAM_IS_BACKGROUND, PARAM_DIR_PATH,
// in its published bundle), Qwen Code's run_shell_command ({"command",
// "directory", "is_background"}: Qwen Code 0.24.4's ShellTool, in its
// published bundle), OpenHands' execute_bash ({"command", "is_input"}),
// Cline's execute_command ({"command"}), Cline CLI's run_commands
// ({"commands": [...]}, each item a command line run in turn: the lab's
// Cline CLI 3.0.65), nanobot's exec ({"command", "working_dir"}), OpenCode's
// bash ({"command", "workdir", "timeout"}: OpenCode 1.18.33's compiled
// binary), pi's bash ({"command", "timeout"}: pi 0.73.1's
// core/tools/bash.ts), Kimi CLI's Shell ({"command", "timeout",
// "run_in_background"}: MoonshotAI/kimi-cli src/kimi_cli/tools/shell/
// __init__.py at 4a550eff), OpenHands' run action (CmdRunAction:
// {"command", "is_input"}, openhands/events/action/commands.py at
// d6fab190) and ctx_shell.
var Tools = map[string]bool{
	"Bash": true, "bash": true, "shell": true, "exec_command": true, "shell_command": true,
	"local_shell": true, "terminal": true, "run_shell_command": true, "execute_bash": true,
	"execute_command": true, "exec": true, "ctx_shell": true, "run_command": true,
	"run_commands": true, "Shell": true, "run": true,
}

// IsShellTool reports whether a tool's calls run commands the package
// reads: a shell tool (Tools) or an IPython cell (IPythonTools).
func IsShellTool(tool string) bool { return Tools[tool] || IPythonTools[tool] }

// commandArgs and dirArgs are the argument names holding a shell call's
// command and its working directory.
var (
	commandArgs = []string{"command", "cmd"}
	dirArgs     = []string{"workdir", "cwd", "directory", "working_dir", "working_directory", "dir_path", "dir"}
	// runOnArgs say the command runs on after the call returns (in the
	// background, or as input to a running process: OpenHands' is_input).
	runOnArgs = []string{"background", "is_background", "run_in_background", "is_input"}
)

// FromCall reads a shell tool's call: ok is false when the tool is not a
// shell tool (Tools, or any tool when shellClass says its class is shell).
// A shell call whose command cannot be read, that runs in the background
// or that writes to a running process's input acts, with unknown reach.
func FromCall(tool string, shellClass bool, args jsonx.Value) (Command, bool) {
	return FromCallMembers(tool, shellClass, args.Kind == jsonx.Object, args.Get)
}

// FromCallMembers is FromCall for a caller that reads the arguments'
// members itself: isObject says they are a JSON object, and get returns
// the member of a name as jsonx.Value.Get of the parsed arguments would
// (a replay reads a few members of the compact text, not the whole).
func FromCallMembers(tool string, shellClass, isObject bool, get func(name string) (jsonx.Value, bool)) (Command, bool) {
	if !shellClass && !IsShellTool(tool) {
		return Command{}, false
	}
	unknown := Command{Acts: true, Unknown: true}
	if !isObject {
		return unknown, true
	}
	getString := func(name string) (string, bool) {
		if v, ok := get(name); ok && v.Kind == jsonx.String {
			return v.Str, true
		}
		return "", false
	}
	if IPythonTools[tool] {
		if code, ok := getString("code"); ok {
			return FromIPython(code), true
		}
		return unknown, true
	}
	for _, name := range runOnArgs {
		if v, ok := get(name); ok && (v.Kind == jsonx.Bool && v.Bool || v.Kind == jsonx.String && strings.EqualFold(v.Str, "true")) {
			return unknown, true
		}
	}
	cwd := ""
	for _, name := range dirArgs {
		if s, ok := getString(name); ok && s != "" {
			cwd = s
			break
		}
	}
	if v, ok := get("commands"); ok {
		// A list of command lines run one after the other: read as one
		// script of those lines.
		lines, ok := stringItems(v)
		if !ok {
			return unknown, true
		}
		return Classify(strings.Join(lines, "\n"), cwd), true
	}
	for _, name := range commandArgs {
		v, ok := get(name)
		if !ok {
			continue
		}
		switch v.Kind {
		case jsonx.String:
			return Classify(v.Str, cwd), true
		case jsonx.Array:
			if text, ok := argvText(v.Arr); ok {
				return Classify(text, cwd), true
			}
		}
		return unknown, true
	}
	return unknown, true
}

// stringItems returns the strings of a JSON array of strings; false for
// anything else (an empty array included).
func stringItems(v jsonx.Value) ([]string, bool) {
	if v.Kind != jsonx.Array || len(v.Arr) == 0 {
		return nil, false
	}
	items := make([]string, 0, len(v.Arr))
	for _, x := range v.Arr {
		if x.Kind != jsonx.String {
			return nil, false
		}
		items = append(items, x.Str)
	}
	return items, true
}

// argvText writes an argument vector (["bash", "-lc", "ls"]) as one
// command, each word quoted.
func argvText(argv []jsonx.Value) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	var b strings.Builder
	for i, a := range argv {
		if a.Kind != jsonx.String {
			return "", false
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a.Str, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String(), true
}
