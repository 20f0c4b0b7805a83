package formatcheck

import (
	"database/sql"
	"encoding/json"
	"net/url"
	"slices"
)

// Two agents keep their sessions in SQLite. The package reads them through
// database/sql with a driver named "sqlite" that the program links
// (cmd/formatcheck links modernc.org/sqlite); without one, a database is a
// format this reading does not know.
//
// OpenCode (opencode.db): a session row per session, its messages in
// "message" (data: JSON with role and, for an assistant message, tokens
// {total, input, output, reasoning, cache: {read, write}}) and their parts
// in "part" (data: JSON; a call is a part {type: "tool", callID, tool,
// state: {status, input, output}}, its result there once the state is
// completed or error) (docs/formats/opencode.md;
// https://github.com/sst/opencode).
//
// hermes (state.db): a "sessions" row per session and its "messages" rows
// (role, content, tool_call_id, tool_calls as JSON text), the session's
// usage in its input_tokens and output_tokens columns
// (docs/formats/hermes-state.md).

func countSQLite(path string) (Count, error) {
	if !slices.Contains(sql.Drivers(), "sqlite") {
		return Count{}, ErrUnknown
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&immutable=1")
	if err != nil {
		return Count{}, err
	}
	defer db.Close()
	tables := map[string]bool{}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return Count{}, ErrUnknown
	}
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			tables[n] = true
		}
	}
	rows.Close()
	switch {
	case tables["session"] && tables["message"] && tables["part"]:
		return countOpenCodeDB(db)
	case tables["sessions"] && tables["messages"]:
		return countHermesState(db)
	}
	return Count{}, ErrUnknown
}

// column reads one text column of a query's rows.
func column(db *sql.DB, query string, args ...any) ([]string, error) {
	rows, err := db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v.String)
	}
	return out, rows.Err()
}

func countOpenCodeDB(db *sql.DB) (Count, error) {
	c := Count{Format: "opencode"}
	ids, err := column(db, `SELECT id FROM session ORDER BY time_created, id`)
	if err != nil {
		return c, err
	}
	for _, id := range ids {
		s := newSession()
		msgs, err := column(db, `SELECT data FROM message WHERE session_id = ? ORDER BY time_created, id`, id)
		if err != nil {
			return c, err
		}
		for _, m := range msgs {
			t := asLine(json.RawMessage(m)).obj("tokens")
			if t == nil {
				continue
			}
			total := t.num("total")
			if total == 0 {
				total = t.num("input") + t.num("output") + t.num("reasoning") + t.obj("cache").num("read") + t.obj("cache").num("write")
			}
			s.tokens += total
		}
		parts, err := column(db, `SELECT data FROM part WHERE session_id = ? ORDER BY time_created, id`, id)
		if err != nil {
			return c, err
		}
		for _, p := range parts {
			d := asLine(json.RawMessage(p))
			if d.str("type") != "tool" {
				continue
			}
			st := d.obj("state")
			k := s.add(d.str("callID"), d.str("tool"), rawText(st["input"]))
			if st.str("status") == "completed" || st.str("status") == "error" {
				k.hasResult = true
			}
		}
		c.tally(s)
	}
	return c, nil
}

func countHermesState(db *sql.DB) (Count, error) {
	c := Count{Format: "hermes-state"}
	rows, err := db.Query(`SELECT id, COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) FROM sessions ORDER BY started_at, id`)
	if err != nil {
		return c, err
	}
	type sess struct {
		id     string
		tokens int64
	}
	var all []sess
	for rows.Next() {
		var x sess
		if err := rows.Scan(&x.id, &x.tokens); err != nil {
			rows.Close()
			return c, err
		}
		all = append(all, x)
	}
	rows.Close()
	for _, x := range all {
		s := newSession()
		mrows, err := db.Query(`SELECT COALESCE(role, ''), COALESCE(tool_call_id, ''), COALESCE(tool_calls, '') FROM messages WHERE session_id = ? ORDER BY id`, x.id)
		if err != nil {
			return c, err
		}
		for mrows.Next() {
			var role, callID, calls string
			if err := mrows.Scan(&role, &callID, &calls); err != nil {
				mrows.Close()
				return c, err
			}
			m := line{"role": mustJSON(role), "tool_call_id": mustJSON(callID), "tool_calls": mustJSON(calls)}
			addChat(s, m)
		}
		mrows.Close()
		s.tokens = x.tokens
		c.tally(s)
	}
	return c, nil
}
