package ingest

import (
	"strings"
	"testing"
)

func TestOpenHandsReading(t *testing.T) {
	userMsg := `{"id":0,"source":"user","action":"message","args":{"content":"go"}}`
	run := func(id, callID, respID string) string {
		meta := ""
		if callID != "" {
			meta = `,"tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"` + callID + `","model_response":{"id":"` + respID + `","model":"m","choices":[{"message":{"content":"t","tool_calls":[{"id":"` + callID + `","type":"function","function":{"name":"execute_bash","arguments":"{\"command\":\"ls ` + id + `\"}"}}]}}],"usage":{"prompt_tokens":10,"completion_tokens":2}}}`
		}
		return `{"id":` + id + `,"source":"agent","action":"run","args":{"command":"ls"}` + meta + `}`
	}
	obs := func(id, cause, kind, content string) string {
		return `{"id":` + id + `,"source":"agent","cause":` + cause + `,"observation":"` + kind + `","content":"` + content + `"}`
	}
	tests := []struct {
		name     string
		events   []string
		calls    string
		requests int
		usage    int
		errors   int
		problems int
	}{
		{
			name:   "observations join by cause, out of order; one response is one request",
			events: []string{userMsg, run("1", "c1", "r1"), run("2", "c2", "r1"), obs("3", "2", "run", "B"), obs("4", "1", "run", "A")},
			calls:  "c1/execute_bash=A c2/execute_bash=B", requests: 1, usage: 1,
		},
		{
			name:   "error observation is an error result",
			events: []string{userMsg, run("1", "c1", "r1"), obs("2", "1", "error", "boom")},
			calls:  "c1/execute_bash=boom", requests: 1, usage: 1, errors: 1,
		},
		{
			// OpenHands writes success on a command's observation
			// (event_to_dict): false when it exited with another code than 0.
			name: "a run observation whose success is false is an error",
			events: []string{userMsg, run("1", "c1", "r1"), run("2", "c2", "r1"),
				`{"id":3,"source":"agent","cause":1,"observation":"run","content":"x","extras":{"metadata":{"exit_code":127}},"success":false}`,
				`{"id":4,"source":"agent","cause":2,"observation":"run","content":"y","extras":{"metadata":{"exit_code":0}},"success":true}`},
			calls: "c1/execute_bash=x c2/execute_bash=y", requests: 1, usage: 1, errors: 1,
		},
		{
			name:   "observation of an unknown event is a problem; of a non-call event is not",
			events: []string{userMsg, obs("1", "0", "recall", ""), run("2", "c1", "r1"), obs("3", "2", "run", "A"), obs("4", "99", "run", "?")},
			calls:  "c1/execute_bash=A", requests: 1, usage: 1, problems: 1,
		},
		{
			name:   "actions without metadata are calls named after the action",
			events: []string{userMsg, run("1", "", ""), obs("2", "1", "run", "A"), `{"id":3,"source":"agent","action":"finish","args":{}}`},
			calls:  "event-1/run=A event-3/finish=!", requests: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readText(t, "traj.json", "[\n"+strings.Join(tc.events, ",\n")+"\n]\n")
			if len(problems) != tc.problems {
				t.Errorf("problems = %q, want %d", problemSummary(problems), tc.problems)
			}
			if len(sessions) != 1 || sessions[0].Format != formatOpenHands {
				t.Fatalf("want one openhands session, got %d", len(sessions))
			}
			s := sessions[0]
			if got := callSummary(s); got != tc.calls {
				t.Errorf("calls = %q, want %q", got, tc.calls)
			}
			usage, errs := 0, 0
			for _, tr := range s.Turns {
				for _, r := range tr.Requests {
					if r.Usage != nil {
						usage++
					}
					for _, c := range r.Calls {
						if c.IsError {
							errs++
						}
					}
				}
			}
			if s.NumRequests() != tc.requests || usage != tc.usage || errs != tc.errors {
				t.Errorf("requests %d usage %d errors %d, want %d %d %d", s.NumRequests(), usage, errs, tc.requests, tc.usage, tc.errors)
			}
		})
	}
}
