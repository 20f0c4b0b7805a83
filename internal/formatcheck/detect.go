package formatcheck

import (
	"encoding/json"
	"strings"
)

// countDocument counts a file that is one JSON document. The format is
// told by the document's own members, checked from the most particular.
func countDocument(name string, doc json.RawMessage) (Count, error) {
	var arr []json.RawMessage
	if json.Unmarshal(doc, &arr) == nil {
		return countArray(arr)
	}
	d := asLine(doc)
	if d == nil {
		return Count{}, ErrUnknown
	}
	switch {
	case d.has("schema_version") && d.has("steps"):
		return countATIF(d), nil
	case d.has("loglines"):
		// A Claude Code web session export wraps its lines.
		c := countClaudeCode(asLines(d.list("loglines")))
		c.Format = "claude-code-loglines"
		return c, nil
	case d.has("request") && d.has("session_id") && d.has("reason"):
		// hermes request_dump_*.json: the request the agent sent.
		body := d.obj("request").obj("body")
		return countChat("hermes-request-dump", asLines(body.list("messages")), 0), nil
	case d.has("messages") && (d.has("session_start") || d.has("last_updated")):
		return countChat("hermes-snapshot", asLines(d.list("messages")), 0), nil
	case d.has("messages") && d.has("id") && (d.has("started_at") || d.has("model_config")):
		return countHermesExport([]line{d}), nil
	case d.has("conversations"):
		return countTrajectories([]line{d}), nil
	case d.has("messages") && d.has("sessionId") && d.has("projectHash"):
		return countGemini(asLines(d.list("messages"))), nil
	case d.has("messages") && d.has("meta"):
		// A task-submission converter's {messages, meta}.
		meta := d.obj("meta")
		return countChat("openai-chat", asLines(d.list("messages")), tokenCounts(asLines(meta.list("token_counts")))), nil
	case d.has("history") && d.has("trajectory"), d.has("history") && d.has("info"), strings.HasSuffix(name, ".traj") && d.has("history"):
		return countChat("swe-agent", asLines(d.list("history")), 0), nil
	case d.has("messages") && d.has("info") && d.has("trajectory_format"):
		return countMiniSWE(asLines(d.list("messages"))), nil
	case d.has("messages"):
		return countChat("openai-chat", asLines(d.list("messages")), 0), nil
	}
	return Count{}, ErrUnknown
}

// countArray counts a file that is one JSON array.
func countArray(arr []json.RawMessage) (Count, error) {
	items := asLines(arr)
	if len(items) == 0 {
		return Count{}, ErrUnknown
	}
	first := items[0]
	switch {
	case clineUI(items):
		return countClineUI(items), nil
	case openHandsEvents(items):
		return countOpenHands("openhands", [][]line{items}), nil
	case first.has("role") && first.has("content") && !first.has("type"):
		if miniSWE(items) {
			return countMiniSWE(items), nil
		}
		if clineHistory(items) {
			return countCline(items), nil
		}
		return countChat("openai-chat", items, 0), nil
	}
	return Count{}, ErrUnknown
}

// countLines counts a file of JSON lines.
func countLines(name string, lines []line) (Count, error) {
	first := lines[0]
	switch {
	case codexRollout(lines):
		return countCodex(lines), nil
	case copilotEvents(lines):
		return countCopilot(lines), nil
	case piSession(lines):
		return countPi(lines), nil
	case kimiWire(lines):
		return countKimiWire(lines), nil
	case first.str("type") == "session_metadata" && first.has("converter"):
		// A converter's text transcript: human_message and
		// assistant_message records of plain text, no structured calls.
		return countChat("converted-text", nil, 0), nil
	case geminiStream(lines):
		return countGeminiStream(lines), nil
	case claudeCodeLines(lines):
		return countClaudeCode(lines), nil
	case first.has("sessionId") && first.has("projectHash"):
		return countGemini(lines[1:]), nil
	case first.has("messages") && first.has("id") && (first.has("started_at") || first.has("model_config")):
		return countHermesExport(lines), nil
	case first.has("conversations"):
		return countTrajectories(lines), nil
	case first.has("history") && openHandsEvents(asLines(first.list("history"))):
		// OpenHands evaluation or resolver output: a history per line.
		var hs [][]line
		for _, l := range lines {
			hs = append(hs, asLines(l.list("history")))
		}
		return countOpenHands("openhands", hs), nil
	case first.str("_type") == "metadata":
		// nanobot: a metadata line, then one message per line.
		// A turn cut short keeps its pending assistant message in
		// metadata.runtime_checkpoint (with the results already in).
		msgs := lines[1:]
		if cp := first.obj("metadata").obj("runtime_checkpoint"); cp != nil {
			if am := cp.obj("assistant_message"); am != nil {
				msgs = append(msgs, am)
				msgs = append(msgs, asLines(cp.list("completed_tool_results"))...)
			}
		}
		return countChat("nanobot", msgs, 0), nil
	case first.str("role") == "session_meta" || (first.has("role") && first.has("timestamp")):
		// hermes gateway transcript: one message per line, session_meta first.
		return countChat("hermes-gateway", lines, 0), nil
	}
	return Count{}, ErrUnknown
}

// claudeCodeLines says whether the first lines look like Claude Code's:
// records with a type and a sessionId (or a summary with its leafUuid).
func claudeCodeLines(lines []line) bool {
	for i, l := range lines {
		if i >= 5 {
			break
		}
		if l.has("type") && (l.has("sessionId") || l.has("leafUuid")) {
			return true
		}
	}
	return false
}

// countHermesExport counts a hermes sessions export: one session per
// record (a line, or the whole document), its messages in "messages" and
// its usage in the session's own columns input_tokens, output_tokens,
// cache_read_tokens and cache_write_tokens (null when not counted)
// (docs/formats/hermes.md).
func countHermesExport(records []line) Count {
	c := Count{Format: "hermes-export"}
	for _, r := range records {
		s := newSession()
		for _, m := range asLines(r.list("messages")) {
			addChat(s, m)
		}
		s.tokens = r.num("input_tokens") + r.num("output_tokens") + r.num("cache_read_tokens") + r.num("cache_write_tokens")
		c.tally(s)
	}
	return c
}
