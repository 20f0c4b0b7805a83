package guard

import (
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

func parseRules(t *testing.T, text string) *rules.Rules {
	t.Helper()
	r, err := rules.Parse([]byte(text), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSetChangesBehaviour: a value changed with Set (sweep --vary) moves
// the call that is blocked.
func TestSetChangesBehaviour(t *testing.T) {
	q := `{"query":"q"}`
	steps := []step{{user: true, tool: "web_search", args: q}, {tool: "web_search", args: q}, {tool: "web_search", args: q}, {tool: "web_search", args: q}}
	r := preset(t, "nanobot")
	got := run(t, r, steps)
	if got[2].String() != "block:repeat:3" {
		t.Fatalf("nanobot blocks the 3rd lookup: got %s", got[2])
	}
	if err := r.Set("tools.class:web_search.repeat.block_at", "4"); err != nil {
		t.Fatal(err)
	}
	got = run(t, r, steps)
	if got[2].String() != "allow" || got[3].String() != "block:repeat:4" {
		t.Errorf("after Set block_at 4: 3rd %s, 4th %s", got[2], got[3])
	}

	pi := preset(t, "pi-loopguard")
	if err := pi.Set("tools.class:read.block_at", "7"); err != nil {
		t.Fatal(err)
	}
	read := step{tool: "read_file", args: `{"path":"x"}`}
	got = run(t, pi, []step{read, read, read, read, read, read, read})
	if got[3].String() != "steer:repeat:4" || got[4].String() != "allow" || got[6].String() != "block:repeat:7" {
		t.Errorf("pi with class:read block_at 7: %v", got)
	}
}

func TestPlaceholders(t *testing.T) {
	r := parseRules(t, `
name: p
detectors:
  repeat:
    block_at: 2
    block_message: "{tool}|{count}|{args}|{arg:path}|{json:path}|{json:none}|{arg:none}|{args_sha256}|{unknown}|{\"k\": 1}"
`)
	args := `{"name":"a","b":{"y":1,"x":"é"},"path":"C:\\x \"q\""}`
	got := run(t, r, []step{{tool: "t", args: args}, {tool: "t", args: args}})
	msg := got[1].before.Message
	parts := strings.Split(msg, "|")
	if len(parts) != 10 {
		t.Fatalf("message %q", msg)
	}
	want := []string{"t", "2", args, `C:\x "q"`, `"C:\\x \"q\""`, "null", "", "", "{unknown}", `{"k": 1}`}
	for i, w := range want {
		if i == 7 {
			if len(parts[i]) != 64 {
				t.Errorf("args_sha256 = %q", parts[i])
			}
			continue
		}
		if parts[i] != w {
			t.Errorf("placeholder %d = %q, want %q", i, parts[i], w)
		}
	}

	// hermes' args_hash: sha256 over sorted compact JSON, as Python writes it.
	h := parseRules(t, "name: h\ndetectors:\n  repeat:\n    block_at: 2\n    block_message: \"{args_sha256}\"\n")
	a := `{"name":"a","b":{"y":1,"x":"é"}}`
	got = run(t, h, []step{{tool: "t", args: a}, {tool: "t", args: a}})
	if m := got[1].before.Message; m != "5bfc5e182fc2be8bb2805e597478472a5322cd4e822ccfca930568de7785c5b1" {
		t.Errorf("args_sha256 = %s", m)
	}
}

// TestArgsSummary: pi shows JSON.stringify(input).slice(0, 120).
func TestArgsSummary(t *testing.T) {
	long := strings.Repeat("x", 200)
	ev := &CallEvent{ArgsOK: true, args: mustArgs(t, `{"z":"`+long+`","a":1}`), argsGiven: true}
	if s := argsSummary(ev, 120); len(s) != 120 || !strings.HasPrefix(s, `{"z":"xxx`) {
		t.Errorf("summary %q", s)
	}
	// A non-BMP character is 2 UTF-16 units.
	ev = &CallEvent{ArgsOK: true, args: mustArgs(t, `"`+strings.Repeat("😀", 70)+`"`), argsGiven: true}
	if s := argsSummary(ev, 120); s != strings.Repeat("😀", 60) {
		t.Errorf("non-BMP summary has %d runes", len([]rune(s)))
	}
	ev = &CallEvent{ArgsRaw: "{broken"}
	if s := argsSummary(ev, 120); s != "{broken" {
		t.Errorf("raw summary %q", s)
	}
}

// TestPriorities: when several detectors fire, the strongest action wins;
// among equals the first in rules.DetectorNames.
func TestPriorities(t *testing.T) {
	r := parseRules(t, `
name: prio
detectors:
  repeat: {steer_at: 2, steer_message: "repeat"}
  consecutive: {steer_at: 2, block_at: 3, block_message: "consecutive"}
  failure: {steer_at: 1, steer_message: "failure"}
`)
	c := step{tool: "x", args: `{}`}
	got := run(t, r, []step{c, c, c})
	if got[1].before.Detector != "repeat" || got[1].before.Action != Steer {
		t.Errorf("2nd call: %+v", got[1].before)
	}
	if got[2].before.Detector != "consecutive" || got[2].before.Action != Block {
		t.Errorf("3rd call: %+v", got[2].before)
	}
	f := step{tool: "x", args: `{"a":1}`, failed: true}
	got = run(t, r, []step{f})
	if got[0].after.Detector != "failure" || got[0].after.Message != "failure" {
		t.Errorf("failure steer after: %+v", got[0].after)
	}
}

// TestKeyScope: Key and Scope name "the same call to this guard".
func TestKeyScope(t *testing.T) {
	r := preset(t, "nanobot")
	got := run(t, r, []step{
		{user: true, tool: "web_search", args: `{"query":"A"}`},
		{tool: "web_search", args: `{"query":" a "}`},
		{tool: "web_search", args: `{"query":"b"}`},
		{user: true, tool: "web_search", args: `{"query":"a"}`},
		{tool: "web_search", args: `{"query":""}`},
	})
	if got[0].before.Key != "web_search::a" || got[1].before.Key != got[0].before.Key || got[1].before.Scope != got[0].before.Scope {
		t.Errorf("folded lookups must share key and scope: %+v %+v", got[0].before, got[1].before)
	}
	if got[2].before.Key == got[0].before.Key {
		t.Errorf("different query, same key")
	}
	if got[3].before.Key != got[0].before.Key || got[3].before.Scope == got[0].before.Scope {
		t.Errorf("a new turn must be a new scope: %+v vs %+v", got[3].before, got[0].before)
	}
	if got[4].before.Key != "" {
		t.Errorf("a call without a key: %+v", got[4].before)
	}
	// The after verdict carries the same key and scope.
	if got[1].after.Key != got[1].before.Key || got[1].after.Scope != got[1].before.Scope {
		t.Errorf("after verdict key/scope differ: %+v vs %+v", got[1].after, got[1].before)
	}

	// hermes' read/search streak spans turns, so a turn is not a new epoch.
	h := preset(t, "hermes-2026-06")
	got = run(t, h, []step{{user: true, tool: "read_file", args: `{"path":"a"}`}, {user: true, tool: "read_file", args: `{"path":"a"}`}})
	if got[0].before.Scope != got[1].before.Scope {
		t.Errorf("hermes: epoch changed at a turn although its streak spans turns")
	}
}

// TestParallelCalls: replay may run Before for every call of a response
// and then After for each; in-flight calls are kept apart.
func TestParallelCalls(t *testing.T) {
	r := preset(t, "hermes-dedup")
	g := NewGuard(r)
	g.UserTurn(t0)
	mk := func() *CallEvent {
		return &CallEvent{Tool: "read_file", Class: "read", args: mustArgs(t, `{"path":"a"}`), argsGiven: true, ArgsOK: true}
	}
	a, b := mk(), mk()
	va, vb := g.Before(a), g.Before(b)
	if va.Action != Allow || vb.Action != Allow {
		t.Errorf("no earlier result yet, so no dedup: %v %v", va.Action, vb.Action)
	}
	a.Result, b.Result = "R", "R"
	g.After(a, va)
	g.After(b, vb)
	c := mk()
	if v := g.Before(c); v.Action != Dedup || v.Count != 3 || !strings.HasSuffix(v.Message, "\nR") {
		t.Errorf("third call: %+v", v)
	}
	// After without Before must not panic or count.
	g.After(mk(), Verdict{})
}

// TestDedupClearedByWrite: a cached result is dropped when its path is written.
func TestDedupClearedByWrite(t *testing.T) {
	r := parseRules(t, `
name: d
scope:
  write_clears_reads: {writers: [class:write], readers: [class:read], path_args: [path]}
detectors:
  dedup: {message: "cached: {result}"}
`)
	read := `{"path":"/a"}`
	check(t, r, []step{
		{tool: "read_file", args: read, result: "v1"},
		{tool: "read_file", args: read, want: "dedup:dedup:2", msg: "cached: v1"},
		{tool: "write_file", args: `{"path":"/a","content":"v2"}`},
		{tool: "read_file", args: read, result: "v2"},
		{tool: "read_file", args: read, want: "dedup:dedup:2", msg: "cached: v2"},
	})
}

func TestOffAndAliases(t *testing.T) {
	r := parseRules(t, `
name: o
tools:
  class:shell: {off: true}
  kb: {aliases: [kb2], block_at: 2}
  read_file:
    repeat: {off: true}
detectors:
  repeat: {block_at: 3}
`)
	sh := step{tool: "bash", args: `{"command":"ls"}`}
	kb := step{tool: "kb2", args: `{}`}
	rf := step{tool: "read_file", args: `{}`}
	rd := step{tool: "Read", args: `{}`}
	check(t, r, []step{sh, sh, sh, sh, {tool: "kb2", args: `{}`}, {tool: kb.tool, args: kb.args, want: "block:repeat:2"}, rf, rf, rf, rd, rd, {tool: "Read", args: `{}`, want: "block:repeat:3"}})
}

func TestWindowResetMessage(t *testing.T) {
	r := preset(t, "pi-loopguard")
	if err := r.Set("scope.window_reset_message", "LoopGuard: counters reset"); err != nil {
		t.Fatal(err)
	}
	A := `{"url":"A"}`
	check(t, r, []step{
		{tool: "fetch_content", args: A, at: 1},
		{tool: "fetch_content", args: A, at: 2},
		{tool: "fetch_content", args: A, at: 3, want: "steer:repeat"},
		{tool: "fetch_content", args: `{"url":"B"}`, at: 200e9, want: "steer:scope", msg: "LoopGuard: counters reset"},
		{tool: "fetch_content", args: A, at: 201e9},
	})
}

// TestRandomStreams: every preset takes long random streams (odd
// arguments, missing times, failures, resets) without panicking, and
// every stopped call names its detector, count and key.
func TestRandomStreams(t *testing.T) {
	tools := []string{"read_file", "read", "terminal", "bash", "web_search", "web_fetch", "fetch_content", "edit", "write_file", "process", "grep", "unknown_tool"}
	argsList := []string{`{"path":"/a"}`, `{"path":"/b","offset":1}`, `{"query":"Q"}`, `{"url":"u"}`, `{"command":"echo '/loopguard reset'"}`,
		`{"command":"ls"}`, `null`, `"text"`, `[1,2]`, `{broken`, `{}`, `{"edits":[{"oldText":"a","newText":"b"}],"path":"/a"}`}
	seed := uint64(42)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(n))
	}
	for _, name := range rules.PresetNames() {
		r := preset(t, name)
		var steps []step
		for i := 0; i < 3000; i++ {
			s := step{tool: tools[next(len(tools))], args: argsList[next(len(argsList))], result: []string{"A", "B", ""}[next(3)],
				failed: next(4) == 0, user: next(40) == 0, compaction: next(200) == 0, round: next(2) == 0}
			if next(2) == 0 {
				s.at = time.Duration(i) * 7 * time.Second
			}
			steps = append(steps, s)
		}
		for i, o := range run(t, r, steps) {
			for _, v := range []Verdict{o.before, o.after, o.end} {
				if v.Action != Allow && (v.Detector == "" || (v.Action != Steer && v.Count == 0)) {
					t.Errorf("%s call %d: verdict without detector or count: %+v", name, i+1, v)
				}
				if v.Action.Stops() && v.Key == "" {
					t.Errorf("%s call %d: stopped without a key", name, i+1)
				}
			}
		}
	}
}

// BenchmarkGuard measures the engine alone: one call through Before and
// After, keys built from parsed arguments, for each preset.
func BenchmarkGuard(b *testing.B) {
	args := []string{`{"path":"/src/a.go","offset":1,"limit":200}`, `{"command":"go test ./...","timeout":60}`,
		`{"query":"golang yaml strict decoding"}`, `{"path":"/src/b.go","edits":[{"oldText":"x","newText":"y"}]}`}
	tools := []string{"read_file", "terminal", "web_search", "edit"}
	for _, name := range rules.PresetNames() {
		b.Run(name, func(b *testing.B) {
			r, err := rules.Preset(name)
			if err != nil {
				b.Fatal(err)
			}
			evs := make([]CallEvent, 64)
			for i := range evs {
				v, _ := jsonx.ParseString(args[i%len(args)])
				evs[i] = CallEvent{Tool: tools[i%len(tools)], args: &v, argsGiven: true, ArgsOK: true, ArgsRaw: args[i%len(args)], Result: "r", ResultHash: uint64(i % 3)}
				evs[i].Class = r.ClassOf(evs[i].Tool)
			}
			g := NewGuard(r)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%500 == 0 {
					g.UserTurn(t0)
				}
				ev := &evs[i%len(evs)]
				v := g.Before(ev)
				g.After(ev, v)
				if i%4 == 3 {
					g.EndRequest()
				}
			}
		})
	}
}

// TestLongKeys: keys longer than maxPlainKey are compacted to a digest
// inside the guard. Identical long calls must still count as one call,
// calls differing only past the compaction point must not, and a write
// must still clear a long read key whose path comes after byte 128.
func TestLongKeys(t *testing.T) {
	pad := strings.Repeat("x", 300)
	read := func(tail string) string {
		return `{"a_padding":"` + pad + `","path":"src/` + tail + `"}`
	}
	r := parseRules(t, `
name: long
scope:
  write_clears_reads:
    writers: [class:write]
    readers: [class:read]
    path_args: [path]
detectors:
  repeat:
    block_at: 2
`)
	got := run(t, r, []step{
		{tool: "read_file", args: read("a.go")},
		{tool: "read_file", args: read("b.go")}, // differs at byte ~320
		{tool: "read_file", args: read("a.go")}, // the 2nd identical: blocked
		{tool: "write_file", args: `{"path":"src/a.go","content":"` + pad + `"}`},
		{tool: "read_file", args: read("a.go")}, // cleared by the write: allowed
		{tool: "read_file", args: read("b.go")}, // not cleared: its 2nd, blocked
	})
	want := []string{"allow", "allow", "block:repeat:2", "allow", "allow", "block:repeat:2"}
	for i, w := range want {
		if got[i].String() != w {
			t.Errorf("call %d: %s, want %s", i+1, got[i], w)
		}
	}
	if k := compactKey("read_file::" + read("a.go")); len(k) > maxPlainKey || k == compactKey("read_file::"+read("b.go")) {
		t.Errorf("compact keys: %q", k)
	}
	// memo compacts keys built in its buffer: the same keys.
	for _, full := range []string{"read_file::" + read("a.go"), "read_file::{}", strings.Repeat("t", 300) + "::" + read("a.go")} {
		if a, b := compactKey(full), compactKeyBytes([]byte(full), false); a != b {
			t.Errorf("compactKeyBytes(%.40q) = %q, compactKey %q", full, b, a)
		}
	}
}

// TestStoppedByOtherDetector: a call another detector stopped never
// reached repeat or consecutive, so counts_blocked (which counts a
// detector's own blocks) does not count it, and it breaks no streak.
func TestStoppedByOtherDetector(t *testing.T) {
	r := parseRules(t, `
name: layers
detectors:
  tool_failure: {block_at: 1, reset_after_block: true}
  repeat: {only: [x], block_at: 3, counts_blocked: true}
  consecutive: {only: [y], steer_at: 3, counts_blocked: true}
`)
	x := `{"a":1}`
	check(t, r, []step{
		{tool: "x", args: x, failed: true},
		{tool: "x", args: x, want: "block:tool_failure:1"}, // not the 2nd call to repeat
		{tool: "x", args: x, result: "ok"},
		// Its own block counts: the 4th and 5th are blocked with counts 3, 4.
		{tool: "x", args: x, want: "block:repeat:3"},
		{tool: "x", args: x, want: "block:repeat:4"},
	})
	// The stopped call between two y calls does not break y's streak.
	check(t, r, []step{
		{tool: "x", args: x, failed: true},
		{tool: "y", args: x, result: "ok"},
		{tool: "x", args: x, want: "block:tool_failure:1"},
		{tool: "y", args: x, result: "ok"},
		{tool: "y", args: x, result: "ok", want: "steer:consecutive:3"},
	})
}

func TestReuse(t *testing.T) {
	s := []string{"a", "b", "c"}
	r := reuse(s, 2)
	if len(r) != 2 || r[0] != "" || r[1] != "" || &r[0] != &s[0] {
		t.Errorf("reuse(s, 2) = %q", r)
	}
	if s[2] != "" {
		t.Error("reuse kept a value past the new length")
	}
	if r := reuse(s, 5); len(r) != 5 || r[4] != "" {
		t.Errorf("reuse(s, 5) = %q", r)
	}
	m := map[string]int{"x": 1}
	if m2 := renewMap(m); len(m2) != 0 || len(m) != 0 {
		t.Error("renewMap kept an entry")
	}
	if renewMap[string, int](nil) == nil {
		t.Error("renewMap(nil) is nil")
	}
	var old detector = &repeatDet{steeredN: 3}
	if d := recycled[repeatDet](old); d != old {
		t.Error("recycled did not take the old detector")
	}
	if d := recycled[cycleDet](old); d == nil {
		t.Error("recycled of another type is nil")
	}
	if d := recycled[cycleDet](nil); d == nil {
		t.Error("recycled of none is nil")
	}
}
