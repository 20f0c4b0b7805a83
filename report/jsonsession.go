package report

import (
	"math"
	"strconv"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// appendSessionJSON appends s as encoding/json writes it with HTML escaping
// off: compact when indent is false, else as Encoder.SetIndent(prefix,
// "  ") lays it out, without the final newline. ok is false for what it
// does not write (a bytes_per_token that is NaN or infinite, which
// encoding/json refuses with an error): the caller then uses
// encoding/json.
//
// The JSON and JSONL reports write every session through it: a report of
// 200 000 short sessions spent a fifth of its time in encoding/json, most
// of it re-indenting what it had just encoded. TestSessionJSONAsEncoded and
// FuzzSessionJSON hold it to encoding/json's bytes, every field set.
func appendSessionJSON(b []byte, s *analyze.SessionResult, prefix string, indent bool) ([]byte, bool) {
	if math.IsNaN(s.BytesPerToken) || math.IsInf(s.BytesPerToken, 0) {
		return b, false
	}
	o := jsonOut{b: b, prefix: prefix, indent: indent}
	o.open('{')
	o.str("file", s.File)
	o.str("id", s.ID)
	o.str("format", s.Format)
	o.str("agent", s.Agent)
	o.str("selector", s.Selector)
	if s.Parent != "" {
		o.str("parent", s.Parent)
	}
	if s.Model != "" {
		o.str("model", s.Model)
	}
	o.str("tool_names", s.ToolNames)
	if s.Unattended {
		o.bool("unattended", true)
	}
	if s.StartedAt != "" {
		o.str("started_at", s.StartedAt)
	}
	if s.EndedAt != "" {
		o.str("ended_at", s.EndedAt)
	}
	o.int("turns", int64(s.Turns))
	o.int("requests", int64(s.Requests))
	o.int("calls", int64(s.Calls))
	o.int("steered", int64(s.Steered))
	o.int("blocked", int64(s.Blocked))
	o.int("deduped", int64(s.Deduped))
	o.int("halted", int64(s.Halted))
	o.int("redundant", int64(s.Redundant))
	o.int("redundant_stopped", int64(s.RedundantStopped))
	o.int("harmful", int64(s.Harmful))
	o.int("stopped_actions", int64(s.StoppedActions))
	o.int("native", int64(s.Native))
	o.int("tokens_saved", s.TokensSaved)
	o.int("context_tokens_saved", s.ContextTokensSaved)
	o.int("steer_tokens", s.SteerTokens)
	o.bool("has_usage", s.HasUsage)
	o.str("tokens_from", s.TokensFrom)
	if s.BytesPerToken != 0 {
		o.key("bytes_per_token")
		o.b = appendJSONFloat(o.b, s.BytesPerToken)
	}
	if s.UsageUnused != "" {
		o.str("usage_unused", s.UsageUnused)
	}
	if s.RecordedInput != 0 {
		o.int("recorded_input_tokens", s.RecordedInput)
	}
	if s.RecordedOutput != 0 {
		o.int("recorded_output_tokens", s.RecordedOutput)
	}
	o.str("timeline", s.Timeline)
	o.key("decisions")
	if s.Decisions == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.open('[')
		for i := range s.Decisions {
			d := &s.Decisions[i]
			o.elem()
			o.open('{')
			o.int("turn", int64(d.Turn))
			o.int("call", int64(d.Call))
			o.int("line", int64(d.Line))
			o.str("call_id", d.CallID)
			o.str("tool", d.Tool)
			o.str("class", d.Class)
			o.str("args", d.Args)
			o.str("action", d.Action.String()) // MarshalText is String
			o.str("detector", d.Detector)
			o.int("count", int64(d.Count))
			o.str("message", d.Message)
			o.bool("redundant", d.Redundant)
			o.bool("harmful", d.Harmful)
			o.bool("stopped_action", d.StoppedAction)
			o.int("tokens_saved", d.TokensSaved)
			o.int("context_tokens_saved", d.ContextTokensSaved)
			if d.Native != "" {
				o.str("native", d.Native)
			}
			if d.Repeats != 0 {
				o.int("repeats", int64(d.Repeats))
			}
			if d.RepeatsLine != 0 {
				o.int("repeats_line", int64(d.RepeatsLine))
			}
			o.close('}')
		}
		o.close(']')
	}
	if len(s.Notes) > 0 {
		o.key("notes")
		o.open('[')
		for _, n := range s.Notes {
			o.elem()
			o.b = jsonx.AppendQuotedStd(o.b, n)
		}
		o.close(']')
	}
	o.close('}')
	return o.b, true
}

// jsonOut writes one JSON value, compact or indented as encoding/json
// indents: a member or element on its own line, prefix then two spaces per
// level; an empty object or list stays "{}" or "[]".
type jsonOut struct {
	b      []byte
	prefix string
	indent bool
	level  int
	first  bool // nothing written yet in the innermost object or list
}

func (o *jsonOut) open(c byte) {
	o.b = append(o.b, c)
	o.level++
	o.first = true
}

func (o *jsonOut) close(c byte) {
	o.level--
	if !o.first {
		o.newline()
	}
	o.b = append(o.b, c)
	o.first = false
}

func (o *jsonOut) newline() {
	if o.indent {
		o.b = append(o.b, '\n')
		o.b = append(o.b, o.prefix...)
		for range o.level {
			o.b = append(o.b, ' ', ' ')
		}
	}
}

// elem starts a list element.
func (o *jsonOut) elem() {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.newline()
}

// key starts an object member; its name needs no escaping.
func (o *jsonOut) key(k string) {
	o.elem()
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
	if o.indent {
		o.b = append(o.b, ' ')
	}
}

func (o *jsonOut) str(k, v string) {
	o.key(k)
	o.b = jsonx.AppendQuotedStd(o.b, v)
}

func (o *jsonOut) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *jsonOut) bool(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

// appendJSONFloat is encoding/json's float64 encoding of a finite f: the
// shortest representation, in exponent form below 1e-6 and from 1e21, with
// a two-digit negative exponent cut to one ("e-07" is "e-7").
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
