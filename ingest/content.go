package ingest

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// ContentText is a message content (a string, or a list of content
// blocks) as the readers read a tool result: the blocks' texts joined by
// newlines, other blocks named by their type. The live hook reads a Claude
// Code tool_response given as content blocks with it, so that a result
// reads the same live and in replay.
func ContentText(raw []byte) string {
	text, _ := contentText(raw)
	return text
}

// contentText returns the text of a content value (string, parts array or
// null), and whether it holds anything at all (an image part counts).
// Text parts are joined with newlines; other parts become a placeholder
// such as "[image 1a2b3c4d]" (partPlaceholder) so that a result made of
// them is not empty.
func contentText(raw jsonx.RawMessage) (string, bool) {
	return contentTextOf(raw, true)
}

// decodedContent is what the one-pass readings (Claude Code blocks,
// OpenHands events) add to a content member they keep raw, as the plain
// readings keep it: when it is a string, its text, decoded where it lay,
// so that contentText need not decode it again.
type decodedContent struct {
	text    string
	decoded bool
	// held says text lies in the line's scratch (jsonx.Scratch), reused
	// once the line is applied: what keeps it longer keeps a copy.
	held bool
}

// readContentMember returns the jsonx.Nested reading of a content member
// into raw, a view of the record (any value), and dc (a string, decoded).
// A string it cannot decode itself (invalid UTF-8) is left to contentText.
// The member is a tool result's (Claude Code) or an event's (OpenHands):
// a text that lives as long as its session, decoded packed
// (jsonx.StringOrValueAtPacked); a long one into scratch when it is not
// nil (jsonx.StringOrValueAtScratch: a Claude Code result that will be cut
// to its head, Options.CutResult).
func readContentMember(raw *jsonx.RawMessage, dc *decodedContent, scratch *jsonx.Scratch) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		var s string
		var value []byte
		var isString, ok, held bool
		var end int
		if scratch != nil {
			s, value, isString, end, ok, held = jsonx.StringOrValueAtScratch(data, pos, depth, scratch)
		} else {
			s, value, isString, end, ok = jsonx.StringOrValueAtPacked(data, pos, depth)
		}
		if !ok {
			return 0, false
		}
		*raw = value
		if isString {
			dc.text, dc.decoded, dc.held = s, true, held
		}
		return end, true
	}
}

// textOf is contentText of the member whose raw text is raw.
func (dc *decodedContent) textOf(raw jsonx.RawMessage) string {
	if dc.decoded {
		return dc.text
	}
	text, _ := contentText(raw)
	return text
}

// userText is contentText without placeholders: what the user typed.
func userText(raw jsonx.RawMessage) (string, bool) {
	return contentTextOf(raw, false)
}

func contentTextOf(raw jsonx.RawMessage, placeholders bool) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if jsonx.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var raws []jsonx.RawMessage
	if jsonx.Unmarshal(raw, &raws) != nil {
		return string(raw), true
	}
	var b strings.Builder
	for _, pr := range raws {
		var p struct {
			Type   string           `json:"type"`
			Text   *string          `json:"text"`
			Nested jsonx.RawMessage `json:"content"`
		}
		if jsonx.Unmarshal(pr, &p) != nil {
			return string(raw), true
		}
		var t string
		switch {
		case p.Text != nil:
			t = *p.Text
		case p.Nested != nil:
			t, _ = contentTextOf(p.Nested, placeholders)
		case placeholders:
			t = partPlaceholder(p.Type, pr)
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String(), len(raws) > 0
}

// partPlaceholder stands for a content part that is not text (an image, a
// document): its type and a digest of the part, so that two results made
// of different images (two screenshots, one file read before and after it
// changed) do not read as the same result, which would make the truth take
// a repeat for redundant and a stop that hid a new image for harmless.
// A part that holds nothing but its type is its type alone.
func partPlaceholder(typ string, part jsonx.RawMessage) string {
	part = bytes.TrimSpace(part)
	if len(part) <= len(`{"type":""}`)+len(typ)+4 {
		return "[" + typ + "]"
	}
	h := fnv.New32a()
	h.Write(part)
	return fmt.Sprintf("[%s %08x]", typ, h.Sum32())
}
