package ingest

// hermes per-session JSON snapshots, in the messages form and the early
// ShareGPT form.

import (
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// hermesShareGPTSnapshot is a snapshot in the early ShareGPT form with its
// entries decoded (decodeHermesShareGPT): copies of what the document
// held, so that the document can be let go before they are read.
type hermesShareGPTSnapshot struct {
	id, model, platform string
	start, updated      jsonx.RawMessage
	entries             []hermesEntry
	lines               []int
}

// decodeHermesShareGPT decodes a snapshot in the early ShareGPT form with
// its entries decoded where they lie in the document, and reports whether
// it did; when it did not (the messages form, or anything it would not
// read exactly as the parsing path of parseHermesSnapshot), the caller
// reads the document. The parsing path held the document, a copy of every
// entry and the entries' texts at once, about four times the document
// (a 27 MB snapshot: 107 MB live); this holds the document and the texts
// while it decodes, and the texts alone once it is done.
func decodeHermesShareGPT(doc []byte, pos *docPos) (snap hermesShareGPTSnapshot, ok bool) {
	var messages jsonx.RawMessage
	fields := [...]jsonx.Field{{Name: "session_id", Str: &snap.id}, {Name: "model", Str: &snap.model}, {Name: "platform", Str: &snap.platform},
		{Name: "session_start", Raw: &snap.start}, {Name: "last_updated", Raw: &snap.updated},
		{Name: "messages", Raw: &messages, View: true}}
	nested := [...]jsonx.Nested{{Name: "conversations", Read: func(data []byte, p, depth int) (int, bool) {
		snap.entries = []hermesEntry{}
		return hermesDecodeEntries(data, p, depth, &snap.entries)
	}}}
	end, ok := jsonx.DecodeObjectNested(doc, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(doc, end) || snap.entries == nil || (messages != nil && string(messages) != "null") {
		return hermesShareGPTSnapshot{}, false
	}
	// Each entry's line from where the walk found it (doc is pos's
	// document), as elemLines would give it without another pass over the
	// list: that pass was a sixth of reading a snapshot.
	snap.lines = make([]int, len(snap.entries))
	for i := range snap.entries {
		snap.lines[i] = pos.lineAt(snap.entries[i].at)
	}
	return snap, true
}

// read makes the snapshot's session and sends it.
func (snap *hermesShareGPTSnapshot) read(h *Head, out *Sink) {
	s := newHermesSnapshotSession(snap.id, snap.model, snap.platform, h)
	s.Notes = append(s.Notes, hermesShareGPTNote)
	parseHermesShareGPT(s, snap.entries, snap.lines, 0, out)
	hermesSnapshotTimes(s, snap.start, snap.updated)
	out.Session(s)
}

// newHermesSnapshotSession starts a snapshot's session: its id (else one
// from the file name), model, and platform as a note.
func newHermesSnapshotSession(id, model, platform string, h *Head) *Session {
	s := &Session{Format: "hermes-snapshot", ID: id, Model: model}
	if s.ID == "" {
		s.ID = hermesIDFromName(h.Name)
	}
	if platform != "" {
		s.Notes = append(s.Notes, "platform: "+platform)
		s.Platform = platform
	}
	return s
}

// hermesShareGPTNote is the note of a snapshot in the ShareGPT form.
const hermesShareGPTNote = "early snapshot in ShareGPT form (conversations)"

// hermesSnapshot is the per-session JSON snapshot (§3.C).
type hermesSnapshot struct {
	SessionID     string             `json:"session_id"`
	Model         string             `json:"model"`
	Platform      string             `json:"platform"`
	SessionStart  jsonx.RawMessage   `json:"session_start"`
	LastUpdated   jsonx.RawMessage   `json:"last_updated"`
	Messages      []jsonx.RawMessage `json:"messages"`
	Conversations []jsonx.RawMessage `json:"conversations"`
}

// parseHermesSnapshot reads a snapshot document. Its sessions keep line 0
// (a pretty-printed document, docpos.go); problems name the line of the
// message or entry at fault.
func parseHermesSnapshot(doc []byte, h *Head, out *Sink) {
	pos := newDocPos(doc, h.Line)
	if snap, ok := decodeHermesShareGPT(doc, pos); ok {
		// doc is not used past this point on this path, so the collector
		// may take it while the session is made and replayed (its
		// callers do not use it either once they have handed it here).
		snap.read(h, out)
		return
	}
	var snap hermesSnapshot
	if err := jsonx.Unmarshal(doc, &snap); err != nil {
		out.Problemf(pos.lineOf(doc), "not a hermes session snapshot: %s", hermesDecodeError(err))
		return
	}
	s := newHermesSnapshotSession(snap.SessionID, snap.Model, snap.Platform, h)
	if snap.Messages == nil && snap.Conversations != nil {
		s.Notes = append(s.Notes, hermesShareGPTNote)
		all := pos.elemLines(member(doc, "conversations"))
		entries := make([]hermesEntry, 0, len(snap.Conversations))
		var lines []int
		for i, raw := range snap.Conversations {
			v, err := jsonx.Parse(raw)
			if err != nil {
				out.Problemf(lineAtIndex(all, i, pos.first), "conversations[%d] is not valid JSON (%v); skipped", i, err)
				continue
			}
			entries = append(entries, hermesEntryOf(v))
			lines = append(lines, lineAtIndex(all, i, pos.first))
		}
		parseHermesShareGPT(s, entries, lines, 0, out)
		hermesSnapshotTimes(s, snap.SessionStart, snap.LastUpdated)
		out.Session(s)
		return
	}
	b := newHermesConv(s, out)
	b.where = ""
	b.doc = true
	lines := pos.elemLines(member(doc, "messages"))
	for i, raw := range snap.Messages {
		line := lineAtIndex(lines, i, pos.first)
		var m hermesMsg
		if err := hermesDecodeMessage(raw, &m); err != nil {
			out.Problemf(line, "message %d has an unexpected shape (%s); skipped", i+1, hermesDecodeError(err))
			continue
		}
		b.message(&m, line)
	}
	b.finish()
	hermesSnapshotTimes(s, snap.SessionStart, snap.LastUpdated)
	out.Session(s)
}

// hermesSnapshotTimes gives a snapshot's session the two times the file
// records: its messages carry none, but run_agent.py's _save_session_log
// (NousResearch/hermes-agent) writes session_start (when the agent began
// the session) and last_updated (when it last wrote the snapshot, after
// the latest message). The first turn takes session_start and the last
// request last_updated, so that the session's span is the file's. Both
// are Python's naive isoformat (local time, no zone), read as UTC as the
// gateway's times are. A value that is not a time string is no time.
func hermesSnapshotTimes(s *Session, start, updated jsonx.RawMessage) {
	at := func(raw jsonx.RawMessage) time.Time {
		var v string
		if jsonx.Unmarshal(raw, &v) != nil {
			return time.Time{}
		}
		return parseTime(v)
	}
	st, up := at(start), at(updated)
	if len(s.Turns) == 0 || (st.IsZero() && up.IsZero()) {
		return
	}
	if first := &s.Turns[0]; first.Time.IsZero() {
		first.Time = st
	}
	last := &s.Turns[len(s.Turns)-1]
	if n := len(last.Requests); n > 0 && last.Requests[n-1].Time.IsZero() && !up.Before(st) {
		last.Requests[n-1].Time = up
	}
	s.Notes = append(s.Notes, "times: session_start and last_updated only (the messages carry none)")
}
