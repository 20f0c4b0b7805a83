package replayfast

import (
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
)

// TestKeyIndexThroughTheBridge: a replay's path through this package
// reaches the guard's own numbering. Events numbered by one KeyIndex share
// a key exactly when the guard counts them as one call, a twin takes its
// earlier event's key, the zero KeyIndex serves nothing, and a guard built
// from a RuleCache decides as guard.NewGuard does.
func TestKeyIndexThroughTheBridge(t *testing.T) {
	r, err := guard.PresetRules("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	other, err := guard.PresetRules("pi-loopguard")
	if err != nil {
		t.Fatal(err)
	}
	var zero KeyIndex
	if zero.Serves(r) {
		t.Error("the zero KeyIndex serves rules")
	}
	ki := NewKeyIndex(r, 4)
	if !ki.Serves(r) || ki.Serves(other) {
		t.Errorf("a KeyIndex of loopgate's rules: serves them %v, serves pi-loopguard's %v", ki.Serves(r), ki.Serves(other))
	}
	event := func(tool, args string, pending bool) *guard.CallEvent {
		ev := &guard.CallEvent{Tool: tool, Class: r.ClassOf(tool), ArgsRaw: args, ArgsOK: true}
		if pending {
			SetArgs(ev, nil, true, true)
		} else {
			v, err := jsonx.ParseString(args)
			if err != nil {
				t.Fatal(err)
			}
			SetArgs(ev, &v, false, false)
		}
		return ev
	}
	a := event("read_file", `{"path": "a.go"}`, false)
	b := event("read_file", `{"path":"a.go"}`, true)
	c := event("read_file", `{"path":"b.go"}`, true)
	twin := event("read_file", `{"path": "a.go"}`, false)
	if ki.Number(a, r) != ki.Number(b, r) || ki.Number(c, r) != ki.Number(a, r) {
		t.Error("one tool, two numbers")
	}
	ki.NumberTwin(twin, a, r)
	ka, _ := Key(a)
	kt, _ := Key(twin)
	if !SameKey(a, b) || SameKey(a, c) || !SameKey(a, twin) || ka != kt {
		t.Errorf("same keys: a~b %v (want true), a~c %v (want false), a~twin %v %q %q (want true)", SameKey(a, b), SameKey(a, c), SameKey(a, twin), ka, kt)
	}

	rc := NewRuleCache(r)
	if !rc.Serves(r) || rc.Serves(other) {
		t.Errorf("a RuleCache of loopgate's rules: serves them %v, serves pi-loopguard's %v", rc.Serves(r), rc.Serves(other))
	}
	for round := range 2 { // the second guard takes the first's memory (Release)
		g, plain := rc.NewGuard(NewKeyIndex(r, 0)), guard.NewGuard(r)
		g.UserTurn(a.Time)
		plain.UserTurn(a.Time)
		for i := range 6 {
			ev, ev2 := event("read_file", `{"path":"a.go"}`, true), event("read_file", `{"path":"a.go"}`, false)
			ev.Index, ev2.Index = i+1, i+1
			v, w := g.Before(ev), plain.Before(ev2)
			if v.Action != w.Action || v.Detector != w.Detector || v.Message != w.Message {
				t.Fatalf("round %d call %d: from the cache %+v, from NewGuard %+v", round, i+1, v, w)
			}
			g.After(ev, v)
			plain.After(ev2, w)
		}
		rc.Release(g)
	}
}

// TestCallActsAndResultFacts: an effect decided by an argument, and a
// result whose members a reader noted reads as the guard reads it whole.
func TestCallActsAndResultFacts(t *testing.T) {
	r, err := guard.PresetRules("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, args string
		act        bool
	}{
		{"str_replace_editor", `{"command":"view","path":"a"}`, false},
		{"str_replace_editor", `{"command":"create","path":"a"}`, true},
		{"write_file", `{"path":"a"}`, true},
		{"read_file", `{"path":"a"}`, false},
	} {
		ev := &guard.CallEvent{Tool: c.tool, ArgsRaw: c.args, ArgsOK: true}
		if got := CallActs(r, ev); got != c.act {
			t.Errorf("CallActs(%s %s) = %v, want %v", c.tool, c.args, got, c.act)
		}
	}
	for _, res := range []string{`{"error":"no such file"}`, `{"success":true,"output":"x"}`, `{"exit_code":2}`, `{"_warning":"w","ok":1}`} {
		members := (*resultmembers.Members)(jsonx.TopLevelFields(res, resultmembers.Keys[:]...))
		norm, failed := ResultFacts(res, false, members)
		wantNorm, wantFailed := guard.ResultFacts(res, false)
		if norm != wantNorm || failed != wantFailed {
			t.Errorf("%s: with members %q, %v; read whole %q, %v", res, norm, failed, wantNorm, wantFailed)
		}
	}
}
