package ingest

import (
	"path/filepath"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// hermes gateway transcripts (sessions/<id>.jsonl, one message a line).

// hermesSessionIndex reports hermes' gateway session index, the
// sessions.json that every hermes home keeps beside its transcripts
// (NousResearch/hermes-agent gateway/session.py, SessionStore; read back
// by gateway/mirror.py as _SESSIONS_INDEX = sessions/sessions.json at
// 035dc4e0): one object keyed by session key ("agent:main:telegram:dm")
// whose entries name a session_id, its platform and token counters. It
// holds no messages, so a walk of a hermes home leaves it out instead of
// reporting a file of no known format.
func hermesSessionIndex(path string) bool {
	return filepath.Base(path) == "sessions.json" && filepath.Base(filepath.Dir(path)) == "sessions"
}

// hermesSessionIndexHead reports a session index read by its content,
// wherever it lies (a walk leaves out only the one in a sessions folder,
// hermesSessionIndex; a copy elsewhere, or the file named alone, is said
// to be no transcript): one object whose every key is a session key
// ("agent:..."), each entry naming its session_key and session_id.
func hermesSessionIndexHead(h *Head) bool {
	if h.Array || len(h.Keys) == 0 {
		return false
	}
	for k, v := range h.Keys {
		if !strings.HasPrefix(k, "agent:") {
			return false
		}
		f := jsonx.TopLevelFields(string(v), "session_key", "session_id")
		if f[0] == "" || f[1] == "" {
			return false
		}
	}
	return true
}

// hermesGatewayLine is a line decoded (decodeHermesGatewayLine), before
// the reader applies it: decoding needs nothing of the lines before, so it
// may run ahead of the reader on other cores (eachRecord).
type hermesGatewayLine struct {
	m hermesMsg
	// notJSON: the line is not JSON; err: it is, but not a message.
	notJSON bool
	err     error
}

// decodeHermesGatewayLine decodes a line into a new message (the reader
// may keep what it holds). A line read in one pass is valid JSON: only
// the others are checked, then decoded generically, whose errors word the
// problems.
func decodeHermesGatewayLine(_ *LineReader, line []byte, _ int, rec *hermesGatewayLine) {
	*rec = hermesGatewayLine{}
	if rec.m.decode(line) {
		return
	}
	if !jsonx.Valid(line) {
		rec.notJSON = true
		return
	}
	rec.err = hermesUnmarshalMessage(line, &rec.m)
}

// parseHermesGateway reads a gateway transcript: one message per line, the
// first possibly a session_meta record (absent after a rewrite).
func parseHermesGateway(lr *LineReader, h *Head, out *Sink) {
	s := &Session{Format: "hermes-gateway", ID: hermesIDFromName(h.Name)}
	b := newHermesConv(s, out)
	b.where = ""
	eachRecord(lr.Next, lr, h, decodeHermesGatewayLine, func(lines *LineReader, line []byte, n int, rec *hermesGatewayLine) {
		if s.Line == 0 {
			s.Line = n
		}
		switch {
		case rec.notJSON:
			out.BadLine(lines, n, hermesJSONError(line))
			return
		case rec.err != nil:
			out.Problemf(n, "not a hermes gateway message: %s", hermesDecodeError(rec.err))
			return
		}
		m := &rec.m
		if m.Role == "session_meta" {
			if s.Model == "" {
				s.Model = m.Model
			}
			if m.Platform != "" {
				s.Notes = append(s.Notes, "platform: "+m.Platform)
				s.Platform = m.Platform
			}
			return
		}
		b.message(m, n)
	})
	if s.Line == 0 {
		return
	}
	b.finish()
	out.Session(s)
}
