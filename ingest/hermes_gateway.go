package ingest

import "github.com/loopgate/loopgate/internal/jsonx"

// hermes gateway transcripts (sessions/<id>.jsonl, one message a line).

// parseHermesGateway reads a gateway transcript: one message per line, the
// first possibly a session_meta record (absent after a rewrite).
func parseHermesGateway(lr *LineReader, h *Head, out *Sink) {
	s := &Session{Format: "hermes-gateway", ID: hermesIDFromName(h.Name)}
	b := newHermesConv(s, out)
	b.where = ""
	for {
		line, n, ok := lr.Next()
		if !ok {
			break
		}
		if s.Line == 0 {
			s.Line = n
		}
		// A line read in one pass is valid JSON: only the others are
		// checked, then decoded generically, whose errors word the
		// problems.
		var m hermesMsg
		if !m.decode(line) {
			if !jsonx.Valid(line) {
				out.BadLine(lr, n, hermesJSONError(line))
				continue
			}
			if err := hermesUnmarshalMessage(line, &m); err != nil {
				out.Problemf(n, "not a hermes gateway message: %s", hermesDecodeError(err))
				continue
			}
		}
		if m.Role == "session_meta" {
			if s.Model == "" {
				s.Model = m.Model
			}
			if m.Platform != "" {
				s.Notes = append(s.Notes, "platform: "+m.Platform)
				s.Platform = m.Platform
			}
			continue
		}
		b.message(&m, n)
	}
	if s.Line == 0 {
		return
	}
	b.finish()
	out.Session(s)
}
