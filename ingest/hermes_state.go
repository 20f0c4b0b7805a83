package ingest

// hermes-agent's SQLite session store, `$HERMES_HOME/state.db` (docs/formats/hermes-state.md;
// NousResearch/hermes-agent hermes_state.py, schema v1 of
// 2026-02 to v30). Every session row becomes a session, built from its
// messages rows in id order by the same builder as the export dump
// (hermesConv), so that a state.db and `hermes sessions export` of it read
// alike. Docs: docs/formats/hermes-state.md.
//
// Readings taken:
//   - Messages are read in id order (AUTOINCREMENT: hermes' own order;
//     timestamps are set at flush time and tie).
//   - Rows with active = 0 were rewound and are skipped, unless compacted =
//     1 (newer schemas keep compacted rows for display: they happened), as
//     the export reader does.
//   - content holding "\x00json:" + JSON is a list or object stored as text
//     (§3.A, encoding quirks); tool_calls is the JSON text of the list.
//   - Messages whose session_id names no sessions row are still read, as a
//     session of their own with a note, not dropped.
//   - Sessions are read in started_at order (then id); the export writes
//     them most recent first, so the order of sessions differs.

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatHermesState = "hermes-state"

func init() {
	register(&Format{
		ID:        formatHermesState,
		Family:    "hermes",
		Reads:     "hermes-agent SQLite session store `state.db` (tables sessions and messages), opened read-only and immutable; with `state.db-wal` beside it, a private copy of both is read, so the log's rows count.",
		Detection: "An SQLite database with a `messages` table (session_id, role, content, tool_calls) and a `sessions` table (id, source).",
		Priority:  19,
		Sniff: func(h *Head) bool {
			d := h.Database
			return d != nil && d.Has("messages", "id", "session_id", "role", "content", "tool_call_id", "tool_calls") && d.Has("sessions", "id", "source")
		},
		ParseFile: parseHermesState,
	})
}

func parseHermesState(h *Head, out *Sink) {
	d := h.Database
	scol := func(n string) string { return d.column("sessions", n) }
	q := `SELECT "id", ` + scol("source") + `, ` + scol("model") + `, ` + scol("model_config") + `, ` +
		scol("parent_session_id") + `, ` + scol("end_reason") + `, ` + scol("input_tokens") + `, ` +
		scol("output_tokens") + `, ` + scol("cache_read_tokens") + `, ` + scol("cache_write_tokens") + `, ` +
		scol("reasoning_tokens") + `, ` + scol("api_call_count") + `, ` + scol("started_at") + `, ` + scol("ended_at") +
		` FROM sessions ORDER BY ` + scol("started_at") + `, "id"`
	rows, err := d.DB.Query(q)
	if err != nil {
		out.Problemf(0, "table sessions cannot be read: %v", err)
		return
	}
	var sessions []hermesExportColumns
	spans := map[string]hermesStateSpan{}
	for rows.Next() {
		var id, source, model, cfg, parent, endReason sql.NullString
		var in, outTok, cr, cw, reason, calls, started, ended sql.NullFloat64
		if err := rows.Scan(&id, &source, &model, &cfg, &parent, &endReason, &in, &outTok, &cr, &cw, &reason, &calls, &started, &ended); err != nil {
			dbProblemf(out, "sessions", len(sessions)+1, "cannot be read (%v); its messages are read as a session without a sessions row", err)
			continue
		}
		c := hermesExportColumns{ID: id.String, Source: source.String, Model: model.String, ParentSessionID: parent.String, EndReason: endReason.String,
			InputTokens: in.Float64, OutputTokens: outTok.Float64, CacheRead: cr.Float64, CacheWrite: cw.Float64, ReasoningTokens: reason.Float64, APICalls: calls.Float64}
		if cfg.Valid && cfg.String != "" {
			c.ModelConfig = jsonx.RawMessage(strconv.Quote(cfg.String))
		}
		sessions = append(sessions, c)
		spans[c.ID] = hermesStateSpan{started, ended}
	}
	rows.Close()
	for i := range sessions {
		sessions[i].ChildOfLive = hermesStateChildOfLive(spans, sessions[i].ID, sessions[i].ParentSessionID)
	}
	if err := rows.Err(); err != nil {
		out.Problemf(0, "table sessions could not be read to the end: %v", err)
	}
	known := map[string]bool{}
	for i := range sessions {
		known[sessions[i].ID] = true
		hermesStateSession(d, &sessions[i], false, out)
	}
	// Messages of no sessions row: read, not dropped.
	orows, err := d.DB.Query(`SELECT DISTINCT session_id FROM messages ORDER BY session_id`)
	if err != nil {
		out.Problemf(0, "table messages cannot be read: %v", err)
		return
	}
	var orphans []string
	for orows.Next() {
		var sid sql.NullString
		if orows.Scan(&sid) == nil && !known[sid.String] {
			orphans = append(orphans, sid.String)
		}
	}
	orows.Close()
	for _, sid := range orphans {
		hermesStateSession(d, &hermesExportColumns{ID: sid}, true, out)
	}
}

// hermesStateSession reads one session's messages and emits it.
func hermesStateSession(d *Database, cols *hermesExportColumns, orphan bool, out *Sink) {
	s := &Session{Format: formatHermesState, ID: cols.ID, Model: cols.Model}
	if orphan {
		s.Notes = append(s.Notes, "no sessions row has this id: its messages rows are read as a session of their own")
	}
	hermesSessionNotes(s, cols)
	mcol := func(n string) string { return d.column("messages", n) }
	q := `SELECT "id", "role", ` + d.Capped("messages", "content") + `, "tool_call_id", ` + d.Capped("messages", "tool_calls") + `, ` + mcol("tool_name") + `, ` + mcol("timestamp") + `, ` +
		mcol("reasoning") + `, ` + mcol("reasoning_content") + `, ` + mcol("active") + `, ` + mcol("compacted") + `, ` +
		mcol("_compressed_summary") + ` FROM messages WHERE session_id IS ? ORDER BY "id"`
	b := newHermesConv(s, out)
	where := fmt.Sprintf("table messages, session %s: ", s.ID)
	rows, err := d.DB.Query(q, cols.ID)
	if err != nil {
		out.Problemf(0, "%scannot be read: %v", where, err)
		return
	}
	inactive := 0
	for rows.Next() {
		var id sql.NullInt64
		var role, content, callID, toolCalls, toolName, reasoning, reasoningContent sql.NullString
		var ts sql.NullFloat64
		var active, compacted, summary sql.NullString
		var contentSize, toolCallsSize sql.NullInt64
		if err := rows.Scan(&id, &role, &content, &contentSize, &callID, &toolCalls, &toolCallsSize, &toolName, &ts, &reasoning, &reasoningContent, &active, &compacted, &summary); err != nil {
			dbProblemf(out, "messages", "of session "+s.ID, "cannot be read (%v); skipped", err)
			continue
		}
		b.where = fmt.Sprintf("table messages, row %d (session %s): ", id.Int64, s.ID)
		d.CappedProblem(out, b.where, "content", contentSize)
		d.CappedProblem(out, b.where, "tool_calls", toolCallsSize)
		if sqlFalse(active) && !sqlTrue(compacted) {
			inactive++
			continue
		}
		m := hermesMsg{Text: hermesStringValueText(content.String), Reasoning: hermesStringValueText(reasoning.String)}
		if m.Reasoning == "" {
			m.Reasoning = hermesStringValueText(reasoningContent.String)
		}
		m.Role, m.ToolCallID, m.ToolName = role.String, callID.String, toolName.String
		if ts.Valid {
			m.Timestamp = jsonx.RawMessage(strconv.FormatFloat(ts.Float64, 'f', -1, 64))
		}
		if sqlTrue(summary) {
			m.CompressedSummary = jsonx.RawMessage("true")
		}
		if toolCalls.Valid && toolCalls.String != "" {
			if !jsonx.Valid([]byte(toolCalls.String)) {
				out.Problemf(0, "%stool_calls is not valid JSON; its calls are skipped", b.where)
			} else {
				m.ToolCalls = jsonx.RawMessage(toolCalls.String)
			}
		}
		b.message(&m, 0)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		out.Problemf(0, "%scould not be read to the end: %v", where, err)
	}
	if inactive > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d inactive (rewound) messages skipped", inactive))
	}
	b.where = where
	b.finish()
	out.Session(s)
}

// sqlTrue and sqlFalse read a flag column (INTEGER 0/1, or text).
func sqlTrue(v sql.NullString) bool  { return v.Valid && (v.String == "1" || v.String == "true") }
func sqlFalse(v sql.NullString) bool { return v.Valid && (v.String == "0" || v.String == "false") }

// hermesStateSpan is a sessions row's started_at and ended_at.
type hermesStateSpan struct{ started, ended sql.NullFloat64 }

// hermesStateChildOfLive reports whether session id, a child of parent,
// began while its parent was still running: after the parent began and
// before it ended (or the parent has not ended). Such a child is not a
// compression continuation: hermes ends the parent (end_reason
// "compression") before it creates the continuation, which therefore
// begins after the parent's ended_at (NousResearch/hermes-agent
// run_agent.py, the context-compression split; docs/formats/hermes-state.md).
// In builds that mark a delegate_task child neither with source
// "subagent" nor with model_config._delegate_from, it is how a subagent's
// session is told apart: it runs inside a live parent's turn.
func hermesStateChildOfLive(spans map[string]hermesStateSpan, id, parent string) bool {
	if parent == "" {
		return false
	}
	c, p := spans[id], spans[parent]
	if !c.started.Valid || !p.started.Valid || c.started.Float64 < p.started.Float64 {
		return false
	}
	return !p.ended.Valid || c.started.Float64 < p.ended.Float64
}
