package ingest

import (
	"strings"
	"testing"
)

// TestClineRooTruncationMarker: Roo Code's sliding-window truncation
// inserts a user message marking the messages it hides (still in the file,
// tagged truncationParent). The marker is no user's message: not a turn,
// and the next turn follows a compaction, as after a condense summary.
func TestClineRooTruncationMarker(t *testing.T) {
	text := `[
{"role":"user","content":[{"type":"text","text":"<task>\nfix the build\n</task>"}],"ts":100},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.go"}}],"ts":200,"truncationParent":"tr1"},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}],"ts":300,"truncationParent":"tr1"},
{"role":"user","content":"[Sliding window truncation: 2 messages hidden to reduce context]","ts":399,"isTruncationMarker":true,"truncationId":"tr1"},
{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"read_file","input":{"path":"a.go"}}],"ts":400},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"package a"}],"ts":500},
{"role":"user","content":[{"type":"text","text":"now run the tests"}],"ts":600},
{"role":"assistant","content":[{"type":"text","text":"ok"}],"ts":700}
]`
	sessions, problems := readText(t, "api_conversation_history.json", text)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %v", len(sessions), problems)
	}
	s := sessions[0]
	if len(s.Turns) != 2 {
		t.Fatalf("turns %d, want 2 (the task, the follow-up)", len(s.Turns))
	}
	if s.Turns[0].CompactedBefore || !s.Turns[1].CompactedBefore {
		t.Errorf("compacted: %v %v, want the follow-up only", s.Turns[0].CompactedBefore, s.Turns[1].CompactedBefore)
	}
	if len(s.Turns[0].Requests) != 2 || !s.Turns[0].Requests[1].Calls[0].HasResult {
		t.Errorf("want both read_file calls in the task's turn, with their results")
	}
	if !strings.Contains(strings.Join(s.Notes, "\n"), "1 sliding-window truncation marker(s)") {
		t.Errorf("notes %q", s.Notes)
	}
}
