package ingest

// Codex rollouts of the older layout (CLI builds of mid 2025): the first
// line is the session's meta itself ({id, timestamp, instructions, git}),
// and the lines after it are the response items themselves ({type:
// message | reasoning | function_call | function_call_output | ...}),
// with {"record_type": "state"} lines between them, no envelope of type
// and payload, and no time per line. Such a line is read as the newer
// layout's line of the same meaning (session_meta, response_item); the
// state lines carry nothing of the conversation and are passed over.

import (
	"bytes"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// codexLegacyItems are the response item types an older rollout writes
// as lines of their own.
var codexLegacyItems = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"local_shell_call_output": true, "web_search_call": true,
}

// codexLegacyState is the type given to an older rollout's state lines.
const codexLegacyState = "legacy_state"

// sniffCodexLegacy: the first record is an older rollout's meta line.
func sniffCodexLegacy(h *Head) bool {
	return !h.Array && h.Has("id", "timestamp", "instructions") && !h.Has("type") && !h.Has("payload")
}

// codexLegacyLine reads a line of the older layout that the newer
// reading found no payload in: the line in the newer layout, or nil when
// it is not an older line. A state line comes back typed
// codexLegacyState.
func codexLegacyLine(line []byte, l *codexLine) []byte {
	if l.Payload != nil || codexTypes[l.Type] {
		return nil
	}
	switch {
	case codexLegacyItems[l.Type]:
		return codexWrap("response_item", "", line)
	case l.Type == "":
		f := jsonx.TopLevelFields(string(line), "record_type", "id", "instructions")
		switch {
		case f[0] != "":
			return []byte(`{"type":"` + codexLegacyState + `","payload":{}}`)
		case f[1] != "" && f[2] != "" && l.Timestamp != "":
			return codexWrap("session_meta", l.Timestamp, line)
		}
	}
	return nil
}

// codexWrap writes item as the payload of a newer rollout line.
func codexWrap(typ, timestamp string, item []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"`)
	b.WriteString(typ)
	b.WriteString(`"`)
	if timestamp != "" {
		b.WriteString(`,"timestamp":`)
		b.Write(jsonx.AppendQuoted(nil, timestamp))
	}
	b.WriteString(`,"payload":`)
	b.Write(bytes.TrimSpace(item))
	b.WriteString("}")
	return b.Bytes()
}
