package ingest

// A hermes message and its tool calls, decoded in one pass where they lie,
// else generically; the text of content and results.

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// hermesMessage is one message of the §2 model. Fields whose type varies
// between hermes versions stay raw.
type hermesMessage struct {
	hermesMessageFields
	Content          jsonx.RawMessage `json:"content"`
	Reasoning        jsonx.RawMessage `json:"reasoning"`
	ReasoningContent jsonx.RawMessage `json:"reasoning_content"`
}

// hermesMessageFields are the members of a message but its text ones.
type hermesMessageFields struct {
	Role              string           `json:"role"`
	ToolCalls         jsonx.RawMessage `json:"tool_calls"`
	ToolCallID        string           `json:"tool_call_id"`
	Name              string           `json:"name"`
	ToolName          string           `json:"tool_name"`
	Timestamp         jsonx.RawMessage `json:"timestamp"`
	CompressedSummary jsonx.RawMessage `json:"_compressed_summary"`
	Active            jsonx.RawMessage `json:"active"`
	Compacted         jsonx.RawMessage `json:"compacted"`
	// Mirror marks a delivery mirror (gateway transcripts): a copy of a
	// message delivered to this chat from elsewhere, not a message of
	// this session's own run (hermesConv.message).
	Mirror jsonx.RawMessage `json:"mirror"`
	// session_meta records (gateway) carry these.
	Model    string `json:"model"`
	Platform string `json:"platform"`
}

// hermesMsg is a message as hermesConv reads it: the message with its
// content and reasoning turned into text (hermesText).
type hermesMsg struct {
	hermesMessageFields
	// Text is the content's text; Reasoning the reasoning's, or
	// reasoning_content's when reasoning is blank.
	Text, Reasoning string
	// calls are the tool calls when they were read with the message
	// (callsRead, hermesMsg.decodeAt), else hermesToolCalls reads them
	// from ToolCalls.
	calls     []hermesCall
	callsRead bool
}

// msg turns a decoded message into what hermesConv reads.
func (m *hermesMessage) msg() hermesMsg {
	r := hermesMsg{hermesMessageFields: m.hermesMessageFields, Text: hermesText(m.Content), Reasoning: hermesText(m.Reasoning)}
	if strings.TrimSpace(r.Reasoning) == "" {
		r.Reasoning = hermesText(m.ReasoningContent)
	}
	return r
}

// decodeAt reads the message that starts at data[pos], depth levels deep
// in data, in one pass (jsonx.DecodeObjectNested), into what
// hermesMessage.msg makes of it: the text members (content, reasoning)
// straight into m's text, whatever their kind (hermesTextAt), the raw
// ones as views of data (m is read before data changes). The decoder
// declines a repeated member, so null and absent give "" as for a single
// member. end is the index just past the message; false (a repeated,
// escaped or case-folded key, a member of another type, a syntax error)
// leaves it to the generic decoding, hermesUnmarshalMessage (m may be
// partly written).
func (m *hermesMsg) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	*m = hermesMsg{}
	var reasoningContent string
	fields := [...]jsonx.Field{
		{Name: "role", Str: &m.Role},
		{Name: "tool_call_id", Str: &m.ToolCallID},
		{Name: "name", Str: &m.Name},
		{Name: "tool_name", Str: &m.ToolName},
		{Name: "timestamp", Raw: &m.Timestamp, View: true},
		{Name: "_compressed_summary", Raw: &m.CompressedSummary, View: true},
		{Name: "active", Raw: &m.Active, View: true},
		{Name: "compacted", Raw: &m.Compacted, View: true},
		{Name: "mirror", Raw: &m.Mirror, View: true},
		{Name: "model", Str: &m.Model},
		{Name: "platform", Str: &m.Platform},
	}
	// The tool calls are read in the same pass when they are a list
	// hermesReadToolCalls reads; any other value is kept raw for
	// hermesToolCalls.
	nested := [...]jsonx.Nested{{Name: "content", Read: hermesTextAt(&m.Text)},
		{Name: "reasoning", Read: hermesTextAt(&m.Reasoning)},
		{Name: "reasoning_content", Read: hermesTextAt(&reasoningContent)},
		{Name: "tool_calls", Read: func(data []byte, pos, depth int) (int, bool) {
			if data[pos] == '[' {
				if calls, end, ok := hermesReadToolCalls(data, pos, depth); ok {
					m.ToolCalls, m.calls, m.callsRead = data[pos:end:end], calls, true
					return end, true
				}
			}
			_, end, ok := jsonx.SkipValue(data, pos, depth)
			if !ok {
				return 0, false
			}
			m.ToolCalls = data[pos:end:end]
			return end, true
		}}}
	if end, ok = jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:]); !ok {
		return 0, false
	}
	if strings.TrimSpace(m.Reasoning) == "" {
		m.Reasoning = reasoningContent
	}
	return end, true
}

// hermesTextAt returns the reading of a text member (content, reasoning)
// at data[pos] that sets *text to what hermesText gives for it: a string
// decoded where it lies, any other value (parts, null, a number) by
// hermesText of the value's bytes.
func hermesTextAt(text *string) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		s, value, isString, end, ok := jsonx.StringOrValueAt(data, pos, depth)
		if !ok {
			return 0, false
		}
		if isString {
			*text = hermesStringValueText(s)
		} else {
			*text = hermesText(value)
		}
		return end, true
	}
}

// decode is decodeAt of a message that is all of data (a gateway line),
// white space around it allowed: when it reads it, data is valid JSON.
func (m *hermesMsg) decode(data []byte) bool {
	end, ok := m.decodeAt(data, 0, 0)
	return ok && jsonx.AtEnd(data, end)
}

// hermesStringValueText is hermesText of a string member, given decoded.
func hermesStringValueText(s string) string {
	if !strings.HasPrefix(s, hermesDBJSONPrefix) {
		return s // what hermesValueText gives, without the value
	}
	return hermesValueText(jsonx.Value{Kind: jsonx.String, Str: s})
}

// hermesDecodeMessage decodes one message: in one pass (hermesMsg.decode)
// when it can, else as hermesUnmarshalMessage does. m may keep views of
// data.
func hermesDecodeMessage(data []byte, m *hermesMsg) error {
	if m.decode(data) {
		return nil
	}
	return hermesUnmarshalMessage(data, m)
}

// hermesUnmarshalMessage is the generic decoding of a message the one-pass
// reading declines (a repeated, escaped or case-folded key, a member of
// another type): Unmarshal into a hermesMessage, whose error it returns.
func hermesUnmarshalMessage(data []byte, m *hermesMsg) error {
	var raw hermesMessage
	if err := jsonx.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = raw.msg()
	return nil
}

// hermesToolCall is one entry of an assistant's tool_calls (§2.2).
type hermesToolCall struct {
	ID       string           `json:"id"`
	CallID   string           `json:"call_id"`
	Name     string           `json:"name"`
	Args     jsonx.RawMessage `json:"arguments"`
	Function *struct {
		Name string           `json:"name"`
		Args jsonx.RawMessage `json:"arguments"`
	} `json:"function"`
}

// hermesCall is a tool_calls entry as hermesConv reads it: its id (id, or
// call_id when id is empty), its tool, and its arguments, either text
// (IsText) or the raw member for Call.SetArgsField.
type hermesCall struct {
	ID, Tool string
	Raw      jsonx.RawMessage
	Text     string
	IsText   bool
}

// hermesToolCalls decodes tool_calls: a list (export, gateway, snapshot) or
// the JSON text of a list (state.db's column form).
func hermesToolCalls(raw jsonx.RawMessage) ([]hermesCall, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := jsonx.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		raw = []byte(s)
	}
	if calls, end, ok := hermesReadToolCalls(raw, 0, 0); ok && jsonx.AtEnd(raw, end) {
		return calls, nil
	}
	// The generic decoding of a list the one-pass reading declines
	// (arguments that are not a string, a repeated or case-folded key...):
	// the entries keep their arguments raw.
	var raws []hermesToolCall
	if err := jsonx.Unmarshal(raw, &raws); err != nil {
		return nil, fmt.Errorf("%s", hermesDecodeError(err))
	}
	calls := make([]hermesCall, len(raws))
	for i, tc := range raws {
		c := hermesCall{ID: tc.ID, Tool: tc.Name, Raw: tc.Args}
		if c.ID == "" {
			c.ID = tc.CallID
		}
		if tc.Function != nil {
			c.Tool, c.Raw = tc.Function.Name, tc.Function.Args
		}
		calls[i] = c
	}
	return calls, nil
}

// hermesReadToolCalls reads the tool_calls list at data[pos], depth
// levels deep in data, in one pass, each entry decoded where it lies
// (jsonx.DecodeObjectNested): the arguments string read as text (null
// and absent give "", as SetArgsField reads them; a repeated member is
// declined), the function object's with it. end is the index just past
// the list. ok is false for a list it cannot read so (arguments of
// another type, an entry that is not an object, null...), which
// hermesToolCalls then decodes generically.
func hermesReadToolCalls(data []byte, pos, depth int) (calls []hermesCall, end int, ok bool) {
	readCall := func(data []byte, pos, depth int) (int, bool) {
		var c hermesCall
		var callID, args, fnName, fnArgs string
		hasFunction := false
		fields := [...]jsonx.Field{
			{Name: "id", Str: &c.ID},
			{Name: "call_id", Str: &callID},
			{Name: "name", Str: &c.Tool},
			{Name: "arguments", Str: &args},
		}
		nested := [...]jsonx.Nested{{Name: "function", Read: func(data []byte, pos, depth int) (int, bool) {
			if data[pos] == 'n' { // null: no function, as the nil pointer
				_, end, ok := jsonx.SkipValue(data, pos, depth)
				return end, ok
			}
			hasFunction = true
			fn := [...]jsonx.Field{{Name: "name", Str: &fnName}, {Name: "arguments", Str: &fnArgs}}
			return jsonx.DecodeObjectNested(data, pos, depth, fn[:], nil)
		}}}
		end, ok := jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
		if !ok {
			return 0, false
		}
		if c.ID == "" {
			c.ID = callID
		}
		c.Text, c.IsText = args, true
		if hasFunction {
			c.Tool, c.Text = fnName, fnArgs
		}
		calls = append(calls, c)
		return end, true
	}
	end, ok = jsonx.DecodeArrayEach(data, pos, depth, readCall)
	return calls, end, ok
}

// hermesDBJSONPrefix marks list or dict content stored as text in state.db.
const hermesDBJSONPrefix = "\x00json:"

// hermesText returns message content as the model saw it: a string as is, a
// list of content parts as their texts joined by newlines, any other value
// as compact JSON.
func hermesText(raw jsonx.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return string(raw)
	}
	return hermesValueText(v)
}

func hermesValueText(v jsonx.Value) string {
	switch v.Kind {
	case jsonx.String:
		if rest, ok := strings.CutPrefix(v.Str, hermesDBJSONPrefix); ok {
			if inner, err := jsonx.ParseString(rest); err == nil {
				return hermesValueText(inner)
			}
			return rest
		}
		return v.Str
	case jsonx.Null:
		return ""
	case jsonx.Array:
		var parts []string
		for _, p := range v.Arr {
			if p.Kind == jsonx.String {
				parts = append(parts, p.Str)
				continue
			}
			if s, ok := p.GetString("text"); ok {
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 && len(v.Arr) > 0 {
			return v.String()
		}
		return strings.Join(parts, "\n")
	}
	return v.String()
}
