package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopilotAutopilotNudge: in autopilot, Copilot CLI puts its own
// message in the conversation when the model stops before calling
// task_complete: a user.message with nothing typed and the text for the
// model in transformedContent. It opens no turn: it is heard where it
// stands (a notice), as Claude Code's task notifications are. A message
// with typed text, or with an attachment, is a turn.
func TestCopilotAutopilotNudge(t *testing.T) {
	nudge := `{"type":"user.message","data":{"content":"","transformedContent":"You have not yet marked the task as complete using the task_complete tool.","attachments":[]},"id":"e5","parentId":"e4","timestamp":"2026-03-20T19:13:22.416Z"}`
	lines := []string{
		`{"type":"session.start","data":{"sessionId":"c0de-1","selectedModel":"gpt-5","context":{"cwd":"/w"}},"id":"e1","parentId":null,"timestamp":"2026-03-20T19:00:00.000Z"}`,
		`{"type":"user.message","data":{"content":"Fix the build","transformedContent":"Fix the build"},"id":"e2","parentId":"e1","timestamp":"2026-03-20T19:00:01.000Z"}`,
		`{"type":"assistant.message","data":{"messageId":"m1","apiCallId":"a1","content":"Looking.","toolRequests":[{"toolCallId":"c1","name":"view","arguments":{"path":"/w/go.mod"},"type":"function"}]},"id":"e3","parentId":"e2","timestamp":"2026-03-20T19:00:02.000Z"}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"module w"}},"id":"e4","parentId":"e3","timestamp":"2026-03-20T19:00:03.000Z"}`,
		nudge,
		`{"type":"assistant.message","data":{"messageId":"m2","apiCallId":"a2","content":"Done.","toolRequests":[{"toolCallId":"c2","name":"task_complete","arguments":{"summary":"fixed"},"type":"function"}]},"id":"e6","parentId":"e5","timestamp":"2026-03-20T19:13:23.000Z"}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"c2","success":true,"result":{"content":"ok"}},"id":"e7","parentId":"e6","timestamp":"2026-03-20T19:13:24.000Z"}`,
	}
	cases := []struct {
		name           string
		swap           string // replaces the nudge line when set
		turns, notices int
	}{
		{"a nudge", "", 1, 1},
		{"a typed message", strings.Replace(nudge, `"content":""`, `"content":"go on"`, 1), 2, 0},
		{"an attachment alone", strings.Replace(nudge, `"attachments":[]`, `"attachments":[{"type":"file","path":"/w/a.go"}]`, 1), 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ls := append([]string(nil), lines...)
			if tc.swap != "" {
				ls[4] = tc.swap
			}
			dir := filepath.Join(t.TempDir(), "session-state", "c0de-1")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "events.jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sessions, problems := readAll(t, path, Options{})
			if len(sessions) != 1 || len(problems) > 0 {
				t.Fatalf("%d sessions, problems %v", len(sessions), problems)
			}
			s := sessions[0]
			notices := 0
			for _, tr := range s.Turns {
				notices += len(tr.Notices)
			}
			if len(s.Turns) != tc.turns || notices != tc.notices || s.NumCalls() != 2 {
				t.Errorf("%d turns, %d notices, %d calls; want %d, %d, 2", len(s.Turns), notices, s.NumCalls(), tc.turns, tc.notices)
			}
		})
	}
}
