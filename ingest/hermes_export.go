package ingest

// hermes export records (hermes sessions export JSONL, one session a
// record).

import (
	"bytes"
	"fmt"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// hermesExportRecord is one line of `hermes sessions export` (§3.B): the
// sessions row plus its messages.
type hermesExportRecord struct {
	hermesExportColumns
	Messages []jsonx.RawMessage `json:"messages"`
}

// hermesExportColumns is hermesExportRecord without its messages: the
// session columns, decoded while the messages list is read in place
// (hermesReadExportRecord).
type hermesExportColumns struct {
	ID              string           `json:"id"`
	Source          string           `json:"source"`
	Model           string           `json:"model"`
	ModelConfig     jsonx.RawMessage `json:"model_config"`
	ParentSessionID string           `json:"parent_session_id"`
	EndReason       string           `json:"end_reason"`
	InputTokens     float64          `json:"input_tokens"`
	OutputTokens    float64          `json:"output_tokens"`
	CacheRead       float64          `json:"cache_read_tokens"`
	CacheWrite      float64          `json:"cache_write_tokens"`
	ReasoningTokens float64          `json:"reasoning_tokens"`
	APICalls        float64          `json:"api_call_count"`
	// ChildOfLive is set by the state.db reader for a child session that
	// began before its parent ended (hermesStateChildOfLive).
	ChildOfLive bool `json:"-"`
}

// hermesExportMessage is one element of an export record's messages list
// as hermesReadExportRecord leaves it: decoded, or, when it does not
// decode in one pass (content parts, a member of another type...), raw,
// for hermesDecodeMessage to decode generically.
type hermesExportMessage struct {
	m       hermesMsg
	decoded bool
	raw     []byte
}

// hermesReadExportRecord reads the export record data in one pass: the
// columns into cols, and the messages list element by element, each
// message decoded where it lies (hermesMsg.decodeAt). The walk also
// checks that data is one valid JSON object. ok is false for any record
// it cannot read so (no messages list, a repeated or case-folded member,
// columns of other types, invalid JSON...): the record is then decoded
// generically, whose problems word what is wrong. cols may be partly
// written then.
func hermesReadExportRecord(data []byte, cols *hermesExportColumns) (msgs []hermesExportMessage, ok bool) {
	// The numbers are read raw and then by the decoder, one by one, as it
	// reads them into hermesExportColumns.
	var tokens [6]jsonx.RawMessage
	numbers := [len(tokens)]*float64{&cols.InputTokens, &cols.OutputTokens, &cols.CacheRead, &cols.CacheWrite, &cols.ReasoningTokens, &cols.APICalls}
	fields := [...]jsonx.Field{
		{Name: "id", Str: &cols.ID},
		{Name: "source", Str: &cols.Source},
		{Name: "model", Str: &cols.Model},
		{Name: "model_config", Raw: &cols.ModelConfig, View: true},
		{Name: "parent_session_id", Str: &cols.ParentSessionID},
		{Name: "end_reason", Str: &cols.EndReason},
		{Name: "input_tokens", Raw: &tokens[0], View: true},
		{Name: "output_tokens", Raw: &tokens[1], View: true},
		{Name: "cache_read_tokens", Raw: &tokens[2], View: true},
		{Name: "cache_write_tokens", Raw: &tokens[3], View: true},
		{Name: "reasoning_tokens", Raw: &tokens[4], View: true},
		{Name: "api_call_count", Raw: &tokens[5], View: true},
	}
	readMessage := func(data []byte, pos, depth int) (int, bool) {
		msgs = append(msgs, hermesExportMessage{})
		e := &msgs[len(msgs)-1]
		if end, ok := e.m.decodeAt(data, pos, depth); ok {
			e.decoded = true
			return end, true
		}
		start, end, ok := jsonx.SkipValue(data, pos, depth)
		if !ok {
			return 0, false
		}
		e.m, e.raw = hermesMsg{}, data[start:end:end]
		return end, true
	}
	nested := [...]jsonx.Nested{{Name: "messages", Read: func(data []byte, pos, depth int) (int, bool) {
		msgs = []hermesExportMessage{}
		return jsonx.DecodeArrayEach(data, pos, depth, readMessage)
	}}}
	end, ok := jsonx.DecodeObjectNested(data, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(data, end) || msgs == nil {
		return nil, false
	}
	for i, raw := range tokens {
		if raw != nil && jsonx.Unmarshal(raw, numbers[i]) != nil {
			return nil, false
		}
	}
	return msgs, true
}

// parseHermesExportRecord reads one exported session. line is the line of
// every call of the session (0 in a pretty-printed document); sessionLine is
// where the session starts. In a document, pos gives the file line of each
// message for problems (the session keeps line 0, docpos.go).
func parseHermesExportRecord(data []byte, line, sessionLine int, lr *LineReader, pos *docPos, h *Head, out *Sink) {
	at := line // the line of problems of the record as a whole
	if at == 0 {
		at = pos.lineOf(data)
	}
	var rec hermesExportRecord
	// The messages decoded by the one-pass reading, or raw.
	msgs, _ := hermesReadExportRecord(data, &rec.hermesExportColumns)
	if msgs == nil {
		// The generic decoding of a record the one-pass reading declines,
		// whose errors word the problems.
		rec = hermesExportRecord{} // nothing of a declined reading stays
		if !jsonx.Valid(data) {
			out.BadLine(lr, at, hermesJSONError(data))
			return
		}
		if err := jsonx.Unmarshal(data, &rec); err != nil {
			out.Problemf(at, "not a hermes export session record: %s", hermesDecodeError(err))
			return
		}
		if rec.Messages == nil {
			out.Problemf(at, "hermes export record has no messages list; skipped")
			return
		}
		msgs = make([]hermesExportMessage, len(rec.Messages))
		for i, raw := range rec.Messages {
			msgs[i].raw = raw
		}
	}
	s := &Session{Format: "hermes-export", ID: rec.ID, Model: rec.Model, Line: sessionLine, Platform: rec.Source}
	if s.ID == "" {
		s.ID = fmt.Sprintf("%s:%d", hermesIDFromName(h.Name), line)
	}
	hermesSessionNotes(s, &rec.hermesExportColumns)
	b := newHermesConv(s, out)
	b.doc = pos != nil && line == 0
	var lines []int
	if pos != nil {
		lines = pos.elemLines(member(data, "messages"))
	}
	inactive := 0
	for i := range msgs {
		line := lineAtIndex(lines, i, at)
		m := &msgs[i].m
		if !msgs[i].decoded {
			if err := hermesDecodeMessage(msgs[i].raw, m); err != nil {
				out.Problemf(line, "%smessage %d has an unexpected shape (%s); skipped", b.where, i+1, hermesDecodeError(err))
				continue
			}
		}
		// Rewound rows (active=0) were taken back out of the conversation;
		// compacted rows (newer schemas) still happened and are kept.
		if s := string(bytes.TrimSpace(m.Active)); s == "0" || s == "false" {
			if !hermesTrue(m.Compacted) {
				inactive++
				continue
			}
		}
		b.message(m, line)
	}
	if inactive > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d inactive (rewound) messages skipped", inactive))
	}
	b.finish()
	out.Session(s)
}

// hermesSessionNotes reads the sessions columns of an export record or a
// state.db row into s: a subagent's scope and parent, a child session's
// lineage, source, end reason and token totals, as notes.
func hermesSessionNotes(s *Session, rec *hermesExportColumns) {
	cfg := hermesModelConfig(rec.ModelConfig)
	delegateFrom, _ := cfg.GetString("_delegate_from")
	_, branched := cfg.GetString("_branched_from")
	_, reset := cfg.GetString("_reset_from")
	if rec.Source == "subagent" || delegateFrom != "" || (rec.ChildOfLive && !branched && !reset) {
		s.Agent = s.ID
		s.Parent = rec.ParentSessionID
		if s.Parent == "" {
			s.Parent = delegateFrom
		}
	} else if rec.ParentSessionID != "" {
		how := "child"
		if from, ok := cfg.GetString("_branched_from"); ok && from != "" {
			how = "branch"
		} else if from, ok := cfg.GetString("_reset_from"); ok && from != "" {
			how = "reset"
		}
		note := fmt.Sprintf("%s of session %s", how, rec.ParentSessionID)
		if how == "child" {
			// The copy is what a compression continuation does (§2.8);
			// the reference does not say what a /branch or reset child
			// copies, so their notes make no claim.
			note += " (a compression continuation repeats the parent's head and tail before its summary)"
		}
		s.Notes = append(s.Notes, note)
	}
	if rec.Source != "" {
		s.Notes = append(s.Notes, "source: "+rec.Source)
	}
	if rec.EndReason != "" {
		s.Notes = append(s.Notes, "end_reason: "+rec.EndReason)
	}
	if rec.InputTokens+rec.OutputTokens+rec.CacheRead+rec.CacheWrite > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("session token totals (no per-request usage): input %.0f, output %.0f, cache_read %.0f, cache_write %.0f, reasoning %.0f, api_calls %.0f",
			rec.InputTokens, rec.OutputTokens, rec.CacheRead, rec.CacheWrite, rec.ReasoningTokens, rec.APICalls))
	}
}

// hermesModelConfig parses sessions.model_config: JSON text or an object.
func hermesModelConfig(raw jsonx.RawMessage) jsonx.Value {
	v, err := jsonx.Parse(bytes.TrimSpace(raw))
	if err != nil {
		return jsonx.Value{}
	}
	if v.Kind == jsonx.String {
		if inner, err := jsonx.ParseString(v.Str); err == nil {
			return inner
		}
	}
	return v
}
