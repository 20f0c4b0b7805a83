package ingest

import (
	"slices"
	"testing"
)

// A dump as AIAgent._dump_api_request_debug writes it: the request's
// keyword arguments under request.body, the key masked, the error kept.
const requestDumpChat = `{
  "timestamp": "2026-04-05T18:36:52.579942",
  "session_id": "20260405_183648_699058",
  "reason": "non_retryable_client_error",
  "request": {
    "method": "POST",
    "url": "https://openrouter.ai/api/v1/chat/completions",
    "headers": {"Authorization": "Bearer sk-or-v1...ab12", "Content-Type": "application/json"},
    "body": {
      "model": "anthropic/claude-sonnet-4",
      "messages": [
        {"role": "system", "content": "You are Hermes."},
        {"role": "user", "content": "What is in notes/?"},
        {"role": "assistant", "content": "", "tool_calls": [
          {"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls notes\"}"}},
          {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"notes/a.md\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"output\": \"a.md\", \"exit_code\": 0, \"error\": null}"},
        {"role": "tool", "tool_call_id": "call_2", "content": "# A"},
        {"role": "assistant", "content": "One note, a.md."},
        {"role": "user", "content": "Summarize it"}
      ],
      "tools": [{"type": "function", "function": {"name": "terminal"}}]
    }
  },
  "error": {"type": "BadRequestError", "message": "context too long"}
}
`

// In hermes' codex (Responses) mode the body holds input items.
const requestDumpResponses = `{"timestamp": "2026-04-05T18:36:52", "session_id": "s2", "reason": "max_retries_exhausted",
 "request": {"method": "POST", "url": "/responses", "headers": {}, "body": {"model": "gpt-5", "input": [
  {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "grep TODO"}]},
  {"type": "function_call", "call_id": "fc_1", "name": "search_files", "arguments": "{\"pattern\": \"TODO\"}"},
  {"type": "function_call_output", "call_id": "fc_1", "output": "none"}]}}}`

func TestHermesRequestDumpConformance(t *testing.T) {
	runConformance(t, formatHermesRequestDump, []conformanceCase{
		{
			name: "a chat dump is the conversation up to the failed request",
			file: "request_dump_20260405_183648_699058_20260405_183652_579976.json", text: requestDumpChat,
			sessions: `20260405_183648_699058 main 2t 2r call_1/terminal={"output": "a.md", "exit_code": 0, "error": null} call_2/read_file=# A`,
		},
		{
			name:     "a Responses-mode dump, on one line",
			file:     "request_dump_s2_1.json",
			text:     requestDumpResponses,
			sessions: "s2 main 1t 1r fc_1/search_files=none",
		},
		{
			// hermes' own error results ({"error": "..."}, decorations
			// after the object included) are errors, as in the
			// transcript; "error": null and plain text are not.
			name: "results follow hermes' error convention",
			file: "request_dump_e_1.json",
			text: `{"session_id": "e", "request": {"body": {"messages": [{"role": "user", "content": "go"},
 {"role": "assistant", "content": "", "tool_calls": [
  {"id": "a", "type": "function", "function": {"name": "patch", "arguments": "{}"}},
  {"id": "b", "type": "function", "function": {"name": "terminal", "arguments": "{}"}},
  {"id": "c", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
  {"id": "d", "type": "function", "function": {"name": "skill_view", "arguments": "{}"}}]},
 {"role": "tool", "tool_call_id": "a", "content": "{\"success\": false, \"error\": \"Could not find a match\"}\n\n[Hint: old_string not found.]"},
 {"role": "tool", "tool_call_id": "b", "content": "{\"output\": \"x\", \"exit_code\": 1, \"error\": null}"},
 {"role": "tool", "tool_call_id": "c", "content": "error: no such file"},
 {"role": "tool", "tool_call_id": "d", "content": "{\"error\": \"  \"}"}]}}}`,
			sessions: "e main 1t 1r a/patch={\"success\": false, \"error\": \"Could not find a match\"}\n\n[Hint: old_string not found.] " +
				`b/terminal={"output": "x", "exit_code": 1, "error": null} c/read_file=error: no such file d/skill_view={"error": "  "}`,
			check: func(t *testing.T, sessions []*Session) {
				var got []bool
				for _, c := range hermesAllCalls(sessions[0]) {
					got = append(got, c.IsError)
				}
				if want := []bool{true, false, false, false}; !slices.Equal(got, want) {
					t.Errorf("is_error = %v, want %v", got, want)
				}
			},
		},
		{
			// A dump taken after a compaction starts with its summary:
			// no user's turn, as in the transcript readers.
			name: "a leading compaction summary is no turn",
			file: "request_dump_k_1.json",
			text: `{"session_id": "k", "request": {"body": {"messages": [{"role": "system", "content": "You are Hermes."},
 {"role": "user", "content": "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted."},
 {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]},
 {"role": "tool", "tool_call_id": "a", "content": "ok"},
 {"role": "user", "content": "and now?"}]}}}`,
			sessions: "k main 2t 1r a/terminal=ok",
			check: func(t *testing.T, sessions []*Session) {
				tr := sessions[0].Turns
				if !tr[0].CompactedBefore || tr[0].UserText != "" || tr[1].CompactedBefore || tr[1].UserText != "and now?" {
					t.Errorf("turns %+v", tr)
				}
			},
		},
		{
			name: "a compaction summary straight before a user message marks that turn",
			file: "request_dump_k_2.json",
			text: `{"session_id": "k", "request": {"body": {"input": [
 {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "[CONTEXT COMPACTION] Earlier turns were compacted."}]},
 {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]},
 {"type": "function_call", "call_id": "fc_1", "name": "search_files", "arguments": "{}"},
 {"type": "function_call_output", "call_id": "fc_1", "output": "none"}]}}}`,
			sessions: "k main 1t 1r fc_1/search_files=none",
			check: func(t *testing.T, sessions []*Session) {
				tr := sessions[0].Turns
				if !tr[0].CompactedBefore || tr[0].UserText != "hello" {
					t.Errorf("turns %+v", tr)
				}
			},
		},
		{
			name:     "a result with no call is a problem at its message's line",
			file:     "request_dump_x.json",
			text:     "{\"session_id\": \"x\",\n \"request\": {\"body\": {\"messages\": [\n  {\"role\": \"user\", \"content\": \"go\"},\n  {\"role\": \"tool\", \"tool_call_id\": \"nope\", \"content\": \"r\"}\n]}}}\n",
			sessions: "x main 1t 0r ",
			problems: []string{"result for call nope has no matching call"},
			lines:    []int{4},
		},
	})
}

func FuzzHermesRequestDump(f *testing.F) {
	fuzzOneFormat(f, formatHermesRequestDump, "request_dump_a_b.json", requestDumpChat, requestDumpResponses,
		`{"session_id": 1, "request": {"body": {"messages": [{"role": "assistant", "tool_calls": [{"id": null}]}, 3]}}}`)
}
