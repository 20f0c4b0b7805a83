package ingest

import (
	"strings"
	"testing"
)

// TestCodexNamespacedCalls: a function call that carries a namespace is
// read under the flat name the model called and Codex's hooks report
// (CodexToolName); no namespace, a null or empty one, or "functions"
// leaves the name as it is.
func TestCodexNamespacedCalls(t *testing.T) {
	tests := []struct {
		name, namespace string // namespace: the member's JSON, "" for none
		want            string
	}{
		{"get_schema", `"mcp__db__"`, "mcp__db__get_schema"},
		{"get_schema", `"mcp__db"`, "mcp__db__get_schema"},
		// canonical_flat_name's trims: one "__" between, whatever the ends.
		{"__create_event", `"mcp__calendar__"`, "mcp__calendar__create_event"},
		{"send_message", `"collaboration"`, "collaboration__send_message"},
		{"exec_command", `"functions"`, "exec_command"},
		{"exec_command", `""`, "exec_command"},
		{"exec_command", `null`, "exec_command"},
		{"exec_command", "", "exec_command"},
	}
	for _, tc := range tests {
		t.Run(tc.want+" "+tc.namespace, func(t *testing.T) {
			ns := ""
			if tc.namespace != "" {
				ns = `,"namespace":` + tc.namespace
			}
			lines := []string{
				cx("event_msg", `{"type":"user_message","message":"go"}`),
				cx("response_item", `{"type":"function_call","name":"`+tc.name+`"`+ns+`,"arguments":"{\"table\":\"users\"}","call_id":"c1"}`),
				cx("response_item", `{"type":"function_call_output","call_id":"c1","output":"ok"}`),
			}
			sessions, problems := readText(t, "rollout.jsonl", strings.Join(lines, "\n")+"\n")
			if len(problems) != 0 || len(sessions) != 1 {
				t.Fatalf("%d sessions, problems %v", len(sessions), problems)
			}
			calls := sessions[0].Turns[0].Requests[0].Calls
			if len(calls) != 1 || calls[0].Tool != tc.want || !calls[0].HasResult {
				t.Fatalf("calls %+v, want one %s with its result", calls, tc.want)
			}
		})
	}
}
