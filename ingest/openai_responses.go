package ingest

// OpenAI Responses API items: decoding and the items they make.

import (
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// isResponsesList tells a Responses item list from a chat messages array:
// Responses items carry a type (a chat message never does at top level),
// chat arrays have tool/function roles or tool_calls.
func isResponsesList(elems []jsonx.RawMessage) bool {
	typed := false
	for _, e := range elems {
		var m struct {
			Type       string           `json:"type"`
			Role       string           `json:"role"`
			ToolCalls  jsonx.RawMessage `json:"tool_calls"`
			ToolCallID string           `json:"tool_call_id"`
			Function   jsonx.RawMessage `json:"function_call"`
		}
		if jsonx.Unmarshal(e, &m) != nil {
			continue
		}
		if m.Role == "tool" || m.Role == "function" || m.ToolCallID != "" || m.ToolCalls != nil || m.Function != nil {
			return false
		}
		if responseItemTypes[m.Type] {
			typed = true
		}
	}
	return typed
}

type respItem struct {
	respItemFields
	Arguments jsonx.RawMessage `json:"arguments"`
	Output    jsonx.RawMessage `json:"output"`

	// args and output are the members when they are strings the
	// one-pass reading decoded; Arguments and Output are then nil.
	args, output *string

	// What responseItems made of the item, kept as chatMessage.built is
	// (lineReuse): the text of a message, the call of a call item, the
	// fingerprint of an output. Each is a function of the item alone.
	memo *respMemo
}

type respMemo struct {
	text    string
	hasText bool
	call    *Call // Line unset
	fp      msgPrint
}

// respItemFields are the members of a Responses item but its arguments
// and output.
type respItemFields struct {
	Type    string           `json:"type"`
	Role    string           `json:"role"`
	Content jsonx.RawMessage `json:"content"`
	CallID  string           `json:"call_id"`
	Name    string           `json:"name"`
	Input   jsonx.RawMessage `json:"input"`
	Error   jsonx.RawMessage `json:"error"`
	Action  jsonx.RawMessage `json:"action"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// respItemText is a Responses item as the one-pass reading decodes it:
// arguments and output that are strings, the common case, decoded (see
// chatMessageText); of another kind, kept raw.
type respItemText struct {
	respItemFields
	Arguments, Output       *string
	rawArguments, rawOutput jsonx.RawMessage
}

// decodeRespItem decodes a Responses item as decodeChatMessage decodes a
// chat message.
func decodeRespItem(data []byte, it *respItem) error {
	var t respItemText
	if t.decode(data) {
		*it = t.item()
		return nil
	}
	return jsonx.Unmarshal(data, it)
}

// decode reads data into t in one pass, as chatMessageText.decode does.
func (t *respItemText) decode(data []byte) bool {
	end, ok := t.decodeAt(data, 0, 0)
	return ok && jsonx.AtEnd(data, end)
}

// decodeAt is decode of the object at data[pos:], depth levels deep in
// data, which ends at end.
func (t *respItemText) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	var summary jsonx.RawMessage
	fields := [...]jsonx.Field{
		{Name: "type", Str: &t.Type},
		{Name: "role", Str: &t.Role},
		{Name: "content", Raw: &t.Content},
		{Name: "call_id", Str: &t.CallID},
		{Name: "name", Str: &t.Name},
		{Name: "input", Raw: &t.Input},
		{Name: "error", Raw: &t.Error},
		{Name: "action", Raw: &t.Action},
		{Name: "summary", Raw: &summary, View: true},
	}
	nested := [...]jsonx.Nested{
		{Name: "arguments", Read: func(data []byte, pos, depth int) (int, bool) {
			return stringOrCopyAt(data, pos, depth, &t.Arguments, &t.rawArguments)
		}},
		{Name: "output", Read: func(data []byte, pos, depth int) (int, bool) {
			return stringOrCopyAt(data, pos, depth, &t.Output, &t.rawOutput)
		}},
	}
	end, ok = jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
	if !ok {
		return 0, false
	}
	if summary != nil {
		// As chatMessageText.decodeAt decodes its lists: t stays off the heap.
		sum := t.Summary
		if jsonx.Unmarshal(summary, &sum) != nil {
			return 0, false
		}
		t.Summary = sum
	}
	return end, true
}

// item is the respItem read as t.
func (t *respItemText) item() respItem {
	return respItem{respItemFields: t.respItemFields, args: t.Arguments, output: t.Output, Arguments: t.rawArguments, Output: t.rawOutput}
}

// call is the call a call item makes (but its Line).
func (it *respItem) call() Call {
	c := Call{ID: it.CallID, Tool: it.Name}
	switch it.Type {
	case "function_call":
		it.setArgs(&c)
	case "custom_tool_call":
		var s string
		_ = jsonx.Unmarshal(it.Input, &s)
		c.SetArgsValue(inputArgs(s))
	case "local_shell_call":
		c.Tool = "local_shell"
		c.SetArgsField(it.Action)
	case "mcp_call":
		// An MCP call made by the API carries its own output.
		it.setArgs(&c)
		c.HasResult = true
		c.Result, _ = it.outputText()
		if e, has := contentText(it.Error); has {
			c.Result, c.IsError = e, true
		}
	}
	return c
}

// setArgs sets c's arguments from the item's: the decoded string, else
// the member as it stands (Call.SetArgsField; absent or null is none).
func (it *respItem) setArgs(c *Call) {
	if it.args != nil {
		c.SetArgs(*it.args)
		return
	}
	c.SetArgsField(it.Arguments)
}

// outputText is contentText of the item's output.
func (it *respItem) outputText() (string, bool) {
	if it.output != nil {
		return stringText(it.output)
	}
	return contentText(it.Output)
}

// responseItems normalizes a Responses item list. Consecutive model items
// (assistant messages, reasoning, calls) are one model response, hence one
// assistant item; a user message or a call output ends it.
func (r *oaReader) responseItems(elems []oaElem, lines []int, recLine int, rec *oaRecord) []oaItem {
	items := make([]oaItem, 0, len(elems)) // at most one each
	var cur *oaItem
	var curFP []string
	flush := func() {
		if cur != nil {
			cur.fp = fingerprint('a', curFP...)
			items = append(items, *cur)
			cur, curFP = nil, nil
		}
	}
	var line int // the line of the current element
	model := func() *oaItem {
		if cur == nil {
			cur = &oaItem{kind: 'a', line: line}
		}
		return cur
	}
	for i, e := range elems {
		line = lineAtIndex(lines, i, recLine)
		var it respItem
		// memo is what an earlier line made of this very item (lineReuse),
		// or where to keep what this line makes of it; nil when neither.
		var memo *respMemo
		if e.item == nil {
			e = r.reuse.take(e)
		}
		if e.item == nil {
			if err := decodeRespItem(e.raw, &it); err != nil {
				r.out.Problemf(line, "item %d is not a Responses item (%v); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
				continue
			}
			if r.reuse.memoize() {
				e.item = new(it)
			}
		}
		if e.item != nil {
			if r.reuse.memoize() && e.item.memo == nil {
				e.item.memo = &respMemo{}
			}
			it, memo = *e.item, e.item.memo
		}
		r.reuse.keep(e)
		if it.Type == "" && it.Role != "" {
			it.Type = "message"
		}
		switch it.Type {
		case "message":
			var text string
			var has bool
			if memo != nil && memo.hasText {
				text, has = memo.text, true
			} else if text, has = userText(it.Content); memo != nil && has {
				memo.text, memo.hasText = text, true
			}
			switch it.Role {
			case "user":
				flush()
				if u := userItem(text, has, line); u.kind != 0 {
					items = append(items, u)
				}
			case "assistant":
				m := model()
				m.chars += len(text)
				if len(m.calls) == 0 {
					curFP = append(curFP, strings.TrimSpace(text))
				}
			case "system", "developer":
			default:
				r.out.Problemf(line, "item %d is a message with unknown role %q; skipped", i+1, it.Role)
			}
		case "reasoning":
			m := model()
			for _, s := range it.Summary {
				m.chars += len(s.Text)
			}
		case "function_call", "custom_tool_call", "local_shell_call", "mcp_call":
			m := model()
			var c Call
			if memo != nil && memo.call != nil {
				c = *memo.call
			} else {
				c = it.call()
				if memo != nil {
					memo.call = new(c)
				}
			}
			c.Line = line
			if c.ID == "" && it.Type != "mcp_call" {
				r.out.Problemf(line, "item %d (%s %s) has no call_id; its result cannot be joined", i+1, it.Type, it.Name)
			}
			m.calls = append(m.calls, c)
			curFP = append(curFP, c.ID, c.Tool, c.ArgsRaw)
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "computer_call_output":
			if it.Type == "computer_call_output" {
				rec.skipped[it.Type]++
				continue
			}
			flush()
			text, _ := it.outputText()
			if it.CallID == "" {
				r.out.Problemf(line, "item %d (%s) has no call_id; ignored", i+1, it.Type)
				continue
			}
			var fp msgPrint
			if memo != nil && memo.fp.kind != 0 {
				fp = memo.fp
			} else if fp = fingerprint('r', it.CallID); memo != nil {
				memo.fp = fp
			}
			items = append(items, oaItem{kind: 'r', fp: fp, line: line, resID: it.CallID, resText: text})
		default:
			if responseItemTypes[it.Type] {
				rec.skipped[it.Type]++
			} else {
				r.out.Problemf(line, "item %d has unknown type %q; skipped", i+1, it.Type)
			}
		}
	}
	flush()
	return items
}

// --- conversations ---
