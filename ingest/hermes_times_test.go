package ingest

import (
	"strings"
	"testing"
	"time"
)

// TestHermesFileTimes: hermes snapshots and trajectories record no time per
// message, only the file's own (run_agent.py _save_session_log writes
// session_start and last_updated; agent/trajectory.py save_trajectory a
// top-level timestamp, NousResearch/hermes-agent). The session's span is
// those times.
func TestHermesFileTimes(t *testing.T) {
	msgs := `"messages": [
  {"role": "user", "content": "list"},
  {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls\"}"}}]},
  {"role": "tool", "content": "a", "tool_call_id": "c1"},
  {"role": "assistant", "content": "done"}]`
	share := `"conversations": [
  {"from": "system", "value": "sys"},
  {"from": "human", "value": "list"},
  {"from": "gpt", "value": "<tool_call>\n{\"name\": \"terminal\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>"},
  {"from": "tool", "value": "<tool_response>\n{\"name\": \"terminal\", \"content\": \"a\"}\n</tool_response>"},
  {"from": "gpt", "value": "done"}]`
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	tests := []struct {
		name, file, text string
		start, end       time.Time
	}{
		{"snapshot, messages form", "session_20260305_142233_9f8e7d.json",
			`{"session_id": "20260305_142233_9f8e7d", "model": "m", "platform": "cli", "session_start": "2026-03-05T14:22:33.101", "last_updated": "2026-03-05T14:25:10", "message_count": 4, ` + msgs + `}`,
			at("2026-03-05T14:22:33.101Z"), at("2026-03-05T14:25:10Z")},
		{"snapshot, ShareGPT form", "session_20260201_100000_abc.json",
			`{"session_id": "20260201_100000_abc", "model": "m", "session_start": "2026-02-01T10:00:00", "last_updated": "2026-02-01T10:05:00", "message_count": 5, ` + share + `}`,
			at("2026-02-01T10:00:00Z"), at("2026-02-01T10:05:00Z")},
		{"snapshot, times not strings", "session_20260201_100000_abd.json",
			`{"session_id": "20260201_100000_abd", "model": "m", "session_start": 5, "last_updated": null, "message_count": 4, ` + msgs + `}`,
			time.Time{}, time.Time{}},
		{"trajectory, save time", "trajectory_samples.jsonl",
			`{` + strings.ReplaceAll(share, "\n", "") + `, "timestamp": "2026-02-01T10:07:00.5", "model": "m", "completed": true}` + "\n",
			at("2026-02-01T10:07:00.5Z"), at("2026-02-01T10:07:00.5Z")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := readString(tt.file, tt.text)
			if len(problems) != 0 {
				t.Fatalf("problems: %v", problems)
			}
			if len(sessions) != 1 {
				t.Fatalf("%d sessions, want 1", len(sessions))
			}
			start, end := sessions[0].Span()
			if !start.Equal(tt.start) || !end.Equal(tt.end) {
				t.Errorf("span %v .. %v, want %v .. %v", start, end, tt.start, tt.end)
			}
		})
	}
}
