package ingest

import "testing"

// A web-session export as simonw/claude-code-transcripts reads it:
// {"loglines": [...]}, each element a Claude Code line without uuid or
// sessionId (its tests/sample_session.json has that shape).
const loglinesExport = `{
  "loglines": [
    {"type": "user", "timestamp": "2026-01-02T10:00:00.000Z",
     "message": {"role": "user", "content": "List the files"}},
    {"type": "assistant", "timestamp": "2026-01-02T10:00:01.000Z",
     "message": {"role": "assistant", "content": [
       {"type": "thinking", "thinking": "ls will do"},
       {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}},
    {"type": "user", "timestamp": "2026-01-02T10:00:02.000Z",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.go"}]}},
    {"type": "assistant", "timestamp": "2026-01-02T10:00:03.000Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "One file."}]}},
    {"type": "user", "isCompactSummary": true,
     "message": {"role": "user", "content": "This session is being continued..."}},
    {"type": "user", "timestamp": "2026-01-02T10:01:00.000Z",
     "message": {"role": "user", "content": "Read it"}},
    {"type": "assistant", "timestamp": "2026-01-02T10:01:01.000Z",
     "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"file_path": "a.go"}}]}}
  ]
}
`

func TestClaudeCodeLoglinesConformance(t *testing.T) {
	runConformance(t, formatClaudeCodeLoglines, []conformanceCase{
		{
			name: "an export is read as the session file it holds",
			file: "web-session.json", text: loglinesExport,
			sessions: "web-session main 2t 3r toolu_1/Bash=a.go toolu_2/Read=!",
			problems: []string{"call toolu_2 (Read) has no result"},
			check: func(t *testing.T, s []*Session) {
				if s[0].Turns[0].Line != 0 || s[0].Turns[0].Requests[0].Calls[0].Line != 0 {
					t.Error("a multi-line document's sessions keep line 0")
				}
			},
		},
		{
			name:     "a problem names the line where its element starts",
			file:     "web-session.json",
			text:     "{\"loglines\": [\n {\"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": \"go\"}},\n {\"type\": \"user\", \"message\": {\"role\": \"user\", \"contenst\": \"typo\"}}\n]}\n",
			sessions: "web-session main 1t 0r ",
			problems: []string{"user message has no content"},
			lines:    []int{3},
		},
		{
			name:     "an empty export is a problem",
			file:     "s.json",
			text:     `{"loglines": []}`,
			problems: []string{"loglines is empty"},
			lines:    []int{1},
		},
		{
			name:     "a one-line export keeps its line",
			file:     "s.json",
			text:     `{"loglines": [{"type": "user", "sessionId": "abc", "message": {"role": "user", "content": "hi"}}]}`,
			sessions: "abc main 1t 0r ",
		},
	})
}

func FuzzClaudeCodeLoglines(f *testing.F) {
	fuzzOneFormat(f, formatClaudeCodeLoglines, "export.json", loglinesExport,
		`{"loglines": [{"type": "user", "message": {"role": "user", "content": null}}, 5, "x", {"type": "assistant", "message": {"content": [{"type": "tool_use"}]}}]}`,
		`{"loglines": {}}`)
}
