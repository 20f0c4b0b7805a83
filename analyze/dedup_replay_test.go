package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
)

// TestDedupReplay: under the loopgate preset a repeated read is deduped,
// not blocked: counted as a dedup, its tokens saved the result's tokens
// minus the answer's (a pointer saves most of the result, a full answer
// nothing), and harmful when its real result differed from the one the
// answer gave.
func TestDedupReplay(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("line of the file\n", 200) // 3,400 bytes, 850 tokens
	type c struct{ tool, args, result string }
	read := func(result string) c { return c{"read_file", `{"path":"src/a.go"}`, result} }
	far := c{"grep", `{"pattern":"x"}`, strings.Repeat("y", 100_000)} // 25,000 tokens
	cases := []struct {
		name    string
		calls   []c
		action  guard.Action
		harmful bool
		// pointer: the answer points at the earlier result; else it
		// carries it.
		pointer bool
	}{
		{"read, read", []c{read(big), read(big)}, guard.Dedup, false, true},
		{"read, far, read", []c{read(big), far, read(big)}, guard.Dedup, false, false},
		{"read, read of a changed file (no act seen)", []c{read(big), read(big + "new")}, guard.Dedup, true, true},
		{"read, write, read", []c{read(big), {"write_file", `{"path":"src/a.go","content":"x"}`, "ok"}, read("x")}, guard.Allow, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var reqs []ingest.Request
			for i, x := range tc.calls {
				call := ingest.Call{ID: fmt.Sprint("c", i), Tool: x.tool, Result: x.result, HasResult: true}
				call.SetArgs(x.args)
				reqs = append(reqs, ingest.Request{Calls: []ingest.Call{call}})
			}
			s := &ingest.Session{ID: "s", Format: "claude-code", Turns: []ingest.Turn{{Requests: reqs}}}
			res, _ := Run(Prepare(s), preset(t, "loopgate"), NewTokenCache(counter))
			last := len(tc.calls)
			var d Decision
			for _, x := range res.Decisions {
				if x.Call == last {
					d = x
				}
			}
			if d.Action != tc.action {
				t.Fatalf("the last call: %s, want %s (%+v)", d.Action, tc.action, d)
			}
			if d.Harmful != tc.harmful || res.Harmful != map[bool]int{true: 1}[tc.harmful] {
				t.Errorf("harmful %v (session %d), want %v", d.Harmful, res.Harmful, tc.harmful)
			}
			if tc.action != guard.Dedup {
				if res.Deduped != 0 || d.TokensSaved != 0 {
					t.Errorf("deduped %d, tokens saved %d, want none", res.Deduped, d.TokensSaved)
				}
				return
			}
			if res.Deduped != 1 || res.Blocked != 0 {
				t.Errorf("deduped %d, blocked %d, want 1 and 0", res.Deduped, res.Blocked)
			}
			result := int64(counter.Count(tc.calls[last-1].result))
			answer := int64(counter.Count(d.Message))
			if want := max(0, result-answer); d.TokensSaved != want {
				t.Errorf("tokens saved %d, want %d (result %d - answer %d)", d.TokensSaved, want, result, answer)
			}
			if pointer := !strings.Contains(d.Message, big); pointer != tc.pointer {
				t.Errorf("the answer is a pointer: %v, want %v: %.120q", pointer, tc.pointer, d.Message)
			}
			if tc.pointer && d.TokensSaved < result*9/10 {
				t.Errorf("a pointer saves %d of %d tokens", d.TokensSaved, result)
			}
		})
	}
}
