package simulate

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/rules"
)

var update = flag.Bool("update", false, "rewrite testdata/rounds.jsonl from writeRoundsTranscript")

// roundsTranscript is the synthetic Claude Code transcript of
// writeRoundsTranscript, kept in testdata so that the command's tests (in
// package cli) drive the same one.
var roundsTranscript = filepath.Join("testdata", "rounds.jsonl")

// TestRoundsTranscript: testdata/rounds.jsonl is what writeRoundsTranscript
// writes (go test -run TestRoundsTranscript -update rewrites it).
func TestRoundsTranscript(t *testing.T) {
	want := writeRoundsTranscript()
	if *update {
		if err := os.WriteFile(roundsTranscript, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(roundsTranscript)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s differs from writeRoundsTranscript's text (run with -update): %v", roundsTranscript, err)
	}
}

// writeRoundsTranscript writes a Claude Code session: model requests of two
// parallel calls (one message.id over two lines, results between them),
// an A-B cycle long enough for attractor's round check, calls minutes
// apart (pi's 2-minute window), failing calls (hermes-strict's halt), a
// compaction and a second user turn.
func writeRoundsTranscript() []byte {
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
	return b.Bytes()
}

// hookCorpus is every fixture, every sample (when present), and the
// synthetic Claude Code transcript of parallel calls, time gaps and a
// compaction (writeRoundsTranscript).
func hookCorpus(t *testing.T) []string {
	paths := []string{filepath.Join("..", "..", "fixtures"), roundsTranscript}
	samples := filepath.Join("..", "..", "..", "shared", "samples")
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
	fixtures := filepath.Join("..", "..", "fixtures")
	sample := 0 // the files of the samples, numbered in walk order
	share := map[string]int{}
	for _, f := range files {
		if !strings.HasPrefix(f, fixtures+string(filepath.Separator)) && strings.HasPrefix(f, filepath.Join("..", "..", "..", "shared")) {
			share[f] = sample
			sample++
		}
	}
	presets := rules.PresetNames()
	// The verdicts the corpus must show (checked below), one preset each.
	verdicts := []string{"loopgate dedup", "attractor steer", "pi-loopguard block", "pi-loopguard steer", "hermes-dedup dedup", "hermes-strict halt"}
	if testing.Short() {
		// -short: the presets of those verdicts, over the fixtures.
		presets = []string{"loopgate", "attractor", "pi-loopguard", "hermes-dedup", "hermes-strict"}
	}
	var mu sync.Mutex
	stopped := map[string]int{}
	// The presets run two at a time (parallel subtests within the group,
	// which returns when all of them have): each has its own state
	// directory, so they share nothing but the verdict counts.
	t.Run("presets", func(t *testing.T) {
		for pi, preset := range presets {
			t.Run(preset, func(t *testing.T) {
				t.Parallel()
				r, err := rules.Preset(preset)
				if err != nil {
					t.Fatal(err)
				}
				sim := &Simulator{Rules: r, StateDir: t.TempDir()}
				calls := 0
				for _, f := range files {
					if n, isSample := share[f]; isSample && n%len(presets) != pi {
						continue
					}
					results, err := sim.File(f, ingest.Options{})
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
								mu.Lock()
								stopped[preset+" "+c.Replay.Action]++
								mu.Unlock()
							}
						}
					}
				}
				if calls < 100 {
					t.Errorf("only %d calls simulated", calls)
				}
				// The hook kept checkpoints of its sessions (live's
				// checkpoint.go), which later calls start from: the comparison
				// covers that path, not only the rebuild from the log
				// (TestCheckpointEquivalence counts the calls that restored one).
				snaps := 0
				_ = filepath.WalkDir(sim.StateDir, func(p string, d os.DirEntry, err error) error {
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
	})
	// The comparison must have had something to compare: every kind of
	// verdict the presets give on this corpus.
	for _, want := range verdicts {
		if stopped[want] == 0 {
			t.Errorf("no %q verdict in the corpus: the equivalence would not see it differ (%v)", want, stopped)
		}
	}
}

// TestHookResultBlocks: a result sent as content blocks (as a Claude Code
// tool_result's content may be) reads as the transcript readers read it,
// so the hook still decides every call as replay.
func TestHookResultBlocks(t *testing.T) {
	files := []string{roundsTranscript, filepath.Join("..", "..", "fixtures", "golden")}
	for _, preset := range []string{"loopgate", "hermes-dedup", "hermes-strict"} {
		r, _ := rules.Preset(preset)
		sim := &Simulator{Rules: r, StateDir: t.TempDir(), Blocks: true}
		n := 0
		for _, f := range ingest.Expand(files, func(ingest.Problem) {}) {
			results, err := sim.File(f, ingest.Options{})
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

// TestSimulateAgentEvents: simulate writes each agent's own events, and
// for the agent's own transcripts nothing the agent does not send (no
// loopgate_ hint, no tool_input_raw; a time only where the agent stamps
// its events).
func TestSimulateAgentEvents(t *testing.T) {
	stamps := map[string]bool{"gemini-cli": true, "qwen-code": true}
	call := callEvent{id: "call_1", tool: "read_file", args: `{"path":"/a"}`, argsOK: true, time: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), request: "r1"}
	for _, agent := range Agents {
		t.Run(agent, func(t *testing.T) {
			p := live.Lookup(agent)
			for _, own := range []bool{true, false} {
				e := &eventWriter{agent: agent, sid: "s1", scope: "main", format: p.Format, own: own}
				if !own {
					e.format = "nanobot"
				}
				events := [][]byte{e.prompt("fix a.go"), e.prompt(""), e.pre(call), e.post(call, "x", false, false), e.post(call, "boom", true, false)}
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
				sim := &Simulator{Agent: tc.agent, Rules: r, StateDir: t.TempDir()}
				files := ingest.Expand([]string{filepath.Join("..", "..", "fixtures", "ingest", tc.dir)}, func(ingest.Problem) {})
				calls := 0
				for _, f := range files {
					results, err := sim.File(f, ingest.Options{})
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

// TestCodexFoundNothing: Codex hands its hook a shell command's output
// alone, and the hook reads the exit code from the rollout. A search that
// found nothing (exit code 1, no output) is answered at its repeat, live
// as in replay; a command that printed nothing and timed out (exit code
// 124) runs again.
func TestCodexFoundNothing(t *testing.T) {
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	line(`{"timestamp":"2026-02-03T10:00:00.000Z","type":"session_meta","payload":{"id":"0c0c0c0c-0000-4000-8000-00000000cafe","timestamp":"2026-02-03T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.128.0"}}`)
	line(`{"timestamp":"2026-02-03T10:00:00.500Z","type":"turn_context","payload":{"model":"gpt-5-codex"}}`)
	line(`{"timestamp":"2026-02-03T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Where is plum used?"}]}}`)
	shell := func(sec int, id, cmd string, exit int) {
		ts := fmt.Sprintf("2026-02-03T10:00:%02d", sec)
		line(`{"timestamp":"` + ts + `.000Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"` + cmd + `\"}","call_id":"` + id + `"}}`)
		line(fmt.Sprintf(`{"timestamp":"%s.400Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"%s","exit_code":%d}}`, ts, id, exit))
		line(fmt.Sprintf(`{"timestamp":"%s.500Z","type":"response_item","payload":{"type":"function_call_output","call_id":"%s","output":"Exit code: %d\nWall time: 0.1 seconds\nOutput:\n"}}`, ts, id, exit))
	}
	shell(2, "call_1", "rg -n plum src", 1)
	shell(3, "call_2", "rg -n plum src", 1)
	shell(4, "call_3", "cat /w/big.log", 124)
	shell(5, "call_4", "cat /w/big.log", 124)
	checkFoundNothing(t, "codex", "rollout-2026-02-03T10-00-00-0c0c0c0c-0000-4000-8000-00000000cafe.jsonl", b.String(), ingest.Options{},
		[]string{"allow", "dedup", "allow", "steer"})
}

// TestOpenHandsFoundNothing: an OpenHands terminal observation of a
// command that printed nothing and exited 1 (is_error false, the exit
// code beside the content) is answered at its repeat, live as in replay.
func TestOpenHandsFoundNothing(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"kind": "MessageEvent", "id": "e1", "timestamp": "2026-03-01T09:00:01", "source": "user", "llm_message": {"role": "user", "content": [{"type": "text", "text": "Show the absent file"}]}}` + "\n")
	for i, sec := range []int{2, 4} {
		id := fmt.Sprintf("call_%d", i+1)
		b.WriteString(fmt.Sprintf(`{"kind": "ActionEvent", "id": "a%d", "timestamp": "2026-03-01T09:00:%02d", "source": "agent", "action": {"kind": "TerminalAction", "command": "cat absent.txt 2> /dev/null"}, "tool_name": "terminal", "tool_call_id": %q, "tool_call": {"id": %q, "name": "terminal", "arguments": "{\"command\": \"cat absent.txt 2> /dev/null\"}"}, "llm_response_id": "r%d"}`+"\n", i+1, sec, id, id, i+1))
		b.WriteString(fmt.Sprintf(`{"kind": "ObservationEvent", "id": "o%d", "timestamp": "2026-03-01T09:00:%02d", "source": "environment", "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": ""}], "is_error": false, "exit_code": 1}, "action_id": "a%d", "tool_name": "terminal", "tool_call_id": %q}`+"\n", i+1, sec+1, i+1, id))
	}
	checkFoundNothing(t, "openhands", "events.jsonl", b.String(), ingest.Options{Format: "openhands-v1"}, []string{"allow", "dedup"})
}

// checkFoundNothing drives the transcript text, written as name, through
// agent's hook under the loopgate preset: every call gets from the hook
// what replay gives it, and the hook's actions are want's.
func checkFoundNothing(t *testing.T, agent, name, text string, opt ingest.Options, want []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	sim := &Simulator{Agent: agent, Rules: r, StateDir: t.TempDir()}
	results, err := sim.File(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || len(results[0].Calls) != len(want) {
		t.Fatalf("%d sessions, want 1 of %d calls: %+v", len(results), len(want), results)
	}
	for i, c := range results[0].Calls {
		if !c.Same() || c.Hook.Action != want[i] {
			t.Errorf("call %d (%s): hook %v, replay %v; want %s", c.Index, c.Tool, c.Hook, c.Replay, want[i])
		}
	}
}
