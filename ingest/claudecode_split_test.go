package ingest

import (
	"strings"
	"testing"
)

// TestClaudeCodeSplitWithoutRequestID: the Messages API gives every response
// its own id (https://docs.anthropic.com/en/api/messages, "id: Unique object
// identifier"); Claude Code writes each content block of a response as its
// own line carrying that message.id and the response's usage. Some files
// (written through a proxy) carry no requestId: the lines sharing message.id
// are still one request and its usage is counted once.
func TestClaudeCodeSplitWithoutRequestID(t *testing.T) {
	line := func(uuid, msgID, reqID, content string, out int) string {
		req := ""
		if reqID != "" {
			req = `"requestId":"` + reqID + `",`
		}
		return `{"type":"assistant","uuid":"` + uuid + `","sessionId":"s1",` + req +
			`"timestamp":"2026-02-01T10:00:01Z","message":{"id":"` + msgID +
			`","role":"assistant","model":"claude-x","content":[` + content +
			`],"usage":{"input_tokens":100,"output_tokens":` + itoaTest(out) + `}}}`
	}
	prompt := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"go"}}`
	result := `{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2026-02-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a"}]}}`
	text := `{"type":"text","text":"ok"}`
	call := `{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}`
	tests := []struct {
		name         string
		lines        []string
		wantRequests int
		wantInput    int64
		wantOutput   int64
	}{
		{"same message.id, no requestId: one request", []string{prompt,
			line("a1", "msg_1", "", text, 3), line("a2", "msg_1", "", call, 9)}, 1, 100, 9},
		{"same message.id and requestId: one request", []string{prompt,
			line("a1", "msg_1", "req_1", text, 3), line("a2", "msg_1", "req_1", call, 9)}, 1, 100, 9},
		{"two message ids, no requestId: two requests", []string{prompt,
			line("a1", "msg_1", "", text, 3), line("a2", "msg_2", "", call, 9)}, 2, 200, 12},
		{"same message.id, two requestIds: two requests", []string{prompt,
			line("a1", "msg_1", "req_1", text, 3), line("a2", "msg_1", "req_2", call, 9)}, 2, 200, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := readString("s1.jsonl", strings.Join(append(tt.lines, result), "\n")+"\n")
			if len(problems) != 0 {
				t.Fatalf("problems: %v", problems)
			}
			if len(sessions) != 1 {
				t.Fatalf("%d sessions, want 1", len(sessions))
			}
			var requests int
			var in, out int64
			for _, turn := range sessions[0].Turns {
				for _, r := range turn.Requests {
					requests++
					if r.Usage != nil {
						in += r.Usage.Input
						out += r.Usage.Output
					}
				}
			}
			if requests != tt.wantRequests || in != tt.wantInput || out != tt.wantOutput {
				t.Errorf("requests %d input %d output %d, want %d %d %d", requests, in, out, tt.wantRequests, tt.wantInput, tt.wantOutput)
			}
		})
	}
}
