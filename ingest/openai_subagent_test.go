package ingest

import "testing"

// TestConvertedExportSubagents: a converter from Claude Code merges a
// subagent's messages into the export's list with the role
// "assistant-subagent-<agent id>" and their own role in
// _metadata.original_role. They are read as a subagent scope of the
// export's session (its calls, results and prompt), not skipped.
func TestConvertedExportSubagents(t *testing.T) {
	runConformance(t, formatOpenAIChat, []conformanceCase{
		{
			name: "a subagent between its call and the call's result",
			file: "merged.json",
			text: `{"messages":[
{"role":"user","content":[{"type":"text","text":"explore the repo"}],"_metadata":{"timestamp":"2026-04-01T10:00:00Z"}},
{"role":"assistant","content":[],"tool_calls":[{"id":"m1","type":"function","function":{"name":"Agent","arguments":"{\"prompt\":\"look\"}"}}],"_metadata":{"timestamp":"2026-04-01T10:00:01Z"}},
{"role":"assistant-subagent-ag7","content":[{"type":"text","text":"look"}],"_metadata":{"timestamp":"2026-04-01T10:00:02Z","source":"subagent","original_role":"user"}},
{"role":"assistant-subagent-ag7","content":[],"tool_calls":[{"id":"s1","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}],"_metadata":{"timestamp":"2026-04-01T10:00:03Z","source":"subagent","original_role":"assistant"}},
{"role":"assistant-subagent-ag7","tool_call_id":"s1","content":"a.go","_metadata":{"timestamp":"2026-04-01T10:00:04Z","source":"subagent","original_role":"tool"}},
{"role":"assistant-subagent-ag7","content":[],"tool_calls":[{"id":"s2","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}],"_metadata":{"timestamp":"2026-04-01T10:00:05Z","source":"subagent","original_role":"assistant"}},
{"role":"assistant-subagent-ag7","tool_call_id":"s2","content":"a.go","_metadata":{"timestamp":"2026-04-01T10:00:06Z","source":"subagent","original_role":"tool"}},
{"role":"tool","tool_call_id":"m1","content":"one file","_metadata":{"timestamp":"2026-04-01T10:00:07Z"}}
],"meta":{"token_counts":[{"type":"token_count","_timestamp":"2026-04-01T10:00:01Z","info":{"last_token_usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":2}}}]}}`,
			sessions: "merged main 1t 1r m1/Agent=one file | merged ag7 1t 2r s1/Bash=a.go s2/Bash=a.go",
			check: func(t *testing.T, sessions []*Session) {
				spanIs("2026-04-01T10:00:00Z 2026-04-01T10:00:01Z", "2026-04-01T10:00:02Z 2026-04-01T10:00:05Z")(t, sessions)
				if p := sessions[1].Parent; p != "merged" {
					t.Errorf("subagent's parent %q, want merged", p)
				}
				// The main session's token_count event stays with it.
				if in := inputTokens(sessions[:1]); in != 5 {
					t.Errorf("main session's input tokens %d, want 5", in)
				}
				if in := inputTokens(sessions[1:]); in != 0 {
					t.Errorf("subagent's input tokens %d, want 0", in)
				}
			},
		},
		{
			name: "a subagent role with nothing to read it by",
			file: "merged-bad.json",
			text: `{"messages":[
{"role":"user","content":"go"},
{"role":"assistant-subagent-ag1","content":"x"},
{"role":"assistant-subagent-","content":"y","_metadata":{"original_role":"user"}},
{"role":"assistant-subagent-ag2","content":"z","_metadata":{"original_role":"assistant-subagent-ag2"}}
]}`,
			sessions: "merged-bad main 1t 0r ",
			problems: []string{`message 2 has the subagent role "assistant-subagent-ag1" without`, `message 3 has the subagent role "assistant-subagent-"`, `message 4 has the subagent role`},
			lines:    []int{3, 4, 5},
		},
	})
}
