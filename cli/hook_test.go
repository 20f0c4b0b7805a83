package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/live"
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

// hookCorpus is every fixture, every sample (when present), and the
// synthetic Claude Code transcript of parallel calls, time gaps and a
// compaction (writeRoundsTranscript).
func hookCorpus(t *testing.T) []string {
	paths := []string{filepath.Join("..", "fixtures"), writeRoundsTranscript(t)}
	samples := filepath.Join("..", "..", "shared", "samples")
	if testing.Short() {
		t.Log("-short: the equivalence runs over the fixtures only")
	} else if _, err := os.Stat(samples); err != nil {
		t.Log("../shared/samples is absent: the equivalence runs over the fixtures only")
	} else {
		paths = append(paths, samples)
	}
	return paths
}

// TestHookEquivalence is the live hook's core property: every transcript
// driven through `hook` (a prompt per turn, PreToolUse per call,
// PostToolUse with the real result unless the hook stopped the call)
// gets, call by call, the action, detector and message that replay gives
// under the same rules. Every preset runs over every fixture; the real
// samples, tens of megabytes, are shared out among the presets in turn
// (each file under one preset), so that every sample is compared and the
// test stays within go test's time limit. Under -short, the presets of
// the verdicts checked at the end run over the fixtures.
func TestHookEquivalence(t *testing.T) {
	paths := hookCorpus(t)
	files := ingest.Expand(paths, func(p ingest.Problem) { t.Errorf("%s: %s", p.File, p.Message) })
	fixtures := filepath.Join("..", "fixtures")
	sample := 0 // the files of the samples, numbered in walk order
	share := map[string]int{}
	for _, f := range files {
		if !strings.HasPrefix(f, fixtures+string(filepath.Separator)) && strings.HasPrefix(f, filepath.Join("..", "..", "shared")) {
			share[f] = sample
			sample++
		}
	}
	presets := rules.PresetNames()
	// The verdicts the corpus must show (checked below), one preset each.
	verdicts := []string{"loopgate block", "attractor steer", "pi-loopguard block", "pi-loopguard steer", "hermes-dedup dedup", "hermes-strict halt"}
	if testing.Short() {
		// -short: the presets of those verdicts, over the fixtures.
		presets = []string{"loopgate", "attractor", "pi-loopguard", "hermes-dedup", "hermes-strict"}
	}
	stopped := map[string]int{}
	for pi, preset := range presets {
		t.Run(preset, func(t *testing.T) {
			r, err := rules.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			sim := &simulator{rules: r, stateDir: t.TempDir()}
			calls := 0
			for _, f := range files {
				if n, isSample := share[f]; isSample && n%len(presets) != pi {
					continue
				}
				results, err := sim.file(f, ingest.Options{})
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				for _, res := range results {
					calls += len(res.Calls)
					for _, c := range res.Calls {
						if !c.Same() {
							t.Errorf("%s %s/%s call %d %s: hook %v %q, replay %v %q", f, res.Session, res.Agent, c.Index, c.Tool, c.Hook, c.Hook.Message, c.Replay, c.Replay.Message)
						}
						if c.Replay.Action != "allow" {
							stopped[preset+" "+c.Replay.Action]++
						}
					}
				}
			}
			if calls < 100 {
				t.Errorf("only %d calls simulated", calls)
			}
			// The hook kept snapshots of its sessions (live's
			// snapshot.go), which later calls start from: the comparison
			// covers that path, not only the rebuild from the log
			// (TestSnapshotEquivalence counts the calls that restored one).
			snaps := 0
			_ = filepath.WalkDir(sim.stateDir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".snap") {
					snaps++
				}
				return nil
			})
			if snaps == 0 {
				t.Error("the hook left no snapshot in its state directory")
			}
		})
	}
	// The comparison must have had something to compare: every kind of
	// verdict the presets give on this corpus.
	for _, want := range verdicts {
		if stopped[want] == 0 {
			t.Errorf("no %q verdict in the corpus: the equivalence would not see it differ (%v)", want, stopped)
		}
	}
}

// TestHookProcessPath drives the synthetic transcript through a new
// `loopgate hook` process per event, as Claude Code runs it.
func TestHookProcessPath(t *testing.T) {
	if testing.Short() {
		t.Skip("a process per event")
	}
	t.Setenv("LOOPGATE_TEST_MAIN", "1")
	transcript := writeRoundsTranscript(t)
	for _, preset := range []string{"attractor", "pi-loopguard", "hermes-strict"} {
		r, _ := rules.Preset(preset)
		sim := &simulator{rules: r, rulesArgs: []string{"--preset", preset}, stateDir: t.TempDir(), exec: true, binary: os.Args[0]}
		results, err := sim.file(transcript, ingest.Options{})
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

// writeRoundsTranscript writes a Claude Code session: model requests of two
// parallel calls (one message.id over two lines, results between them),
// an A-B cycle long enough for attractor's round check, calls minutes
// apart (pi's 2-minute window), failing calls (hermes-strict's halt), a
// compaction and a second user turn.
func writeRoundsTranscript(t *testing.T) string {
	var b bytes.Buffer
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	ts := func(min int) string { return t0.Add(time.Duration(min) * time.Minute).Format(time.RFC3339Nano) }
	line := func(s string) { b.WriteString(s + "\n") }
	user := func(min int, text string) {
		n++
		line(fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":"S1","timestamp":%q,"message":{"role":"user","content":%q}}`, n, ts(min), text))
	}
	req := 0
	// request writes one model request of the given calls (tool, input,
	// result, is_error), each tool_use on its own line as Claude Code
	// writes them, each result after its call.
	type tc struct {
		tool, input, result string
		isErr               bool
	}
	request := func(min int, calls ...tc) {
		req++
		for _, c := range calls {
			n++
			id := fmt.Sprintf("toolu_%d", n)
			line(fmt.Sprintf(`{"type":"assistant","uuid":"a%d","sessionId":"S1","timestamp":%q,"requestId":"req_%d","message":{"id":"msg_%d","role":"assistant","model":"claude-test","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}}`,
				n, ts(min), req, req, id, c.tool, c.input))
			line(fmt.Sprintf(`{"type":"user","uuid":"r%d","sessionId":"S1","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q,"is_error":%v}]}}`,
				n, ts(min), id, c.result, c.isErr))
		}
	}
	user(0, "fix the build")
	for i := 0; i < 8; i++ {
		request(i, tc{"Read", `{"file_path":"/src/a.go"}`, "package a", false}, tc{"Grep", `{"pattern":"TODO"}`, "a.go:3: TODO", false})
	}
	for i := 0; i < 9; i++ {
		request(20+3*i, tc{"Read", fmt.Sprintf(`{"file_path":"/src/missing%d.go"}`, i), "File does not exist.", true})
	}
	line(`{"type":"system","subtype":"compact_boundary","uuid":"c1","sessionId":"S1","timestamp":"` + ts(60) + `","content":"Conversation compacted"}`)
	user(61, "again")
	for i := 0; i < 4; i++ {
		request(62+i, tc{"Read", `{"file_path":"/src/a.go"}`, "package a", false})
	}
	path := filepath.Join(t.TempDir(), "rounds.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHookSimulateCommand runs the command itself: its summary line, and
// exit 0 when every call agrees.
func TestHookSimulateCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"loopgate", "hook", "simulate", "--preset", "attractor", writeRoundsTranscript(t)}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "0 differ") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// TestShadowLogReplays: a --shadow run never stops a call, logs what it
// would have done with every real result, and `loopgate replay LOG` reads
// that log as a format and decides every call as the hook logged it, which
// is also what replay decides on the original transcript.
func TestShadowLogReplays(t *testing.T) {
	if ingestTag := "decision-log/1"; ingestTag != live.DecisionLogTag {
		t.Fatalf("ingest/decisionlog.go's tag %q differs from live.DecisionLogTag %q", ingestTag, live.DecisionLogTag)
	}
	transcript := writeRoundsTranscript(t)
	for _, preset := range []string{"loopgate", "hermes-strict", "attractor"} {
		r, _ := rules.Preset(preset)
		dir := t.TempDir()
		sim := &simulator{rules: r, stateDir: dir, shadow: true}
		results, err := sim.file(transcript, ingest.Options{})
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
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"loopgate", "hook"}, args...), &out, &errOut)
		if code != 0 || out.Len() != 0 || !strings.Contains(errOut.String(), "fails open") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}

// TestHookResultBlocks: a result sent as content blocks (as a Claude Code
// tool_result's content may be) reads as the transcript readers read it,
// so the hook still decides every call as replay.
func TestHookResultBlocks(t *testing.T) {
	files := []string{writeRoundsTranscript(t), filepath.Join("..", "fixtures", "golden")}
	for _, preset := range []string{"loopgate", "hermes-dedup", "hermes-strict"} {
		r, _ := rules.Preset(preset)
		sim := &simulator{rules: r, stateDir: t.TempDir(), blocks: true}
		n := 0
		for _, f := range ingest.Expand(files, func(ingest.Problem) {}) {
			results, err := sim.file(f, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range results {
				for _, c := range res.Calls {
					n++
					if !c.Same() {
						t.Errorf("%s %s call %d: hook %v, replay %v", preset, f, c.Index, c.Hook, c.Replay)
					}
				}
			}
		}
		if n == 0 {
			t.Fatal("no calls")
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
	home, project := t.TempDir(), t.TempDir()
	command := "LOOPGATE_TEST_MAIN=1 " + shellQuote(os.Args[0]) + " hook --agent opencode --preset nanobot --state-dir " + shellQuote(t.TempDir())
	in, err := live.InstallHooks("opencode", "project", home, project, command, false, false)
	if err != nil {
		t.Fatal(err)
	}
	// OpenCode loads plugins as ES modules.
	plugin := strings.TrimSuffix(in.File, ".js") + ".mjs"
	if err := os.Rename(in.File, plugin); err != nil {
		t.Fatal(err)
	}
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
	cmd := exec.Command(node, driver)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v %s", err, stderr.String())
	}
	var got struct {
		Out     []string
		Aborted bool
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if len(got.Out) != 3 || got.Out[0] != "ran" || got.Out[1] != "ran" || !strings.HasPrefix(got.Out[2], "denied: ") || got.Aborted {
		t.Errorf("calls: %q, aborted %v", got.Out, got.Aborted)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestSimulateAgentEvents: simulate writes each agent's own events, and
// for the agent's own transcripts nothing the agent does not send (no
// loopgate_ hint, no tool_input_raw; a time only where the agent stamps
// its events).
func TestSimulateAgentEvents(t *testing.T) {
	stamps := map[string]bool{"gemini-cli": true, "qwen-code": true}
	call := callEvent{id: "call_1", tool: "read_file", args: `{"path":"/a"}`, argsOK: true, time: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), request: "r1"}
	for _, agent := range simulatedAgents {
		t.Run(agent, func(t *testing.T) {
			p := live.Lookup(agent)
			for _, own := range []bool{true, false} {
				e := &eventWriter{agent: agent, sid: "s1", scope: "main", format: p.Format, own: own}
				if !own {
					e.format = "nanobot"
				}
				events := [][]byte{e.prompt(), e.pre(call), e.post(call, "x", false, false), e.post(call, "boom", true, false)}
				if c := e.compaction(); c != nil {
					events = append(events, c)
				}
				for _, ev := range events {
					var m map[string]any
					if err := json.Unmarshal(ev, &m); err != nil {
						t.Fatalf("%s: %v", ev, err)
					}
					parsed, err := p.ParseEvent(ev)
					if err != nil || parsed.Kind == live.KindOther {
						t.Errorf("%s: the hook does not read it (%v)", ev, err)
					}
					hint := bytes.Contains(ev, []byte(`"loopgate_`)) || bytes.Contains(ev, []byte(`"tool_input_raw"`))
					if own && (hint || (!stamps[agent] && bytes.Contains(ev, []byte(`"timestamp"`)))) {
						t.Errorf("own transcript, a member %s does not send: %s", agent, ev)
					}
					if !own && parsed.Kind == live.KindPre && !bytes.Contains(ev, []byte(`"loopgate_format":"nanobot"`)) {
						t.Errorf("another format's transcript without its hint: %s", ev)
					}
				}
			}
		})
	}
}

// TestSimulateAgents drives transcripts of each agent's own format through
// its own events: the hook decides every call as replay does.
func TestSimulateAgents(t *testing.T) {
	cases := []struct{ agent, dir string }{
		{"codex", "codex"}, {"gemini-cli", "gemini-cli"}, {"openhands", "openhands"}, {"hermes", "hermes"},
		{"pi", "pi"}, {"opencode", "opencode"}, {"qwen-code", "claude-code"}, {"claude-code", "claude-code"},
	}
	for _, tc := range cases {
		for _, preset := range []string{"loopgate", "hermes-strict", "nanobot"} {
			t.Run(tc.agent+"/"+preset, func(t *testing.T) {
				r, err := rules.Preset(preset)
				if err != nil {
					t.Fatal(err)
				}
				sim := &simulator{agent: tc.agent, rules: r, stateDir: t.TempDir()}
				files := ingest.Expand([]string{filepath.Join("..", "fixtures", "ingest", tc.dir)}, func(ingest.Problem) {})
				calls := 0
				for _, f := range files {
					results, err := sim.file(f, ingest.Options{})
					if err != nil {
						t.Fatal(err)
					}
					for _, res := range results {
						calls += len(res.Calls)
						for _, c := range res.Differences() {
							t.Errorf("%s call %d %s: hook %v, replay %v", f, c.Index, c.Tool, c.Hook, c.Replay)
						}
					}
				}
				if calls == 0 {
					t.Error("no calls simulated")
				}
			})
		}
	}
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
	cmd := exec.Command(node, driver)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v %s", err, stderr.String())
	}
	var got struct {
		Out     []string
		Aborted bool
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if len(got.Out) != 3 || got.Out[0] != "ran" || got.Out[1] != "ran" || !strings.HasPrefix(got.Out[2], "blocked: ") || got.Aborted {
		t.Errorf("calls: %q, aborted %v", got.Out, got.Aborted)
	}
}
