package ingest

import (
	"strings"
	"testing"
)

// TestClaudeSourceToolUseID: a tool_result block without tool_use_id is
// joined by its line's sourceToolUseID, else (a call written without an
// id) to the oldest call without an id.
func TestClaudeSourceToolUseID(t *testing.T) {
	const fixture = `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-01-05T09:00:00.000Z","message":{"role":"user","content":"list and read"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-05T09:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-01-05T09:00:02.000Z","isMeta":true,"sourceToolUseID":"t1","message":{"role":"user","content":[{"type":"tool_result","content":"a.go"}]}}
{"type":"user","uuid":"u3","parentUuid":"a1","sessionId":"s1","timestamp":"2026-01-05T09:00:03.000Z","isMeta":true,"sourceToolAssistantUUID":"a1","message":{"role":"user","content":[{"type":"tool_result","content":"package a"}]}}
`
	var sessions []*Session
	var problems []Problem
	Read(strings.NewReader(fixture), "s1.jsonl", Options{}, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	n := countJoins(sessions)
	if n.calls != 2 || n.joined != 2 || len(problems) != 0 {
		t.Errorf("%d of %d calls joined, problems %v; want 2 of 2 and none", n.joined, n.calls, problems)
	}
	if len(sessions) == 1 {
		if c := sessions[0].Turns[0].Requests[0].Calls; len(c) == 2 && (c[0].Result != "a.go" || c[1].Result != "package a") {
			t.Errorf("results %q, %q; want a.go, package a", c[0].Result, c[1].Result)
		}
	}

	// A synthetic schema catalogue: its tool_use has no id, its result
	// only a sourceToolUseID.
	sessions, _ = readAll(t, thirdPartySample(t, "claude-code/jazzyalex-agent-sessions/small.jsonl"), Options{})
	if n := countJoins(sessions); n.calls != 3 || n.joined != 2 {
		t.Errorf("catalogue: %d of %d calls joined, want 2 of 3 (the last call's result is not in the file)", n.joined, n.calls)
	}
}

// TestClaudePermissionModeFirst: newer Claude Code files begin with a
// permission-mode line, and are Claude Code all the same.
func TestClaudePermissionModeFirst(t *testing.T) {
	const fixture = `{"type":"permission-mode","permissionMode":"default","sessionId":"s1"}
{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-04-27T18:40:29.529Z","message":{"role":"user","content":"hi"}}
`
	var sessions []*Session
	var problems []Problem
	Read(strings.NewReader(fixture), "s1.jsonl", Options{}, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	if len(sessions) != 1 || sessions[0].Format != "claude-code" || len(problems) != 0 {
		t.Errorf("%d sessions, problems %v; want one claude-code session and none", len(sessions), problems)
	}
	p := thirdPartySample(t, "claude-code/4thehalibit-omarchy-backup/.claude/projects/-home-vwestberg-Claude/0b903f4a-f843-4a76-90bb-df10400e0478.jsonl")
	sessions, problems = readAll(t, p, Options{})
	if len(sessions) != 1 || sessions[0].Format != "claude-code" || len(problems) != 0 {
		t.Errorf("real file: %d sessions, problems %v; want one claude-code session and none", len(sessions), problems)
	}
}
