package ingest

// OpenTelemetry GenAI spans in an OTLP JSON export: the JSON encoding of
// ExportTraceServiceRequest (opentelemetry-proto, traces/v1:
// resourceSpans[].scopeSpans[].spans[]), as one document or as JSONL, one
// request per line (the Collector's file exporter). The spans follow the
// GenAI semantic conventions (semantic-conventions, docs/gen-ai/
// gen-ai-spans.md): gen_ai.operation.name says what a span is; an
// "execute_tool" span carries gen_ai.tool.name, gen_ai.tool.call.id and,
// opt-in, gen_ai.tool.call.arguments and gen_ai.tool.call.result; an
// inference span ("chat", "text_completion", "generate_content") carries
// gen_ai.usage.input_tokens and gen_ai.usage.output_tokens; an
// "invoke_agent" span is one agent invocation. Format reference:
// docs/formats/otel-genai.md.
//
// Readings taken (the conventions describe spans, not transcripts):
//   - A session is a gen_ai.conversation.id, else a trace. Its spans are
//     read in start-time order.
//   - A turn is an invoke_agent span whose parent is not one (a nested one
//     is a subagent's work inside the turn); in a trace with no
//     invoke_agent span, the trace is the turn.
//   - An inference span is a request, with its usage. An execute_tool span
//     is a call of the latest request of its turn (the response that asked
//     for it), or of a request of its own when there is none.
//   - A tool span that ended carries its result: gen_ai.tool.call.result,
//     or "" when that opt-in attribute was not recorded (the session notes
//     count those). Status code 2 (ERROR) or error.type makes it an error.
//   - Spans of other operations (embeddings, create_agent, ...) and spans
//     with no gen_ai.operation.name are not read; the notes count them.

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatOTelGenAI = "otel-genai"

func init() {
	register(&Format{
		ID:        formatOTelGenAI,
		Family:    "otel",
		Reads:     "OpenTelemetry GenAI spans in an OTLP JSON export (resourceSpans), one document or JSONL: execute_tool spans are calls, inference spans requests.",
		Detection: "A JSON object with a resourceSpans array.",
		Priority:  39,
		Sniff: func(h *Head) bool {
			return !h.Array && rawIsArray(h.Keys["resourceSpans"])
		},
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			doc = bytes.TrimSpace(doc)
			r := &otelReader{out: out, pos: newDocPos(doc, h.Line), doc: bytes.Contains(doc, []byte("\n")), stem: fileStem(h.Name)}
			line := 0
			if !r.doc {
				line = h.Line
			}
			r.request(doc, line)
			r.finish()
		},
		ParseLines: func(lr *LineReader, h *Head, out *Sink) {
			r := &otelReader{out: out, stem: fileStem(h.Name)}
			eachJSONLine(lr, h, out, r.request)
			r.finish()
		},
	})
}

type otelSpan struct {
	TraceID      string           `json:"traceId"`
	SpanID       string           `json:"spanId"`
	ParentSpanID string           `json:"parentSpanId"`
	Name         string           `json:"name"`
	Start        jsonx.RawMessage `json:"startTimeUnixNano"`
	End          jsonx.RawMessage `json:"endTimeUnixNano"`
	Attributes   []otelAttr       `json:"attributes"`
	Status       struct {
		Code jsonx.RawMessage `json:"code"`
	} `json:"status"`

	line  int
	seq   int
	start int64
	attrs map[string]jsonx.RawMessage // attribute key -> its AnyValue object
}

type otelAttr struct {
	Key   string           `json:"key"`
	Value jsonx.RawMessage `json:"value"`
}

type otelReader struct {
	out   *Sink
	pos   *docPos
	doc   bool
	stem  string
	spans []*otelSpan
	// records counts the export records read, first is the first one's line.
	records, first int
}

// request collects the spans of one ExportTraceServiceRequest. line is
// its JSONL line (0 for a multi-line document, whose spans get their own).
func (r *otelReader) request(data []byte, line int) {
	at := line
	if at == 0 {
		at = r.pos.lineOf(data)
	}
	var req struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []jsonx.RawMessage `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if r.records == 0 {
		r.first = at
	}
	r.records++
	if err := jsonx.Unmarshal(data, &req); err != nil {
		r.out.Problemf(at, "record is not an OTLP trace export (%s); skipped", decodeText(err))
		return
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, raw := range ss.Spans {
				spanLine := at
				if line == 0 && r.pos != nil {
					spanLine = r.pos.lineOf(raw)
				}
				var s otelSpan
				if err := jsonx.Unmarshal(raw, &s); err != nil {
					r.out.Problemf(spanLine, "span is not an OTLP span (%s); skipped", decodeText(err))
					continue
				}
				s.line, s.seq = spanLine, len(r.spans)
				s.start = otelNanos(s.Start)
				s.attrs = map[string]jsonx.RawMessage{}
				for _, a := range s.Attributes {
					s.attrs[a.Key] = a.Value
				}
				r.spans = append(r.spans, &s)
			}
		}
	}
}

// otelNanos reads a fixed64 time: a decimal string (the proto3 JSON form)
// or a number.
func otelNanos(raw jsonx.RawMessage) int64 {
	t := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	n, _ := strconv.ParseInt(t, 10, 64)
	return n
}

// str is a string attribute's value ("" when absent or not a string).
func (s *otelSpan) str(key string) string {
	var v struct {
		S *string `json:"stringValue"`
	}
	if raw, ok := s.attrs[key]; ok && jsonx.Unmarshal(raw, &v) == nil && v.S != nil {
		return *v.S
	}
	return ""
}

// int is an integer attribute's value: intValue is a decimal string in
// proto3 JSON, or a number.
func (s *otelSpan) int(key string) (int64, bool) {
	var v struct {
		I jsonx.RawMessage `json:"intValue"`
		D *float64         `json:"doubleValue"`
	}
	raw, ok := s.attrs[key]
	if !ok || jsonx.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	if v.I != nil {
		n, err := strconv.ParseInt(strings.Trim(string(v.I), `"`), 10, 64)
		return n, err == nil
	}
	if v.D != nil {
		return int64(*v.D), true
	}
	return 0, false
}

// text is an attribute's value as text: a string's text, else the value's
// own JSON (a structured argument object as recorded).
func (s *otelSpan) text(key string) (string, bool) {
	raw, ok := s.attrs[key]
	if !ok {
		return "", false
	}
	if t := s.str(key); t != "" || bytes.Contains(raw, []byte(`"stringValue"`)) {
		return t, true
	}
	m := keysOf(raw)
	for _, v := range m {
		return string(bytes.TrimSpace(v)), true
	}
	return "", true
}

func (r *otelReader) finish() {
	if len(r.spans) == 0 {
		if r.records > 0 {
			r.out.Problemf(r.first, "no span in %d trace export record(s); no session read", r.records)
		}
		return
	}
	sort.SliceStable(r.spans, func(i, j int) bool { return r.spans[i].start < r.spans[j].start })
	byID := map[string]*otelSpan{}
	agentTraces := map[string]bool{}
	for _, s := range r.spans {
		byID[s.TraceID+"/"+s.SpanID] = s
		if s.str("gen_ai.operation.name") == "invoke_agent" {
			agentTraces[s.TraceID] = true
		}
	}
	// A span's conversation is its own attribute, else its ancestors'.
	conv := func(s *otelSpan) string {
		for p, depth := s, 0; p != nil && depth < 64; depth++ {
			if c := p.str("gen_ai.conversation.id"); c != "" {
				return c
			}
			p = byID[p.TraceID+"/"+p.ParentSpanID]
		}
		return "trace-" + s.TraceID
	}
	type otelSession struct {
		b         *sessionBuilder
		lastTrace string
		noResult  int
		other     map[string]int
	}
	sessions := map[string]*otelSession{}
	var order []string
	for _, s := range r.spans {
		key := conv(s)
		os := sessions[key]
		if os == nil {
			id := strings.TrimPrefix(key, "trace-")
			if id == "" {
				id = r.stem
			}
			b := newSessionBuilder(&Session{Format: formatOTelGenAI, ID: id, Line: s.line}, 0)
			b.doc = r.doc
			os = &otelSession{b: b, other: map[string]int{}}
			sessions[key] = os
			order = append(order, key)
		}
		b := os.b
		t := time.Unix(0, s.start).UTC()
		if s.start == 0 {
			t = time.Time{}
		}
		op := s.str("gen_ai.operation.name")
		if !agentTraces[s.TraceID] && s.TraceID != os.lastTrace && (op == "chat" || op == "text_completion" || op == "generate_content" || op == "execute_tool") {
			b.turn(s.line, t, 0)
			os.lastTrace = s.TraceID
		}
		switch op {
		case "invoke_agent":
			parent := byID[s.TraceID+"/"+s.ParentSpanID]
			if parent == nil || parent.str("gen_ai.operation.name") != "invoke_agent" {
				b.turn(s.line, t, 0)
			}
		case "chat", "text_completion", "generate_content":
			var u *Usage
			if in, ok := s.int("gen_ai.usage.input_tokens"); ok {
				outTok, _ := s.int("gen_ai.usage.output_tokens")
				cacheRead, _ := s.int("gen_ai.usage.cache_read.input_tokens")
				cacheWrite, _ := s.int("gen_ai.usage.cache_creation.input_tokens")
				u = &Usage{Input: in, Output: outTok, CacheRead: cacheRead, CacheWrite: cacheWrite}
			}
			b.request(s.line, t, 0, u)
			if b.s.Model == "" {
				b.s.Model = s.str("gen_ai.response.model")
				if b.s.Model == "" {
					b.s.Model = s.str("gen_ai.request.model")
				}
			}
		case "execute_tool":
			c := Call{ID: s.str("gen_ai.tool.call.id"), Tool: s.str("gen_ai.tool.name"), Time: t, Line: s.line}
			if c.Tool == "" {
				c.Tool = strings.TrimSpace(strings.TrimPrefix(s.Name, "execute_tool"))
			}
			if args, ok := s.text("gen_ai.tool.call.arguments"); ok {
				c.SetArgs(args)
			} else {
				c.SetArgs("")
			}
			if c.ID == "" {
				c.ID = "span-" + s.SpanID
			}
			if otelNanos(s.End) != 0 {
				res, ok := s.text("gen_ai.tool.call.result")
				if !ok {
					os.noResult++
				}
				code := strings.Trim(string(bytes.TrimSpace(s.Status.Code)), `"`)
				c.Result, c.HasResult, c.ResultLine = res, true, s.line
				c.IsError = code == "2" || code == "STATUS_CODE_ERROR" || s.str("error.type") != ""
			}
			b.call(c, r.out)
		case "":
			os.other["(no gen_ai.operation.name)"]++
		default:
			os.other[op]++
		}
	}
	for _, key := range order {
		os := sessions[key]
		if os.noResult > 0 {
			os.b.s.Notes = append(os.b.s.Notes, strconv.Itoa(os.noResult)+" execute_tool span(s) without gen_ai.tool.call.result (an opt-in attribute): result text empty")
		}
		os.b.s.Notes = append(os.b.s.Notes, countNotes(os.other, "%s span(s) not read")...)
		os.b.finish(r.out)
	}
}
