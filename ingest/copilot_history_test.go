package ingest

import (
	"strings"
	"testing"
)

// TestCopilotHistory: Copilot CLI's older session file (history-session-
// state/session_<id>_<ms>.json, real files of October 2025): chat messages
// in OpenAI's shape beside a timeline of what the CLI showed. Turns are the
// user messages, timed by the timeline's user entries; a call's result is
// the tool message that names it, an error when its completion in the
// timeline is a "failure"; the CLI's own info and error lines are counted
// in a note.
func TestCopilotHistory(t *testing.T) {
	doc := `{
  "sessionId": "076dfd18-c092-4221-bb1e-efdf478eff3d",
  "startTime": "2025-10-05T13:12:35.294Z",
  "chatMessages": [
    {"role": "user", "content": "save the questions to cloudflare"},
    {"padding": "abc", "role": "assistant", "tool_calls": [{"function": {"arguments": "{\"command\":\"ls -1a\",\"async\":false}", "name": "bash"}, "id": "call_1", "type": "function"}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "<exited with exit code ERR_DLOPEN_FAILED>"},
    {"padding": "abcdef", "role": "assistant", "content": "The shell fails; reading the file instead.", "tool_calls": [{"function": {"arguments": "{\"path\":\"README.md\"}", "name": "view"}, "id": "call_2", "type": "function"}]},
    {"role": "tool", "tool_call_id": "call_2", "content": "# data"},
    {"padding": "a", "role": "assistant", "content": "Done."},
    {"role": "user", "content": "thanks"},
    {"padding": "ab", "role": "assistant", "content": "You're welcome."}
  ],
  "timeline": [
    {"id": "e1", "timestamp": "2025-10-05T13:12:44.593Z", "type": "error", "text": "You must be logged in to send messages. Please run /login"},
    {"id": "e2", "timestamp": "2025-10-05T13:13:46.986Z", "type": "info", "text": "Signed in successfully"},
    {"id": "u1", "timestamp": "2025-10-05T13:14:57.465Z", "type": "user", "text": "save the questions to cloudflare"},
    {"type": "tool_call_completed", "id": "t1", "timestamp": "2025-10-05T13:15:03.656Z", "callId": "call_1", "name": "bash", "arguments": {"command": "ls -1a"}, "result": {"type": "failure", "log": "ERR_DLOPEN_FAILED"}},
    {"type": "tool_call_completed", "id": "t2", "timestamp": "2025-10-05T13:15:08.291Z", "callId": "call_2", "name": "view", "arguments": {"path": "README.md"}, "result": {"type": "success", "log": "# data"}},
    {"id": "c1", "timestamp": "2025-10-05T13:15:10.000Z", "type": "copilot", "text": "Done."},
    {"id": "u2", "timestamp": "2025-10-05T13:20:00.000Z", "type": "user", "text": "thanks"},
    {"id": "c2", "timestamp": "2025-10-05T13:20:02.000Z", "type": "copilot", "text": "You're welcome."}
  ]
}`
	sessions, problems := readText(t, "session_076dfd18-c092-4221-bb1e-efdf478eff3d_1759669955294.json", doc)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %v; want 1 and none", len(sessions), problems)
	}
	s := sessions[0]
	if s.Format != formatCopilotHistory || s.ID != "076dfd18-c092-4221-bb1e-efdf478eff3d" || len(s.Turns) != 2 {
		t.Fatalf("read %s %s with %d turns, want copilot-cli-history 076dfd18-… with 2", s.Format, s.ID, len(s.Turns))
	}
	if got := callSummary(s); got != "call_1/bash=<exited with exit code ERR_DLOPEN_FAILED> call_2/view=# data" {
		t.Errorf("calls %q", got)
	}
	cs := s.Turns[0].Requests[0].Calls
	if len(s.Turns[0].Requests) != 3 || !cs[0].IsError || s.Turns[0].Requests[1].Calls[0].IsError {
		t.Errorf("want 3 requests in the first turn, the bash call an error (failure), the view call not")
	}
	if got := s.Turns[0].Requests[1].Calls[0].Time.Format("15:04:05"); got != "13:15:03" {
		t.Errorf("the second call is at %s, want 13:15:03 (the time the first completion was shown)", got)
	}
	if start, _ := s.Span(); start.Format("15:04:05") != "13:14:57" {
		t.Errorf("starts %v, want the first user entry's time", start)
	}
	if !strings.Contains(strings.Join(s.Notes, "\n"), "2 CLI info/error line(s)") {
		t.Errorf("notes %q: want the 2 CLI lines counted", s.Notes)
	}
}
