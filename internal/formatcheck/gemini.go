package formatcheck

import "encoding/json"

// Gemini CLI records a chat as one JSON document (chats/session-*.json:
// {sessionId, startTime, lastUpdated, messages}) or, since v0.40, as JSON
// lines (a header with sessionId, then one message per line, and {"$set"}
// updates). A model message has type "gemini"; its calls are toolCalls
// [{id, name, args, result, status}], the result (functionResponse parts)
// kept on the call itself; its usage is tokens {input, output, cached,
// thoughts, tool, total}, input counting the cached tokens
// (docs/formats/gemini.md; google-gemini/gemini-cli
// packages/core/src/services/chatRecordingService.ts).

func countGemini(msgs []line) Count {
	s := newSession()
	usage := map[string]int64{}
	var order []string
	for _, m := range msgs {
		if m.str("type") != "gemini" {
			continue
		}
		for _, tc := range asLines(m.list("toolCalls")) {
			c := s.add(tc.str("id"), tc.str("name"), rawText(tc["args"]))
			var res []json.RawMessage
			_ = json.Unmarshal(tc["result"], &res)
			if len(res) > 0 {
				c.hasResult = true
			}
		}
		if t := m.obj("tokens"); t != nil {
			id := m.str("id")
			if _, seen := usage[id]; !seen {
				order = append(order, id)
			}
			total := t.num("total")
			if total == 0 {
				total = t.num("input") + t.num("output") + t.num("thoughts")
			}
			usage[id] = total
		}
	}
	for _, id := range order {
		s.tokens += usage[id]
	}
	c := Count{Format: "gemini-cli"}
	c.tally(s)
	return c
}

// Gemini CLI run with --output-format stream-json writes one event per
// line: init {session_id, model}, message {role, content}, tool_use
// {tool_name, tool_id, parameters}, tool_result {tool_id, status, output},
// error, and result {status, stats: {total_tokens, input_tokens,
// output_tokens, cached, tool_calls}} at the end of a run
// (https://github.com/google-gemini/gemini-cli docs/cli/headless.md). A
// capture may hold several runs: each init starts a session.

// geminiStream says whether the lines are stream-json events.
func geminiStream(lines []line) bool {
	for i, l := range lines {
		if i >= 5 {
			break
		}
		if l.str("type") == "init" && l.has("session_id") {
			return true
		}
	}
	return false
}

func countGeminiStream(lines []line) Count {
	c := Count{Format: "gemini-stream-json"}
	var s *session
	for _, l := range lines {
		typ := l.str("type")
		if typ == "init" {
			if s != nil {
				c.tally(s)
			}
			s = newSession()
			continue
		}
		if s == nil {
			s = newSession()
		}
		switch typ {
		case "tool_use":
			s.add(l.str("tool_id"), l.str("tool_name"), rawText(l["parameters"]))
		case "tool_result":
			s.result(l.str("tool_id"))
		case "result":
			if st := l.obj("stats"); st != nil {
				s.tokens += st.num("total_tokens")
			}
		}
	}
	if s != nil {
		c.tally(s)
	}
	return c
}
