package analyze

import (
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestActionsTruth: a call that acts is never redundant, and stopped it is
// a stopped action, neither harmful nor in precision; the same calls read
// as observations (a rules file moving the classes) are judged as before.
func TestActionsTruth(t *testing.T) {
	call := func(tool, args, result string) ingest.Call {
		c := ingest.Call{Tool: tool, Result: result, HasResult: true}
		c.SetArgs(args)
		return c
	}
	calls := []ingest.Call{
		call("read_file", `{"path":"a"}`, "A"),
		call("read_file", `{"path":"a"}`, "A"),  // redundant, blocked: right
		call("read_file", `{"path":"a"}`, "A2"), // blocked, new result: harmful
		call("message", `{"content":"hi"}`, "Message sent"),
		call("message", `{"content":"hi"}`, "Message sent"),   // blocked: a stopped action
		call("message", `{"content":"hi"}`, "Message failed"), // blocked: a stopped action, not harmful
		call("str_replace_editor", `{"command":"view","path":"a"}`, "1 a"),
		call("str_replace_editor", `{"command":"view","path":"a"}`, "1 a"), // observes by its argument: redundant
		call("browser_click", `{"ref":"@e1"}`, `{"success": true}`),
		call("browser_click", `{"ref":"@e1"}`, `{"success": true}`), // blocked: a stopped action
	}
	s := &ingest.Session{Turns: []ingest.Turn{{Requests: []ingest.Request{{Calls: calls}}}}}
	const base = "name: every-repeat\ndetectors:\n  repeat:\n    block_at: 2\n"
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		redundant, harmful, stoppedActions, blocked int
		precision                                   float64
		stopped                                     map[int]bool // call -> stopped_action
	}
	for _, c := range []struct {
		name, extra string
		want        want
	}{
		{"default effects", "", want{2, 1, 3, 6, 2.0 / 3.0, map[int]bool{5: true, 6: true, 10: true}}},
		{"everything observes", "effects:\n  observe: [message, browser, write]\n",
			want{4, 2, 0, 6, 4.0 / 6.0, map[int]bool{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := rules.Parse([]byte(base+c.extra), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			res, _ := Run(Prepare(s), r, NewTokenCache(counter))
			agg := NewAggregator(r, counter.Name())
			agg.AddSession(res, nil, false)
			sum := agg.Finish().Summary
			w := c.want
			if sum.Redundant != w.redundant || sum.Harmful != w.harmful || sum.StoppedActions != w.stoppedActions || sum.Blocked != w.blocked {
				t.Errorf("redundant %d, harmful %d, stopped actions %d, blocked %d; want %d, %d, %d, %d",
					sum.Redundant, sum.Harmful, sum.StoppedActions, sum.Blocked, w.redundant, w.harmful, w.stoppedActions, w.blocked)
			}
			if sum.Precision == nil || *sum.Precision != w.precision {
				t.Errorf("precision %v, want %v", sum.Precision, w.precision)
			}
			for _, d := range res.Decisions {
				if d.StoppedAction != w.stopped[d.Call] {
					t.Errorf("call %d (%s %s): stopped_action %v", d.Call, d.Tool, d.Action, d.StoppedAction)
				}
				if d.StoppedAction && (d.Harmful || d.Redundant) {
					t.Errorf("call %d: a stopped action is harmful %v, redundant %v", d.Call, d.Harmful, d.Redundant)
				}
			}
		})
	}
}
