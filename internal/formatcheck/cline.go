package formatcheck

import (
	"regexp"
	"strings"
)

// Cline keeps a task's conversation as api_conversation_history.json: the
// Anthropic messages it sent, each {role, content: [blocks]} (with "ts"
// in current versions). A native call is a tool_use block; its result is a
// tool_result block with its id, or, in current Cline, a text block of the
// next user message that starts "[<tool> for '<what>'] Result:" (or
// "[<label>] Result:"), one per call in the order of the calls; a call
// Cline did not run gets the text saying so in its place. An
// assistant message's usage is its metrics.tokens {prompt, completion,
// cached}; with the Anthropic provider (modelInfo.providerId "anthropic")
// prompt excludes the cached tokens, which are then added
// (docs/formats/cline.md; https://github.com/cline/cline).

// The description may run over lines (an ask_followup_question's
// question, a multi-line command: ToolResultUtils.pushToolResult writes
// "${description} Result:"), and a call Cline did not run gets a text of
// its own in its place (ToolExecutor.execute: "Tool [name] was not
// executed ...", "Skipping tool ...", "Tool was interrupted ..."),
// cline/cline at 9ee6181.
var clineResult = regexp.MustCompile(`^(?s:\[.*?\] Result:|Tool \[[^\]\n]*\] was not executed|Skipping tool |Tool was interrupted )`)

// clineHistory says whether chat messages are Anthropic-shaped: content
// as a list of typed blocks.
func clineHistory(msgs []line) bool {
	for _, m := range msgs {
		for _, b := range asLines(m.list("content")) {
			switch b.str("type") {
			case "tool_use", "tool_result":
				return true
			}
		}
	}
	return false
}

func countCline(msgs []line) Count {
	s := newSession()
	var pending []*call
	for _, m := range msgs {
		blocks := asLines(m.list("content"))
		switch m.str("role") {
		case "assistant":
			pending = pending[:0]
			for _, b := range blocks {
				if b.str("type") == "tool_use" {
					pending = append(pending, s.add(b.str("id"), b.str("name"), rawText(b["input"])))
				}
			}
			if t := m.obj("metrics").obj("tokens"); t != nil {
				in := t.num("prompt")
				if m.obj("modelInfo").str("providerId") == "anthropic" {
					in += t.num("cached")
				}
				s.tokens += in + t.num("completion")
			}
		case "user":
			for _, b := range blocks {
				switch b.str("type") {
				case "tool_result":
					s.result(b.str("tool_use_id"))
				case "text":
					if len(pending) > 0 && clineResult.MatchString(strings.TrimLeft(b.str("text"), " \n")) {
						pending[0].hasResult = true
						pending = pending[1:]
					}
				}
			}
			pending = pending[:0]
		}
	}
	c := Count{Format: "cline"}
	c.tally(s)
	return c
}

// Cline also keeps the task's UI log, ui_messages.json: a list of
// {ts, type: "say"|"ask", say|ask, text, partial}. A tool the model used
// is a say "tool" message whose text is JSON {tool, path, ...} (the
// operation shown, not its result); a command is a "command" message
// (say when run without asking, ask when approval was asked) and its
// output the "command_output" messages that follow. Each model request is
// an "api_req_started" message whose text is JSON {tokensIn, tokensOut,
// cacheWrites, cacheReads, cost}; as in the task history, with the
// Anthropic provider tokensIn leaves the cache out.

// clineUI says whether a list of objects is Cline's UI log.
func clineUI(items []line) bool {
	for i, m := range items {
		if i >= 5 {
			break
		}
		if m.has("ts") && (m.str("type") == "say" || m.str("type") == "ask") {
			return true
		}
	}
	return false
}

func countClineUI(items []line) Count {
	s := newSession()
	var command *call
	for _, m := range items {
		var partial bool
		m.decode("partial", &partial)
		kind := m.str("say")
		if m.str("type") == "ask" {
			kind = m.str("ask")
		}
		switch kind {
		case "tool":
			if m.str("type") == "say" && !partial {
				t := asLine([]byte(m.str("text")))
				args := line{}
				for k, v := range t {
					if k != "tool" && k != "operationIsLocatedInWorkspace" {
						args[k] = v
					}
				}
				s.add("", t.str("tool"), rawText(mustJSON(args)))
			}
		case "command":
			if !partial {
				command = s.add("", "execute_command", m.str("text"))
			}
		case "command_output":
			if command != nil {
				command.hasResult = true
			}
		case "api_req_started":
			command = nil
			r := asLine([]byte(m.str("text")))
			in := r.num("tokensIn")
			if m.obj("modelInfo").str("providerId") == "anthropic" {
				in += r.num("cacheReads") + r.num("cacheWrites")
			}
			s.tokens += in + r.num("tokensOut")
		}
	}
	c := Count{Format: "cline-ui"}
	c.tally(s)
	return c
}
