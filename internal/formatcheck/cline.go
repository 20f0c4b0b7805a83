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
// {ts, type: "say"|"ask", say|ask, text, partial} (ClineMessage,
// apps/vscode/src/shared/ExtensionMessage.ts). A tool the model used is a
// "tool" message (say when run without asking, ask when approval was
// asked) whose text is JSON {tool, path, ...} (the operation shown, not
// its result); the other calls are "command", "use_mcp_server",
// "followup", "plan_mode_respond", "load_mcp_documentation",
// "browser_action_launch", "new_task", "condense", "summarize_task",
// "report_bug", "use_subagents" messages and the say "completion_result"
// (attempt_completion; a "command" right after it is its demonstration,
// not a call). A partial message never finished. Each model request is an
// "api_req_started" message whose text is JSON {request, tokensIn,
// tokensOut, cacheWrites, cacheReads}: request is the user content sent
// with it, where the previous round's results stand as "[tool ...]
// Result:" headers, one per call in the round's order. Cline's providers
// leave the cache out of tokensIn, except the OpenAI-compatible one
// (providerId "openai"), whose tokensIn is the whole prompt.

var clineUICalls = map[string]bool{
	"tool": true, "command": true, "use_mcp_server": true, "followup": true, "plan_mode_respond": true,
	"load_mcp_documentation": true, "browser_action_launch": true, "new_task": true, "condense": true,
	"summarize_task": true, "report_bug": true, "use_subagents": true,
}

var clineUIResultHeader = regexp.MustCompile(`(?m)^\[[a-z_]+( for '[^\n]*)?\] Result:`)

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
	var round []*call // this round's calls, waiting for the next request
	afterCompletion := false
	provider := ""
	for _, m := range items {
		var partial bool
		m.decode("partial", &partial)
		if p := m.obj("modelInfo").str("providerId"); p != "" {
			provider = p
		}
		kind := m.str("say")
		if m.str("type") == "ask" {
			kind = m.str("ask")
		}
		if partial {
			continue
		}
		switch {
		case kind == "completion_result" && m.str("type") == "say":
			round = append(round, s.add("", "attempt_completion", m.str("text")))
			afterCompletion = true
			continue
		case kind == "command" && afterCompletion:
		case clineUICalls[kind]:
			round = append(round, s.add("", kind, m.str("text")))
		case kind == "api_req_started" || kind == "deleted_api_reqs":
			r := asLine([]byte(m.str("text")))
			if kind == "api_req_started" {
				n := len(clineUIResultHeader.FindAllString(r.str("request"), -1))
				for i := 0; i < n && i < len(round); i++ {
					round[i].hasResult = true
				}
				round = nil
			}
			in := r.num("tokensIn")
			if provider != "openai" {
				in += r.num("cacheReads") + r.num("cacheWrites")
			}
			s.tokens += in + r.num("tokensOut")
		}
		if kind != "task_progress" && kind != "checkpoint_created" {
			afterCompletion = false
		}
	}
	c := Count{Format: "cline-ui"}
	c.tally(s)
	return c
}
