package live

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
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

// TestClineRunStartOutOfOrder: the Cline CLI starts the hook's agent_start
// file at each prompt without waiting for it, so a run's first tool_call
// may reach the state before it (newRun). A call of a run's first
// model turn after a done call begins the run's turn; the run's start
// arriving after (its time no later than that call's) is not a second
// turn; a start that came in time is the only one. Each step says whether
// the read runs; the log must hold one turn per run.
func TestClineRunStartOutOfOrder(t *testing.T) {
	for _, checkpoints := range []bool{true, false} {
		cfg := testConfig(t, "cline", "loopgate")
		cfg.Rules = mentionedRules(t)
		cfg.NoCheckpoint = !checkpoints
		at := func(ms int) string {
			return time.Date(2026, 12, 3, 3, 0, 0, ms*int(time.Millisecond), time.UTC).Format("2006-01-02T15:04:05.000Z")
		}
		start := func(ms int) {
			Handle(cfg, []byte(`{"hookName":"agent_start","taskId":"s1","timestamp":"`+at(ms)+`","taskStart":{"taskMetadata":{}}}`))
		}
		input := `{"commands":["cat lab-two.txt"]}`
		call := func(id string, iteration, ms int) bool { // whether it runs
			ev := fmt.Sprintf(`{"hookName":"tool_call","taskId":"s1","timestamp":"%s","iteration":%d,"tool_call":{"id":"%s","name":"run_commands","input":%s}}`, at(ms), iteration, id, input)
			return !strings.Contains(string(Handle(cfg, []byte(ev)).Stdout), `"cancel":true`)
		}
		result := func(id string, iteration, ms int) {
			Handle(cfg, []byte(fmt.Sprintf(`{"hookName":"tool_result","taskId":"s1","timestamp":"%s","iteration":%d,"tool_result":{"id":"%s","name":"run_commands","input":%s,"output":"lab-two"},"postToolUse":{"toolName":"run_commands","result":"lab-two","success":true}}`, at(ms), iteration, id, input)))
		}
		steps := []struct {
			name string
			do   func() bool
			runs bool
		}{
			{"run 1, started in time", func() bool { start(1000); return call("c1", 1, 1010) }, true},
			{"run 2's first call before its start", func() bool { result("c1", 1, 1020); return call("c2", 1, 2010) }, true},
			{"run 2's start, late, then the same read in its next model turn", func() bool {
				result("c2", 1, 2020)
				start(2000)
				return call("c3", 2, 2030)
			}, false},
			{"run 3, started in time", func() bool { start(3000); return call("c4", 1, 3010) }, true},
			{"run 3's next model turn", func() bool { result("c4", 1, 3020); return call("c5", 2, 3030) }, false},
		}
		for _, st := range steps {
			if got := st.do(); got != st.runs {
				t.Errorf("checkpoints %v, %s: the read ran %v, want %v", checkpoints, st.name, got, st.runs)
			}
		}
		log, err := os.ReadFile(filesOf(cfg.StateDir, "s1").log("main"))
		if err != nil {
			t.Fatal(err)
		}
		turns := 0
		for _, line := range strings.Split(string(log), "\n") {
			if strings.HasPrefix(line, "P") {
				turns++
			}
		}
		if turns != 3 {
			t.Errorf("checkpoints %v: %d turns in the state log, want 3 (one per run):\n%s", checkpoints, turns, log)
		}
	}
}
