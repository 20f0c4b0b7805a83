package ingest

import (
	"testing"
	"time"
)

// The converter's two forms of one transcript: JSONL records, and the one
// JSON document (session_info, messages) it also writes, which openai-chat
// must leave alone (its roles are human and assistant).
const (
	convertedLines = `{"type": "session_metadata", "source_file": "s.txt", "session_id": "2026-04-02-003826-fix", "session_date": "2026-04-02", "session_time": "003826", "converted_at": "2026-04-02T00:58:44.300703", "message_count": 4, "format_version": "1.0", "converter": "txt_to_json_converter.py"}
{"type": "human_message", "content": "fix the login", "timestamp": "2026-04-02T00:58:44.282007", "role": "human"}
{"type": "assistant_message", "content": "Read 1 file (ctrl+o to expand)", "timestamp": "2026-04-02T00:58:44.282010", "role": "assistant"}
{"type": "assistant_message", "content": "Done.", "timestamp": "2026-04-02T00:58:44.282012", "role": "assistant"}
{"type": "human_message", "content": "thanks", "timestamp": "2026-04-02T00:58:44.282015", "role": "human"}
`
	convertedDoc = `{
  "session_info": {
    "source_file": "s.txt",
    "session_id": "2026-04-02-003826-fix",
    "session_date": "2026-04-02",
    "session_time": "003826",
    "converted_at": "2026-04-02T00:53:53.244163",
    "message_count": 4,
    "format_version": "1.0",
    "converter": "txt_to_json_converter.py"
  },
  "messages": [
    {"role": "human", "content": "fix the login", "timestamp": "2026-04-02T00:53:53.239883"},
    {"role": "assistant", "content": "Read 1 file (ctrl+o to expand)", "timestamp": "2026-04-02T00:53:53.239890"},
    {"role": "assistant", "content": "Done.", "timestamp": "2026-04-02T00:53:53.239895"},
    {"role": "human", "content": "thanks", "timestamp": "2026-04-02T00:53:53.239899"},
    {"role": "narrator", "content": "?", "timestamp": "2026-04-02T00:53:53.239900"}
  ]
}
`
)

func TestConvertedTextConformance(t *testing.T) {
	start := time.Date(2026, 4, 2, 0, 38, 26, 0, time.UTC)
	firstTurn := func(t *testing.T, s []*Session) {
		if got := s[0].Turns[0].Time; !got.Equal(start) {
			t.Errorf("first turn at %v, want the metadata's %v", got, start)
		}
		if s[0].Turns[1].UserText != "thanks" {
			t.Errorf("second turn's text = %q", s[0].Turns[1].UserText)
		}
	}
	runConformance(t, formatConvertedText, []conformanceCase{
		{name: "JSONL records", file: "2026-04-02-003826-fix.jsonl", text: convertedLines,
			sessions: "2026-04-02-003826-fix main 2t 2r ", check: firstTurn},
		{name: "the one-document form", file: "2026-04-02-003826-fix.json", text: convertedDoc,
			sessions: "2026-04-02-003826-fix main 2t 2r ", check: firstTurn,
			problems: []string{`message of unknown role "narrator"`}, lines: []int{17}},
	})
}
