package live

import "testing"

// TestClineCLIEvents: the Cline CLI's (3.0.65) runtime hook payloads: the
// call's own input from tool_call, and run_commands' per-item outcomes
// read as their results, a failed item a failure.
func TestClineCLIEvents(t *testing.T) {
	p := Lookup("cline")
	cases := []struct {
		name, event, tool, input, result string
		isError                          bool
	}{
		{"tool_call", `{"hookName":"tool_call","taskId":"s","tool_call":{"id":"c1","name":"run_commands","input":{"commands":["echo x"]}},"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"echo x\"]"}}}`,
			"run_commands", `{"commands":["echo x"]}`, "", false},
		{"tool_result ok", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c1","name":"run_commands","input":{"commands":["echo x"]}},"postToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"echo x\"]"},"result":"[{\"query\":\"echo x\",\"result\":\"x\\n\",\"success\":true}]","success":true}}`,
			"run_commands", `{"commands":["echo x"]}`, "x\n", false},
		{"tool_result failed item", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c2","name":"run_commands","input":{"commands":["cat m"]}},"postToolUse":{"toolName":"run_commands","result":"[{\"query\":\"cat m\",\"result\":\"\",\"error\":\"cat: m: No such file\",\"success\":false}]","success":true}}`,
			"run_commands", `{"commands":["cat m"]}`, "cat: m: No such file", true},
		{"plain text result", `{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c3","name":"editor","input":{"path":"/a"}},"postToolUse":{"toolName":"editor","result":"[not json","success":true}}`,
			"editor", `{"path":"/a"}`, "[not json", false},
	}
	for _, c := range cases {
		ev, err := p.ParseEvent([]byte(c.event))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ev.Tool != c.tool || string(ev.Input) != c.input || ev.Result != c.result || ev.IsError != c.isError {
			t.Errorf("%s: %s %s %q error %v, want %s %s %q %v", c.name, ev.Tool, ev.Input, ev.Result, ev.IsError, c.tool, c.input, c.result, c.isError)
		}
	}
}
