package lab

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestModelTurns(t *testing.T) {
	tests := []struct {
		api, body string
		want      int
	}{
		{"anthropic", `{"messages":[{"role":"user","content":"x"}]}`, 0},
		{"anthropic", `{"messages":[{"role":"user"},{"role":"assistant"},{"role":"user"},{"role":"assistant"},{"role":"user"}]}`, 2},
		{"chat", `{"messages":[{"role":"system"},{"role":"user"},{"role":"assistant","tool_calls":[{},{}]},{"role":"tool"},{"role":"tool"}]}`, 1},
		{"gemini", `{"contents":[{"role":"user"},{"role":"model"},{"role":"user"}]}`, 1},
		// Responses: a run of the model's items is one response; parallel
		// calls come as consecutive function_call items.
		{"responses", `{"input":[{"type":"message","role":"user"},{"type":"reasoning"},{"type":"function_call"},{"type":"function_call"},
			{"type":"function_call_output"},{"type":"function_call_output"},{"type":"message","role":"assistant"},{"type":"message","role":"user"}]}`, 2},
		{"responses", `{"input":[{"role":"user","content":"x"},{"role":"assistant","content":"y"}]}`, 1},
	}
	for _, tc := range tests {
		var doc map[string]any
		if err := json.Unmarshal([]byte(tc.body), &doc); err != nil {
			t.Fatal(err)
		}
		if got := modelTurns(tc.api, doc); got != tc.want {
			t.Errorf("%s %s: %d model turns, want %d", tc.api, tc.body, got, tc.want)
		}
	}
}

// TestServerPlaysScript drives the server as an agent would: each API's
// request, the script's turn in the answer, the request recorded with its
// conversation and step, side requests answered with text.
func TestServerPlaysScript(t *testing.T) {
	srv, err := Start(
		Script{Marker: "LAB-MAIN", Turns: []Turn{{Calls: []Call{{"Bash", map[string]any{"command": "echo hi"}}}}, {Text: "Done."}}},
		Script{Marker: "LABSUB-X", Turns: []Turn{{Calls: []Call{{"Read", map[string]any{"file_path": "/x"}}}}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tools := `"tools":[{"name":"Bash"}]`
	tests := []struct {
		name, path, body string
		want             []string // texts the answer holds
		marker           string
		step             int
	}{
		{"anthropic stream", "/v1/messages", `{"stream":true,` + tools + `,"messages":[{"role":"user","content":"LAB-MAIN: go"}]}`,
			[]string{"event: message_start", `"type":"tool_use"`, `"name":"Bash"`, `echo hi`, `"stop_reason":"tool_use"`, "message_stop"}, "LAB-MAIN", 0},
		{"anthropic second", "/v1/messages", `{"stream":false,` + tools + `,"messages":[{"role":"user","content":"LAB-MAIN: go"},{"role":"assistant"},{"role":"user"}]}`,
			[]string{`"text":"Done."`, `"end_turn"`}, "LAB-MAIN", 1},
		{"subagent", "/v1/messages", `{"stream":true,` + tools + `,"messages":[{"role":"user","content":"LABSUB-X: read"}]}`,
			[]string{`"name":"Read"`}, "LABSUB-X", 0},
		{"responses", "/v1/responses", `{` + tools + `,"input":[{"role":"user","content":"LAB-MAIN: go"}]}`,
			[]string{"response.output_item.done", `"type":"function_call"`, `"call_id"`, "response.completed"}, "LAB-MAIN", 0},
		{"chat", "/v1/chat/completions", `{"stream":true,"stream_options":{"include_usage":true},` + tools + `,"messages":[{"role":"user","content":"LAB-MAIN: go"}]}`,
			[]string{`"tool_calls"`, `"finish_reason":"tool_calls"`, `"usage"`, "data: [DONE]"}, "LAB-MAIN", 0},
		{"gemini stream", "/v1beta/models/m:streamGenerateContent?alt=sse", `{"tools":[{"functionDeclarations":[{"name":"Bash"}]}],"contents":[{"role":"user","parts":[{"text":"LAB-MAIN: go"}]}]}`,
			[]string{"data: ", `"functionCall"`, `"args":{"command":"echo hi"}`}, "LAB-MAIN", 0},
		{"side request", "/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"LAB-MAIN: a title please"}]}`,
			[]string{`next_speaker`}, "LAB-MAIN", 0},
	}
	for i, tc := range tests {
		resp, err := http.Post(srv.URL+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, w := range tc.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: the answer lacks %q:\n%s", tc.name, w, b)
			}
		}
		reqs := srv.Requests()
		if len(reqs) != i+1 {
			t.Fatalf("%s: %d requests recorded, want %d", tc.name, len(reqs), i+1)
		}
		if r := reqs[i]; r.Marker != tc.marker || r.Step != tc.step {
			t.Errorf("%s: recorded marker %q step %d, want %q %d", tc.name, r.Marker, r.Step, tc.marker, tc.step)
		}
	}
	if got := srv.MaxStep("LAB-MAIN"); got != 1 {
		t.Errorf("MaxStep = %d, want 1", got)
	}
	if r := srv.AtStep("LAB-MAIN", 1); r == nil || !r.Contains("LAB-MAIN: go") {
		t.Errorf("AtStep(1) = %v, want the second request", r)
	}
}

func TestRequestContains(t *testing.T) {
	r := &Request{Body: []byte(`{"input":[{"type":"function_call_output","output":"{\"output\":\"blocked: loop\",\"metadata\":{}}"}]}`)}
	if !r.Contains("blocked: loop") {
		t.Error("a text inside a JSON string member is not found")
	}
	if r.Contains("steered") {
		t.Error("Contains found a text that is not there")
	}
}
