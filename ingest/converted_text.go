package ingest

// A terminal transcript converted to JSONL by a "txt_to_json_converter":
// a {"type": "session_metadata", "converter", "format_version", "session_id",
// "session_date", "session_time", "message_count"} line, then one
// {"type": "human_message"|"assistant_message", "role", "content",
// "timestamp"} line per message. Task-submission pipelines write it from a
// Claude Code session's terminal text (the .txt the user saved), so the tool
// uses are only the lines the terminal printed ("Read 1 file", "Update(path)
// ⎿ Added 50 lines"), inside the assistant's text. No upstream source
// documents it; the reading follows the real files. Docs:
// docs/formats/converted-text.md.
//
// Readings taken:
//   - A human message opens a turn, an assistant message is a request.
//   - There are no calls: the terminal's tool lines are text, not a record
//     of what was called with which arguments and what came back.
//   - The messages' timestamps are the conversion's (written in one run of
//     the converter, microseconds apart), not the session's: not kept. The
//     session's start is session_date and session_time (local time, zone
//     unknown): the first turn's time, read as UTC, and a note.

import (
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatConvertedText = "converted-text"

func init() {
	register(&Format{
		ID:        formatConvertedText,
		Family:    "converted",
		Reads:     "Terminal transcripts converted to JSONL by a txt_to_json converter: a `session_metadata` line, then `human_message` and `assistant_message` lines (text only: no tool calls).",
		Detection: "First record has `type: session_metadata` with `converter` and `format_version`, or `type` `human_message`/`assistant_message` with `role` and `content`.",
		Priority:  42,
		Sniff: func(h *Head) bool {
			if h.Array {
				return false
			}
			switch h.String("type") {
			case "session_metadata":
				return h.Has("converter", "format_version")
			case "human_message", "assistant_message":
				return h.Has("role", "content")
			}
			return false
		},
		ParseLines: parseConvertedText,
	})
}

func parseConvertedText(lr *LineReader, h *Head, out *Sink) {
	s := &Session{Format: formatConvertedText, ID: fileStem(h.Name)}
	b := newConvBuilder(s, out)
	var start string
	eachJSONLine(lr, h, out, func(line []byte, n int) {
		var r struct {
			Type        string `json:"type"`
			Content     string `json:"content"`
			SessionID   string `json:"session_id"`
			SessionDate string `json:"session_date"`
			SessionTime string `json:"session_time"`
			Converter   string `json:"converter"`
		}
		if err := jsonx.Unmarshal(line, &r); err != nil {
			out.Problemf(n, "not a converted transcript record: %s; skipped", decodeErr(err))
			return
		}
		if s.Line == 0 {
			s.Line = n
		}
		switch r.Type {
		case "session_metadata":
			if r.SessionID != "" {
				s.ID = r.SessionID
			}
			if r.SessionDate != "" {
				start = r.SessionDate + " " + r.SessionTime
			}
		case "human_message":
			t := timeZero
			if len(s.Turns) == 0 && start != "" {
				t = convertedStart(start)
			}
			b.turn(n, t, len(r.Content))
			keepUserText(s, r.Content)
		case "assistant_message":
			b.request(n, timeZero, len(r.Content), nil)
		default:
			out.Problemf(n, "record of unknown type %q; skipped", r.Type)
		}
	})
	b.finish()
	s.Notes = append(s.Notes, "converted from terminal text: tool uses are only the lines the terminal printed, not calls; the messages' timestamps are the conversion's and are not kept")
	if start != "" {
		s.Notes = append(s.Notes, "the session started "+start+" (local time, as the converter's metadata gives it; read as UTC for the first turn)")
	}
	out.Session(s)
}

// convertedStart reads "YYYY-MM-DD HHMMSS" (session_date, session_time) as
// UTC; the zero time when it is not that.
func convertedStart(start string) time.Time {
	date, hms, _ := strings.Cut(start, " ")
	if len(hms) != 6 {
		return timeZero
	}
	return parseTime(date + "T" + hms[:2] + ":" + hms[2:4] + ":" + hms[4:] + "Z")
}
