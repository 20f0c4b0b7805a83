package ingest

// A nanobot record and its tool calls, decoded in one pass, else
// generically; the readings of raw members.

import (
	"bytes"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// nbRecord is one line of a session file: the metadata record, the
// provider_state record, or a message. Every member stays raw so that a
// member of an unexpected type costs that member, not the record.
type nbRecord struct {
	Type jsonx.RawMessage `json:"_type"`

	// messages
	Role             jsonx.RawMessage `json:"role"`
	Content          jsonx.RawMessage `json:"content"`
	ReasoningContent jsonx.RawMessage `json:"reasoning_content"`
	ToolCallID       jsonx.RawMessage `json:"tool_call_id"`
	Name             jsonx.RawMessage `json:"name"`
	Timestamp        jsonx.RawMessage `json:"timestamp"`

	nbRawMembers
}

// nbRawMembers are the members of a record that the parser keeps raw.
type nbRawMembers struct {
	// metadata record
	Key              jsonx.RawMessage `json:"key"`
	Metadata         jsonx.RawMessage `json:"metadata"`
	LastConsolidated jsonx.RawMessage `json:"last_consolidated"`
	// provider_state record
	State jsonx.RawMessage `json:"state"`

	// messages
	ThinkingBlocks  jsonx.RawMessage `json:"thinking_blocks"`
	ToolCalls       jsonx.RawMessage `json:"tool_calls"`
	ToolsUsed       jsonx.RawMessage `json:"tools_used"`
	LatencyMS       jsonx.RawMessage `json:"latency_ms"`
	Command         jsonx.RawMessage `json:"_command"`
	HiddenHistory   jsonx.RawMessage `json:"_hidden_history"`
	InjectedEvent   jsonx.RawMessage `json:"injected_event"`
	ChannelDelivery jsonx.RawMessage `json:"_channel_delivery"`
	AutomationTurn  jsonx.RawMessage `json:"_automation_turn"`
	CronJobID       jsonx.RawMessage `json:"cron_job_id"`
	RuntimeContext  jsonx.RawMessage `json:"_runtime_context"`
}

// nbMsg is a record as the parser reads it: the string members as nbStr
// gives them, content and reasoning as nbText gives them, the others raw.
type nbMsg struct {
	Type, Role, ToolCallID, Name string
	Text                         string
	TextOK                       bool // content has a shape nbText reads
	Reasoning                    string
	Timestamp                    nbStamp

	Key, Metadata, LastConsolidated, State, ThinkingBlocks, ToolCalls, ToolsUsed, LatencyMS,
	Command, HiddenHistory, InjectedEvent, ChannelDelivery, AutomationTurn, CronJobID, RuntimeContext jsonx.RawMessage

	// Calls are the tool_calls as nbParser.toolCalls gives them, when
	// nbMsg.decode read them with the record (CallsRead); ToolCalls is
	// then nil.
	Calls     []nbCall
	CallsRead bool
}

// nbStamp is a timestamp member: Present unless absent or null, OK when a
// string (S).
type nbStamp struct {
	Present, OK bool
	S           string
}

// msg turns a decoded record into what the parser reads.
func (r *nbRecord) msg() nbMsg {
	m := nbMsg{Type: nbStr(r.Type), Role: nbStr(r.Role), ToolCallID: nbStr(r.ToolCallID), Name: nbStr(r.Name),
		Key: r.Key, Metadata: r.Metadata, LastConsolidated: r.LastConsolidated, State: r.State, ThinkingBlocks: r.ThinkingBlocks,
		ToolCalls: r.ToolCalls, ToolsUsed: r.ToolsUsed, LatencyMS: r.LatencyMS, Command: r.Command, HiddenHistory: r.HiddenHistory,
		InjectedEvent: r.InjectedEvent, ChannelDelivery: r.ChannelDelivery, AutomationTurn: r.AutomationTurn, CronJobID: r.CronJobID,
		RuntimeContext: r.RuntimeContext}
	m.Text, m.TextOK = nbText(r.Content)
	m.Reasoning, _ = nbText(r.ReasoningContent)
	if nbPresent(r.Timestamp) {
		m.Timestamp.Present = true
		m.Timestamp.OK = jsonx.Unmarshal(r.Timestamp, &m.Timestamp.S) == nil
	}
	return m
}

func nbDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// nbDecodeRecord decodes one line into m: in one pass when it can
// (nbMsg.decode, nearly always), else generically as an nbRecord, whose
// error it returns.
func nbDecodeRecord(line []byte, m *nbMsg) error {
	// A partial decode is overwritten below, never read.
	*m = nbMsg{}
	if m.decode(line) {
		return nil
	}
	var rec nbRecord
	if err := jsonx.Unmarshal(line, &rec); err != nil {
		return err
	}
	*m = rec.msg()
	return nil
}

// decode reads line into m as nbRecord.msg would, and its tool_calls as
// nbParser.toolCalls would, in one walk: each string member is decoded
// where it lies, without Unmarshal's copy of the line and its reflection,
// and the tool calls are not kept raw to be walked again. A null string
// member leaves its "" as nbStr gives for null, since a repeated member is
// declined. false (a repeated, escaped or case-folded key, a member of
// another type, a syntax error) leaves the line to the generic decoding,
// m partly written.
func (m *nbMsg) decode(line []byte) bool {
	var stamp *string
	textOK := true // content absent or null: nbText's "", true
	// The common members first: a key is looked up in order.
	fields := [...]jsonx.Field{
		{Name: "role", Str: &m.Role},
		{Name: "timestamp", Ptr: &stamp},
		{Name: "tool_call_id", Str: &m.ToolCallID},
		{Name: "name", Str: &m.Name},
		{Name: "_type", Str: &m.Type},
		{Name: "latency_ms", Raw: &m.LatencyMS},
		{Name: "key", Raw: &m.Key},
		{Name: "metadata", Raw: &m.Metadata},
		{Name: "last_consolidated", Raw: &m.LastConsolidated},
		{Name: "state", Raw: &m.State},
		{Name: "thinking_blocks", Raw: &m.ThinkingBlocks},
		{Name: "tools_used", Raw: &m.ToolsUsed},
		{Name: "_command", Raw: &m.Command},
		{Name: "_hidden_history", Raw: &m.HiddenHistory},
		{Name: "injected_event", Raw: &m.InjectedEvent},
		{Name: "_channel_delivery", Raw: &m.ChannelDelivery},
		{Name: "_automation_turn", Raw: &m.AutomationTurn},
		{Name: "cron_job_id", Raw: &m.CronJobID},
		{Name: "_runtime_context", Raw: &m.RuntimeContext},
	}
	// content and reasoning_content: a string decoded, another kind (a
	// list of blocks) read by nbText.
	text := func(dst *string, ok *bool) func(data []byte, pos, depth int) (int, bool) {
		return func(data []byte, pos, depth int) (int, bool) {
			s, raw, isString, end, decoded := jsonx.StringOrValueAt(data, pos, depth)
			switch {
			case !decoded:
				return 0, false
			case isString:
				*dst = s
			default:
				*dst, *ok = nbText(raw)
			}
			return end, true
		}
	}
	var reasoningOK bool
	nested := [...]jsonx.Nested{{Name: "content", Read: text(&m.Text, &textOK)},
		{Name: "reasoning_content", Read: text(&m.Reasoning, &reasoningOK)},
		{Name: "tool_calls", Read: func(data []byte, pos, depth int) (int, bool) {
			if bytes.HasPrefix(data[pos:], []byte("null")) {
				return pos + len("null"), true // no calls, as nbParser.toolCalls reads it
			}
			return jsonx.DecodeArrayEach(data, pos, depth, nbCallEntry(&m.Calls))
		}}}
	end, ok := jsonx.DecodeObjectNested(line, 0, 0, fields[:], nested[:])
	if !ok || !jsonx.AtEnd(line, end) {
		return false
	}
	m.TextOK, m.CallsRead = textOK, true
	if stamp != nil {
		m.Timestamp = nbStamp{Present: true, OK: true, S: *stamp}
	}
	return true
}

// nbToolCall is one entry of an assistant message's tool_calls.
type nbToolCall struct {
	ID       jsonx.RawMessage `json:"id"`
	Function struct {
		Name      jsonx.RawMessage `json:"name"`
		Arguments jsonx.RawMessage `json:"arguments"`
	} `json:"function"`
}

// nbCall is a tool_calls entry as the parser reads it: id and name as
// nbStr gives them, arguments as text (IsText; NoArgs when null or absent)
// or raw, for Call.SetArgsField.
type nbCall struct {
	ID, Name string
	Raw      jsonx.RawMessage
	Text     string
	IsText   bool
	NoArgs   bool
}

// nbCallEntry returns the reading of one tool_calls entry, at data[pos],
// that appends it to calls as the generic decoding (an nbToolCall) and
// nbParser.toolCalls would, for jsonx.DecodeArrayEach: one walk over the entry
// and its function object. It declines what that would not read to the
// same call (an entry or function that is not an object, null included, a
// member of another type, ...): the caller then reads the list as before.
func nbCallEntry(calls *[]nbCall) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		var id, name, args *string
		var rawArgs jsonx.RawMessage
		fn := [...]jsonx.Field{{Name: "name", Ptr: &name}}
		// Arguments of another kind than a string (an object, reference
		// §13.3) are kept raw, a copy, for Call.SetArgsField.
		fnArgs := [...]jsonx.Nested{{Name: "arguments", Read: func(data []byte, pos, depth int) (int, bool) {
			return stringOrCopyAt(data, pos, depth, &args, &rawArgs)
		}}}
		function := [...]jsonx.Nested{{Name: "function", Read: func(data []byte, pos, depth int) (int, bool) {
			return jsonx.DecodeObjectNested(data, pos, depth, fn[:], fnArgs[:])
		}}}
		entry := [...]jsonx.Field{{Name: "id", Ptr: &id}}
		end, ok := jsonx.DecodeObjectNested(data, pos, depth, entry[:], function[:])
		if !ok {
			return 0, false
		}
		if rawArgs != nil {
			*calls = append(*calls, nbCall{ID: nbDeref(id), Name: nbDeref(name), Raw: rawArgs})
		} else {
			*calls = append(*calls, nbCall{ID: nbDeref(id), Name: nbDeref(name), IsText: true, Text: nbDeref(args), NoArgs: args == nil})
		}
		return end, true
	}
}

// nbText returns the text of a content value: a string, or the text blocks
// of a list joined by newlines (images were already replaced by text
// placeholders when nanobot saved them). ok is false for other shapes.
func nbText(raw jsonx.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	switch raw[0] {
	case '"':
		var s string
		err := jsonx.Unmarshal(raw, &s)
		return s, err == nil
	case '[':
		var blocks []jsonx.RawMessage
		if jsonx.Unmarshal(raw, &blocks) != nil {
			return "", false
		}
		var parts []string
		for _, b := range blocks {
			var s string
			if jsonx.Unmarshal(b, &s) == nil {
				parts = append(parts, s)
				continue
			}
			var blk struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if jsonx.Unmarshal(b, &blk) == nil && blk.Text != "" {
				parts = append(parts, blk.Text)
			}
		}
		return strings.Join(parts, "\n"), true
	}
	return "", false
}

// nbThinking sums the thinking text of Anthropic thinking blocks, used when
// reasoning_content is empty.
func nbThinking(raw jsonx.RawMessage) string {
	if !nbPresent(raw) {
		return ""
	}
	var blocks []struct {
		Thinking string `json:"thinking"`
	}
	if jsonx.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var sb strings.Builder
	for _, b := range blocks {
		sb.WriteString(b.Thinking)
	}
	return sb.String()
}

// nbStr returns a member's string value; a member of another type is
// returned as its JSON text, so that a message can still name it.
func nbStr(raw jsonx.RawMessage) string {
	if !nbPresent(raw) {
		return ""
	}
	var s string
	if jsonx.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// nbKind names the kind of a valid JSON value for messages.
func nbKind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "value"
	}
	switch v[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// nbPresent reports whether an optional member was given a non-null value.
func nbPresent(raw jsonx.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// nbTruthy reports whether a flag member is set (true, or any value but
// false, null, 0 and "": Python's truthiness, which nanobot tests).
func nbTruthy(raw jsonx.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	switch s {
	case "", "null", "false", "0", `""`, "[]", "{}":
		return false
	}
	return true
}
