package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
)

// TestOtherAgentsReplay: another agent's act (a sibling subagent's write)
// between two identical observations of what it changed makes the second
// neither redundant nor stopped; an act elsewhere leaves the repeat
// answered. Without it, the stop hides the new listing (harmful).
func TestOtherAgentsReplay(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	at := func(sec int) time.Time { return time.Date(2026, 3, 1, 10, 0, sec, 0, time.UTC) }
	ls := `{"command":"ls /w/out"}`
	write := func(path string, start, end int) ingest.OtherCall {
		return ingest.OtherCall{Agent: "b2", Tool: "Write", ArgsRaw: `{"file_path":"` + path + `","content":"x"}`, Start: at(start), End: at(end)}
	}
	cases := []struct {
		name          string
		second        string // the second listing's result (the first is "")
		others        []ingest.OtherCall
		action        guard.Action
		redundant     bool
		harmful       bool
		othersApplied int
	}{
		{"a sibling writes into the directory", "x.txt", []ingest.OtherCall{write("/w/out/x.txt", 5, 6)}, guard.Allow, false, false, 2},
		{"... and the listing happens to be the same", "", []ingest.OtherCall{write("/w/out/x.txt", 5, 6)}, guard.Allow, false, false, 2},
		{"a sibling writes elsewhere", "", []ingest.OtherCall{write("/w/src/b.go", 5, 6)}, guard.Dedup, true, false, 2},
		// It may have landed before the listing: heard at its start.
		{"a sibling's write ends after the listing began", "", []ingest.OtherCall{write("/w/out/x.txt", 5, 25)}, guard.Allow, false, false, 1},
		// It may have landed after the first listing: heard at its end.
		{"a sibling's write began before the first listing", "x.txt", []ingest.OtherCall{write("/w/out/x.txt", 0, 10)}, guard.Allow, false, false, 2},
		{"no other agent seen: the new listing is hidden", "x.txt", nil, guard.Dedup, false, true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			call := func(id string, sec int, result string) ingest.Call {
				c := ingest.Call{ID: id, Tool: "Bash", Result: result, HasResult: true, Time: at(sec)}
				c.SetArgs(ls)
				return c
			}
			s := &ingest.Session{ID: "s", Agent: "a1", Format: "claude-code", Others: tc.others, Turns: []ingest.Turn{{Requests: []ingest.Request{
				{Calls: []ingest.Call{call("c1", 1, "")}},
				{Calls: []ingest.Call{call("c2", 20, tc.second)}},
			}}}}
			p := Prepare(s)
			if len(p.Others) != tc.othersApplied {
				t.Errorf("%d other calls placed, want %d: %+v", len(p.Others), tc.othersApplied, p.Others)
			}
			res, _ := Run(p, preset(t, "loopgate"), NewTokenCache(counter))
			var d Decision
			for _, x := range res.Decisions {
				if x.Call == 2 {
					d = x
				}
			}
			if d.Action != tc.action || d.Redundant != tc.redundant || d.Harmful != tc.harmful {
				t.Errorf("the second listing: %s redundant=%v harmful=%v, want %s %v %v", d.Action, d.Redundant, d.Harmful, tc.action, tc.redundant, tc.harmful)
			}
		})
	}
}

// TestOtherAgentsFromFiles: replaying one subagent's transcript reads its
// sibling's beside it, so that the sibling's write between two listings
// keeps the second from being answered from the first (end to end: the
// reader's Session.Others, Prepare and Run). The cached reading is stale
// once the sibling's transcript changes.
func TestOtherAgentsFromFiles(t *testing.T) {
	line := func(agent string, sec int, typ, content string) string {
		ts := time.Date(2026, 3, 1, 10, 0, sec, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
		return fmt.Sprintf(`{"type":%q,"uuid":"%s-%d","isSidechain":true,"agentId":%q,"sessionId":"f00d-1","timestamp":%q,"message":{"role":%q,"content":%s}}`,
			typ, agent, sec, agent, ts, map[string]string{"user": "user", "assistant": "assistant"}[typ], content)
	}
	use := func(id, tool, input string) string {
		return fmt.Sprintf(`[{"type":"tool_use","id":%q,"name":%q,"input":%s}]`, id, tool, input)
	}
	result := func(id, text string) string {
		return fmt.Sprintf(`[{"type":"tool_result","tool_use_id":%q,"content":%q}]`, id, text)
	}
	ls := `{"command":"ls /w/out"}`
	dir := filepath.Join(t.TempDir(), "f00d-1", "subagents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lister := filepath.Join(dir, "agent-a1.jsonl")
	writer := filepath.Join(dir, "agent-b2.jsonl")
	write := func(path string, lines ...string) {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(lister,
		line("a1", 0, "user", `"List the output."`),
		line("a1", 1, "assistant", use("ta1", "Bash", ls)),
		line("a1", 2, "user", result("ta1", "")),
		line("a1", 20, "assistant", use("ta2", "Bash", ls)),
		line("a1", 21, "user", result("ta2", "x.txt")))
	write(writer,
		line("b2", 0, "user", `"Write the output."`),
		line("b2", 5, "assistant", use("tb1", "Write", `{"file_path":"/w/out/x.txt","content":"x"}`)),
		line("b2", 6, "user", result("tb1", "File created")))
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	cache := newMemCache()
	replay := func() Summary {
		t.Helper()
		rep := Replay([]string{lister}, Options{Rules: preset(t, "loopgate"), Tokens: counter, Jobs: 1, Cache: cache})
		return rep.Summary
	}
	if s := replay(); s.Deduped != 0 || s.Harmful != 0 {
		t.Errorf("with the sibling's write: %d deduped, %d harmful, want 0 and 0", s.Deduped, s.Harmful)
	}
	// The sibling's write is gone (its transcript rewritten): the listing
	// is answered again, from a reading that is not the cached one.
	write(writer,
		line("b2", 0, "user", `"Write the output."`),
		line("b2", 5, "assistant", use("tb1", "Read", `{"file_path":"/w/in.txt"}`)),
		line("b2", 6, "user", result("tb1", "in")))
	if s := replay(); s.Deduped != 1 || s.Harmful != 1 {
		t.Errorf("without it: %d deduped, %d harmful, want 1 and 1", s.Deduped, s.Harmful)
	}
}
