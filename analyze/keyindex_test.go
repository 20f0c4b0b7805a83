package analyze

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestCorpusRunsInterleavedKeySections: runs over one corpus whose
// configurations alternate between key sections (each preset has its own)
// report exactly what a replay from scratch reports: the keys numbered
// under one key section never leak into a run under another.
func TestCorpusRunsInterleavedKeySections(t *testing.T) {
	files := ingest.Expand([]string{filepath.Join("..", "fixtures")}, func(p ingest.Problem) {})
	counter, _ := tokens.New("chars4")
	corpus := LoadCorpus(files, Options{Jobs: 2})
	names := rules.PresetNames()
	order := append(append([]string{}, names...), names...)
	for i := len(names) - 1; i >= 0; i-- {
		order = append(order, names[i])
	}
	for _, name := range order {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(corpus.Run(r, counter, 2))
		want, _ := json.Marshal(Replay(files, Options{Rules: r, Tokens: counter, Jobs: 1}))
		if string(got) != string(want) {
			t.Errorf("%s: the in-memory run differs from a fresh replay", name)
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
			evs[i] = CallEvent{Tool: tools[(i*7/3)%len(tools)], Args: v, ArgsOK: true, ArgsRaw: a, Result: "r", ResultHash: uint64(i % 2), Index: i + 1}
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
	ki := newKeyIndex(r.KeyID(), 0)
	mk := func(a string) *CallEvent {
		v, _ := jsonx.ParseString(a)
		return &CallEvent{Tool: "read", Args: v, ArgsOK: true, ArgsRaw: a}
	}
	a, b, c := mk(`{"path":"x"}`), mk(`{"path":"y"}`), mk(`{"path":"x"}`)
	for _, ev := range []*CallEvent{a, b, c, a} {
		ki.memo(ev, r)
	}
	if a.kidx != c.kidx || a.kidx == b.kidx || len(ki.m) != 2 || a.ki != ki {
		t.Errorf("numbers %d %d %d over %d keys", a.kidx, b.kidx, c.kidx, len(ki.m))
	}
}
