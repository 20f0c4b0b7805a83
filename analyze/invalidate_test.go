package analyze

import (
	"fmt"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
)

// TestInvalidation: a repeat after an act that may have changed what it
// observes is not redundant, and the loopgate preset does not stop it;
// a repeat with only unrelated acts between is redundant and stopped.
// Each case is one session of one turn: the truth (Prepare) and the
// replay under the loopgate preset (Run) judge its last call.
func TestInvalidation(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	r := preset(t, "loopgate")
	type c struct{ tool, args, result string }
	read := c{"read_file", `{"path":"src/a.go"}`, "package a"}
	readB := c{"read_file", `{"path":"src/b.go"}`, "package b"}
	writeA := c{"write_file", `{"path":"src/a.go","content":"package a"}`, "ok"}
	writeB := c{"write_file", `{"path":"src/b.go","content":"package b"}`, "ok"}
	cases := []struct {
		name      string
		calls     []c
		redundant bool // the last call
	}{
		{"read, write to its path, read", []c{read, {"write_file", `{"path":"src/a.go","content":"package a"}`, "ok"}, read}, false},
		{"read, edit by an absolute path, read", []c{read, {"Edit", `{"file_path":"/repo/src/a.go","old_string":"x","new_string":"y"}`, "ok"}, read}, false},
		{"read, write to another path, read", []c{read, {"write_file", `{"path":"src/b.go","content":"x"}`, "ok"}, read}, true},
		{"read, nothing between, read", []c{read, read}, true},
		{"read, a shell read between, read", []c{read, {"Bash", `{"command":"cat src/b.go"}`, "package b"}, read}, true},
		{"cat, echo into the file, cat", []c{
			{"Bash", `{"command":"cat f"}`, "old"}, {"Bash", `{"command":"echo x > f"}`, ""}, {"Bash", `{"command":"cat f"}`, "old"}}, false},
		{"cat, echo into another file, cat", []c{
			{"Bash", `{"command":"cat f"}`, "old"}, {"Bash", `{"command":"echo x > g"}`, ""}, {"Bash", `{"command":"cat f"}`, "old"}}, true},
		{"read, a build (unknown reach), read", []c{read, {"Bash", `{"command":"make"}`, "ok"}, read}, false},
		{"read, a subagent, read", []c{read, {"Task", `{"prompt":"fix it"}`, "done"}, read}, false},
		{"read, apply_patch of the file, read", []c{read, {"apply_patch", `{"input":"*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch"}`, "ok"}, read}, false},
		{"ls, write in the directory, ls", []c{
			{"exec_command", `{"cmd":"ls src"}`, "a.go"}, {"write_file", `{"path":"src/c.go","content":"x"}`, "ok"}, {"exec_command", `{"cmd":"ls src"}`, "a.go"}}, false},
		// A later repeat that reaches further back than the one before it
		// (the acts between are worked out when a repeat asks).
		{"read a, write a, read b, read b, read a", []c{read, writeA, readB, readB, read}, false},
		{"read a, read b, write b, read b, read a", []c{read, readB, writeB, readB, read}, true},
		{"a build repeated with the same output", []c{{"Bash", `{"command":"make"}`, "ok"}, {"Bash", `{"command":"make"}`, "ok"}}, false},
	}
	for _, tc := range cases {
		var calls []ingest.Call
		for i, x := range tc.calls {
			call := ingest.Call{ID: fmt.Sprint("c", i), Tool: x.tool, Result: x.result, HasResult: true}
			call.SetArgs(x.args)
			calls = append(calls, call)
		}
		var reqs []ingest.Request
		for _, call := range calls {
			reqs = append(reqs, ingest.Request{Calls: []ingest.Call{call}})
		}
		s := &ingest.Session{ID: "s", Format: "claude-code", Turns: []ingest.Turn{{Requests: reqs}}}
		p := Prepare(s)
		last := len(p.Calls) - 1
		res, _ := Run(p, r, NewTokenCache(counter))
		var d *Decision
		for i := range res.Decisions {
			if res.Decisions[i].Call == last+1 {
				d = &res.Decisions[i]
			}
		}
		redundant := d != nil && d.Redundant
		stopped := d != nil && d.Action.Stops()
		if redundant != tc.redundant {
			t.Errorf("%s: the last call is redundant: %v, want %v", tc.name, redundant, tc.redundant)
		}
		// The preset stops exactly the redundant repeats here, and
		// nothing it stops is harmful.
		if stopped != tc.redundant {
			t.Errorf("%s: the loopgate preset stops the last call: %v, want %v (%+v)", tc.name, stopped, tc.redundant, d)
		}
		if res.Harmful != 0 {
			t.Errorf("%s: %d harmful stops", tc.name, res.Harmful)
		}
	}
}
