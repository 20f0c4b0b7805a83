package ingest

import "testing"

// TestClaudeCodeSessionStateLines: current Claude Code CLIs write
// session-state records (permission-mode, last-prompt, custom-title,
// agent-name, worktree-state) among the messages, and a session opened
// with a permission mode starts with one. Such a file is detected as
// Claude Code and the records are skipped without a problem.
func TestClaudeCodeSessionStateLines(t *testing.T) {
	msgs := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-04-27T10:00:00Z","message":{"role":"user","content":"list"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-04-27T10:00:01Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-04-27T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]}}
`
	var cases []conformanceCase
	for _, first := range []string{
		`{"type":"permission-mode","permissionMode":"default","sessionId":"s1"}`,
		`{"type":"last-prompt","lastPrompt":"list","sessionId":"s1"}`,
		`{"type":"custom-title","customTitle":"t","sessionId":"s1"}`,
		`{"type":"agent-name","agentName":"n","sessionId":"s1"}`,
		`{"type":"worktree-state","sessionId":"s1"}`,
	} {
		cases = append(cases, conformanceCase{
			name:     first[9:30],
			file:     "s1.jsonl",
			text:     first + "\n" + msgs + first + "\n",
			sessions: "s1 main 1t 1r t1/Bash=a.go",
		})
	}
	runConformance(t, "claude-code", cases)
}
