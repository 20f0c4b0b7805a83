package live

import (
	"strings"
	"testing"
)

// TestGeminiMCPContext: Gemini CLI's BeforeTool and AfterTool of an MCP
// tool carry mcp_context with the server's own name of the tool; a name
// mcp_SERVER_TOOL cannot be cut, so the hook classes the call by that name:
// under the loopgate preset a repeated get_schema is answered, a repeated
// create_issue is not; without mcp_context, or when the name alone says
// where the server ends, the name classes the call as before: by its first
// later verb and its act words (docs/rules.md, "Tools in no class list").
func TestGeminiMCPContext(t *testing.T) {
	event := func(name, tool, mcpTool, result string) []byte {
		s := `{"hook_event_name":"` + name + `","session_id":"s1","cwd":"/","tool_name":"` + tool + `","tool_input":{"table":"users"}`
		if mcpTool != "" {
			s += `,"mcp_context":{"server_name":"my-db","tool_name":"` + mcpTool + `","command":"db-server"}`
		}
		if name == "AfterTool" {
			s += `,"tool_response":{"llmContent":"` + result + `"}`
		}
		return []byte(s + `}`)
	}
	ev, err := Lookup("gemini-cli").ParseEvent(event("BeforeTool", "mcp_my-db_get_schema", "get_schema", ""))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Tool != "mcp_my-db_get_schema" || ev.MCPTool != "get_schema" {
		t.Fatalf("parsed tool %q, MCP tool %q", ev.Tool, ev.MCPTool)
	}
	for _, tc := range []struct {
		name, tool, mcpTool string
		answered            bool
	}{
		{"mcp_context read", "mcp_my-db_get_schema", "get_schema", true},
		{"mcp_context other", "mcp_my-db_create_issue", "create_issue", false},
		{"no mcp_context, read", "mcp_my-db_get_schema", "", true},
		{"no mcp_context, other", "mcp_my-db_create_issue", "", false},
		// Gemini CLI before 0.34: the bare tool name, classed as it is.
		{"bare name", "get_schema", "get_schema", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "gemini-cli", "loopgate")
			Handle(cfg, event("BeforeTool", tc.tool, tc.mcpTool, ""))
			Handle(cfg, event("AfterTool", tc.tool, tc.mcpTool, "id int, name text"))
			out := Handle(cfg, event("BeforeTool", tc.tool, tc.mcpTool, ""))
			answered := strings.Contains(string(out.Stdout), `"decision":"deny"`)
			if answered != tc.answered {
				t.Errorf("the repeated call answered: %v, want %v (%s)", answered, tc.answered, out.Stdout)
			}
			if answered && !strings.Contains(string(out.Stdout), tc.tool+" not run") {
				t.Errorf("the answer does not name the tool as called: %s", out.Stdout)
			}
		})
	}
}
