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
