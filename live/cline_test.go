package live

import (
	"strings"
	"testing"
)

// TestClineCLIEvents: the Cline CLI's (3.0.65) runtime hook payloads: the
// call's own input from tool_call, and a tool_result's text handed to the
// command's reading of per-item outcomes (ResultReading.Outcomes,
// ingest.ClineOutcomes), a failed item a failure; without that reading
// the result stays as the event gave it.
func TestClineCLIEvents(t *testing.T) {
	p := Lookup("cline")
	// A reading for the test: a result that starts "[{" is outcomes, its
	// text the part after "result:", failed when it says "false".
	reading := ResultReading{Outcomes: func(r string) (string, bool, bool) {
		if !strings.HasPrefix(r, "[{") {
			return "", false, false
		}
		_, text, _ := strings.Cut(r, "result:")
		return text, strings.Contains(r, "false"), true
	}}
	cases := []struct {
		name, event, tool, input string
		reading                  ResultReading
		result                   string
		isError                  bool
	}{
		{"tool_call", `{"hookName":"tool_call","taskId":"s","tool_call":{"id":"c1","name":"run_commands","input":{"commands":["echo x"]}},"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"echo x\"]"}}}`,
			"run_commands", `{"commands":["echo x"]}`, reading, "", false},
		{"tool_result ok", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c1","name":"run_commands","input":{"commands":["echo x"]}},"postToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"echo x\"]"},"result":"[{result:x","success":true}}`,
			"run_commands", `{"commands":["echo x"]}`, reading, "x", false},
		{"tool_result failed item", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c2","name":"run_commands","input":{"commands":["cat m"]}},"postToolUse":{"toolName":"run_commands","result":"[{false result:cat: m","success":true}}`,
			"run_commands", `{"commands":["cat m"]}`, reading, "cat: m", true},
		{"tool_result, no reading", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c2","name":"run_commands","input":{"commands":["cat m"]}},"postToolUse":{"toolName":"run_commands","result":"[{false result:cat: m","success":true}}`,
			"run_commands", `{"commands":["cat m"]}`, ResultReading{}, "[{false result:cat: m", false},
		{"plain text result", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c3","name":"editor","input":{"path":"/a"}},"postToolUse":{"toolName":"editor","result":"[not json","success":true}}`,
			"editor", `{"path":"/a"}`, reading, "[not json", false},
		{"the agent's own failure", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c4","name":"editor","input":{"path":"/a"}},"postToolUse":{"toolName":"editor","result":"no such file","success":false}}`,
			"editor", `{"path":"/a"}`, reading, "no such file", true},
	}
	for _, c := range cases {
		ev, err := p.ParseEvent([]byte(c.event))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		c.reading.readOutcomes(&ev)
		if ev.Tool != c.tool || string(ev.Input) != c.input || ev.Result != c.result || ev.IsError != c.isError {
			t.Errorf("%s: %s %s %q error %v, want %s %s %q %v", c.name, ev.Tool, ev.Input, ev.Result, ev.IsError, c.tool, c.input, c.result, c.isError)
		}
	}
	// Another agent's result is never read as outcomes.
	ev, err := Lookup("claude-code").ParseEvent([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"x"},"tool_response":"[{result:y"}`))
	if err != nil {
		t.Fatal(err)
	}
	before := ev.Result
	reading.readOutcomes(&ev)
	if ev.Result != before {
		t.Errorf("a Claude Code result was read as Cline outcomes: %q -> %q", before, ev.Result)
	}
}
