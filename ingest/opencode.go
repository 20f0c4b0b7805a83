package ingest

// OpenCode's SQLite store, ~/.local/share/opencode/opencode.db
// (anomalyco/opencode, formerly sst/opencode: packages/opencode/src/session/
// session.sql.ts for the tables, message-v2.ts for the JSON in their data
// columns). Tables session(id, parent_id, ...), message(id, session_id,
// time_created, data) and part(id, message_id, session_id, data); a
// message's data is its info (role, time, tokens, modelID, summary, ...),
// each part's data one part (text, reasoning, tool, step-start,
// step-finish, compaction, ...). Docs: docs/formats/opencode.md.
//
// Readings taken:
//   - Sessions in time_created order; a session with a parent_id (a task
//     tool's subagent session) is its own agent scope, parent the parent
//     session.
//   - Messages in time_created then id order, parts in id order (the
//     indexes OpenCode reads them by).
//   - A user message opens a turn when it has a text part that is not
//     synthetic (OpenCode's injected text); one with a compaction part
//     marks the next turn as compacted instead.
//   - An assistant message is one request per step (step-start parts; one
//     when it has none); its tool parts are the calls, each with its own
//     result: state.output when completed (an error when state.metadata.exit,
//     a bash command's exit code, is not 0), state.error (an error) when
//     error, none while pending or running. An error part marked
//     state.metadata.interrupted (its run aborted while it ran) with a
//     state.metadata.output is read as OpenCode sends it to the model:
//     that output, not an error. An assistant message with
//     summary true is the compaction summary, not a request.
//   - Usage: a step-finish part's tokens, else the message's. OpenCode's
//     input excludes cached tokens, so Input is input + cache.read +
//     cache.write; output excludes reasoning, kept apart by OpenCode.
//   - The legacy storage/ JSON files (before the database) are read by
//     opencode_storage.go into the same builder (openCodeBuild).

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatOpenCode = "opencode"

func init() {
	register(&Format{
		ID:        formatOpenCode,
		Text:      true,
		Family:    "opencode",
		Reads:     "OpenCode's SQLite store `opencode.db` (tables session, message, part), opened read-only and immutable; with `opencode.db-wal` beside it, a private copy of both is read, so the log's rows count.",
		Detection: "An SQLite database with tables `session` (id, parent_id), `message` (id, session_id, data) and `part` (id, message_id, data).",
		Priority:  19,
		Sniff: func(h *Head) bool {
			d := h.Database
			return d != nil && d.Has("session", "id", "parent_id") && d.Has("message", "id", "session_id", "data") && d.Has("part", "id", "message_id", "data")
		},
		ParseFile: parseOpenCode,
	})
}

type ocTokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

func (t *ocTokens) usage() *Usage {
	if t == nil {
		return nil
	}
	return &Usage{Input: t.Input + t.Cache.Read + t.Cache.Write, Output: t.Output, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write}
}

type ocMessage struct {
	Role    string    `json:"role"`
	ModelID string    `json:"modelID"`
	Summary any       `json:"summary"` // a boolean on assistant messages, an object on user ones
	Tokens  *ocTokens `json:"tokens"`
	Time    struct {
		Created int64 `json:"created"`
	} `json:"time"`
}

type ocPart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	// URL of a file part: a file the user attached or mentioned
	// (FilePart in packages/opencode/src/session/message-v2.ts).
	URL    string    `json:"url"`
	Tool   string    `json:"tool"`
	CallID string    `json:"callID"`
	Tokens *ocTokens `json:"tokens"`
	State  struct {
		Status string           `json:"status"`
		Input  jsonx.RawMessage `json:"input"`
		Output string           `json:"output"`
		Error  string           `json:"error"`
		// Metadata.Exit is a bash call's exit code: OpenCode records a
		// command that exits non-zero as completed, with its exit code
		// here (seen in opencode.db written by OpenCode 1.18.33).
		// Metadata.Interrupted and Metadata.Output: a call still running
		// when its run was aborted is recorded as error "Tool execution
		// aborted" with its running metadata kept and interrupted true
		// (SessionProcessor.cleanup, packages/opencode/src/session/
		// processor.ts); the output a bash call streamed so far is in
		// Output, and it is what OpenCode sends the model as the call's
		// result, not the error (toModelMessages in message-v2.ts: an
		// interrupted part with a string metadata.output is
		// "output-available"). Both read in the published 1.18.33.
		Metadata struct {
			Exit        *int    `json:"exit"`
			Interrupted bool    `json:"interrupted"`
			Output      *string `json:"output"`
		} `json:"metadata"`
	} `json:"state"`
}

func parseOpenCode(h *Head, out *Sink) {
	d := h.Database
	rows, err := d.DB.Query(`SELECT "id", "parent_id" FROM session ORDER BY ` + d.column("session", "time_created") + `, "id"`)
	if err != nil {
		out.Problemf(0, "table session cannot be read: %v", err)
		return
	}
	type ocSession struct{ id, parent string }
	var sessions []ocSession
	for rows.Next() {
		var id, parent sql.NullString
		if err := rows.Scan(&id, &parent); err != nil {
			dbProblemf(out, "session", len(sessions)+1, "cannot be read (%v); skipped", err)
			continue
		}
		sessions = append(sessions, ocSession{id.String, parent.String})
	}
	rows.Close()
	known := map[string]bool{}
	for _, s := range sessions {
		known[s.id] = true
	}
	orows, err := d.DB.Query(`SELECT DISTINCT session_id FROM message ORDER BY session_id`)
	if err == nil {
		for orows.Next() {
			var sid sql.NullString
			if orows.Scan(&sid) == nil && !known[sid.String] {
				sessions = append(sessions, ocSession{id: sid.String, parent: "\x00orphan"})
			}
		}
		orows.Close()
	}
	for _, row := range sessions {
		s := &Session{Format: formatOpenCode, ID: row.id}
		if row.parent == "\x00orphan" {
			s.Notes = append(s.Notes, "no session row has this id: its message rows are read as a session of their own")
		} else if row.parent != "" {
			s.Agent, s.Parent = row.id, row.parent
		}
		openCodeSession(d, s, out)
	}
}

// ocStored is one stored message with its parts, and where it was read
// from (for problems).
type ocStored struct {
	id    string
	data  []byte
	parts []ocPart
	where string
}

// openCodeSession reads one session's messages and parts from the database.
func openCodeSession(d *Database, s *Session, out *Sink) {
	parts := map[string][]ocPart{}
	prows, err := d.DB.Query(`SELECT "id", "message_id", "data" FROM part WHERE session_id IS ? ORDER BY "message_id", "id"`, s.ID)
	if err != nil {
		out.Problemf(0, "table part, session %s: cannot be read: %v", s.ID, err)
		return
	}
	for prows.Next() {
		var id, mid, data sql.NullString
		if err := prows.Scan(&id, &mid, &data); err != nil {
			dbProblemf(out, "part", "of session "+s.ID, "cannot be read (%v); skipped", err)
			continue
		}
		var p ocPart
		if err := jsonx.Unmarshal([]byte(data.String), &p); err != nil {
			dbProblemf(out, "part", id.String, "data is not an OpenCode part (%s); skipped", decodeErr(err))
			continue
		}
		parts[mid.String] = append(parts[mid.String], p)
	}
	prows.Close()

	mrows, err := d.DB.Query(`SELECT "id", "data" FROM message WHERE session_id IS ? ORDER BY `+d.column("message", "time_created")+`, "id"`, s.ID)
	if err != nil {
		out.Problemf(0, "table message, session %s: cannot be read: %v", s.ID, err)
		return
	}
	var msgs []ocStored
	for mrows.Next() {
		var id, data sql.NullString
		if err := mrows.Scan(&id, &data); err != nil {
			dbProblemf(out, "message", "of session "+s.ID, "cannot be read (%v); skipped", err)
			continue
		}
		msgs = append(msgs, ocStored{id: id.String, data: []byte(data.String), parts: parts[id.String], where: "table message, row " + id.String})
		delete(parts, id.String)
	}
	mrows.Close()
	for _, mid := range sortedKeys(parts) {
		dbProblemf(out, "part", "of message "+mid, "%d part(s) of a message that is not in the session; skipped", len(parts[mid]))
	}
	openCodeBuild(s, msgs, out)
}

// openCodeBuild turns a session's stored messages, in order, into turns,
// requests and calls, and emits the session.
func openCodeBuild(s *Session, msgs []ocStored, out *Sink) {
	b := newConvBuilder(s, out)
	b.where = fmt.Sprintf("session %s: ", s.ID)
	interrupted := 0
	for _, sm := range msgs {
		var m ocMessage
		if err := jsonx.Unmarshal(sm.data, &m); err != nil {
			out.Problemf(0, "%s: data is not an OpenCode message (%s); skipped", sm.where, decodeErr(err))
			continue
		}
		t := msTime(m.Time.Created)
		ps := sm.parts
		switch m.Role {
		case "user":
			chars, genuine, compact := 0, false, false
			var typed strings.Builder
			for _, p := range ps {
				switch {
				case p.Type == "compaction":
					compact = true
				case p.Type == "text" && !p.Synthetic:
					genuine = true
					chars += len(p.Text)
					typed.WriteString(p.Text)
					typed.WriteByte('\n')
				case p.Type == "file":
					typed.WriteString(strings.TrimPrefix(p.URL, "file://"))
					typed.WriteByte('\n')
				}
			}
			if compact {
				b.compaction()
			} else if genuine {
				b.turn(0, t, chars)
				keepUserText(s, typed.String())
			}
		case "assistant":
			if s.Model == "" {
				s.Model = m.ModelID
			}
			if summary, ok := m.Summary.(bool); ok && summary {
				continue // the compaction summary
			}
			interrupted += openCodeRequests(b, ps, m.Tokens, t)
		default:
			out.Problemf(0, "%s: unknown role %q; skipped", sm.where, m.Role)
		}
	}
	if interrupted > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d call(s) interrupted when the run was aborted (%q): the output each had, which OpenCode sends the model, is its result", interrupted, "Tool execution aborted"))
	}
	b.finish()
	out.Session(s)
}

// openCodeRequests adds an assistant message's steps as requests, and
// says how many of its calls were interrupted with an output.
func openCodeRequests(b *convBuilder, ps []ocPart, msgTokens *ocTokens, t time.Time) (interrupted int) {
	steps := 0
	for _, p := range ps {
		if p.Type == "step-start" {
			steps++
		}
	}
	var rq *Request
	open := func() {
		b.request(0, t, 0, nil)
		rq = b.lastRequest()
	}
	if steps == 0 {
		open()
		rq.Usage = msgTokens.usage()
	}
	for _, p := range ps {
		switch p.Type {
		case "step-start":
			open()
		case "step-finish":
			if rq != nil {
				rq.Usage = p.Tokens.usage()
			}
		case "text", "reasoning":
			if rq == nil {
				open()
			}
			rq.TextChars += len(p.Text)
			if p.Type == "text" && b.out.KeepText {
				rq.addText(p.Text)
			}
		case "tool":
			if rq == nil {
				open()
			}
			c := Call{ID: p.CallID, Tool: p.Tool, Time: t}
			c.SetArgsField(p.State.Input)
			exit := p.State.Metadata.Exit
			failed := exit != nil && *exit != 0
			switch p.State.Status {
			case "completed":
				setResult(&c, p.State.Output, failed, 0)
				if exit != nil {
					c.ExitCode = int32(*exit)
				}
			case "error":
				if md := p.State.Metadata; md.Interrupted && md.Output != nil {
					setResult(&c, *md.Output, failed, 0)
					interrupted++
				} else {
					setResult(&c, p.State.Error, true, 0)
				}
			}
			b.call(c)
			rq = b.lastRequest()
		}
	}
	return interrupted
}
