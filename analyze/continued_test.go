package analyze

import (
	"fmt"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
)

// TestMentionedAcrossTurns replays a read, a second turn, the same read
// with the same result under scope.reset: mentioned: the second turn's
// message decides whether the repeat is answered from the first.
func TestMentionedAcrossTurns(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	read := func(id string) ingest.Request {
		c := ingest.Call{ID: id, Tool: "read_file", Result: "package a\n", HasResult: true}
		c.SetArgs(`{"path":"src/a.go"}`)
		return ingest.Request{Calls: []ingest.Call{c}}
	}
	cases := []struct {
		name      string
		second    ingest.Turn
		action    guard.Action
		redundant bool
	}{
		{"a message naming nothing", ingest.Turn{UserText: "thanks, go on"}, guard.Dedup, true},
		{"a message naming the file", ingest.Turn{UserText: "I edited src/a.go"}, guard.Allow, true},
		{"a message of unknown text", ingest.Turn{}, guard.Allow, true},
		// A compaction's summary: no user's message, so nothing is
		// cleared; the truth counts no repeat across a compaction.
		{"a compaction's summary", ingest.Turn{CompactedBefore: true, Continued: true}, guard.Dedup, false},
		{"a compaction, then a message of unknown text", ingest.Turn{CompactedBefore: true}, guard.Allow, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := preset(t, "loopgate")
			r.Scope.Reset = "mentioned"
			r.Scope.ResetOnCompaction = false
			second := tc.second
			second.Requests = []ingest.Request{read("c2")}
			s := &ingest.Session{ID: "s", Format: "claude-code", Turns: []ingest.Turn{
				{UserText: "read src/a.go", Requests: []ingest.Request{read("c1")}},
				second,
			}}
			res, _ := Run(Prepare(s), r, NewTokenCache(counter))
			var d *Decision
			for i := range res.Decisions {
				if res.Decisions[i].Call == 2 {
					d = &res.Decisions[i]
				}
			}
			got := fmt.Sprint(guard.Allow, false)
			if d != nil {
				got = fmt.Sprint(d.Action, d.Redundant)
			}
			if want := fmt.Sprint(tc.action, tc.redundant); got != want {
				t.Errorf("second read: %s, want %s", got, want)
			}
		})
	}
}

// TestNoticeWithinTurn: a notice (ingest.Notice: a message nobody typed,
// such as Claude Code's <task-notification>) between two identical reads
// of one turn is heard where it stands, as a message is: under
// scope.reset: mentioned, one naming the file keeps the second read from
// being answered from the first (the background job wrote the file), one
// naming nothing does not; under the preset's own reset (turn) any notice
// between clears the read; and a notice after the second read changes
// nothing for it. (A background task's own .output file is never
// answered at all: shellcmd.Volatile.)
func TestNoticeWithinTurn(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	read := func(id string) ingest.Request {
		c := ingest.Call{ID: id, Tool: "Read", Result: "compiling\n", HasResult: true}
		c.SetArgs(`{"file_path":"/repo/dist/report.md"}`)
		return ingest.Request{Calls: []ingest.Call{c}}
	}
	cases := []struct {
		name    string
		reset   string
		notices []ingest.Notice
		action  guard.Action
	}{
		{"no notice", "", nil, guard.Dedup},
		{"a notice naming the file", "mentioned", []ingest.Notice{{Request: 1, Text: "<task-notification>\n<output-file>/repo/dist/report.md</output-file>\n</task-notification>"}}, guard.Allow},
		{"a notice naming nothing", "mentioned", []ingest.Notice{{Request: 1, Text: "<bash-input>true</bash-input>"}}, guard.Dedup},
		{"a notice naming nothing, the preset's reset", "", []ingest.Notice{{Request: 1, Text: "<bash-input>true</bash-input>"}}, guard.Allow},
		{"a notice after both reads", "", []ingest.Notice{{Request: 2, Text: "<task-notification>\n<output-file>/repo/dist/report.md</output-file>\n</task-notification>"}}, guard.Dedup},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := preset(t, "loopgate")
			if tc.reset != "" {
				r.Scope.Reset = tc.reset
			}
			s := &ingest.Session{ID: "s", Format: "claude-code", Turns: []ingest.Turn{
				{UserText: "run the tests", Requests: []ingest.Request{read("c1"), read("c2")}, Notices: tc.notices},
			}}
			res, _ := Run(Prepare(s), r, NewTokenCache(counter))
			got := guard.Allow
			for _, d := range res.Decisions {
				if d.Call == 2 {
					got = d.Action
				}
			}
			if got != tc.action {
				t.Errorf("second read: %s, want %s", got, tc.action)
			}
			if len(res.Decisions) > 0 && res.Decisions[0].Turn != 1 {
				t.Errorf("decision in turn %d, want 1: a notice opens no turn", res.Decisions[0].Turn)
			}
		})
	}
}

// TestCompactionWithinTurn: a compaction inside a turn (ingest.Notice
// with Compaction set: Claude Code's auto-compaction mid-task) between
// two identical reads is heard where it stands. Under the preset
// (scope.reset_on_compaction) the second read is not answered from the
// first, whose result the model has only as a summary now, and the truth
// counts no repeat across it. Before the notice, the compaction was heard
// at the next turn only: a real 2.1.33 file had a read answered after a
// mid-turn compaction whose file had changed meanwhile.
func TestCompactionWithinTurn(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	read := func(id string) ingest.Request {
		c := ingest.Call{ID: id, Tool: "Read", Result: "export default function Login() {}\n", HasResult: true}
		c.SetArgs(`{"file_path":"/repo/src/app/login/page.tsx"}`)
		return ingest.Request{Calls: []ingest.Call{c}}
	}
	cases := []struct {
		name      string
		notices   []ingest.Notice
		action    guard.Action
		redundant bool
	}{
		{"no compaction", nil, guard.Dedup, true},
		{"a compaction between", []ingest.Notice{{Request: 1, Compaction: true}}, guard.Allow, false},
		{"a compaction after both", []ingest.Notice{{Request: 2, Compaction: true}}, guard.Dedup, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &ingest.Session{ID: "s", Format: "claude-code", Turns: []ingest.Turn{
				{UserText: "restyle the pages", Requests: []ingest.Request{read("c1"), read("c2")}, Notices: tc.notices},
			}}
			res, _ := Run(Prepare(s), preset(t, "loopgate"), NewTokenCache(counter))
			got := fmt.Sprint(guard.Allow, false)
			for _, d := range res.Decisions {
				if d.Call == 2 {
					got = fmt.Sprint(d.Action, d.Redundant)
				}
			}
			if want := fmt.Sprint(tc.action, tc.redundant); got != want {
				t.Errorf("second read: %s, want %s", got, want)
			}
		})
	}
}
