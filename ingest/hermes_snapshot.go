package ingest

// hermes per-session JSON snapshots, in the messages form and the early
// ShareGPT form.

import "github.com/loopgate/loopgate/internal/jsonx"

// hermesSnapshotShareGPT reads a snapshot in the early ShareGPT form with
// its entries decoded where they lie in the document, and reports whether
// it did; when it did not (the messages form, or anything it would not
// read exactly as the parsing path below), nothing was sent and the caller
// reads the document. The parsing path held the document, a copy of every
// entry and the entries' texts at once, about four times the document
// (a 27 MB snapshot: 107 MB live); this holds the document and the texts.
func hermesSnapshotShareGPT(doc []byte, pos *docPos, h *Head, out *Sink) bool {
	var id, model, platform string
	var messages jsonx.RawMessage
	var entries []hermesEntry
	fields := [...]jsonx.Field{{Name: "session_id", Str: &id}, {Name: "model", Str: &model}, {Name: "platform", Str: &platform},
		{Name: "messages", Raw: &messages, View: true}}
	nested := [...]jsonx.Nested{{Name: "conversations", Read: func(data []byte, p, depth int) (int, bool) {
		entries = []hermesEntry{}
		return hermesDecodeEntries(data, p, depth, &entries)
	}}}
	end, ok := jsonx.DecodeObjectNested(doc, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(doc, end) || entries == nil || (messages != nil && string(messages) != "null") {
		return false
	}
	s := newHermesSnapshotSession(id, model, platform, h)
	s.Notes = append(s.Notes, hermesShareGPTNote)
	// Each entry's line from where the walk found it (doc is pos's
	// document), as elemLines would give it without another pass over the
	// list: that pass was a sixth of reading a snapshot.
	lines := make([]int, len(entries))
	for i := range entries {
		lines[i] = pos.lineAt(entries[i].at)
	}
	parseHermesShareGPT(s, entries, lines, 0, out)
	out.Session(s)
	return true
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
	Messages      []jsonx.RawMessage `json:"messages"`
	Conversations []jsonx.RawMessage `json:"conversations"`
}

// parseHermesSnapshot reads a snapshot document. Its sessions keep line 0
// (a pretty-printed document, docpos.go); problems name the line of the
// message or entry at fault.
func parseHermesSnapshot(doc []byte, h *Head, out *Sink) {
	pos := newDocPos(doc, h.Line)
	if hermesSnapshotShareGPT(doc, pos, h, out) {
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
	out.Session(s)
}
