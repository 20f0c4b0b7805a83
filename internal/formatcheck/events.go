package formatcheck

// GitHub Copilot CLI writes a session's events, one per line
// (~/.copilot/session-state/<id>/events.jsonl): {type, data, id,
// timestamp, parentId}. The model's calls are assistant.message
// data.toolRequests [{toolCallId, name, arguments}], each answered by a
// tool.execution_complete event with its toolCallId; a subagent's events
// carry data.parentToolCallId, the call that started it. The session's
// token totals are in session.shutdown data.tokenDetails {input, output,
// cache_read, cache_write: {tokenCount}} (docs/formats/copilot.md;
// https://github.com/github/copilot-cli).
//
// Each toolRequest is one call: there is one assistant.message per model
// message, so a call is not written twice, and ids are not used to tell
// calls apart (a trimmed fixture replaces them all by one placeholder).

func copilotEvents(lines []line) bool {
	return lines[0].str("type") == "session.start" && lines[0].has("data")
}

func countCopilot(lines []line) Count {
	sessions := map[string]*session{}
	var order []string
	get := func(key string) *session {
		if sessions[key] == nil {
			sessions[key] = newSession()
			order = append(order, key)
		}
		return sessions[key]
	}
	get("main")
	for _, l := range lines {
		d := l.obj("data")
		key := "main"
		if p := d.str("parentToolCallId"); p != "" {
			key = "agent:" + p
		}
		switch l.str("type") {
		case "assistant.message":
			s := get(key)
			for _, r := range asLines(d.list("toolRequests")) {
				s.calls = append(s.calls, &call{id: r.str("toolCallId"), tool: r.str("name"), args: rawText(r["arguments"])})
			}
		case "tool.execution_complete":
			get(key).result(d.str("toolCallId"))
		case "session.shutdown":
			t := d.obj("tokenDetails")
			get("main").tokens += t.obj("input").num("tokenCount") + t.obj("output").num("tokenCount")
		}
	}
	c := Count{Format: "copilot-cli"}
	for _, k := range order {
		c.tally(sessions[k])
	}
	return c
}

// pi (the pi coding agent) writes a session as JSON lines: a header
// {type: "session", version}, then entries {type, id, parentId}; a
// "message" entry holds an agent message: an assistant message's content
// has {type: "toolCall", id, name, arguments} blocks and its usage
// {input, output, cacheRead, cacheWrite}; a message of role "toolResult"
// answers one call by toolCallId (docs/formats/pi.md;
// https://github.com/badlogic/pi-mono).

func piSession(lines []line) bool {
	return lines[0].str("type") == "session" && lines[0].has("version")
}

func countPi(lines []line) Count {
	s := newSession()
	for _, l := range lines {
		if l.str("type") != "message" {
			continue
		}
		m := l.obj("message")
		switch m.str("role") {
		case "assistant":
			for _, b := range asLines(m.list("content")) {
				if b.str("type") == "toolCall" {
					s.add(b.str("id"), b.str("name"), rawText(b["arguments"]))
				}
			}
			if u := m.obj("usage"); u != nil {
				s.tokens += u.num("input") + u.num("output") + u.num("cacheRead") + u.num("cacheWrite")
			}
		case "toolResult":
			s.result(m.str("toolCallId"))
		}
	}
	c := Count{Format: "pi"}
	c.tally(s)
	return c
}

// ATIF (the Agent Trajectory Interchange Format) is one JSON document
// {schema_version, session_id, agent, steps, final_metrics}. A step may
// hold tool_calls [{tool_call_id, function_name, arguments}], the
// observation that answers them {results: [{source_call_id, content}]},
// and its metrics {prompt_tokens, completion_tokens} (prompt counting the
// cached tokens) (docs/formats/atif.md). A step's results answer its own
// calls: counted by pairs within the step, as redacted files give every
// call the same id.

func countATIF(d line) Count {
	s := newSession()
	for _, st := range asLines(d.list("steps")) {
		calls := asLines(st.list("tool_calls"))
		results := asLines(st.obj("observation").list("results"))
		for i, tc := range calls {
			c := &call{id: tc.str("tool_call_id"), tool: tc.str("function_name"), args: rawText(tc["arguments"])}
			c.hasResult = i < len(results)
			s.calls = append(s.calls, c)
		}
		if m := st.obj("metrics"); m != nil {
			s.tokens += m.num("prompt_tokens") + m.num("completion_tokens")
		}
	}
	c := Count{Format: "atif"}
	c.tally(s)
	return c
}
