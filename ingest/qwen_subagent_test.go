package ingest

import "testing"

// TestQwenSubagentFile: Qwen Code 0.24.4 writes a subagent's records to a
// file of their own (projects/<p>/subagents/<session>/agent-<id>.jsonl),
// every record isSidechain with its agentId: the subagent's session.
func TestQwenSubagentFile(t *testing.T) {
	rec := func(uuid, typ, parts string) string {
		return `{"uuid":"` + uuid + `","parentUuid":null,"sessionId":"s1","timestamp":"2026-12-02T06:07:38.434Z","type":"` + typ +
			`","cwd":"/w","version":"0.24.4","agentId":"general-purpose-call_1","agentName":"general-purpose","isSidechain":true,"message":{"role":"user","parts":` + parts + `}}` + "\n"
	}
	text := rec("a", "user", `[{"text":"print the sub word"}]`) +
		rec("b", "assistant", `[{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"echo sub"}}}]`) +
		rec("c", "tool_result", `[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"sub"}}}]`)
	sessions, problems := readText(t, "agent-general-purpose-call_1.jsonl", text)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %d; want 1 and 0", len(sessions), len(problems))
	}
	s := sessions[0]
	if s.Format != formatQwen || s.Agent != "general-purpose-call_1" || s.Parent != "s1" || len(s.Turns) != 1 || len(s.Turns[0].Requests) != 1 || len(s.Turns[0].Requests[0].Calls) != 1 {
		t.Errorf("session %s agent %q parent %q turns %d: want the subagent's session of one turn and one call", s.Format, s.Agent, s.Parent, len(s.Turns))
	}
}
