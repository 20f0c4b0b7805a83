package formatcheck

// Codex CLI writes one rollout per session (~/.codex/sessions/YYYY/MM/DD/
// rollout-<time>-<uuid>.jsonl). Since late 2025 each line is
// {timestamp, type, payload}: "session_meta", "turn_context", "event_msg"
// and "response_item", whose payload is an OpenAI Responses item. Earlier
// rollouts start with {id, timestamp, instructions, git} and hold the
// Responses items bare, between {"record_type":"state"} lines. The items
// Codex runs itself and answers are function_call, custom_tool_call and
// local_shell_call, each answered by a *_output item with the same
// call_id; web_search_call and image_generation_call are run by the API
// and have no output item. Usage is in event_msg token_count events:
// info.total_token_usage is the session's running total. Source:
// openai/codex codex-rs/protocol/src/models.rs (ResponseItem) and
// codex-rs/protocol/src/protocol.rs (RolloutItem, TokenCountEvent).

// codexRollout says whether the first lines look like a rollout.
func codexRollout(lines []line) bool {
	for i, l := range lines {
		if i >= 3 {
			break
		}
		if l.has("payload") && (l.str("type") == "session_meta" || l.str("type") == "response_item" || l.str("type") == "event_msg" || l.str("type") == "turn_context") {
			return true
		}
		if i == 0 && l.has("instructions") && l.has("id") && l.has("timestamp") {
			return true
		}
	}
	return false
}

func countCodex(lines []line) Count {
	s := newSession()
	var total int64
	for _, l := range lines {
		item := l
		if l.has("payload") {
			p := l.obj("payload")
			if p == nil {
				continue
			}
			switch l.str("type") {
			case "response_item":
				item = p
			case "event_msg":
				if p.str("type") == "token_count" {
					if u := p.obj("info").obj("total_token_usage"); u != nil {
						total = max(total, u.num("input_tokens")+u.num("output_tokens"))
					}
				}
				continue
			default:
				continue
			}
		}
		switch item.str("type") {
		case "function_call":
			s.add(item.str("call_id"), item.str("name"), rawText(item["arguments"]))
		case "custom_tool_call":
			s.add(item.str("call_id"), item.str("name"), rawText(item["input"]))
		case "local_shell_call":
			s.add(item.str("call_id"), "local_shell", rawText(item["action"]))
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			s.result(item.str("call_id"))
		}
	}
	s.tokens = total
	c := Count{Format: "codex"}
	c.tally(s)
	return c
}
