package formatcheck

// Kimi Code keeps a session's wire journal (wire.jsonl): a metadata line
// {type: "metadata", protocol_version}, then records {type, ..., time}.
// The agent loop's events are context.append_loop_event records whose
// event is step.begin, content.part, tool.call {toolCallId, name, args},
// tool.result {toolCallId, result} or step.end {usage: {inputOther,
// inputCacheRead, inputCacheCreation, output}}, one step.end per model
// response. The shapes are those of a real capture (protocol_version 1.4);
// the older Kimi CLI format is described in docs/formats/kimi.md.

func kimiWire(lines []line) bool {
	return lines[0].str("type") == "metadata" && lines[0].has("protocol_version")
}

func countKimiWire(lines []line) Count {
	s := newSession()
	for _, l := range lines {
		if l.str("type") != "context.append_loop_event" {
			continue
		}
		e := l.obj("event")
		switch e.str("type") {
		case "tool.call":
			s.add(e.str("toolCallId"), e.str("name"), rawText(e["args"]))
		case "tool.result":
			s.result(e.str("toolCallId"))
		case "step.end":
			if u := e.obj("usage"); u != nil {
				s.tokens += u.num("inputOther") + u.num("inputCacheRead") + u.num("inputCacheCreation") + u.num("output")
			}
		}
	}
	c := Count{Format: "kimi-wire"}
	c.tally(s)
	return c
}
