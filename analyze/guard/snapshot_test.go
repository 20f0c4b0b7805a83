package guard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// The snapshot's proof of exactness: a guard saved after any event and
// restored into a fresh guard goes on exactly as the guard it was saved
// from, verdict for verdict (Key and Scope included), and saves the same
// snapshot again.

// applyStep feeds one step to g as run does, and returns its outcome (nil
// for a step without a call).
func applyStep(g *Guard, r *rules.Rules, i int, s step) *outcome {
	return applyStepWith(g, r, i, s, nil)
}

// applyStepWith is applyStep with the call's event changed by args, when
// not nil, once its arguments are parsed.
func applyStepWith(g *Guard, r *rules.Rules, i int, s step, args func(*CallEvent)) *outcome {
	switch {
	case s.prompt != "":
		g.UserPrompt(t0.Add(s.at), s.prompt)
	case s.user:
		g.UserTurn(t0.Add(s.at))
	}
	if s.compaction {
		g.Compaction()
	}
	if s.tool == "" {
		return nil
	}
	ev := &CallEvent{Index: i + 1, Tool: s.tool, Class: r.ClassOf(s.tool), ArgsRaw: s.args}
	if s.at > 0 {
		ev.Time = t0.Add(s.at)
	}
	if v, err := jsonx.ParseString(s.args); err == nil {
		ev.args, ev.argsGiven, ev.ArgsOK = &v, true, true
	}
	if args != nil {
		args(ev)
	}
	if s.other {
		g.OtherAgentCall(ev)
		return nil
	}
	var o outcome
	o.before = g.Before(ev)
	ev.Result, ev.ResultHash, ev.Failed, ev.IsError, ev.NoResult = s.result, hashResult(s.result), s.failed, s.failed, s.noResult
	o.after = g.After(ev, o.before)
	if s.round {
		o.end = g.EndRequest()
	}
	return &o
}

// checkSnapshots runs steps through a portable guard, saves it after
// every every-th step, restores the snapshot into a fresh guard, and
// requires both to go on identically to the end. It also requires the
// portable guard to decide as NewGuard does (keys aside: a long key's
// digest differs).
func checkSnapshots(t *testing.T, name string, r *rules.Rules, steps []step, every int) {
	t.Helper()
	plain := NewGuard(r)
	g := NewSavableGuard(r)
	var want []*outcome
	for i, s := range steps {
		o := applyStep(g, r, i, s)
		p := applyStep(plain, r, i, s)
		want = append(want, o)
		if o != nil && !sameDecision(*o, *p) {
			t.Fatalf("%s: step %d: portable guard %+v, NewGuard %+v", name, i+1, *o, *p)
		}
	}
	for cut := 0; cut <= len(steps); cut += every {
		a := NewSavableGuard(r)
		for i, s := range steps[:cut] {
			applyStep(a, r, i, s)
		}
		snap, err := a.AppendState(nil)
		if err != nil {
			t.Fatalf("%s: snapshot after step %d: %v", name, cut, err)
		}
		b := NewSavableGuard(r)
		if err := b.RestoreState(snap); err != nil {
			t.Fatalf("%s: restore after step %d: %v", name, cut, err)
		}
		if again, _ := b.AppendState(nil); !bytes.Equal(again, snap) {
			t.Fatalf("%s: the restored guard's snapshot after step %d differs", name, cut)
		}
		for i := cut; i < len(steps); i++ {
			oa := applyStep(a, r, i, steps[i])
			ob := applyStep(b, r, i, steps[i])
			if (oa == nil) != (ob == nil) || oa != nil && (*oa != *ob || *oa != *want[i]) {
				t.Fatalf("%s: restored after step %d, step %d (%s %s): restored %+v, saved guard %+v, uninterrupted %+v",
					name, cut, i+1, steps[i].tool, steps[i].args, ob, oa, want[i])
			}
		}
		sa, _ := a.AppendState(nil)
		sb, _ := b.AppendState(nil)
		if !bytes.Equal(sa, sb) {
			t.Fatalf("%s: restored after step %d: final snapshots differ", name, cut)
		}
	}
}

// sameDecision compares two outcomes but for their keys.
func sameDecision(a, b outcome) bool {
	for _, p := range [][2]Verdict{{a.before, b.before}, {a.after, b.after}, {a.end, b.end}} {
		x, y := p[0], p[1]
		x.Key, y.Key = "", ""
		if x != y {
			return false
		}
	}
	return true
}

// snapshotRules are every preset and the rules of every scenario test
// (check saves each scenario's sequence under its own rules too).
func snapshotRules(t *testing.T) map[string]*rules.Rules {
	out := map[string]*rules.Rules{}
	for _, name := range rules.PresetNames() {
		out[name] = preset(t, name)
	}
	return out
}

// TestSnapshotRandom: random sequences with repeats, failures, blank and
// error-shaped results, long keys, turns, compactions, rounds, time gaps
// past the windows and the manual reset command, under every preset,
// saved and restored at many points.
func TestSnapshotRandom(t *testing.T) {
	seqs := 6
	if testing.Short() {
		seqs = 1 // -short: seed 0, saved and restored after every step
	}
	for name, r := range snapshotRules(t) {
		for seed := range seqs {
			steps := randomSteps(rand.New(rand.NewPCG(uint64(seed), 7)), 120)
			checkSnapshots(t, fmt.Sprintf("%s seed %d", name, seed), r, steps, 1+seed%5)
		}
	}
}

// TestSnapshotScenarios saves and restores the scenario tests' sequences
// (scenarioSequences) under every preset; check does the same under each
// scenario's own rules.
func TestSnapshotScenarios(t *testing.T) {
	seqs := scenarioSequences()
	if len(seqs) < 5 {
		t.Fatalf("only %d scenario sequences", len(seqs))
	}
	for name, r := range snapshotRules(t) {
		for i, steps := range seqs {
			checkSnapshots(t, fmt.Sprintf("%s scenario %d", name, i), r, steps, 1)
		}
	}
}

// scenarioSequences are call streams of the scenario tests, rebuilt here
// (their steps are inline in each test).
func scenarioSequences() [][]step {
	long := `{"path":"/` + strings.Repeat("deep/", 40) + `file.txt"}`
	return [][]step{
		attractorSteps([]string{"a"}, 14),
		attractorSteps([]string{"a", "b"}, 24),
		attractorSteps([]string{"a", "b", "c"}, 30),
		{
			{user: true, tool: "fetch_content", args: `{"url":"https://x"}`, result: "page"},
			{tool: "fetch_content", args: `{"url":"https://x"}`, result: "page"},
			{tool: "fetch_content", args: `{"url":"https://x"}`, result: "page"},
			{tool: "fetch_content", args: `{"url":"https://x"}`, result: "page"},
			{tool: "fetch_content", args: `{"url":"https://x"}`, result: "page"},
			{user: true, tool: "fetch_content", args: `{"url":"https://x"}`, result: "page"},
		},
		{
			{user: true, tool: "read", args: `{"path":"a.go"}`, result: "A", at: time.Second},
			{tool: "read", args: `{"path":"a.go"}`, result: "A", at: 2 * time.Second},
			{tool: "write", args: `{"path":"a.go","content":"x"}`, result: "ok", at: 3 * time.Second},
			{tool: "read", args: `{"path":"a.go"}`, result: "A2", at: 4 * time.Second},
			{tool: "read", args: long, result: "L", at: 5 * time.Second},
			{tool: "read", args: long, result: "L", at: 3 * time.Minute},
			{tool: "bash", args: `{"command":"echo '/loopguard reset'"}`, result: "", at: 4 * time.Minute},
			{tool: "read", args: long, result: "L", at: 5 * time.Minute},
		},
		{
			{user: true, tool: "terminal", args: `{"command":"make"}`, result: `{"exit_code": 2, "output": "error"}`, failed: true},
			{tool: "terminal", args: `{"command":"make"}`, result: `{"exit_code": 2, "output": "error"}`, failed: true},
			{tool: "terminal", args: `{"command":"make"}`, result: `{"exit_code": 2, "output": "error"}`, failed: true},
			{tool: "terminal", args: `{"command":"make"}`, result: `{"exit_code": 2, "output": "error"}`, failed: true},
			{tool: "patch", args: `{"path":"m"}`, result: `{"success": true}`},
			{tool: "terminal", args: `{"command":"make"}`, result: `{"exit_code": 0}`},
			{compaction: true, tool: "read_file", args: `{"path":"x"}`, result: "same"},
			{tool: "read_file", args: `{"path":"x"}`, result: "same"},
			{tool: "read_file", args: `{"path":"x"}`, result: "same"},
			{tool: "read_file", args: `{"path":"x"}`, result: "same"},
			{tool: "search_files", args: `{"pattern":"x"}`, result: ""},
			{tool: "search_files", args: `{"pattern":"x"}`, result: ""},
		},
	}
}

var (
	randTools = []string{"read_file", "write_file", "terminal", "search_files", "web_search", "edit", "bash", "fetch_content", "patch", "delegate_task", "execute_code", "memory", "read", "write"}
	randArgs  = []string{`{"path":"a.go"}`, `{"path":"b.go"}`, `{"command":"make"}`, `{"command":"echo '/loopguard reset'"}`,
		`{"query":"x"}`, `{"url":"https://e"}`, `{"path":"a.go","content":"new"}`, `not json`, ``,
		`{"path":"/` + strings.Repeat("long/", 40) + `"}`, `{"tasks":[1,2,3]}`, `{"code":"print(1)"}`}
	randResults = []string{"ok", "same", "", "Error: no such file", `{"exit_code": 1, "output": "fail"}`, `{"exit_code": 0}`,
		`{"success": false, "error": "would exceed the limit"}`, `{"output": "1", "duration_seconds": 0.5}`,
		"page\n\n[loop guard: repeated]", strings.Repeat("x", 300)}
)

// randomSteps draws a call stream: few tools and arguments, so that
// repeats, streaks and cycles happen.
func randomSteps(rng *rand.Rand, n int) []step {
	var steps []step
	var at time.Duration
	for i := range n {
		s := step{
			tool:   randTools[rng.IntN(len(randTools))],
			args:   randArgs[rng.IntN(len(randArgs))],
			result: randResults[rng.IntN(len(randResults))],
			round:  rng.IntN(3) == 0,
		}
		if rng.IntN(4) == 0 {
			// a streak: the same call again
			if i > 0 {
				p := steps[i-1]
				s.tool, s.args, s.result = p.tool, p.args, p.result
			}
		}
		s.failed = rng.IntN(4) == 0
		s.user = i == 0 || rng.IntN(25) == 0
		s.compaction = rng.IntN(40) == 0
		switch rng.IntN(10) {
		case 0:
			at += 3 * time.Minute // past pi's window
		case 1:
			// no time
		default:
			at += time.Duration(rng.IntN(20)) * time.Second
		}
		if at > 0 && rng.IntN(10) != 1 {
			s.at = at
		}
		steps = append(steps, s)
	}
	return steps
}

// stepsFromBytes reads a fuzzer's input as a call stream, three bytes a
// step.
func stepsFromBytes(data []byte) []step {
	var steps []step
	var at time.Duration
	for len(data) >= 3 {
		a, b, c := data[0], data[1], data[2]
		data = data[3:]
		s := step{
			tool:   randTools[int(a)%len(randTools)],
			args:   randArgs[int(b)%len(randArgs)],
			result: randResults[int(c)%len(randResults)],
			failed: c&0x80 != 0,
			round:  b&0x80 != 0,
			user:   a&0x80 != 0,
		}
		s.compaction = a&0x40 != 0 && b&0x40 != 0
		at += time.Duration(c&0x3f) * 5 * time.Second
		if c&0x40 == 0 {
			s.at = at
		}
		steps = append(steps, s)
	}
	return steps
}

// FuzzSnapshot: any call stream, any preset, saved after any step,
// restored, goes on identically.
func FuzzSnapshot(f *testing.F) {
	f.Add([]byte("\x80\x01\x02\x00\x01\x02\x00\x01\x02\x00\x01\x02"), uint8(0), uint8(2))
	f.Add([]byte("\x82\x83\xc4\x02\x03\x04\x02\x03\x04\x41\x42\x05\x02\x03\x04"), uint8(3), uint8(1))
	names := rules.PresetNames()
	presets := make([]*rules.Rules, len(names))
	for i, n := range names {
		r, err := rules.Preset(n)
		if err != nil {
			f.Fatal(err)
		}
		presets[i] = r
	}
	f.Fuzz(func(t *testing.T, data []byte, p, every uint8) {
		if len(data) > 600 {
			return
		}
		steps := stepsFromBytes(data)
		checkSnapshots(t, names[int(p)%len(names)], presets[int(p)%len(names)], steps, 1+int(every)%8)
	})
}

// TestSnapshotRefused: no snapshot of a guard whose hashes are the
// process's own, nor of one with a call in flight; a snapshot cut short
// or altered is refused or restores without a panic; and one is refused
// by a guard that has seen calls.
func TestSnapshotRefused(t *testing.T) {
	r := preset(t, "loopgate")
	if _, err := NewGuard(r).AppendState(nil); !errors.Is(err, errNotPortable) {
		t.Errorf("NewGuard's snapshot: %v, want errNotPortable", err)
	}
	g := NewSavableGuard(r)
	steps := randomSteps(rand.New(rand.NewPCG(1, 2)), 40)
	for i, s := range steps {
		applyStep(g, r, i, s)
	}
	ev := &CallEvent{Tool: "read_file", ArgsRaw: `{"path":"z"}`}
	v := g.Before(ev)
	if _, err := g.AppendState(nil); !errors.Is(err, ErrInFlight) {
		t.Errorf("snapshot with a call in flight: %v, want ErrInFlight", err)
	}
	g.After(ev, v)
	snap, err := g.AppendState(nil)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(snap); n++ {
		if err := NewSavableGuard(r).RestoreState(snap[:n]); err == nil {
			t.Fatalf("a snapshot cut to %d of %d bytes restored", n, len(snap))
		}
	}
	for i := range snap {
		bad := bytes.Clone(snap)
		bad[i] ^= 0xff
		h := NewSavableGuard(r)
		if h.RestoreState(bad) == nil {
			// Some bytes are counts or texts whose change still reads:
			// the guard must then run without a panic.
			for j, s := range steps {
				applyStep(h, r, j, s)
			}
		}
	}
	version := binary.AppendUvarint(nil, snapshotVersion+1)
	if err := NewSavableGuard(r).RestoreState(append(version, snap[1:]...)); err == nil {
		t.Error("a snapshot of another version restored")
	}
	if err := g.RestoreState(snap); err == nil {
		t.Error("a guard that has seen calls took a snapshot")
	}
	other := preset(t, "attractor")
	if err := NewSavableGuard(other).RestoreState(snap); err == nil {
		t.Error("a snapshot of loopgate's detectors restored under attractor's")
	}
}
