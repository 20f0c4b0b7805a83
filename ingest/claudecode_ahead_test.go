package ingest

import "testing"

// TestClaudeCodeResultAhead: Claude Code writes lines along the parentUuid
// chain, and a result line can come just before the line of the call it
// answers (its parentUuid names that later line). The result waits for its
// call and is joined to it; a result whose parent is a line already read,
// or whose call never comes, is a result without a call, as before.
func TestClaudeCodeResultAhead(t *testing.T) {
	const (
		user = `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-04-29T23:20:00Z","message":{"role":"user","content":"fix it"}}` + "\n"
		text = `{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-04-29T23:20:32Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":"Looking."}]}}` + "\n"
		call = `{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-04-29T23:20:33.758Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}]}}` + "\n"
	)
	result := func(parent string) string {
		return `{"type":"user","uuid":"u2","parentUuid":"` + parent + `","sessionId":"s1","timestamp":"2026-04-29T23:20:33.824Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}` + "\n"
	}
	runConformance(t, "claude-code", []conformanceCase{
		{
			name:     "result after its call",
			file:     "s1.jsonl",
			text:     user + text + call + result("a2"),
			sessions: "s1 main 1t 1r t1/Read=package a",
		},
		{
			name:     "result just before its call's line",
			file:     "s1.jsonl",
			text:     user + result("a2") + text + call,
			sessions: "s1 main 1t 1r t1/Read=package a",
		},
		{
			name:     "result before its call, its parent a line already read",
			file:     "s1.jsonl",
			text:     user + text + result("a1") + call,
			sessions: "s1 main 1t 1r t1/Read=!",
			problems: []string{"result for call t1 has no matching call before it", "call t1 (Read) has no result (a result with its id came before the call, at line 3"},
		},
		{
			name:     "result ahead of a call that never comes",
			file:     "s1.jsonl",
			text:     user + result("a9") + text,
			sessions: "s1 main 1t 1r ",
			problems: []string{"result for call t1 has no matching call before it"},
			lines:    []int{2},
		},
	})
}
