package guard_test

import (
	"fmt"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
)

// A Guard fed the calls of one turn: the same read three times, a write,
// and the read once more. The rules steer the 2nd identical call and
// block the 3rd; a write to the file clears the reads of it. It uses only
// this package (TestExampleOutsideModule builds it in a module of its
// own).
func Example() {
	r, err := guard.ParseRules([]byte(`
name: example
scope:
  write_clears_reads: {readers: [read_file], writers: [write_file], path_args: [path]}
detectors:
  repeat:
    steer_at: 2
    block_at: 3
    steer_message: "{tool} again: the earlier result is in your context"
    block_message: "Blocked {tool}: called {count} times"
`), "example.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	g := guard.NewGuard(r)
	g.UserTurn(time.Time{})
	calls := []struct{ tool, args, result string }{
		{"read_file", `{"path":"a.go"}`, "package a"},
		{"read_file", `{"path":"a.go"}`, "package a"},
		{"read_file", `{"path":"a.go"}`, "package a"},
		{"write_file", `{"path":"a.go","content":"package b"}`, "ok"},
		{"read_file", `{"path":"a.go"}`, "package b"},
	}
	for i, c := range calls {
		// ArgsOK: the arguments are JSON (else the guard keys their text).
		ev := &guard.CallEvent{Index: i + 1, Tool: c.tool, Class: r.ClassOf(c.tool), ArgsRaw: c.args, ArgsOK: true}
		v := g.Before(ev)
		// The call runs unless the guard stopped it; its result goes to
		// After as the guard reads results.
		if !v.Action.Stops() {
			norm, failed := guard.ResultFacts(c.result, false)
			ev.Result, ev.ResultHash, ev.Failed = c.result, guard.HashString(norm), failed
		}
		after := g.After(ev, v)
		guard.Raise(&v, &after)
		fmt.Printf("%d %s %s: %s", ev.Index, c.tool, c.args, v.Action)
		if v.Action != guard.Allow {
			fmt.Printf(" (%s) %q", v.Detector, v.Message)
		}
		fmt.Println()
	}
	// Output:
	// 1 read_file {"path":"a.go"}: allow
	// 2 read_file {"path":"a.go"}: steer (repeat) "read_file again: the earlier result is in your context"
	// 3 read_file {"path":"a.go"}: block (repeat) "Blocked read_file: called 3 times"
	// 4 write_file {"path":"a.go","content":"package b"}: allow
	// 5 read_file {"path":"a.go"}: allow
}
