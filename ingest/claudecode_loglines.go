package ingest

// Claude Code web-session exports: {"loglines": [<Claude Code line>, ...]},
// the shape Claude Code's web sessions are fetched in and that
// simonw/claude-code-transcripts renders (its tests/sample_session.json).
// Each element is a line of a Claude Code session file, usually without
// uuid or sessionId. Format reference: docs/formats/claude-code-loglines.md.
//
// Reading taken: the elements are read exactly as the lines of a session
// file (claudecode.go), in order; the session id is the file name's stem
// when no element has a sessionId.

const formatClaudeCodeLoglines = "claude-code-loglines"

func init() {
	register(&Format{
		ID:        formatClaudeCodeLoglines,
		Family:    "claude-code",
		Reads:     `Claude Code web-session exports: {"loglines": [...]}, each element a Claude Code session line.`,
		Detection: "A JSON object with a loglines array.",
		Priority:  33,
		Sniff: func(h *Head) bool {
			return !h.Array && rawIsArray(h.Keys["loglines"])
		},
		ParseDoc: parseClaudeCodeLoglines,
	})
}

func parseClaudeCodeLoglines(doc []byte, h *Head, out *Sink) {
	a, ok := readDocArray(doc, h, out, "loglines")
	if !ok {
		return
	}
	if len(a.elems) == 0 {
		out.Problemf(h.Line, "loglines is empty; no session read")
		return
	}
	i := 0
	next := func() ([]byte, int, bool) {
		if i >= len(a.elems) {
			return nil, 0, false
		}
		i++
		return a.elems[i-1], a.line(i-1, h.Line), true
	}
	parseClaudeCodeRecords(next, nil, a.multiLine, h, renamed(out, formatClaudeCodeLoglines))
}
