package ingest

// A terminal transcript converted to JSONL by a "txt_to_json_converter":
// a {"type": "session_metadata", "converter", "format_version", "session_id",
// "session_date", "session_time", "message_count"} line, then one
// {"type": "human_message"|"assistant_message", "role", "content",
// "timestamp"} line per message. Task-submission pipelines write it from a
// Claude Code session's terminal text (the .txt the user saved), so the tool
// uses are only the lines the terminal printed ("Read 1 file", "Update(path)
// ⎿ Added 50 lines"), inside the assistant's text. No upstream source
// documents it; the reading follows the real files. The same converter also
// writes the whole transcript as one JSON document: {"session_info": {the
// metadata line's fields}, "messages": [{"role": "human"|"assistant",
// "content", "timestamp"}]}, read alike. Docs:
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
		Reads:     "Terminal transcripts converted to JSONL by a txt_to_json converter: a `session_metadata` line, then `human_message` and `assistant_message` lines (text only: no tool calls); or the same converter's one JSON document (`session_info`, `messages`).",
		Detection: "First record has `type: session_metadata` with `converter` and `format_version`, or `type` `human_message`/`assistant_message` with `role` and `content`; or a JSON document whose `session_info` has `converter` and `format_version`, with a `messages` array.",
		Priority:  42,
		Sniff: func(h *Head) bool {
			if h.Array {
				return false
			}
			if convertedInfo(h) {
				return rawIsArray(h.Keys["messages"])
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
		ParseDoc:   parseConvertedDoc,
	})
}

// convertedInfo reports whether the first record has the converter's
// session_info (its document form), which openai-chat, tried before, leaves
// to this format.
func convertedInfo(h *Head) bool {
	info := keysOf(h.Keys["session_info"])
	_, conv := info["converter"]
	_, ver := info["format_version"]
	return conv && ver
}

// parseConvertedDoc reads the document form: session_info, then messages
// whose role is human (a turn) or assistant (a request).
func parseConvertedDoc(doc []byte, h *Head, out *Sink) {
	s := &Session{Format: formatConvertedText, ID: fileStem(h.Name), Line: h.Line}
	var info struct {
		SessionID   string `json:"session_id"`
		SessionDate string `json:"session_date"`
		SessionTime string `json:"session_time"`
	}
	_ = jsonx.Unmarshal(h.Keys["session_info"], &info)
	if info.SessionID != "" {
		s.ID = info.SessionID
	}
	start := ""
	if info.SessionDate != "" {
		start = info.SessionDate + " " + info.SessionTime
	}
	a, ok := readDocArray(doc, h, out, "messages")
	if !ok {
		return
	}
	b := newConvBuilder(s, out)
	for i, raw := range a.elems {
		n := a.line(i, h.Line)
		var m struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		if err := jsonx.Unmarshal(raw, &m); err != nil {
			out.Problemf(n, "message %d is not a converted transcript message: %s; skipped", i+1, decodeErr(err))
			continue
		}
		convertedMessage(s, b, m.Role, m.Content, n, start, out)
	}
	convertedFinish(s, b, start, out)
}

// convertedMessage reads one message of either form: the human's opens a
// turn (the first at the session's start), the assistant's is a request.
func convertedMessage(s *Session, b *convBuilder, role, content string, n int, start string, out *Sink) {
	switch role {
	case "human":
		t := timeZero
		if len(s.Turns) == 0 && start != "" {
			t = convertedStart(start)
		}
		b.turn(n, t, len(content))
		keepUserText(s, content)
	case "assistant":
		b.request(n, timeZero, len(content), nil)
	default:
		out.Problemf(n, "message of unknown role %q; skipped", role)
	}
}

// convertedFinish closes the session with its notes.
func convertedFinish(s *Session, b *convBuilder, start string, out *Sink) {
	b.finish()
	s.Notes = append(s.Notes, "converted from terminal text: tool uses are only the lines the terminal printed, not calls; the messages' timestamps are the conversion's and are not kept")
	if start != "" {
		s.Notes = append(s.Notes, "the session started "+start+" (local time, as the converter's metadata gives it; read as UTC for the first turn)")
	}
	out.Session(s)
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
			convertedMessage(s, b, "human", r.Content, n, start, out)
		case "assistant_message":
			convertedMessage(s, b, "assistant", r.Content, n, start, out)
		default:
			out.Problemf(n, "record of unknown type %q; skipped", r.Type)
		}
	})
	convertedFinish(s, b, start, out)
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
