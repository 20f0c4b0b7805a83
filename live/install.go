package live

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/loopgate/loopgate/internal/atomicfile"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// `loopgate hook install` merges loopgate's hook entries into an agent's
// settings, leaving every other entry and setting as it was (member order
// included), after copying the file to FILE.loopgate.bak (unless it holds
// loopgate's entries already: the first backup stays); uninstall copies it
// to FILE.loopgate-uninstall.bak and removes exactly the entries whose
// command is a loopgate hook command (IsHookCommand), and the groups and
// event lists left empty by that.

// Install is what an install or uninstall does (or, dry, would do).
type Install struct {
	Agent, Scope string
	// File is the settings file (for Cline, the hooks directory).
	File string
	// Backup is where the file was copied first ("" when it did not exist).
	Backup string
	// Content is the file's new content (Cline: the scripts, one after
	// the other); Changed says it differs from the old one.
	Content []byte
	Changed bool
	// Events are the agent's events loopgate answers.
	Events []string
	// Notes are what the user must still do (an agent's feature flag).
	Notes []string
}

// HookProgram is the name of the hook's own binary (cmd/loopgate-hook),
// which takes the hook's flags without the word "hook".
const HookProgram = "loopgate-hook"

// IsHookProgram reports whether a program's path names the hook's own
// binary (HookProgram, with Windows' .exe; the path may be quoted).
func IsHookProgram(path string) bool {
	path = strings.Trim(path, `'"`)
	// Either separator: a Windows path is read on any system.
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	return strings.TrimSuffix(base, ".exe") == HookProgram
}

// IsHookCommand reports whether a hook command runs loopgate's hook: a
// program (loopgate, by whatever path or name it was installed) whose
// arguments start with "hook --agent AGENT" for one of the agents here,
// or the hook's own binary (IsHookProgram) with "--agent AGENT".
func IsHookCommand(cmd string) bool {
	f := strings.Fields(cmd)
	// The program's path may hold spaces (quoted): "hook" is looked for
	// after the first field.
	for i := 1; i < len(f); i++ {
		var rest []string
		switch {
		case f[i] == "hook":
			rest = f[i+1:]
		case IsHookProgram(f[i-1]):
			rest = f[i:]
		default:
			continue
		}
		if len(rest) == 0 {
			continue
		}
		if a, ok := strings.CutPrefix(rest[0], "--agent="); ok {
			return Lookup(strings.Trim(a, `'"`)) != nil
		}
		return rest[0] == "--agent" && len(rest) > 1 && Lookup(strings.Trim(rest[1], `'"`)) != nil
	}
	return false
}

type hookEvent struct {
	name, matcher string
}

// settingsFormat is how one agent keeps its hooks.
type settingsFormat struct {
	user, project string // paths under the home and the project directory
	// wrapped: the events are members of a "hooks" object (else of the
	// file's top-level object, OpenHands' direct form).
	wrapped bool
	// flat: an event's entries are {"command": ...} (Cursor), not
	// matcher groups of {"type": "command", "command": ...} hooks.
	flat   bool
	events []hookEvent
	notes  []string
	// timeout of the hook, in the agent's unit (0: none written).
	timeout int
	// retired are events loopgate's hook was once installed for and is no
	// longer: install and uninstall take loopgate's entries out of them.
	retired []string
	// plugin: the hook is a plugin file loopgate writes (the file of that
	// name in plugins/, the command written into it), not settings.
	plugin string
	// http: a hook may be a URL the agent posts each event to (type
	// "http"), which `loopgate hook serve` answers.
	http bool
}

// pluginFiles are the OpenCode plugin and the pi extension that call
// `loopgate hook`: loopgate's own code, written out by install.
//
//go:embed plugins/opencode.js plugins/pi.ts
var pluginFiles embed.FS

var settingsFormats = map[string]*settingsFormat{
	// Claude Code's hooks of type "http" post the event's JSON to a URL
	// and read the answer from the body (code.claude.com/docs/en/hooks,
	// "HTTP hooks"; the 2.1.332 binary's HttpHookSchema: url, headers,
	// timeout; an empty body reads as {}; loopback URLs allowed; a failed
	// request lets the call go on unless onFailure is "block").
	"claude-code": {user: ".claude/settings.json", project: ".claude/settings.json", wrapped: true, timeout: 10, http: true,
		events: []hookEvent{{"PreToolUse", "*"}, {"PostToolUse", "*"}, {"PostToolUseFailure", "*"}, {"UserPromptSubmit", ""}, {"SessionStart", "compact"}, {"PreCompact", ""}, {"Stop", ""}}},
	"codex": {user: ".codex/hooks.json", project: ".codex/hooks.json", wrapped: true, timeout: 10,
		events: []hookEvent{{"PreToolUse", "*"}, {"PostToolUse", "*"}, {"UserPromptSubmit", ""}, {"SessionStart", ""}, {"Stop", ""}},
		notes:  []string{"Codex runs hooks only with the feature on: add `[features]` `codex_hooks = true` to ~/.codex/config.toml."}},
	// PreCompress is retired: Gemini CLI fires it before every model
	// request, whether or not it compresses (parseGemini).
	"gemini-cli": {user: ".gemini/settings.json", project: ".gemini/settings.json", wrapped: true, timeout: 10000,
		events: []hookEvent{{"BeforeTool", ".*"}, {"AfterTool", ".*"}, {"BeforeAgent", ""}}, retired: []string{"PreCompress"}},
	// QwenLM/qwen-code packages/core/src/hooks/types.ts (Claude Code's
	// events and answers) and hook-timeout.ts (timeouts in seconds).
	// Its hooks may be URLs too (type "http": packages/core/src/hooks
	// httpHookRunner of the 0.24.4 bundle: the event's JSON posted with the
	// headers given, a JSON answer read when its Content-Type says
	// application/json; a non-2xx status, a refused connection or a timeout
	// let the call go on; loopback URLs allowed).
	"qwen-code": {user: ".qwen/settings.json", project: ".qwen/settings.json", wrapped: true, timeout: 10, http: true,
		events: []hookEvent{{"PreToolUse", "*"}, {"PostToolUse", "*"}, {"PostToolUseFailure", "*"}, {"UserPromptSubmit", ""}, {"PreCompact", ""}, {"Stop", ""}}},
	// OpenCode loads every *.js and *.ts of its config directories'
	// plugin/ and plugins/ folders (anomalyco/opencode
	// packages/opencode/src/config/plugin.ts, "{plugin,plugins}/*.{ts,js}").
	// loopgate's own plugin and extension post to `hook serve` when
	// installed with --http (fetch: Bun's in OpenCode, Node's in pi).
	"opencode": {user: ".config/opencode/plugins/loopgate.js", project: ".opencode/plugins/loopgate.js", plugin: "opencode.js", http: true,
		events: []hookEvent{{"tool.execute.before", ""}, {"tool.execute.after", ""}, {"chat.message", ""}}},
	// pi loads ~/.pi/agent/extensions/*.ts and .pi/extensions/*.ts
	// (badlogic/pi-mono packages/coding-agent/docs/extensions.md at 83378aad).
	"pi": {user: ".pi/agent/extensions/loopgate.ts", project: ".pi/extensions/loopgate.ts", plugin: "pi.ts", http: true,
		events: []hookEvent{{"tool_call", ""}, {"tool_result", ""}, {"before_agent_start", ""}}},
	"cursor": {user: ".cursor/hooks.json", project: ".cursor/hooks.json", wrapped: true, flat: true,
		events: []hookEvent{{"preToolUse", ""}, {"postToolUse", ""}, {"postToolUseFailure", ""}, {"beforeSubmitPrompt", ""}, {"preCompact", ""}, {"stop", ""}}},
	"openhands": {user: ".openhands/hooks.json", project: ".openhands/hooks.json", timeout: 10,
		events: []hookEvent{{"PreToolUse", "*"}, {"PostToolUse", "*"}, {"UserPromptSubmit", ""}, {"Stop", ""}},
		notes:  []string{"OpenHands reads the project's .openhands/hooks.json, or else ~/.openhands/hooks.json: only the first one found."}},
	"hermes": {user: ".hermes/config.yaml", project: ".hermes/config.yaml", timeout: 10,
		events: []hookEvent{{"pre_tool_call", ""}, {"post_tool_call", ""}, {"pre_llm_call", ""}},
		notes:  []string{"hermes asks once before running a new hook command: approve it at the prompt, or start hermes with --accept-hooks (HERMES_ACCEPT_HOOKS=1)."}},
	"cline": {user: "Documents/Cline/Hooks", project: ".clinerules/hooks",
		events: []hookEvent{{"PreToolUse", ""}, {"PostToolUse", ""}, {"UserPromptSubmit", ""}, {"TaskStart", ""}, {"TaskResume", ""}},
		notes:  []string{"Cline runs hooks once they are enabled in its settings (Feature Settings, Enable Hooks)."}},
}

// SettingsPath is the agent's hooks file for a scope ("user": under home;
// "project": under the project directory).
func SettingsPath(agent, scope, home, project string) (string, error) {
	f := settingsFormats[Canonical(agent)]
	if f == nil {
		return "", fmt.Errorf("no settings format for agent %q", agent)
	}
	switch scope {
	case "user", "":
		return filepath.Join(home, f.user), nil
	case "project":
		return filepath.Join(project, f.project), nil
	}
	return "", fmt.Errorf("--scope must be user or project, not %q", scope)
}

// InstallHooks adds loopgate's entries running command to the agent's
// settings (remove: takes them out). Dry runs write nothing.
func InstallHooks(agent, scope, home, project, command string, remove, dry bool) (*Install, error) {
	return install(agent, scope, home, project, hookTarget{command: command}, remove, dry)
}

// InstallHTTPHooks adds loopgate's entries posting to a hook server (`loopgate
// hook serve`) at url with its token, in place of any loopgate command
// hooks: for an agent whose hooks may be URLs (HTTPHooks).
func InstallHTTPHooks(agent, scope, home, project, url, token string, dry bool) (*Install, error) {
	if f := settingsFormats[Canonical(agent)]; f == nil || !f.http {
		return nil, fmt.Errorf("%s does not post its hooks over HTTP: its hooks run a command (leave out --http)", agent)
	}
	return install(agent, scope, home, project, hookTarget{url: url, token: token}, false, dry)
}

// HTTPHooks reports whether an agent's hooks may be URLs that `loopgate
// hook serve` answers.
func HTTPHooks(agent string) bool {
	f := settingsFormats[Canonical(agent)]
	return f != nil && f.http
}

// hookTarget is what loopgate's entries run: a command, or a URL to post
// each event to (with the server's token).
type hookTarget struct {
	command    string
	url, token string
}

func install(agent, scope, home, project string, hook hookTarget, remove, dry bool) (*Install, error) {
	agent = Canonical(agent)
	f := settingsFormats[agent]
	command := hook.command
	path, err := SettingsPath(agent, scope, home, project)
	if err != nil {
		return nil, err
	}
	in := &Install{Agent: agent, Scope: scope, File: path}
	for _, e := range f.events {
		in.Events = append(in.Events, e.name)
	}
	if !remove {
		in.Notes = f.notes
	}
	if agent == "cline" {
		return in, installCline(in, f, command, remove, dry)
	}
	if f.plugin != "" {
		return in, installPlugin(in, f, hook, remove, dry)
	}
	// A link is written through to its target (settingsfile.go).
	target, exists, err := settingsTarget(path)
	if err != nil {
		return nil, err
	}
	if !exists && remove {
		return in, nil
	}
	var old []byte
	if exists {
		if old, err = os.ReadFile(target); err != nil {
			return nil, err
		}
	}
	edit := func(old []byte, remove bool) ([]byte, error) {
		if agent == "hermes" {
			return editYAML(old, f, command, remove)
		}
		return editJSON(old, f, agent, hook, remove)
	}
	content, err := edit(old, remove)
	var le *lineError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("%s:%d: %s", target, le.line, le.msg)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target, err)
	}
	in.Content = content
	in.Changed = !bytes.Equal(old, content)
	if dry || !in.Changed {
		return in, nil
	}
	if exists {
		// Install's backup holds the settings as they were before
		// loopgate: uninstall keeps it and writes its own, and installing
		// again over settings that hold loopgate's entries keeps it too.
		in.Backup = path + ".loopgate.bak"
		keep := false
		if remove {
			in.Backup = path + ".loopgate-uninstall.bak"
		} else if fi, err := os.Lstat(in.Backup); err == nil && fi.Mode().IsRegular() { // a link there is replaced
			without, err := edit(old, true)
			keep = err == nil && !bytes.Equal(without, old)
		}
		if !keep {
			if err := writeBackup(in.Backup, old); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return nil, err
	}
	if hook.token != "" {
		// The settings now hold the server's token: readable by their
		// owner only (the server is the user's alone).
		if fi, err := os.Stat(target); err == nil && fi.Mode().Perm()&0o077 != 0 {
			in.Notes = append(in.Notes[:len(in.Notes):len(in.Notes)], fmt.Sprintf("%s holds the hook server's token now: its mode was %04o, it is %04o", target, fi.Mode().Perm(), fi.Mode().Perm()&0o700|0o600))
		}
		return in, writeFile(target, content, true)
	}
	return in, writeReplace(target, content)
}

// writeReplace writes a file through a temporary file and a rename, so
// that an agent reading its settings never sees half of them.
func writeReplace(path string, content []byte) error { return writeFile(path, content, false) }

// writeFile is writeReplace; private keeps only the owner's permissions
// (a file that holds a secret).
func writeFile(path string, content []byte, private bool) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if private {
		mode = mode&0o700 | 0o600
	}
	return atomicfile.Write(path, content, "."+filepath.Base(path)+".loopgate-*", mode)
}

// member returns a pointer to the object member key, adding it (as def)
// when absent.
func member(obj *jsonx.Value, key string, def jsonx.Value) *jsonx.Value {
	for i := range obj.Obj {
		if obj.Obj[i].Key == key {
			return &obj.Obj[i].Val
		}
	}
	obj.Obj = append(obj.Obj, jsonx.Member{Key: key, Val: def})
	return &obj.Obj[len(obj.Obj)-1].Val
}

func str(s string) jsonx.Value { return jsonx.Value{Kind: jsonx.String, Str: s} }

func num(n int) jsonx.Value { return jsonx.Value{Kind: jsonx.Number, Str: fmt.Sprint(n)} }

func obj(m ...jsonx.Member) jsonx.Value { return jsonx.Value{Kind: jsonx.Object, Obj: m} }

func editJSON(old []byte, f *settingsFormat, agent string, target hookTarget, remove bool) ([]byte, error) {
	root := obj()
	if len(bytes.TrimSpace(old)) > 0 {
		v, err := jsonx.Parse(old)
		if err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		if err := jsonDuplicateKey(old); err != nil {
			return nil, err
		}
		if v.Kind != jsonx.Object {
			return nil, errors.New("not a JSON object")
		}
		root = v
	}
	if agent == "cursor" && !remove {
		member(&root, "version", num(1))
	}
	events := &root
	if f.wrapped || hasMember(root, "hooks") {
		events = member(&root, "hooks", obj())
		if events.Kind != jsonx.Object {
			return nil, errors.New(`"hooks" is not an object`)
		}
	}
	emptied := map[string]bool{}
	all := f.events
	for _, name := range f.retired {
		all = append(all[:len(all):len(all)], hookEvent{name: name})
	}
	for i, e := range all {
		retired := i >= len(f.events)
		if (remove || retired) && !hasMember(*events, e.name) {
			continue
		}
		list := member(events, e.name, jsonx.Value{Kind: jsonx.Array})
		if list.Kind != jsonx.Array {
			return nil, fmt.Errorf("hooks %q is not a list", e.name)
		}
		had := len(list.Arr)
		list.Arr = withoutLoopgate(list.Arr, f.flat)
		if !remove && !retired {
			list.Arr = append(list.Arr, entry(f, e, target))
		}
		emptied[e.name] = had > 0 && len(list.Arr) == 0
	}
	// Drop what removing left empty: event lists, and a hooks object.
	keep := events.Obj[:0]
	for _, m := range events.Obj {
		if emptied[m.Key] {
			continue
		}
		keep = append(keep, m)
	}
	events.Obj = keep
	if events != &root && len(events.Obj) == 0 && len(emptied) > 0 && remove {
		root.Obj = dropMember(root.Obj, "hooks")
	}
	var out bytes.Buffer
	if err := json.Indent(&out, root.Append(nil, jsonx.Compact), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func hasMember(v jsonx.Value, key string) bool {
	_, ok := v.Get(key)
	return ok
}

func dropMember(ms []jsonx.Member, key string) []jsonx.Member {
	out := ms[:0]
	for _, m := range ms {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return out
}

// entry is loopgate's entry for one event.
func entry(f *settingsFormat, e hookEvent, target hookTarget) jsonx.Value {
	if f.flat {
		return obj(jsonx.Member{Key: "command", Val: str(target.command)})
	}
	var h jsonx.Value
	if target.url != "" {
		h = obj(jsonx.Member{Key: "type", Val: str("http")}, jsonx.Member{Key: "url", Val: str(target.url)},
			jsonx.Member{Key: "headers", Val: obj(jsonx.Member{Key: TokenHeader, Val: str(target.token)})})
	} else {
		h = obj(jsonx.Member{Key: "type", Val: str("command")}, jsonx.Member{Key: "command", Val: str(target.command)})
	}
	if f.timeout > 0 {
		h.Obj = append(h.Obj, jsonx.Member{Key: "timeout", Val: num(f.timeout)})
	}
	g := obj()
	if e.matcher != "" {
		g.Obj = append(g.Obj, jsonx.Member{Key: "matcher", Val: str(e.matcher)})
	}
	g.Obj = append(g.Obj, jsonx.Member{Key: "hooks", Val: jsonx.Value{Kind: jsonx.Array, Arr: []jsonx.Value{h}}})
	return g
}

// withoutLoopgate removes loopgate's hooks from an event's entries: flat
// entries whose command is loopgate's, or loopgate's hooks inside matcher
// groups (a group left with no hook goes too).
func withoutLoopgate(entries []jsonx.Value, flat bool) []jsonx.Value {
	out := entries[:0]
	for _, e := range entries {
		if flat {
			if c, _ := e.GetString("command"); IsHookCommand(c) {
				continue
			}
			out = append(out, e)
			continue
		}
		hooks, ok := e.Get("hooks")
		if !ok || hooks.Kind != jsonx.Array {
			out = append(out, e)
			continue
		}
		var kept []jsonx.Value
		for _, h := range hooks.Arr {
			c, _ := h.GetString("command")
			u, _ := h.GetString("url")
			if !IsHookCommand(c) && !IsHookURL(u) {
				kept = append(kept, h)
			}
		}
		if len(kept) == len(hooks.Arr) {
			out = append(out, e)
			continue
		}
		if len(kept) == 0 {
			continue
		}
		*member(&e, "hooks", jsonx.Value{}) = jsonx.Value{Kind: jsonx.Array, Arr: kept}
		out = append(out, e)
	}
	return out
}

// editYAML edits hermes' config.yaml: hooks.<event> lists of {command,
// timeout} mappings. yaml.v3 nodes keep the other settings, their order
// and their comments.
func editYAML(old []byte, f *settingsFormat, command string, remove bool) ([]byte, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(old)) > 0 {
		if err := yamlOneDocument(old, &doc); err != nil {
			return nil, err
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("not a YAML mapping")
	}
	hooks := yamlMember(root, "hooks", !remove)
	if hooks == nil {
		return old, nil
	}
	if hooks.Kind != yaml.MappingNode {
		return nil, errors.New("hooks is not a mapping")
	}
	for _, e := range f.events {
		list := yamlMember(hooks, e.name, !remove)
		if list == nil {
			continue
		}
		if list.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("hooks.%s is not a list", e.name)
		}
		kept := list.Content[:0]
		for _, item := range list.Content {
			if c := yamlMember(item, "command", false); c != nil && IsHookCommand(c.Value) {
				continue
			}
			kept = append(kept, item)
		}
		list.Content = kept
		if !remove {
			list.Content = append(list.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "command"}, {Kind: yaml.ScalarNode, Value: command},
				{Kind: yaml.ScalarNode, Value: "timeout"}, {Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(f.timeout)},
			}})
		}
		if len(list.Content) == 0 {
			yamlDrop(hooks, e.name)
		}
	}
	if len(hooks.Content) == 0 {
		yamlDrop(root, "hooks")
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func yamlMember(m *yaml.Node, key string, create bool) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	if !create {
		return nil
	}
	kind := yaml.MappingNode
	if key != "hooks" {
		kind = yaml.SequenceNode
	}
	v := &yaml.Node{Kind: kind}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return v
}

func yamlDrop(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// clineMarker marks the hook scripts loopgate writes for Cline.
const clineMarker = "# loopgate hook: written by 'loopgate hook install', removed by 'loopgate hook uninstall'"

// installCline writes (or removes) one executable script per event in
// Cline's hooks directory. A script of the same name that loopgate did not
// write is never touched: Cline runs one script per event and directory.
func installCline(in *Install, f *settingsFormat, command string, remove, dry bool) error {
	var content []byte
	for _, e := range f.events {
		path := filepath.Join(in.File, e.name)
		old, err := os.ReadFile(path)
		exists := err == nil
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		ours := exists && bytes.Contains(old, []byte(clineMarker))
		if remove && !ours {
			continue
		}
		if exists && !ours {
			return fmt.Errorf("%s exists and is not loopgate's: move it away or call loopgate from it", path)
		}
		if remove {
			if ours {
				in.Changed = true
				if !dry {
					if err := os.Remove(path); err != nil {
						return err
					}
				}
			}
			continue
		}
		script := []byte("#!/bin/sh\n" + clineMarker + "\nexec " + command + "\n")
		content = append(content, script...)
		if bytes.Equal(old, script) {
			continue
		}
		in.Changed = true
		if dry {
			continue
		}
		if err := os.MkdirAll(in.File, 0o755); err != nil {
			return err
		}
		if err := writeReplace(path, script); err != nil {
			return err
		}
		if err := os.Chmod(path, 0o755); err != nil {
			return err
		}
	}
	in.Content = content
	return nil
}

// pluginMarker is the line of loopgate's plugin files that marks them as
// loopgate's (after the language's comment sign).
const pluginMarker = "loopgate hook: written by 'loopgate hook install', removed by 'loopgate hook uninstall'"

// installPlugin writes (or removes) loopgate's plugin file: the embedded
// source with the hook command written in. A file of that name that
// loopgate did not write (no pluginMarker line) is never touched.
func installPlugin(in *Install, f *settingsFormat, hook hookTarget, remove, dry bool) error {
	old, err := os.ReadFile(in.File)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	ours := exists && bytes.Contains(old, []byte(pluginMarker))
	if exists && !ours {
		if remove {
			return nil
		}
		return fmt.Errorf("%s exists and is not loopgate's: move it away", in.File)
	}
	if remove {
		if ours {
			in.Changed = true
			if !dry {
				return os.Remove(in.File)
			}
		}
		return nil
	}
	src, err := pluginFiles.ReadFile("plugins/" + f.plugin)
	if err != nil {
		return err
	}
	// The command (or the server's URL and token) goes in as a
	// JavaScript string literal (JSON's quoting is JavaScript's).
	content := src
	for placeholder, value := range map[string]string{"COMMAND": hook.command, "URL": hook.url, "TOKEN": hook.token} {
		quoted, err := json.Marshal(value)
		if err != nil {
			return err
		}
		content = bytes.Replace(content, []byte(`"__LOOPGATE_`+placeholder+`__"`), quoted, 1)
	}
	in.Content = content
	in.Changed = !bytes.Equal(old, content)
	if dry || !in.Changed {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(in.File), 0o755); err != nil {
		return err
	}
	return writeFile(in.File, content, hook.token != "")
}
