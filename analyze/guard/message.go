package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// The messages a guard steers or blocks with: templates with
// placeholders, filled per call.

// fill expands a message template. Placeholders: {tool}, {count}, {args}
// (the raw arguments, first 120 UTF-16 units, as pi shows them),
// {args_sha256} (sha256 of the sorted compact JSON, as hermes signs calls),
// {arg:NAME} (an argument's text), {json:NAME} (its JSON), and the
// detector's extras ({window}, {period}, {result}). Anything else in
// braces is left as written, so JSON templates need no escaping.
func (g *Guard) fill(tmpl string, c *callCtx, count int, extra map[string]string) string {
	if !strings.Contains(tmpl, "{") {
		return tmpl
	}
	var b strings.Builder
	for i := 0; i < len(tmpl); {
		open := strings.IndexByte(tmpl[i:], '{')
		if open < 0 {
			b.WriteString(tmpl[i:])
			break
		}
		b.WriteString(tmpl[i : i+open])
		i += open
		end := strings.IndexByte(tmpl[i:], '}')
		if end < 0 {
			b.WriteString(tmpl[i:])
			break
		}
		name := tmpl[i+1 : i+end]
		if val, ok := g.placeholder(name, c, count, extra); ok {
			b.WriteString(val)
			i += end + 1
			continue
		}
		b.WriteByte('{')
		i++
	}
	return b.String()
}

func (g *Guard) placeholder(name string, c *callCtx, count int, extra map[string]string) (string, bool) {
	ev := c.ev
	switch name {
	case "tool":
		// The name the agent called, not the tool an MCP call names
		// (rules.MCPCallName).
		return rules.ToolOf(ev.Tool), true
	case "count":
		return strconv.Itoa(count), true
	case "args":
		return argsSummary(ev, 120), true
	case "args_json":
		// JSON.stringify of the arguments: compact, members as written.
		if !ev.ArgsOK {
			return ev.ArgsRaw, true
		}
		return string(ev.arguments().Append(nil, jsonx.Compact)), true
	case "args_sha256":
		args := ev.arguments()
		if !ev.ArgsOK || args.Kind != jsonx.Object {
			args = jsonx.Value{Kind: jsonx.Object}
		}
		sum := sha256.Sum256(args.Append(nil, jsonx.Sorted))
		return hex.EncodeToString(sum[:]), true
	}
	if v, ok := extra[name]; ok {
		return v, true
	}
	if arg, ok := strings.CutPrefix(name, "arg:"); ok {
		v, found := ev.arguments().Get(arg)
		if !found {
			return "", true
		}
		return v.Text(), true
	}
	if arg, ok := strings.CutPrefix(name, "json:"); ok {
		v, found := ev.arguments().Get(arg)
		if !found {
			return "null", true
		}
		return v.String(), true
	}
	return "", false
}

// argsSummary is pi's JSON.stringify(input).slice(0, n): the raw arguments
// in their written order, cut at n UTF-16 code units.
func argsSummary(ev *CallEvent, n int) string {
	var s string
	switch {
	case !ev.ArgsOK:
		s = ev.ArgsRaw
	default:
		if v := ev.arguments(); v.Kind == jsonx.String {
			s = v.Str
		} else {
			s = v.String()
		}
	}
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			if w == 2 && units+1 == n {
				// JS would keep a lone high surrogate; Go strings cannot
				// carry one, so the replacement character stands for it.
				return s[:i] + string(utf8.RuneError)
			}
			return s[:i]
		}
		units += w
	}
	return s
}
