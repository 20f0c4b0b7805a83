package formatcheck

import "strings"

// mini-swe-agent keeps a run as a list of chat messages (bare, or under
// "messages" beside "info"): the model's action is the fenced code block of
// its assistant message (```mswea_bash_command, earlier ```bash), one per
// message, and the observation is the user message that follows
// (docs/formats/mini-swe-agent.md; https://github.com/SWE-agent/mini-swe-agent).

// miniSWE says whether chat messages carry their actions as code blocks.
func miniSWE(msgs []line) bool {
	for _, m := range msgs {
		if m.has("tool_calls") {
			return false
		}
	}
	for _, m := range msgs {
		if m.str("role") == "assistant" && actionBlock(m.str("content")) != "" {
			return true
		}
	}
	return false
}

// actionBlock is the body of the message's first action code block, or "".
func actionBlock(text string) string {
	for _, fence := range []string{"```mswea_bash_command", "```bash"} {
		if i := strings.Index(text, fence); i >= 0 {
			rest := text[i+len(fence):]
			if j := strings.Index(rest, "```"); j >= 0 {
				return strings.TrimSpace(rest[:j])
			}
		}
	}
	return ""
}

func countMiniSWE(msgs []line) Count {
	s := newSession()
	var pending *call
	for _, m := range msgs {
		switch m.str("role") {
		case "assistant":
			pending = nil
			if a := actionBlock(m.str("content")); a != "" {
				pending = s.add("", "bash", a)
			}
		case "user":
			if pending != nil {
				pending.hasResult = true
				pending = nil
			}
		}
	}
	c := Count{Format: "mini-swe-agent"}
	c.tally(s)
	return c
}
