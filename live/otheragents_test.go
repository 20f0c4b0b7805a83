package live

import (
	"strings"
	"testing"
)

// TestOtherAgentsLive: Claude Code runs subagents beside each other, and
// each subagent's hook events carry its agent_id; the hook keeps one guard
// per agent. A sibling's write into a directory, told to the other agents'
// logs, keeps a second identical listing from being answered from the first
// (as replay does, guard.OtherAgentCall); a write elsewhere, a read, or a
// write by the agent itself into another directory leave it answered.
func TestOtherAgentsLive(t *testing.T) {
	ls := `{"command":"ls /w/out"}`
	event := func(name, agent, id, tool, input, response string) []byte {
		extra := `,"agent_id":"` + agent + `","tool_name":"` + tool + `","tool_input":` + input + `,"tool_use_id":"` + id + `"`
		if name == "PostToolUse" {
			extra += `,"tool_response":"` + response + `"`
		}
		return claudeEvent(name, "s1", extra)
	}
	cases := []struct {
		name        string
		siblingTool string
		siblingArgs string
		denied      bool
	}{
		{"a sibling writes into the directory", "Write", `{"file_path":"/w/out/x.txt","content":"x"}`, false},
		{"a sibling runs a command of unknown reach", "Bash", `{"command":"make gen"}`, false},
		{"a sibling writes elsewhere", "Write", `{"file_path":"/w/src/b.go","content":"x"}`, true},
		{"a sibling only lists the directory", "Bash", ls, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "claude-code", "loopgate")
			for _, ev := range [][]byte{
				event("PreToolUse", "agent-a", "a1", "Bash", ls, ""),
				event("PostToolUse", "agent-a", "a1", "Bash", ls, ""),
				event("PreToolUse", "agent-b", "b1", tc.siblingTool, tc.siblingArgs, ""),
				event("PostToolUse", "agent-b", "b1", tc.siblingTool, tc.siblingArgs, "done"),
			} {
				if r := Handle(cfg, ev); r.Stderr != "" || len(r.Stdout) != 0 {
					t.Fatalf("%s: answered %s %s", ev, r.Stdout, r.Stderr)
				}
			}
			r := Handle(cfg, event("PreToolUse", "agent-a", "a2", "Bash", ls, ""))
			if r.Stderr != "" {
				t.Fatal(r.Stderr)
			}
			denied := strings.Contains(string(r.Stdout), `"deny"`)
			if denied != tc.denied {
				t.Errorf("the second listing: denied %v, want %v (%s)", denied, tc.denied, r.Stdout)
			}
		})
	}
}
