package formatcheck

import (
	"encoding/json"
	"strings"
)

// The OpenAI chat shape is shared by many agents' files: a list of
// messages with a role; an assistant message names its calls in
// tool_calls [{id, type: "function", function: {name, arguments}}], and
// each result is a message of role "tool" with the call's tool_call_id
// (https://platform.openai.com/docs/api-reference/chat/create). hermes
// writes it in its gateway transcripts (one message per line), session
// snapshots ({messages}), request dumps (request.body.messages) and
// exports (tool_calls stored as a JSON string); nanobot in its session
// files (a metadata line, then one message per line); SWE-agent in
// trajectories ({history}, a tool message naming tool_call_ids);
// task-submission converters in {messages, meta} files, where an
// assistant message also lists its calls as content blocks
// {type: "tool_call", tool_call_id, name, arguments} and meta.token_counts
// keeps Codex's token_count events.

// chatCall is one entry of tool_calls.
type chatCall struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"arguments"`
	Function *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// chatCalls reads a message's tool_calls: an array, or (hermes exports) a
// JSON string holding one.
func chatCalls(m line) []chatCall {
	raw, ok := m["tool_calls"]
	if !ok {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		raw = json.RawMessage(s)
	}
	var calls []chatCall
	_ = json.Unmarshal(raw, &calls)
	return calls
}

// addChat adds one message to a session.
func addChat(s *session, m line) {
	switch m.str("role") {
	case "assistant":
		calls := chatCalls(m)
		for _, c := range calls {
			name, args := c.Name, c.Args
			if c.Function != nil {
				name, args = c.Function.Name, c.Function.Args
			}
			s.add(c.ID, name, rawText(args))
		}
		if len(calls) == 0 {
			for _, b := range asLines(m.list("content")) {
				if b.str("type") == "tool_call" {
					s.add(b.str("tool_call_id"), b.str("name"), rawText(b["arguments"]))
				}
			}
		}
		if u := m.obj("usage"); u != nil {
			s.tokens += u.num("prompt_tokens") + u.num("completion_tokens") + u.num("input_tokens") + u.num("output_tokens")
		}
		// A converter from OpenCode keeps each message's own tokens in
		// _metadata.tokens ({input, output, reasoning, cache: {read,
		// write}}: input without the cache, reasoning within output).
		if t := m.obj("_metadata").obj("tokens"); t != nil {
			c := t.obj("cache")
			s.tokens += t.num("input") + t.num("output") + c.num("read") + c.num("write")
		}
	case "tool":
		s.result(m.str("tool_call_id"))
		var ids []string
		_ = json.Unmarshal(m["tool_call_ids"], &ids)
		for _, id := range ids {
			s.result(id)
		}
	}
}

// countChat counts one session of chat messages. A converter from Claude
// Code merges a subagent's messages into the list with the role
// "assistant-subagent-<agent id>" and their own role in
// _metadata.original_role: each such agent is a session of its own, and
// the converter's meta.token_counts are the main session's alone.
func countChat(format string, msgs []line, tokens int64) Count {
	s := newSession()
	subs := map[string]*session{}
	var order []string
	for _, m := range msgs {
		id, sub := strings.CutPrefix(m.str("role"), "assistant-subagent-")
		if !sub {
			addChat(s, m)
			continue
		}
		if subs[id] == nil {
			subs[id] = newSession()
			order = append(order, id)
		}
		own := line{}
		for k, v := range m {
			own[k] = v
		}
		own["role"] = m.obj("_metadata")["original_role"]
		addChat(subs[id], own)
	}
	if s.tokens == 0 {
		// The messages' own usage, where they have it, is the session's:
		// a converter's meta.token_counts then repeats it.
		s.tokens = tokens
	}
	c := Count{Format: format}
	c.tally(s)
	for _, id := range order {
		c.tally(subs[id])
	}
	return c
}

// tokenCounts sums Codex token_count events kept by a converter: each
// response's last_token_usage once. An event that repeats the running total
// of the one before it is the same response reported twice. A converter
// from Claude Code writes an event per line of the session, and Claude
// Code writes one API response over several lines (one per content block),
// each with the response's input and cache figures and a growing output
// count: consecutive events with the same input and cached figures are one
// response, counted by its last event, as the claude-code reading counts
// one message.id by its last line. input_tokens includes the cached tokens
// in Codex's events; a converter from Claude Code writes Anthropic's split
// (cached beside a smaller input), and then the cached tokens are added.
func tokenCounts(events []line) int64 {
	var sum, last int64
	var prevTotal [3]int64
	prevIn, prevCached := int64(-1), int64(-1)
	for _, e := range events {
		info := e.obj("info")
		if info == nil {
			continue
		}
		if t := info.obj("total_token_usage"); t != nil {
			total := [3]int64{t.num("input_tokens"), t.num("output_tokens"), t.num("cached_input_tokens")}
			if total == prevTotal {
				continue
			}
			prevTotal = total
		}
		u := info.obj("last_token_usage")
		if u == nil {
			continue
		}
		in, cached := u.num("input_tokens"), u.num("cached_input_tokens")
		tokens := in + u.num("output_tokens")
		if cached > in {
			tokens += cached
		}
		if in == prevIn && cached == prevCached {
			sum -= last // a later line of the same response replaces the earlier
		}
		sum += tokens
		last, prevIn, prevCached = tokens, in, cached
	}
	return sum
}
