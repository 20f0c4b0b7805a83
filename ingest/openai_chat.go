package ingest

// OpenAI Chat Completions messages: decoding and the items they make.

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

type chatMessage struct {
	chatMessageFields
	Content jsonx.RawMessage `json:"content"`

	// text is the content when it is a string the one-pass reading
	// decoded; Content is then nil. Else Content holds the member.
	text *string

	// built is the item chatItem made of the message, kept when the
	// message was decoded from a JSONL line that the next line may share
	// (lineReuse): the next line takes the item too, with its own line.
	// chatItem is a function of the message alone, but for the line.
	built *oaItem
}

// chatMessageFields are the members of a chat message but its content.
type chatMessageFields struct {
	Role             string           `json:"role"`
	Name             string           `json:"name"`
	ToolCalls        []chatToolCall   `json:"tool_calls"`
	FunctionCall     *chatFunction    `json:"function_call"`
	ToolCallID       string           `json:"tool_call_id"`
	ReasoningContent string           `json:"reasoning_content"`
	Reasoning        jsonx.RawMessage `json:"reasoning"`
	// Metadata is the _metadata member converted exports add per
	// message (chatMetadata).
	Metadata jsonx.RawMessage `json:"_metadata"`
}

// chatMessageText is a chat message as the one-pass reading decodes it:
// content that is a string (the common case: a tool result, most of a
// log's bytes) decoded once instead of copied raw and decoded again;
// content of another kind (parts) kept raw, a copy.
type chatMessageText struct {
	chatMessageFields
	Content *string
	raw     jsonx.RawMessage
}

// decodeChatMessage decodes a chat message: in one pass as a
// chatMessageText when it can, else (a member of another type, a
// repeated or case-folded key) generically as a chatMessage, whose error
// words the problem.
func decodeChatMessage(data []byte, m *chatMessage) error {
	var t chatMessageText
	if t.decode(data) {
		*m = t.message()
		return nil
	}
	return jsonx.Unmarshal(data, m)
}

// decode reads data into t in one pass (jsonx.DecodeObjectNested), the nested
// tool calls and reasoning with Unmarshal; false leaves data to Unmarshal.
func (t *chatMessageText) decode(data []byte) bool {
	end, ok := t.decodeAt(data, 0, 0)
	return ok && jsonx.AtEnd(data, end)
}

// decodeAt is decode of the object at data[pos:], depth levels deep in
// data, which ends at end.
func (t *chatMessageText) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	var calls, fn jsonx.RawMessage
	fields := [...]jsonx.Field{
		{Name: "role", Str: &t.Role},
		{Name: "name", Str: &t.Name},
		{Name: "tool_calls", Raw: &calls, View: true},
		{Name: "function_call", Raw: &fn, View: true},
		{Name: "tool_call_id", Str: &t.ToolCallID},
		{Name: "reasoning_content", Str: &t.ReasoningContent},
		{Name: "reasoning", Raw: &t.Reasoning},
		{Name: "_metadata", Raw: &t.Metadata},
	}
	content := [...]jsonx.Nested{{Name: "content", Read: func(data []byte, pos, depth int) (int, bool) {
		return stringOrCopyAt(data, pos, depth, &t.Content, &t.raw)
	}}}
	end, ok = jsonx.DecodeObjectNested(data, pos, depth, fields[:], content[:])
	if !ok {
		return 0, false
	}
	// The lists are decoded into variables of their own: handing a
	// member of t to Unmarshal (an interface) would move every t to the
	// heap, where most messages have neither.
	if calls != nil {
		var tc []chatToolCall
		if jsonx.Unmarshal(calls, &tc) != nil {
			return 0, false
		}
		t.ToolCalls = tc
	}
	if fn != nil {
		var f *chatFunction
		if jsonx.Unmarshal(fn, &f) != nil {
			return 0, false
		}
		t.FunctionCall = f
	}
	return end, true
}

// message is the chatMessage read as t.
func (t *chatMessageText) message() chatMessage {
	return chatMessage{chatMessageFields: t.chatMessageFields, text: t.Content, Content: t.raw}
}

// contentText is contentText of the message's content, or userText of it
// when placeholders is false.
func (m *chatMessage) contentText(placeholders bool) (string, bool) {
	if m.text != nil {
		return stringText(m.text)
	}
	return contentTextOf(m.Content, placeholders)
}

// stringOrCopyAt reads a member that is nearly always a string: a string
// into *s, any other value but null into *raw, a copy (the message or item
// may outlive the line, lineReuse).
func stringOrCopyAt(data []byte, pos, depth int, s **string, raw *jsonx.RawMessage) (int, bool) {
	text, value, isString, end, ok := jsonx.StringOrValueAt(data, pos, depth)
	switch {
	case !ok:
		return 0, false
	case isString:
		*s = &text
	case data[pos] != 'n':
		*raw = append(jsonx.RawMessage(nil), value...)
	}
	return end, true
}

// stringText is what contentTextOf gives for a content decoded as a
// string, nil standing for null or absent.
func stringText(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, *s != ""
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
	// Custom is a free-text custom tool call (type "custom").
	Custom *struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

type chatFunction struct {
	Name      string           `json:"name"`
	Arguments jsonx.RawMessage `json:"arguments"`
}

func userItem(text string, has bool, line int) oaItem {
	if !has {
		return oaItem{}
	}
	return oaItem{kind: 'u', fp: fingerprint('u', text), line: line, chars: len(text), text: text}
}

// chatItems normalizes chat messages; lines are the file lines of the
// elements in a document (nil in JSONL, where every element is on line).
func (r *oaReader) chatItems(elems []oaElem, lines []int, line int) []oaItem {
	items := make([]oaItem, 0, len(elems)) // at most one each
	for i, e := range elems {
		line := lineAtIndex(lines, i, line)
		if e.chat == nil {
			e = r.reuse.take(e)
		}
		if e.chat != nil && e.chat.built != nil {
			items = append(items, e.chat.built.at(line))
			r.reuse.keep(e)
			continue
		}
		var m chatMessage
		if e.chat != nil {
			m = *e.chat
		} else if err := decodeChatMessage(e.raw, &m); err != nil {
			r.out.Problemf(line, "message %d is not a chat message (%v); skipped", i+1, strings.TrimPrefix(err.Error(), "json: "))
			continue
		} else if r.reuse.memoize() {
			e.chat = new(m)
		}
		r.reuse.keep(e)
		it, ok := r.chatItem(m, i, line)
		if ok {
			items = append(items, it)
			// Only an item made without a problem is kept, so that a
			// message that makes one makes it again on every line.
			if e.chat != nil && r.reuse.memoize() {
				e.chat.built = new(it.at(line))
			}
		}
	}
	return items
}

// subagentRolePrefix begins the role a converter from Claude Code gives
// a subagent's messages, merged into the main session's list after the
// call that started it: "assistant-subagent-<agent id>", with the role
// the message had in the subagent's own file in _metadata.original_role
// (user, assistant or tool) and _metadata.source "subagent". Each such
// agent is read as a subagent scope of the export's session, as Claude
// Code's own subagents/agent-<id>.jsonl files are.
const subagentRolePrefix = "assistant-subagent-"

func (r *oaReader) chatItem(m chatMessage, i, line int) (oaItem, bool) {
	var md chatMeta
	if len(m.Metadata) > 0 {
		md = chatMetadata(m.Metadata)
	}
	scope, sub := strings.CutPrefix(m.Role, subagentRolePrefix)
	if sub {
		if scope == "" || md.OriginalRole == "" || strings.HasPrefix(md.OriginalRole, subagentRolePrefix) {
			r.out.Problemf(line, "message %d has the subagent role %q without an agent id or a _metadata.original_role to read it by; skipped", i+1, m.Role)
			return oaItem{}, false
		}
		m.Role = md.OriginalRole
	}
	it, ok := r.chatItemOf(m, i, line)
	if !ok {
		return it, false
	}
	if sub {
		it.scope = scope
	}
	if !md.at.IsZero() {
		it.time = md.at
		for j := range it.calls {
			it.calls[j].Time = md.at
		}
	}
	if it.kind == 'a' && md.usage != nil {
		it.usage = md.usage
	}
	return it, true
}

// chatMeta is what chatMetadata reads of a message's _metadata.
type chatMeta struct {
	Timestamp    jsonx.RawMessage `json:"timestamp"`
	Tokens       *ocTokens        `json:"tokens"`
	OriginalRole string           `json:"original_role"`
	at           time.Time
	usage        *Usage
}

// chatMetadata reads the _metadata member that exports converted from
// other agents' sessions add to each message: its timestamp (RFC 3339
// text, or Unix milliseconds), on a model's message the tokens of an
// OpenCode message ({input, output, reasoning, cache: {read, write}},
// input without the cache, as the opencode reader reads them), and on a
// subagent's message its role in the subagent's own file
// (subagentRolePrefix). A _metadata of another shape is none.
func chatMetadata(raw jsonx.RawMessage) chatMeta {
	var md chatMeta
	if jsonx.Unmarshal(raw, &md) != nil {
		return chatMeta{}
	}
	md.at, md.usage = textOrMillisTime(md.Timestamp), md.Tokens.usage()
	return md
}

// textOrMillisTime reads a converter's timestamp: RFC 3339 text, or Unix
// milliseconds.
func textOrMillisTime(raw jsonx.RawMessage) time.Time {
	ts := bytes.TrimSpace(raw)
	if len(ts) == 0 {
		return time.Time{}
	}
	if ts[0] == '"' {
		var text string
		if jsonx.Unmarshal(ts, &text) == nil {
			return parseTime(text)
		}
	} else if ms, err := strconv.ParseInt(string(ts), 10, 64); err == nil {
		return msTime(ms)
	}
	return time.Time{}
}

func (r *oaReader) chatItemOf(m chatMessage, i, line int) (oaItem, bool) {
	switch m.Role {
	case "user":
		text, has := m.contentText(false)
		it := userItem(text, has, line)
		return it, it.kind != 0
	case "assistant":
		text, _ := m.contentText(true)
		it := oaItem{kind: 'a', line: line, chars: len(text) + len(m.ReasoningContent)}
		if r.out.KeepText {
			it.text = text
		}
		var rs string
		// (An absent member fails to decode: not worth an error value.)
		if len(m.Reasoning) > 0 && jsonx.Unmarshal(m.Reasoning, &rs) == nil {
			it.chars += len(rs)
		}
		var ids []string
		for _, tc := range m.ToolCalls {
			c := Call{ID: tc.ID, Tool: tc.Function.Name, Line: line}
			if tc.Custom != nil {
				c.Tool = tc.Custom.Name
				c.SetArgsValue(inputArgs(tc.Custom.Input))
			} else {
				c.SetArgsField(tc.Function.Arguments)
			}
			it.calls = append(it.calls, c)
			ids = append(ids, tc.ID, c.Tool, c.ArgsRaw)
		}
		if m.FunctionCall != nil {
			c := Call{Tool: m.FunctionCall.Name, Line: line}
			c.SetArgsField(m.FunctionCall.Arguments)
			it.calls = append(it.calls, c)
			ids = append(ids, "fn", c.Tool, c.ArgsRaw)
		}
		if len(ids) > 0 {
			it.fp = fingerprint('a', ids...)
		} else {
			it.fp = fingerprint('a', strings.TrimSpace(text))
		}
		return it, true
	case "tool":
		text, _ := m.contentText(true)
		if m.ToolCallID == "" {
			r.out.Problemf(line, "message %d is a tool result without tool_call_id; ignored", i+1)
			return oaItem{}, false
		}
		return oaItem{kind: 'r', fp: fingerprint('r', m.ToolCallID), line: line, resID: m.ToolCallID, resText: text}, true
	case "function":
		text, _ := m.contentText(true)
		return oaItem{kind: 'r', fp: fingerprint('f', m.Name, text), line: line, legacy: true, resName: m.Name, resText: text}, true
	case "system", "developer":
		return oaItem{}, false
	default:
		r.out.Problemf(line, "message %d has unknown role %q; skipped", i+1, m.Role)
		return oaItem{}, false
	}
}

// chatChoices reads a chat.completion response: the first choice's message
// is the model's answer (further choices, n > 1, were not sent back to the
// model and are only counted in a note).
func (r *oaReader) chatChoices(raw jsonx.RawMessage, resp map[string]jsonx.RawMessage, line int, rec *oaRecord) []oaItem {
	var choices []struct {
		Index   int              `json:"index"`
		Message jsonx.RawMessage `json:"message"`
	}
	if err := jsonx.Unmarshal(raw, &choices); err != nil {
		r.out.Problemf(line, "choices is not an array of choices: %v", err)
		return nil
	}
	if len(choices) == 0 {
		return nil
	}
	rec.extra = len(choices) - 1
	var m chatMessage
	if err := decodeChatMessage(choices[0].Message, &m); err != nil {
		r.out.Problemf(line, "response message is not a chat message (%v); skipped", strings.TrimPrefix(err.Error(), "json: "))
		return nil
	}
	if m.Role == "" {
		m.Role = "assistant"
	}
	it, ok := r.chatItem(m, 0, line)
	if !ok || it.kind != 'a' {
		return nil
	}
	if u := resp["usage"]; u != nil {
		it.usage = checkedUsage(r.out, line, u, parseOpenAIUsage)
	}
	it.time = unixTime(resp["created"])
	for j := range it.calls {
		it.calls[j].Time = it.time
	}
	return []oaItem{it}
}
