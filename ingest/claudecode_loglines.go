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

import (
	"bytes"
	"strings"
)

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
	doc = bytes.TrimSpace(doc)
	pos := newDocPos(doc, h.Line)
	arr := member(doc, "loglines")
	if !rawIsArray(arr) {
		out.Problemf(h.Line, "loglines is not an array; no session read")
		return
	}
	elems, err := elementsOf(arr)
	if err != nil {
		out.Problemf(h.Line, "loglines is not readable (%s); no session read", strings.TrimPrefix(err.Error(), "json: "))
		return
	}
	lines := pos.elemLines(arr)
	i := 0
	next := func() ([]byte, int, bool) {
		if i >= len(elems) {
			return nil, 0, false
		}
		i++
		return elems[i-1], lineAtIndex(lines, i-1, h.Line), true
	}
	multiLine := bytes.Contains(doc, []byte("\n"))
	parseClaudeCodeRecords(next, nil, multiLine, h, &Sink{
		File: out.File,
		OnSession: func(s *Session) {
			s.Format = formatClaudeCodeLoglines
			out.Session(s)
		},
		OnProblem: func(p Problem) { out.Problemf(p.Line, "%s", p.Message) },
	})
}
