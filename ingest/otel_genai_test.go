package ingest

import (
	"strconv"
	"strings"
	"testing"
)

// otelSpan writes one OTLP JSON span (opentelemetry-proto traces/v1 in
// the proto3 JSON mapping: fixed64 times and int64 values as strings).
func otelSpanJSON(trace, id, parent, name string, start, end int, status string, attrs ...string) string {
	var kv []string
	for i := 0; i+1 < len(attrs); i += 2 {
		v := attrs[i+1]
		if !strings.HasPrefix(v, "{") {
			v = `{"stringValue": ` + strconv.Quote(v) + `}`
		}
		kv = append(kv, `{"key": "`+attrs[i]+`", "value": `+v+`}`)
	}
	s := `{"traceId": "` + trace + `", "spanId": "` + id + `", "parentSpanId": "` + parent + `", "name": "` + name + `", "kind": 1, "startTimeUnixNano": "` + itoaTest(start) + `", "endTimeUnixNano": "` + itoaTest(end) + `", "attributes": [` + strings.Join(kv, ", ") + `]`
	if status != "" {
		s += `, "status": {"code": ` + status + `}`
	}
	return s + "}"
}

func otelExport(spans ...string) string {
	return `{"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "my-agent"}}]}, "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai_agents"}, "spans": [` + strings.Join(spans, ",\n") + `]}]}]}`
}

var otelSpans = []string{
	otelSpanJSON("t1", "a1", "", "invoke_agent Helper", 1000, 9000, "", "gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "Helper", "gen_ai.conversation.id", "conv_1"),
	otelSpanJSON("t1", "c1", "a1", "chat gpt-4o", 1100, 1900, "", "gen_ai.operation.name", "chat", "gen_ai.request.model", "gpt-4o", "gen_ai.usage.input_tokens", `{"intValue": "1200"}`, "gen_ai.usage.output_tokens", `{"intValue": "40"}`),
	otelSpanJSON("t1", "x1", "a1", "execute_tool read_file", 2000, 2100, "", "gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "read_file", "gen_ai.tool.call.id", "call_1", "gen_ai.tool.call.arguments", `{"stringValue": "{\"path\": \"a.txt\"}"}`, "gen_ai.tool.call.result", "hello"),
	otelSpanJSON("t1", "x2", "a1", "execute_tool read_file", 2200, 2300, "2", "gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "read_file", "gen_ai.tool.call.id", "call_2", "error.type", "FileNotFoundError"),
	otelSpanJSON("t1", "e1", "a1", "embeddings", 2400, 2500, "", "gen_ai.operation.name", "embeddings"),
	// A second trace of the same conversation with no invoke_agent span:
	// the trace is the turn.
	otelSpanJSON("t2", "c2", "", "chat gpt-4o", 5000, 5100, "", "gen_ai.operation.name", "chat", "gen_ai.conversation.id", "conv_1"),
	otelSpanJSON("t2", "x3", "c2", "execute_tool ls", 5200, 5300, "", "gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "ls", "gen_ai.tool.call.id", "call_3", "gen_ai.conversation.id", "conv_1"),
}

func TestOTelGenAIConformance(t *testing.T) {
	want := "conv_1 main 2t 2r call_1/read_file=hello call_2/read_file= call_3/ls="
	check := func(t *testing.T, s []*Session) {
		r := s[0].Turns[0].Requests[0]
		if r.Usage == nil || r.Usage.Input != 1200 || r.Usage.Output != 40 || s[0].Model != "gpt-4o" {
			t.Errorf("usage %+v, model %q", r.Usage, s[0].Model)
		}
		if r.Calls[0].ArgsRaw != `{"path": "a.txt"}` || r.Calls[0].IsError || !r.Calls[1].IsError {
			t.Errorf("args %s; errors %v %v", r.Calls[0].ArgsRaw, r.Calls[0].IsError, r.Calls[1].IsError)
		}
		if len(s[0].Notes) != 2 {
			t.Errorf("notes = %q (want the results not recorded and the embeddings span)", s[0].Notes)
		}
	}
	runConformance(t, formatOTelGenAI, []conformanceCase{
		{name: "one export document", file: "traces.json", text: otelExport(otelSpans...) + "\n", sessions: want, check: check},
		{name: "the Collector's file exporter: JSONL, spans split over lines", file: "traces.jsonl",
			text: strings.ReplaceAll(otelExport(otelSpans[:3]...), "\n", "") + "\n" + strings.ReplaceAll(otelExport(otelSpans[3:]...), "\n", "") + "\n", sessions: want, check: check},
		{name: "an export with no span", file: "traces.json", text: `{"resourceSpans": []}`,
			problems: []string{"no span in 1 trace export record"}, lines: []int{1}},
	})
}

func FuzzOTelGenAI(f *testing.F) {
	fuzzOneFormat(f, formatOTelGenAI, "traces.jsonl", otelExport(otelSpans...),
		`{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 1, "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}], "endTimeUnixNano": 5}, 7]}]}]}`)
}
