package guard

import (
	"strings"

	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// What a call does to the files a session sees (shellcmd.Effect), one
// reading shared by the truth of a replay (analyze, through
// replayfast.Effect) and the guard's path invalidation
// (scope.write_clears_reads.invalidate: path). docs/rules.md, "Shell
// commands: observe or act".

// defaultPathArgs are the argument names that hold the path a file tool
// reads or writes, when the rules name none (write_clears_reads.path_args):
// Claude Code's file_path and notebook_path, hermes' and nanobot's path,
// OpenHands' path, Gemini CLI's file_path, absolute_path and dir_path,
// Cline's path, MCP filesystem's path and paths.
var defaultPathArgs = []string{"path", "file_path", "filePath", "filename", "file", "notebook_path",
	"target_file", "absolute_path", "dir_path", "directory", "dir", "relative_path", "paths", "file_paths"}

// patchTools are the tools whose argument is a patch naming its files
// (Codex's apply_patch, freeform or {"input"}; hermes' patch in patch
// mode).
var patchTools = map[string]bool{"apply_patch": true, "patch": true}

// fileWriters are tools that write the file their path argument names,
// read from the agents' tool definitions, whatever class a rules file gives
// them: Cline's and Roo Code's write_to_file, replace_in_file, apply_diff,
// insert_content and search_and_replace, GitHub Copilot's create_file,
// insert_edit_into_file and replace_string_in_file, Gemini CLI's replace.
var fileWriters = map[string]bool{
	"write_to_file": true, "replace_in_file": true, "apply_diff": true, "insert_content": true,
	"search_and_replace": true, "create_file": true, "insert_edit_into_file": true,
	"replace_string_in_file": true, "replace": true,
}

// stateFiles are the files a memory-class tool writes whatever its
// arguments: hermes' memory tool keeps MEMORY.md and USER.md in the
// memories folder of its home, which a profile may move
// (NousResearch/hermes-agent tools/memory_tool.py at 029cfb25, MemoryStore
// and get_memory_dir). Relative, they overlap any path that ends so.
var stateFiles = map[string][]string{"memory": {"memories/MEMORY.md", "memories/USER.md"}}

// callEffect works out what a call does under the rules' classes and
// effects; pathArgs are the argument names holding paths (nil: the
// defaults).
func callEffect(r *rules.Rules, ev *CallEvent, pathArgs []string) shellcmd.Effect {
	class := r.ClassOf(ev.ClassName())
	if class == "shell" || shellcmd.IsShellTool(ev.Tool) {
		if r.ClassActs(class) {
			// A rules file that makes every shell call act.
			return shellcmd.Effect{Kind: shellcmd.EffectAct, All: true}
		}
		var t topArgs
		t.use(ev)
		c, _ := shellcmd.FromCallMembers(ev.Tool, true, t.isObject(), t.get)
		if c.Acts {
			return shellcmd.Effect{Kind: shellcmd.EffectAct, Paths: c.Writes, All: c.Unknown}
		}
		return shellcmd.Effect{Kind: shellcmd.EffectObserve, Paths: c.Reads, All: c.ReadsAll}
	}
	if len(pathArgs) == 0 {
		pathArgs = defaultPathArgs
	}
	var t topArgs
	acts := callActsOn(r, ev, &t) || fileWriters[ev.Tool]
	if paths, ok := stateFiles[ev.Tool]; ok && class == "memory" {
		return shellcmd.Effect{Kind: shellcmd.EffectAct, Paths: paths}
	}
	if class == "plan" && !fileWriters[ev.Tool] {
		// A task list or plan lives in the agent, not in the files: setting
		// it acts (so it is never redundant) but changes nothing a later
		// read, search or shell command sees (docs/rules.md, "Tool
		// effects: observe or act").
		return shellcmd.Effect{}
	}
	switch {
	case acts:
		t.use(ev)
		paths := argPaths(t.get, pathArgs)
		if patchTools[ev.Tool] {
			paths = append(paths, patchPaths(ev)...)
		}
		return shellcmd.Effect{Kind: shellcmd.EffectAct, Paths: paths, All: len(paths) == 0}
	case class == "read" || class == "search" || class == "list" || class == "write":
		// A write-class call that does not act is a view (OpenHands'
		// editor).
		t.use(ev)
		paths := argPaths(t.get, pathArgs)
		return shellcmd.Effect{Kind: shellcmd.EffectObserve, Paths: paths, All: len(paths) == 0}
	}
	return shellcmd.Effect{}
}

// argPaths returns the paths the arguments name: the first of names that
// holds a non-empty string, or a list of them.
// get returns a member of the arguments, as jsonx.Value.Get does.
func argPaths(get func(name string) (jsonx.Value, bool), names []string) []string {
	for _, name := range names {
		v, ok := get(name)
		if !ok {
			continue
		}
		switch v.Kind {
		case jsonx.String:
			if v.Str != "" {
				return []string{v.Str}
			}
		case jsonx.Array:
			var out []string
			for _, e := range v.Arr {
				if e.Kind == jsonx.String && e.Str != "" {
					out = append(out, e.Str)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

// patchPaths reads the files a patch tool's call names: the patch is its
// raw arguments (a freeform call) or its input or patch argument.
func patchPaths(ev *CallEvent) []string {
	if !ev.ArgsOK {
		return shellcmd.PatchPaths(ev.ArgsRaw)
	}
	args := ev.arguments()
	for _, name := range []string{"input", "patch"} {
		if s, ok := args.GetString(name); ok && strings.Contains(s, "***") {
			return shellcmd.PatchPaths(s)
		}
	}
	return nil
}
