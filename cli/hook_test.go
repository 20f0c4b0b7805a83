package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/live/hookcmd"
	"github.com/loopgate/loopgate/live/simulate"
	"github.com/loopgate/loopgate/rules"
)

// TestMain lets the test binary act as the loopgate command, so that the
// process path of the hook (a new process per event, as agents run it) is
// tested without building a binary.
func TestMain(m *testing.M) {
	if os.Getenv("LOOPGATE_TEST_MAIN") == "1" {
		os.Exit(run(os.Args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// roundsTranscript is live/simulate's synthetic Claude Code transcript of
// parallel calls, time gaps and a compaction (its writeRoundsTranscript).
var roundsTranscript = filepath.Join("..", "live", "simulate", "testdata", "rounds.jsonl")

// TestHookProcessPath drives the synthetic transcript through a new
// `loopgate hook` process per event, as Claude Code runs it.
func TestHookProcessPath(t *testing.T) {
	if testing.Short() {
		t.Skip("a process per event")
	}
	t.Setenv("LOOPGATE_TEST_MAIN", "1")
	transcript := roundsTranscript
	for _, preset := range []string{"attractor", "pi-loopguard", "hermes-strict"} {
		r, _ := rules.Preset(preset)
		sim := &simulate.Simulator{Rules: r, RulesArgs: []string{"--preset", preset}, StateDir: t.TempDir(), Exec: true, Binary: os.Args[0]}
		results, err := sim.File(transcript, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, res := range results {
			for _, c := range res.Calls {
				n++
				if !c.Same() {
					t.Errorf("%s call %d %s: hook %v, replay %v", preset, c.Index, c.Tool, c.Hook, c.Replay)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no call simulated", preset)
		}
	}
}

// TestHookSimulateCommand runs the command itself: its summary line, and
// exit 0 when every call agrees.
func TestHookSimulateCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"loopgate", "hook", "simulate", "--preset", "attractor", roundsTranscript}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "0 differ") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// TestShadowLogReplays: a --shadow run never stops a call, logs what it
// would have done with every real result, and `loopgate replay LOG` reads
// that log as a format and decides every call as the hook logged it, which
// is also what replay decides on the original transcript.
func TestShadowLogReplays(t *testing.T) {
	transcript := roundsTranscript
	for _, preset := range []string{"loopgate", "hermes-strict", "attractor"} {
		r, _ := rules.Preset(preset)
		dir := t.TempDir()
		sim := &simulate.Simulator{Rules: r, StateDir: dir, Shadow: true}
		results, err := sim.File(transcript, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		hooked := map[int]string{}
		for _, res := range results {
			for _, c := range res.Calls {
				hooked[c.Index] = c.Hook.Action
				if !c.Same() {
					t.Errorf("%s shadow call %d: hook %v, replay %v", preset, c.Index, c.Hook, c.Replay)
				}
			}
		}
		logFile := filepath.Join(dir, "simulate-1.jsonl")
		var out, errOut bytes.Buffer
		if code := run([]string{"loopgate", "replay", "--preset", preset, "--format", "json", logFile}, &out, &errOut); code != 0 {
			t.Fatalf("replay of the shadow log: exit %d: %s", code, errOut.String())
		}
		var rep struct {
			Sessions []struct {
				Format    string `json:"format"`
				Calls     int    `json:"calls"`
				Decisions []struct {
					Call   int    `json:"call"`
					Action string `json:"action"`
				} `json:"decisions"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Sessions) != 1 {
			t.Fatalf("%v: %s", err, out.String())
		}
		s := rep.Sessions[0]
		if s.Format != "loopgate-decisions" || s.Calls != len(hooked) {
			t.Errorf("%s: read as %s with %d calls, want loopgate-decisions with %d", preset, s.Format, s.Calls, len(hooked))
		}
		replayed := map[int]string{}
		for _, d := range s.Decisions {
			replayed[d.Call] = d.Action
		}
		stops := 0
		for i, a := range hooked {
			want := replayed[i]
			if want == "" {
				want = "allow"
			}
			if a != want {
				t.Errorf("%s call %d: hook logged %s, replay of the log %s", preset, i, a, want)
			}
			if a != "allow" {
				stops++
			}
		}
		if stops == 0 {
			t.Errorf("%s: no verdict but allow: nothing compared", preset)
		}
	}
}

// TestHookRulesArePresets: the hook parses the one preset it runs; the
// rules must be those of rules.Preset, which the replay uses.
func TestHookRulesArePresets(t *testing.T) {
	for _, name := range rules.PresetNames() {
		want, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := rules.PresetText(name)
		got, err := rules.Parse(data, "preset:"+name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the hook's rules differ from rules.Preset's", name)
		}
	}
}

// TestHookCommandFailsOpen: a flag the hook does not know, an unknown
// agent or preset never exit with a status that blocks the call (Claude
// Code and Gemini CLI block on exit 2).
func TestHookCommandFailsOpen(t *testing.T) {
	for _, args := range [][]string{
		{"--agent", "claude-code", "--bogus"},
		{"--agent", "nobody"},
		{"--agent", "claude-code", "--preset", "nope"},
		{"--agent", "claude-code", "--rules", "/nonexistent.yaml"},
		{"--agent", "claude-code", "--preset="},
		{"--agent", "claude-code", "--preset"},
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"loopgate", "hook"}, args...), &out, &errOut)
		if code != 0 || out.Len() != 0 || !strings.Contains(errOut.String(), "fails open") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}

// TestHookInstallCommand: install and uninstall through the command, in a
// home of their own; the settings' other members survive.
func TestHookInstallCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"model":"opus"}`), 0o644)
	var out, errOut bytes.Buffer
	if code := run([]string{"loopgate", "hook", "install", "--agent", "claude-code", "--preset", "hermes", "--dry-run"}, &out, &errOut); code != 0 {
		t.Fatalf("dry run: exit %d %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(settings); string(b) != `{"model":"opus"}` || !strings.Contains(out.String(), "hook --agent claude-code --preset hermes") {
		t.Fatalf("dry run wrote, or printed %s", out.String())
	}
	if code := run([]string{"loopgate", "hook", "install", "--agent", "claude-code", "--preset", "hermes"}, &out, &errOut); code != 0 {
		t.Fatalf("install: exit %d %s", code, errOut.String())
	}
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), `"model": "opus"`) || !strings.Contains(string(b), "PreToolUse") {
		t.Fatalf("installed settings: %s", b)
	}
	if code := run([]string{"loopgate", "hook", "uninstall", "--agent", "claude-code"}, &out, &errOut); code != 0 {
		t.Fatalf("uninstall: exit %d %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(settings); strings.Contains(string(b), "hook") {
		t.Errorf("uninstall left %s", b)
	}
	if code := run([]string{"loopgate", "hook", "install", "--agent", "nobody"}, &out, &errOut); code != 2 {
		t.Errorf("unknown agent: exit %d", code)
	}
}

// installOpenCodePlugin installs the OpenCode plugin that runs command
// into a new project folder, named .mjs: OpenCode loads plugins as ES
// modules, Node only .mjs files without a package.json saying so.
func installOpenCodePlugin(t *testing.T, command string) (project, plugin string) {
	t.Helper()
	home, project := t.TempDir(), t.TempDir()
	in, err := live.InstallHooks("opencode", "project", home, project, command, false, false)
	if err != nil {
		t.Fatal(err)
	}
	plugin = strings.TrimSuffix(in.File, ".js") + ".mjs"
	if err := os.Rename(in.File, plugin); err != nil {
		t.Fatal(err)
	}
	return project, plugin
}

// TestOpenCodePluginRuns loads the OpenCode plugin loopgate installs into
// Node (OpenCode runs plugins in Bun, whose node:child_process is Node's)
// and drives its hooks as OpenCode calls them (tool.execute.before's
// input {tool, sessionID, callID} and output {args}: anomalyco/opencode
// packages/plugin/src/index.ts): nanobot's budget denies the third
// identical read, which the plugin turns into a thrown error, the way an
// OpenCode plugin keeps a tool from running.
func TestOpenCodePluginRuns(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the plugin is not run")
	}
	command := "LOOPGATE_TEST_MAIN=1 " + shellQuote(os.Args[0]) + " hook --agent opencode --preset nanobot --state-dir " + shellQuote(t.TempDir())
	project, plugin := installOpenCodePlugin(t, command)
	driver := filepath.Join(project, "drive.mjs")
	os.WriteFile(driver, []byte(`import { LoopgatePlugin } from `+strconvQuote(plugin)+`
let aborted = false
const hooks = await LoopgatePlugin({ client: { session: { abort: async () => { aborted = true } } } })
await hooks["chat.message"]({ sessionID: "oc-1" }, { message: {}, parts: [] })
const out = []
for (let i = 1; i <= 3; i++) {
  const input = { tool: "read", sessionID: "oc-1", callID: "call_" + i }
  try {
    await hooks["tool.execute.before"](input, { args: { filePath: "/src/a.go" } })
    const o = { title: "a.go", output: "package a", metadata: {} }
    await hooks["tool.execute.after"](input, o)
    out.push("ran")
  } catch (e) {
    out.push("denied: " + e.message)
  }
}
console.log(JSON.stringify({ out, aborted }))
`), 0o644)
	got := runDriver(t, node, driver)
	if len(got.Out) != 3 || got.Out[0] != "ran" || got.Out[1] != "ran" || !strings.HasPrefix(got.Out[2], "denied: ") || got.Aborted {
		t.Errorf("calls: %q, aborted %v", got.Out, got.Aborted)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// driverResult is what a test's node driver prints: each call's fate, and
// whether the plugin aborted the agent.
type driverResult struct {
	Out     []string
	Aborted bool
}

// runDriver runs a node driver script and reads what it prints.
func runDriver(t *testing.T, node, driver string) driverResult {
	t.Helper()
	cmd := exec.Command(node, driver)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v %s", err, stderr.String())
	}
	var got driverResult
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return got
}

// TestPiExtensionRuns loads the pi extension loopgate installs with the
// loader pi itself uses for extensions (jiti, from the agent lab's pi
// install: LOOPGATE_LAB_CACHE, else ~/.cache/loopgate-lab) and drives its
// handlers as pi calls them (badlogic/pi-mono
// packages/coding-agent/src/core/extensions/types.ts: tool_call's
// {toolName, toolCallId, input}, tool_result's content and isError):
// nanobot's budget blocks the third identical read with pi's {block,
// reason}.
func TestPiExtensionRuns(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the extension is not run")
	}
	cache := os.Getenv("LOOPGATE_LAB_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "loopgate-lab")
	}
	jitis, _ := filepath.Glob(filepath.Join(cache, "pi-*", "node_modules", "jiti", "lib", "jiti.mjs"))
	if len(jitis) == 0 {
		t.Skip("no pi install of the agent lab (scripts/lab.sh pi): the extension is not run")
	}
	home, project := t.TempDir(), t.TempDir()
	command := "LOOPGATE_TEST_MAIN=1 " + shellQuote(os.Args[0]) + " hook --agent pi --preset nanobot --state-dir " + shellQuote(t.TempDir())
	in, err := live.InstallHooks("pi", "project", home, project, command, false, false)
	if err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(project, "drive.mjs")
	os.WriteFile(driver, []byte(`import { createJiti } from `+strconvQuote(jitis[0])+`
const jiti = createJiti(import.meta.url)
const mod = await jiti.import(`+strconvQuote(in.File)+`)
const handlers = {}
mod.default({ on: (name, fn) => { handlers[name] = fn } })
let aborted = false
const ctx = { sessionManager: { getSessionId: () => "pi-1" }, abort: () => { aborted = true } }
await handlers["before_agent_start"]({ prompt: "hi" }, ctx)
const out = []
for (let i = 1; i <= 3; i++) {
  const r = await handlers["tool_call"]({ toolName: "read", toolCallId: "c" + i, input: { path: "/src/a.go" } }, ctx)
  if (r && r.block) { out.push("blocked: " + r.reason); continue }
  await handlers["tool_result"]({ toolName: "read", toolCallId: "c" + i, input: { path: "/src/a.go" }, content: [{ type: "text", text: "package a" }], isError: false }, ctx)
  out.push("ran")
}
console.log(JSON.stringify({ out, aborted }))
`), 0o644)
	got := runDriver(t, node, driver)
	if len(got.Out) != 3 || got.Out[0] != "ran" || got.Out[1] != "ran" || !strings.HasPrefix(got.Out[2], "blocked: ") || got.Aborted {
		t.Errorf("calls: %q, aborted %v", got.Out, got.Aborted)
	}
}

// TestHookArgsAreTheApp: where hookcmd.ParseArgs reads the hook's command
// line itself, urfave/cli reads the same values from it; what it leaves
// to urfave/cli (help, subcommands, unknown or repeated flags, single
// dashes, values that look like flags, bad durations) it declines.
func TestHookArgsAreTheApp(t *testing.T) {
	names := []string{"agent", "rules", "preset", "state-dir", "log"}
	for _, tc := range []struct {
		args string
		fast bool
	}{
		{"--agent claude-code", true},
		{"--agent claude-code --preset hermes --state-dir /tmp/s --log /tmp/s/d.jsonl", true},
		{"--agent=codex --rules=/r.yaml --state-dir=/tmp/a=b", true},
		{"--agent cline --shadow --expire 1h30m", true},
		{"--shadow --agent gemini --expire=0s", true},
		{"--agent gemini --preset=", false},
		{"--agent claude-code --preset ''", true},
		{"", true},
		{"--help", false},
		{"-h", false},
		{"install --agent claude-code", false},
		{"simulate x", false},
		{"-agent claude-code", false},
		{"--agent claude-code --agent codex", false},
		{"--agent claude-code --nosuchflag", false},
		{"--agent claude-code stray", false},
		{"--agent", false},
		{"--agent --shadow", false},
		{"--log -x --agent claude-code", false},
		{"--shadow=false --agent claude-code", false},
		{"--expire soon --agent claude-code", false},
		{"--agent claude-code --", false},
	} {
		t.Run(tc.args, func(t *testing.T) {
			args := strings.Fields(tc.args)
			for i, a := range args {
				if a == "''" {
					args[i] = ""
				}
			}
			fast, ok := hookcmd.ParseArgs(args)
			if ok != tc.fast {
				t.Fatalf("hookcmd.ParseArgs ok = %v, want %v", ok, tc.fast)
			}
			if !ok {
				return
			}
			var app hookcmd.Flags
			cmd := hookCommand()
			cmd.Action = func(c *cli.Context) error {
				app = c
				return nil
			}
			var errOut bytes.Buffer
			code := runApp(newAppOf(io.Discard, &errOut, "dev", []*cli.Command{cmd}), append([]string{"loopgate", "hook"}, args...), &errOut)
			if code != 0 || app == nil {
				t.Fatalf("urfave/cli did not run the hook: exit %d, %s", code, errOut.String())
			}
			for _, n := range names {
				if fast.String(n) != app.String(n) {
					t.Errorf("--%s: hookcmd.ParseArgs %q, urfave/cli %q", n, fast.String(n), app.String(n))
				}
			}
			if fast.Bool("shadow") != app.Bool("shadow") || fast.Duration("expire") != app.Duration("expire") {
				t.Errorf("shadow/expire: hookcmd.ParseArgs %v %v, urfave/cli %v %v", fast.Bool("shadow"), fast.Duration("expire"), app.Bool("shadow"), app.Duration("expire"))
			}
		})
	}
}

// TestOwnHookBinary: hook install writes loopgate-hook when it lies beside
// loopgate and says this build, and this loopgate's hook command when it
// is missing or of another build (said on stderr).
func TestOwnHookBinary(t *testing.T) {
	for _, tc := range []struct {
		name, script string // loopgate-hook's script, "" for none
		own          bool
		note         string
	}{
		{name: "same build", script: "echo '" + hookcmd.VersionLine() + "'", own: true},
		{name: "another build", script: "echo 'loopgate-hook go1.0 github.com/loopgate/loopgate@v0.0.1'", note: "is not of this loopgate's build"},
		{name: "fails", script: "exit 3", note: "is not of this loopgate's build"},
		{name: "none", note: "no loopgate-hook beside this loopgate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			exe := filepath.Join(dir, "loopgate")
			if tc.script != "" {
				if err := os.WriteFile(filepath.Join(dir, "loopgate-hook"), []byte("#!/bin/sh\n"+tc.script+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var errOut bytes.Buffer
			got := ownHookBinary(exe, &errOut)
			if want := filepath.Join(dir, "loopgate-hook"); tc.own && got != want || !tc.own && got != "" {
				t.Errorf("ownHookBinary = %q", got)
			}
			if tc.note == "" && errOut.Len() > 0 || !strings.Contains(errOut.String(), tc.note) {
				t.Errorf("stderr %q, want %q", errOut.String(), tc.note)
			}
		})
	}
}

// TestHookInstallOwnCommand: --command naming a loopgate-hook writes it
// with the hook's flags alone, and uninstall knows it as loopgate's.
func TestHookInstallOwnCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	settings := filepath.Join(home, ".claude", "settings.json")
	var out, errOut bytes.Buffer
	if code := run([]string{"loopgate", "hook", "install", "--agent", "claude-code", "--preset", "hermes", "--command", "/opt/lg/loopgate-hook"}, &out, &errOut); code != 0 {
		t.Fatalf("install: exit %d %s", code, errOut.String())
	}
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), `"/opt/lg/loopgate-hook --agent claude-code --preset hermes"`) {
		t.Fatalf("installed settings: %s", b)
	}
	if !strings.Contains(out.String(), "command: /opt/lg/loopgate-hook --agent claude-code --preset hermes\n") {
		t.Errorf("install did not say the command it wrote: %s", out.String())
	}
	if code := run([]string{"loopgate", "hook", "uninstall", "--agent", "claude-code"}, &out, &errOut); code != 0 {
		t.Fatalf("uninstall: exit %d %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(settings); strings.Contains(string(b), "loopgate-hook") {
		t.Errorf("uninstall left %s", b)
	}
}

// TestHookInstallHTTP: `hook install --http` writes the server's URL and
// the state directory's token (a dry run a placeholder, and no token
// file), says whether a server answers, and refuses the flags that choose
// rules (the server's do) and the agents whose hooks are commands.
func TestHookInstallHTTP(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	state := filepath.Join(t.TempDir(), "state")
	settings := filepath.Join(home, ".claude", "settings.json")
	base := []string{"loopgate", "hook", "install", "--agent", "claude-code", "--http", "--listen", "127.0.0.1:1", "--state-dir", state}
	var out, errOut bytes.Buffer
	if code := run(append(base, "--dry-run"), &out, &errOut); code != 0 {
		t.Fatalf("dry run: exit %d %s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(state, "serve.token")); err == nil || !strings.Contains(out.String(), "<the token in ") {
		t.Fatalf("dry run wrote the token (%v) or printed it:\n%s", err, out.String())
	}
	out.Reset()
	if code := run(base, &out, &errOut); code != 0 {
		t.Fatalf("install: exit %d %s", code, errOut.String())
	}
	token, _ := os.ReadFile(filepath.Join(state, "serve.token"))
	b, _ := os.ReadFile(settings)
	if len(token) == 0 || !strings.Contains(string(b), strings.TrimSpace(string(token))) || !strings.Contains(string(b), "http://127.0.0.1:1/loopgate/hook/claude-code") {
		t.Errorf("settings lack the token or the URL:\n%s", b)
	}
	if !strings.Contains(out.String(), "no server answers at 127.0.0.1:1") {
		t.Errorf("no note that nothing answers:\n%s", out.String())
	}
	// A server that keeps another state directory (another token) is said;
	// the server of this one answers.
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(t.TempDir(), "other"), "does not take the token"},
		{state, "answers (loopgate hook serve"},
	} {
		flags, _ := hookcmd.ParseArgs([]string{"--state-dir", tc.dir})
		srv, err := hookcmd.NewServer(flags, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		out.Reset()
		args := []string{"loopgate", "hook", "install", "--agent", "claude-code", "--http", "--listen", strings.TrimPrefix(ts.URL, "http://"), "--state-dir", state}
		if code := run(args, &out, &errOut); code != 0 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("server of %s: exit %d, want %q in:\n%s", tc.dir, code, tc.want, out.String())
		}
		ts.Close()
	}
	for _, args := range [][]string{
		append(base, "--preset", "hermes"),
		append(base, "--shadow"),
		append(base, "--scope", "project"),
		{"loopgate", "hook", "install", "--agent", "codex", "--http"},
		{"loopgate", "hook", "install", "--agent", "claude-code", "--http", "--listen", "0.0.0.0:7433"},
		{"loopgate", "hook", "install", "--agent", "claude-code", "--http", "--listen", "127.0.0.1:0"},
	} {
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args[2:], code)
		}
	}
}
