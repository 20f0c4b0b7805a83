package ingest

import "testing"

// TestConvertedExportOrder: exports converted from Claude Code write
// messages in the converter's order. A result written before its call is
// joined to it when the call's own time is no later than the result's (the
// converter's order, not the agent's); without times, or with a call later
// than its result, it stays a result without a call. A token_count event
// that repeats the running total is the same response on a later line: the
// response is dated by it, so a response whose first line (a thinking
// block) has no message is not lost.
func TestConvertedExportOrder(t *testing.T) {
	runConformance(t, formatOpenAIChat, []conformanceCase{
		{
			name: "a result before its call, timed after it",
			file: "fix-1.json",
			text: `{"messages":[
{"role":"user","content":"fix it","_metadata":{"timestamp":"2026-04-09T08:00:00Z"}},
{"role":"assistant","content":"reading","_metadata":{"timestamp":"2026-04-09T08:00:05Z"}},
{"role":"tool","tool_call_id":"e1","content":"updated","_metadata":{"timestamp":"2026-04-09T08:00:09Z"}},
{"role":"assistant","content":[],"tool_calls":[{"id":"e1","type":"function","function":{"name":"Edit","arguments":"{\"file_path\":\"a\"}"}}],"_metadata":{"timestamp":"2026-04-09T08:00:08Z"}}
]}`,
			sessions: "fix-1 main 1t 2r e1/Edit=updated",
		},
		{
			name: "a result before a call timed later stays unjoined",
			file: "fix-2.json",
			text: `{"messages":[
{"role":"user","content":"fix it","_metadata":{"timestamp":"2026-04-09T08:00:00Z"}},
{"role":"tool","tool_call_id":"e1","content":"updated","_metadata":{"timestamp":"2026-04-09T08:00:02Z"}},
{"role":"assistant","content":[],"tool_calls":[{"id":"e1","type":"function","function":{"name":"Edit","arguments":"{}"}}],"_metadata":{"timestamp":"2026-04-09T08:00:08Z"}}
]}`,
			sessions: "fix-2 main 1t 1r e1/Edit=!",
			problems: []string{"result for call e1 has no matching call before it", "call e1 (Edit) has no result"},
		},
		{
			name: "without times a result before its call stays unjoined",
			file: "fix-3.json",
			text: `{"messages":[
{"role":"user","content":"fix it"},
{"role":"tool","tool_call_id":"e1","content":"updated"},
{"role":"assistant","content":[],"tool_calls":[{"id":"e1","type":"function","function":{"name":"Edit","arguments":"{}"}}]}
]}`,
			sessions: "fix-3 main 1t 1r e1/Edit=!",
			problems: []string{"result for call e1 has no matching call before it", "call e1 (Edit) has no result"},
		},
		{
			// The response's first line (a thinking block, no message) is
			// dated before the first model message; the same total again on
			// its next lines dates it at the message.
			name: "a response's repeated total dates it by its last line",
			file: "fix-4.json",
			text: `{"messages":[
{"role":"user","content":"go","_metadata":{"timestamp":"2026-04-09T08:00:00Z"}},
{"role":"assistant","content":"ok","_metadata":{"timestamp":"2026-04-09T08:00:03Z"}}
],"meta":{"token_counts":[
{"type":"token_count","_timestamp":"2026-04-09T08:00:02Z","info":{"total_token_usage":{"input_tokens":2,"cached_input_tokens":900,"output_tokens":40},"last_token_usage":{"input_tokens":2,"cached_input_tokens":900,"output_tokens":40}}},
{"type":"token_count","_timestamp":"2026-04-09T08:00:03Z","info":{"total_token_usage":{"input_tokens":2,"cached_input_tokens":900,"output_tokens":40},"last_token_usage":{"input_tokens":2,"cached_input_tokens":900,"output_tokens":40}}}]}}`,
			sessions: "fix-4 main 1t 1r ",
			check: func(t *testing.T, sessions []*Session) {
				if in := inputTokens(sessions); in != 902 {
					t.Errorf("input tokens %d, want 902 (the cache added to the split input)", in)
				}
			},
		},
	})
}
