package live

import (
	"fmt"
	"testing"
)

// TestGatewayLive: the hook classes a gateway call (use_mcp_tool) by the
// tool it names, as replay does: under the loopgate preset a repeated
// get_x with nothing between is answered; a create_x between clears it.
// The events are Claude Code's shape, the protocol the test drives; the
// class is the session's, whatever the agent.
func TestGatewayLive(t *testing.T) {
	call := func(kind, id, tool string) []byte {
		input := fmt.Sprintf(`{"server_name":"srv","tool_name":%q,"arguments":"{\"id\":1}"}`, tool)
		extra := `,"tool_name":"use_mcp_tool","tool_input":` + input + `,"tool_use_id":"` + id + `"`
		if kind == "PostToolUse" {
			extra += `,"tool_response":"result of ` + tool + `"`
		}
		return claudeEvent(kind, "s1", extra)
	}
	for _, tc := range []struct {
		name     string
		between  string // a tool called between ("": none)
		answered bool
	}{
		{"get_x, get_x", "", true},
		{"get_x, create_x, get_x", "create_x", false},
		{"get_x, list_y, get_x", "list_y", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "claude-code", "loopgate")
			Handle(cfg, call("PreToolUse", "c1", "get_x"))
			Handle(cfg, call("PostToolUse", "c1", "get_x"))
			if tc.between != "" {
				if out := Handle(cfg, call("PreToolUse", "c2", tc.between)); len(out.Stdout) != 0 {
					t.Fatalf("%s answered: %s", tc.between, out.Stdout)
				}
				Handle(cfg, call("PostToolUse", "c2", tc.between))
			}
			out := Handle(cfg, call("PreToolUse", "c3", "get_x"))
			if answered := len(out.Stdout) != 0; answered != tc.answered {
				t.Errorf("the repeated get_x answered: %v, want %v (%s)", answered, tc.answered, out.Stdout)
			}
		})
	}
}
