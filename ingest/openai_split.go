package ingest

// The one-pass split of an OpenAI JSONL record: its members as views, its
// item arrays decoded on the way.

import (
	"strings"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// oaElem is an element of a record's messages or items: its raw JSON and,
// when splitRecord decoded it on its one pass over the line, the element
// decoded (as decodeChatMessage or decodeRespItem would decode raw).
type oaElem struct {
	raw  jsonx.RawMessage
	chat *chatMessage
	item *respItem
}

// rawElems wraps elements not decoded yet.
func rawElems(raws []jsonx.RawMessage) []oaElem {
	if raws == nil {
		return nil
	}
	elems := make([]oaElem, len(raws))
	for i, raw := range raws {
		elems[i].raw = raw
	}
	return elems
}

// oaItemArrays are the top-level members that splitRecord decodes, and
// whether their elements are chat messages (else Responses items).
var oaItemArrays = map[string]bool{"messages": true, "input": false, "output": false}

// splitRecord reads a JSONL record in one pass: its members as views, as
// jsonx.SplitObject gives them, and the elements of its messages, input
// and output arrays decoded on the way (pre), where SplitObject, then
// SplitArray, then each element's decoding would take a pass each over
// what is most of the line's bytes. An element the one-pass decoding
// declines is kept raw, for decodeChatMessage or decodeRespItem. ok is
// false for a line that is not such an object (or has a key with an
// escape), which the caller then splits generically (and reports).
//
// reuse, when not nil, holds what was read of the recent lines: the
// elements this line shares with one are taken from there (lineReuse).
func splitRecord(line []byte, reuse *lineReuse) (sr *splitLine, ok bool) {
	c := jsonx.NewCursor(line)
	empty, ok := c.OpenObject()
	if !ok {
		return nil, false
	}
	sr = &splitLine{top: map[string]jsonx.RawMessage{}}
	for !empty {
		key, escaped, ok := c.Key()
		if !ok || escaped || !utf8.Valid(key) {
			return nil, false
		}
		start := c.Pos()
		chat, items := oaItemArrays[string(key)]
		var elems []oaElem
		var members map[string]jsonx.RawMessage
		var nested map[string][]oaElem
		switch {
		case items && c.Peek() == '[':
			if elems, ok = decodeElems(c, chat, 1, reuse); !ok {
				return nil, false
			}
		case oaWrappers[string(key)] && c.Peek() == '{':
			if members, nested, ok = decodeWrapper(c, reuse); !ok {
				return nil, false
			}
		default:
			if _, ok := c.Skip(); !ok {
				return nil, false
			}
		}
		sr.set(string(key), line[start:c.Pos():c.Pos()], elems, members, nested)
		more, ok := c.Next('}')
		if !ok {
			return nil, false
		}
		empty = !more
	}
	return sr, c.AtEnd()
}

// splitLine is what splitRecord reads of a record in its one pass.
type splitLine struct {
	// top is the record's members, as jsonx.SplitObject gives them.
	top map[string]jsonx.RawMessage
	// pre is the elements of its item arrays (oaItemArrays), and of those
	// of its request and response objects (oaWrappers) as
	// "request.messages" and so on.
	pre map[string][]oaElem
	// sub is the members of those objects, as keysOf gives them.
	sub map[string]map[string]jsonx.RawMessage
}

// set records the member key of the record: its raw value, and what was
// decoded of it. As in SplitObject, a repeated key's last value wins: what
// an earlier member of that name left goes.
func (sr *splitLine) set(key string, raw jsonx.RawMessage, elems []oaElem, members map[string]jsonx.RawMessage, nested map[string][]oaElem) {
	sr.top[key] = raw
	for k := range sr.pre {
		if k == key || strings.HasPrefix(k, key+".") {
			delete(sr.pre, k)
		}
	}
	delete(sr.sub, key)
	if elems == nil && nested == nil && members == nil {
		return
	}
	if sr.pre == nil {
		sr.pre = map[string][]oaElem{}
	}
	if elems != nil {
		sr.pre[key] = elems
	}
	for k, e := range nested {
		sr.pre[key+"."+k] = e
	}
	if members != nil {
		if sr.sub == nil {
			sr.sub = map[string]map[string]jsonx.RawMessage{}
		}
		sr.sub[key] = members
	}
}

// oaWrappers are the top-level members whose object holds a record's
// request or response (record): splitRecord decodes their item arrays too,
// as pre["request.messages"] and so on.
var oaWrappers = map[string]bool{"request": true, "body": true, "response": true}

// decodeWrapper reads the object at the cursor, a top-level member: its
// members as views (what keysOf would give) and its item arrays
// (oaItemArrays) decoded as splitRecord does the record's own. Both are nil
// when a key has escapes or invalid UTF-8: record then reads the object
// with keysOf, which leaves such keys to Unmarshal. ok is false on a
// syntax error.
func decodeWrapper(c *jsonx.Cursor, reuse *lineReuse) (members map[string]jsonx.RawMessage, nested map[string][]oaElem, ok bool) {
	empty, ok := c.OpenObject()
	if !ok {
		return nil, nil, false
	}
	members, nested = map[string]jsonx.RawMessage{}, map[string][]oaElem{}
	plain := true
	for !empty {
		key, escaped, ok := c.Key()
		if !ok {
			return nil, nil, false
		}
		plain = plain && !escaped && utf8.Valid(key)
		start := c.Pos()
		chat, items := oaItemArrays[string(key)]
		if items && c.Peek() == '[' {
			elems, ok := decodeElems(c, chat, 2, reuse)
			if !ok {
				return nil, nil, false
			}
			nested[string(key)] = elems
		} else {
			_, end, ok := jsonx.SkipValue(c.Data(), c.Pos(), 2)
			if !ok {
				return nil, nil, false
			}
			c.Seek(end)
			delete(nested, string(key))
		}
		members[string(key)] = c.Data()[start:c.Pos():c.Pos()]
		more, ok := c.Next('}')
		if !ok {
			return nil, nil, false
		}
		empty = !more
	}
	if !plain {
		return nil, nil, true
	}
	return members, nested, true
}

// decodeElems reads the array at the cursor, depth levels deep in the line
// (1 for a member of the top-level object), decoding each element that the
// one-pass decoding reads and keeping the others raw.
func decodeElems(c *jsonx.Cursor, chat bool, depth int, reuse *lineReuse) ([]oaElem, bool) {
	elems := []oaElem{}
	end, ok := jsonx.DecodeArrayEach(c.Data(), c.Pos(), depth, func(data []byte, pos, depth int) (int, bool) {
		if e, end, ok := reuse.takeAt(pos); ok {
			elems = append(elems, e)
			return end, true
		}
		var e oaElem
		end, ok := 0, false
		if chat {
			var t chatMessageText
			if end, ok = t.decodeAt(data, pos, depth); ok {
				e.chat = new(t.message())
			}
		} else {
			var t respItemText
			if end, ok = t.decodeAt(data, pos, depth); ok {
				e.item = new(t.item())
			}
		}
		if !ok {
			if _, end, ok = jsonx.SkipValue(data, pos, depth); !ok {
				return 0, false
			}
		}
		e.raw = data[pos:end:end]
		elems = append(elems, e)
		return end, true
	})
	if !ok {
		return nil, false
	}
	c.Seek(end)
	return elems, true
}
