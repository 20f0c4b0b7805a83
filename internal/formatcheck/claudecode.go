package formatcheck

import "encoding/json"

// Claude Code writes one JSON object per line (~/.claude/projects/<project>/
// <session>.jsonl): "user" and "assistant" lines carry an Anthropic
// message, with "uuid", "parentUuid", "sessionId" and "isSidechain"; other
// types (summary, permission-mode, file-history-snapshot, queue-operation,
// progress, last-prompt, system) carry no conversation. An assistant
// message streamed in several content blocks is written as several lines
// with the same message.id, each repeating its usage. A subagent writes its
// own file (subagents/agent-<id>.jsonl, every line isSidechain); older
// versions wrote the subagent's lines into the main file as sidechains.
// The shapes are those of real files, described in docs/formats/other.md.

// countClaudeCode counts a Claude Code file: the main chain is one session,
// each sidechain another (lines grouped by agentId, or without one by the
// root their parentUuid chain reaches).
func countClaudeCode(lines []line) Count {
	// parent links sidechain lines only, so a sidechain's root is its
	// first line even when that line points into the main chain.
	parent := map[string]string{}
	for _, l := range lines {
		var side bool
		_ = json.Unmarshal(l["isSidechain"], &side)
		if u := l.str("uuid"); u != "" && side {
			parent[u] = l.str("parentUuid")
		}
	}
	root := func(u string) string {
		for i := 0; i < len(parent)+1; i++ {
			p, ok := parent[u]
			if !ok || p == "" {
				return u
			}
			if _, known := parent[p]; !known {
				return u
			}
			u = p
		}
		return u
	}
	sessions := map[string]*session{}
	var order []string
	usage := map[string]map[string]int64{} // session key -> message id -> tokens (the last line's)
	get := func(key string) *session {
		s := sessions[key]
		if s == nil {
			s = newSession()
			sessions[key] = s
			order = append(order, key)
			usage[key] = map[string]int64{}
		}
		return s
	}
	for _, l := range lines {
		typ := l.str("type")
		if typ != "user" && typ != "assistant" {
			continue
		}
		msg := l.obj("message")
		if msg == nil {
			continue
		}
		key := "main"
		var side bool
		_ = json.Unmarshal(l["isSidechain"], &side)
		if side {
			if a := l.str("agentId"); a != "" {
				key = "agent:" + a
			} else {
				key = "root:" + root(l.str("uuid"))
			}
		}
		s := get(key)
		for _, b := range asLines(msg.list("content")) {
			switch b.str("type") {
			case "tool_use":
				s.add(b.str("id"), b.str("name"), rawText(b["input"]))
			case "tool_result":
				s.result(b.str("tool_use_id"))
			}
		}
		if typ == "assistant" {
			if u := msg.obj("usage"); u != nil {
				id := msg.str("id")
				if id == "" {
					id = l.str("uuid")
				}
				usage[key][id] = u.num("input_tokens") + u.num("cache_creation_input_tokens") +
					u.num("cache_read_input_tokens") + u.num("output_tokens")
			}
		}
	}
	c := Count{Format: "claude-code"}
	for _, k := range order {
		s := sessions[k]
		for _, t := range usage[k] {
			s.tokens += t
		}
		c.tally(s)
	}
	return c
}
