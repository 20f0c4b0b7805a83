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
		// CLI 2.1.2xx starts every new session file with a mode record and
		// writes the next three among the messages.
		`{"type":"mode","mode":"normal","sessionId":"s1"}`,
		`{"type":"bridge-session","bridgeSessionId":"b","lastSequenceNum":3,"sessionId":"s1"}`,
		`{"type":"file-history-delta","messageId":"u1","snapshotMessageId":"u1","trackingPath":"a.go","backup":{},"timestamp":"2026-08-03T08:48:03Z"}`,
		`{"type":"frame-link","frameUrl":"https://x","path":"p","title":"t","sessionId":"s1","timestamp":"2026-08-03T08:48:03Z"}`,
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

// TestClaudeCodeForkedSubagent: a subagent forked from its parent (CLI
// 2.1.2xx) is written to subagents/agent-<id>.jsonl that starts with a
// "fork-context-ref" record naming the parent session and the line its
// inherited context ends at; the record has no sessionId. The file was
// of no known format: its calls were lost.
func TestClaudeCodeForkedSubagent(t *testing.T) {
	text := `{"type":"fork-context-ref","agentId":"af1","parentSessionId":"s1","parentLastUuid":"p9","contextLength":1038}
{"parentUuid":null,"isSidechain":true,"agentId":"af1","type":"user","message":{"role":"user","content":[{"type":"text","text":"<fork-boilerplate>run one directive</fork-boilerplate> compare the walks"}]},"uuid":"u1","timestamp":"2026-07-29T08:55:14Z","sessionId":"s1"}
{"parentUuid":"u1","isSidechain":true,"agentId":"af1","type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"snmpwalk x"}}]},"requestId":"r1","uuid":"a1","timestamp":"2026-07-29T08:55:15Z","sessionId":"s1"}
{"parentUuid":"a1","isSidechain":true,"agentId":"af1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"uuid":"u2","timestamp":"2026-07-29T08:55:16Z","sessionId":"s1"}
`
	runConformance(t, "claude-code", []conformanceCase{{
		name:     "fork-context-ref first",
		file:     "s1/subagents/agent-af1.jsonl",
		text:     text,
		sessions: "s1 af1 1t 1r t1/Bash=ok",
	}})
}

// TestClaudeCodeStateOnlyFile: a session closed before its first prompt
// (real files of CLI 2.1.2xx) keeps only state records; it is still one
// problem (no session is read), worded as what it is rather than as a
// file of another format.
func TestClaudeCodeStateOnlyFile(t *testing.T) {
	runConformance(t, "claude-code", []conformanceCase{
		{name: "state records only", file: "s1.jsonl",
			text:     `{"type":"mode","mode":"normal","sessionId":"s1"}` + "\n" + `{"type":"ai-title","aiTitle":"t","sessionId":"s1"}` + "\n",
			problems: []string{"Claude Code session with no conversation (2 records of session state only)"}},
		{name: "a type no Claude Code CLI writes", file: "s1.jsonl",
			text:     `{"type":"mode","mode":"normal","sessionId":"s1"}` + "\n" + `{"type":"weather","sessionId":"s1"}` + "\n",
			problems: []string{"no Claude Code user, assistant or system line in 2 records"}},
	})
}
