package ingest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// joinRef is the join of results to calls as the session builder did it
// with one table of every id (the join's rules, written plainly): the
// reference that sessionBuilder, which keeps the latest waiting calls
// apart from the table, must match problem for problem and result for
// result.
type joinRef struct {
	calls   []Call
	pending map[string][]int // id -> indexes of its calls waiting, oldest first; empty once all answered
	early   map[string]int
	out     []string
}

func (j *joinRef) call(c Call) {
	j.calls = append(j.calls, c)
	i := len(j.calls) - 1
	if c.HasResult || c.ID == "" {
		return // id-less calls are joined by name (legacyResult), not exercised here
	}
	q := j.pending[c.ID]
	if len(q) > 0 {
		j.out = append(j.out, fmt.Sprintf("%d: call id %s is used again while an earlier call with that id (line %d) has no result yet; both calls are kept and results are joined to them in order", c.Line, c.ID, j.calls[q[0]].Line))
	}
	j.pending[c.ID] = append(q, i)
}

func (j *joinRef) result(id, text string, line int) {
	q, answered := j.pending[id]
	if len(q) == 0 {
		switch {
		case id == "":
			j.out = append(j.out, fmt.Sprintf("%d: result has no call id, so it cannot be joined to a call; ignored", line))
		case answered:
			j.out = append(j.out, fmt.Sprintf("%d: second result for call %s (its call already has a result); ignored", line, id))
		default:
			if _, ok := j.early[id]; !ok {
				j.early[id] = line
			}
			j.out = append(j.out, fmt.Sprintf("%d: result for call %s has no matching call before it; ignored", line, id))
		}
		return
	}
	c := &j.calls[q[0]]
	c.Result, c.HasResult, c.ResultLine = text, true, line
	j.pending[id] = q[1:]
}

// joinOps plays a run of calls and results, read from ops, into the
// session builder and the reference. Each op is two bytes: what (a call,
// a call that brings its result, a result) and which id (of few, so that
// ids repeat, wait in numbers past recentCalls, and come back answered).
func joinOps(t *testing.T, ops []byte) {
	t.Helper()
	ids := []string{"", "call_0", "call_1", "toolu_01ABCDEFGHJKLMNPQRSTUVWX", "toolu_01ABCDEFGHJKLMNPQRSTUVWY", "tooly_01ABCDEFGHJKLMNPQRSTUVWX"}
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("toolu_%024d", i*7919))
	}
	var got []string
	out := &Sink{OnProblem: func(p Problem) { got = append(got, fmt.Sprintf("%d: %s", p.Line, p.Message)) }}
	s := &Session{}
	b := newSessionBuilder(s, 0)
	ref := &joinRef{pending: map[string][]int{}, early: map[string]int{}}
	b.turn(1, time.Time{}, 0)
	b.request(1, time.Time{}, 0, nil)
	for i := 0; i+1 < len(ops); i += 2 {
		line := i/2 + 1
		id := ids[int(ops[i+1])%len(ids)]
		switch ops[i] % 8 {
		case 0, 1, 2:
			c := Call{ID: id, Tool: "t", Line: line}
			if id == "" {
				c.ID = "x" // id-less calls go the legacy way
			}
			b.call(c, out)
			ref.call(c)
		case 3:
			c := Call{ID: id, Tool: "t", Line: line, HasResult: true, Result: "brought"}
			b.call(c, out)
			ref.call(c)
		default:
			text := fmt.Sprintf("result %d", line)
			b.result(id, text, false, line, time.Time{}, out)
			ref.result(id, text, line)
		}
	}
	if !slices.Equal(got, ref.out) {
		t.Fatalf("problems differ from the reference join:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(ref.out, "\n     "))
	}
	calls := s.Turns[0].Requests[0].Calls
	if len(calls) != len(ref.calls) {
		t.Fatalf("%d calls, reference %d", len(calls), len(ref.calls))
	}
	for i, c := range calls {
		w := ref.calls[i]
		if c.HasResult != w.HasResult || c.Result != w.Result || c.ResultLine != w.ResultLine {
			t.Fatalf("call %d (%s, line %d): result %v %q at line %d, reference %v %q at line %d", i, c.ID, c.Line, c.HasResult, c.Result, c.ResultLine, w.HasResult, w.Result, w.ResultLine)
		}
	}
}

// TestJoinMatchesReference: random runs, some with many calls waiting at
// once (past recentCalls, so that calls move to the table), repeated ids,
// results before their calls and second results, join as the reference
// does. The runs are seeded: a failure repeats.
func TestJoinMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name            string
		callWeight, ids int // out of 8 op kinds 0..callWeight-1 are calls; ids used
	}{
		{"answered at once", 4, 46},
		{"many waiting", 7, 46},
		{"few ids, repeated", 5, 4},
		{"results first", 2, 46},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range 200 {
				r := rand.New(rand.NewPCG(uint64(seed), 7))
				ops := make([]byte, 2*(50+r.IntN(400)))
				for i := 0; i < len(ops); i += 2 {
					if r.IntN(8) < tc.callWeight {
						ops[i] = byte(r.IntN(4))
					} else {
						ops[i] = byte(4 + r.IntN(4))
					}
					ops[i+1] = byte(r.IntN(tc.ids))
				}
				joinOps(t, ops)
			}
		})
	}
}

// FuzzJoin: any run of calls and results joins as the reference does.
func FuzzJoin(f *testing.F) {
	f.Add([]byte{0, 3, 4, 3, 4, 3, 0, 1, 0, 1, 4, 1, 4, 1, 4, 0})
	f.Add([]byte(strings.Repeat("\x00\x07\x00\x08\x00\x09\x00\x0a\x00\x0b\x00\x0c\x00\x0d\x00\x0e\x00\x0f", 3) + "\x04\x07\x04\x0f\x04\x07"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 4000 {
			return
		}
		joinOps(t, ops)
	})
}
