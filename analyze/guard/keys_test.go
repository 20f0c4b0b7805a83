package guard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// compactKey is compactKeyBytes of a key given as text.
func compactKey(full string) string {
	if len(full) <= maxPlainKey {
		return full
	}
	return compactKeyBytes([]byte(full), false)
}

// TestReleaseEmptiesGuard: a guard handed back to its RuleCache keeps no
// state of its session, and the next guard of the cache takes its memory
// and decides as a new guard would.
func TestReleaseEmptiesGuard(t *testing.T) {
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	rc := newRuleCache(r)
	feed := func(g *Guard) []Verdict {
		var out []Verdict
		g.UserTurn(t0)
		for range 6 {
			ev := &CallEvent{Tool: "read_file", args: mustArgs(t, `{"path":"/a"}`), argsGiven: true, ArgsOK: true, ArgsRaw: `{"path":"/a"}`, Result: "x", ResultHash: 1}
			v := g.Before(ev)
			after := g.After(ev, v)
			Raise(&v, &after)
			out = append(out, v)
		}
		return out
	}
	want := feed(NewGuard(r))
	if want[len(want)-1].Action == Allow {
		t.Fatal("the stream triggers no detector: nothing to compare")
	}
	g := rc.NewGuard(newKeyIndex(r, 0))
	feed(g)
	rc.Release(g)
	if rc.spare != g {
		t.Fatal("Release kept no spare guard")
	}
	if g.ki != nil || len(g.inflight) != 0 || g.lastKey != "" || len(g.epoch) != 0 {
		t.Errorf("spare guard not emptied: %+v", g)
	}
	again := rc.NewGuard(newKeyIndex(r, 0))
	if again != g {
		t.Error("NewGuard did not take the spare guard")
	}
	got := feed(again)
	for i := range want {
		if got[i].Action != want[i].Action || got[i].Detector != want[i].Detector || got[i].Count != want[i].Count {
			t.Errorf("call %d: reused guard %+v, new guard %+v", i+1, got[i], want[i])
		}
	}
}

// TestGuardEventsSharedAcrossGuards: plain CallEvents given to one guard
// and then to another one (other rules, or the same rules) decide as on
// fresh copies of the events.
func TestGuardEventsSharedAcrossGuards(t *testing.T) {
	args := []string{`{"path":"/src/a.go"}`, `{"command":"go test ./..."}`, `{"path":"/src/a.go","content":"x"}`, `{"path":"/src/b.go"}`}
	tools := []string{"read_file", "terminal", "write_file", "read_file"}
	build := func(n int) []CallEvent {
		evs := make([]CallEvent, n)
		for i := range evs {
			a := args[(i*7/3)%len(args)]
			v, _ := jsonx.ParseString(a)
			evs[i] = CallEvent{Tool: tools[(i*7/3)%len(tools)], args: &v, argsGiven: true, ArgsOK: true, ArgsRaw: a, Result: "r", ResultHash: uint64(i % 2), Index: i + 1}
		}
		return evs
	}
	run := func(r *rules.Rules, evs []CallEvent) []Verdict {
		g := NewGuard(r)
		var out []Verdict
		for i := range evs {
			ev := &evs[i]
			ev.Class = r.ClassOf(ev.Tool)
			if i%9 == 0 {
				g.UserTurn(t0)
			}
			v := g.Before(ev)
			a := g.After(ev, v)
			out = append(out, v, a)
			if i%3 == 2 {
				out = append(out, g.EndRequest())
			}
		}
		return out
	}
	shared := build(60)
	for _, name := range append(rules.PresetNames(), rules.PresetNames()...) {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(run(r, build(60)))
		got, _ := json.Marshal(run(r, shared))
		if string(got) != string(want) {
			t.Errorf("%s: verdicts on events another guard saw differ from fresh ones", name)
		}
	}
}

// TestKeyIndexNumbersOncePerSection: a key section numbers each distinct
// key once, and events remember their numbers.
func TestKeyIndexNumbersOncePerSection(t *testing.T) {
	r, err := rules.Preset("pi-loopguard")
	if err != nil {
		t.Fatal(err)
	}
	ki := newKeyIndex(r, 0)
	mk := func(a string) *CallEvent {
		v, _ := jsonx.ParseString(a)
		return &CallEvent{Tool: "read", args: &v, argsGiven: true, ArgsOK: true, ArgsRaw: a}
	}
	a, b, c := mk(`{"path":"x"}`), mk(`{"path":"y"}`), mk(`{"path":"x"}`)
	for _, ev := range []*CallEvent{a, b, c, a} {
		ki.memo(ev, r)
	}
	if a.kidx != c.kidx || a.kidx == b.kidx || len(ki.m) != 2 || a.ki != ki {
		t.Errorf("numbers %d %d %d over %d keys", a.kidx, b.kidx, c.kidx, len(ki.m))
	}
}

// TestNumberTwin: a call keyed as the twin of an earlier call with the
// same arguments in another member order gets the key, key number and
// tool number that keying it afresh gives, under every preset (those
// whose keys keep member order build its own key), and one whose twin is
// not keyed yet under the index is keyed afresh.
func TestNumberTwin(t *testing.T) {
	const first = `{"path":"/src/a.go","limit":200,"opts":{"z":1,"a":[{"y":2,"b":3}]},"url":"https://example.com","query":"q"}`
	const second = `{"query":"q","opts":{"a":[{"b":3,"y":2}],"z":1},"url":"https://example.com","limit":200,"path":"/src/a.go"}`
	tools := []string{"read_file", "web_search", "terminal", "mcp_custom_tool"}
	for _, name := range rules.PresetNames() {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			ev := func(raw string) *CallEvent {
				return &CallEvent{Tool: tool, args: mustArgs(t, raw), argsGiven: true, ArgsOK: true, ArgsRaw: raw}
			}
			// The reference: each call keyed afresh under its own index
			// after the same earlier call.
			ref := newKeyIndex(r, 0)
			ref.Number(ev(first), r)
			want := ev(second)
			wantTool := ref.Number(want, r)

			ki := newKeyIndex(r, 0)
			prev := ev(first)
			ki.Number(prev, r)
			got := ev(second)
			gotTool := ki.NumberTwin(got, prev, r)
			if got.key != want.key || got.hasKey != want.hasKey || got.kidx != want.kidx || gotTool != wantTool {
				t.Errorf("%s, %s: twin keyed %q (%v, #%d, tool %d), afresh %q (%v, #%d, tool %d)",
					name, tool, got.key, got.hasKey, got.kidx, gotTool, want.key, want.hasKey, want.kidx, wantTool)
			}
			if keySortsMembers(r) && got.key != prev.key {
				t.Errorf("%s, %s: sorted keys differ: %q, %q", name, tool, got.key, prev.key)
			}
			// A twin keyed under another index is no help.
			other := newKeyIndex(r, 0)
			lone := ev(second)
			wantKidx := int32(-1)
			if want.hasKey {
				wantKidx = 0 // the first key of the index
			}
			if tid := other.NumberTwin(lone, prev, r); lone.ki != other || lone.key != want.key || tid != 0 || lone.kidx != wantKidx {
				t.Errorf("%s, %s: twin keyed under another index: key %q, #%d, tool %d", name, tool, lone.key, lone.kidx, tid)
			}
		}
	}
}

// TestKeyIndexKeysAndNumbers: short and long keys, repeated, get the key
// the rules build (compacted when long) and numbers 0, 1, 2, ... in the
// order of their first call, the same for equal keys; a KeyIndex loaded
// from a snapshot of it goes on with the same keys and numbers.
func TestKeyIndexKeysAndNumbers(t *testing.T) {
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{`{"path":"a"}`, `{"path":"b"}`, `{"command":"` + strings.Repeat("x", 200) + `"}`, `{"command":"` + strings.Repeat("y", 200) + `"}`}
	want := map[string]int32{}
	check := func(ki *keyIndex, round int) {
		for i := range 3 * len(args) {
			a := args[(i*7+round)%len(args)]
			v, _ := jsonx.ParseString(a)
			ev := &CallEvent{Tool: "bash", args: &v, argsGiven: true, ArgsOK: true, ArgsRaw: a, argsCompact: true}
			ki.memo(ev, r)
			full, ok := appendCallKeyWith(r, nil, toolKeyFor(r, "bash"), "bash", v, true, a)
			if !ok || !ev.hasKey || ev.key != compactKey(string(full)) {
				t.Fatalf("round %d: key of %.30s = %q, want %q", round, a, ev.key, compactKey(string(full)))
			}
			n, seen := want[ev.key]
			if !seen {
				n = int32(len(want))
				want[ev.key] = n
			}
			if ev.kidx != n {
				t.Fatalf("round %d: number of %.30s = %d, want %d", round, a, ev.kidx, n)
			}
		}
	}
	ki := newKeyIndex(r, 0)
	args = args[:3]
	check(ki, 0)
	var w snapbin.Writer
	ki.save(&w)
	loaded := newKeyIndex(r, 0)
	loaded.load(snapbin.NewReader(w.B))
	args = append(args, `{"command":"`+strings.Repeat("y", 200)+`"}`, `{"path":"c"}`)
	check(loaded, 1)
	check(loaded, 2)
}
