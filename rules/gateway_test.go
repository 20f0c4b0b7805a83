package rules

import (
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// TestGatewayCallClass: a gateway call is classed by what it calls, as
// the words of that tool's name class a tool in no class list; the
// gateway's own name still selects it; a rules file that classes the
// gateway itself wins; without word entries it stays other.
func TestGatewayCallClass(t *testing.T) {
	loopgate, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	listed, err := Parse([]byte(`name: t
classes:
  read: ['verb:get']
  poll: [use_mcp_tool]
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain := &Rules{Classes: DefaultClasses(), Effects: DefaultEffects()}
	tests := []struct {
		name       string
		r          *Rules
		tool, args string
		wantName   string
		wantClass  string
	}{
		// Cline's XML call: tool_name, arguments as JSON text.
		{"read", loopgate, "use_mcp_tool", `{"server_name":"db","tool_name":"get_schema","arguments":"{\"table\":\"users\"}"}`, "use_mcp_tool\x00get_schema", "read"},
		{"poll", loopgate, "use_mcp_tool", `{"server_name":"vercel","tool_name":"get_job_status","arguments":{"id":"7"}}`, "use_mcp_tool\x00get_job_status", "poll"},
		{"other", loopgate, "use_mcp_tool", `{"server_name":"github","tool_name":"create_issue","arguments":"{}"}`, "use_mcp_tool\x00create_issue", "other"},
		// Cline's UI log: ClineAskUseMcpServer's toolName.
		{"ui log", loopgate, "use_mcp_tool", `{"type":"use_mcp_tool","serverName":"db","toolName":"list_tables"}`, "use_mcp_tool\x00list_tables", "read"},
		// An agent's own tool name is not looked up in the class lists.
		{"listed name", loopgate, "use_mcp_tool", `{"server_name":"fs","tool_name":"execute_command"}`, "use_mcp_tool\x00execute_command", "other"},
		{"no tool", loopgate, "use_mcp_tool", `{"server_name":"db"}`, "use_mcp_tool", "other"},
		{"blank tool", loopgate, "use_mcp_tool", `{"server_name":"db","tool_name":"  "}`, "use_mcp_tool", "other"},
		{"not an object", loopgate, "use_mcp_tool", `"get_schema"`, "use_mcp_tool", "other"},
		// A resource: read_resource and its uri's words.
		{"resource", loopgate, "access_mcp_resource", `{"server_name":"db","uri":"postgres://db/schema/users"}`, "access_mcp_resource\x00read_resource postgres://db/schema/users", "read"},
		{"resource that changes", loopgate, "access_mcp_resource", `{"server_name":"app","uri":"logs://app/recent"}`, "access_mcp_resource\x00read_resource logs://app/recent", "poll"},
		{"resource without uri", loopgate, "access_mcp_resource", `{"server_name":"app"}`, "access_mcp_resource", "other"},
		// A rules file that classes the gateway itself.
		{"gateway listed", listed, "use_mcp_tool", `{"server_name":"db","tool_name":"get_schema"}`, "use_mcp_tool\x00get_schema", "poll"},
		// No word entries: what the call names classes nothing.
		{"defaults", plain, "use_mcp_tool", `{"server_name":"db","tool_name":"get_schema"}`, "use_mcp_tool\x00get_schema", "other"},
		// Not a gateway: the name as it is.
		{"plain", loopgate, "get_schema", `{"tool_name":"create_issue"}`, "get_schema", "read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, err := jsonx.ParseString(tt.args)
			if err != nil {
				t.Fatal(err)
			}
			name := CallName(tt.tool, args)
			if name != tt.wantName {
				t.Fatalf("CallName = %q, want %q", name, tt.wantName)
			}
			if got := tt.r.ClassOf(name); got != tt.wantClass {
				t.Errorf("ClassOf(%q) = %q, want %q", name, got, tt.wantClass)
			}
			if !tt.r.Matches(tt.tool, name) {
				t.Errorf("Matches(%q, %q) = false: the gateway's name must select its calls", tt.tool, name)
			}
			if !tt.r.Matches("class:"+tt.wantClass, name) {
				t.Errorf("Matches(class:%s, %q) = false", tt.wantClass, name)
			}
			if ToolOf(name) != tt.tool {
				t.Errorf("ToolOf(%q) = %q, want %q", name, ToolOf(name), tt.tool)
			}
		})
	}
}

// TestGatewayToolEntry: a gateway call takes the gateway's own tool entry
// and its call's class entry.
func TestGatewayToolEntry(t *testing.T) {
	r, err := Parse([]byte(`name: t
classes:
  read: ['verb:get']
detectors:
  repeat: {steer_at: 3}
tools:
  use_mcp_tool: {steer_at: 5}
  class:read: {steer_at: 7}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	entries := r.ToolEntry("use_mcp_tool\x00get_schema")
	if len(entries) != 2 || *entries[0].SteerAt != 5 || *entries[1].SteerAt != 7 {
		t.Fatalf("ToolEntry: %d entries, want the gateway's (5) then class:read's (7)", len(entries))
	}
}

// TestMCPCallName: an MCP tool's own name, given apart from the called
// name, classes the call only where the called name cannot be cut.
func TestMCPCallName(t *testing.T) {
	r, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ tool, mcpTool, wantName, wantClass string }{
		{"mcp_my-db_get_schema", "get_schema", "mcp_my-db_get_schema\x00get_schema", "read"},
		{"mcp_vercel_get_job_status", "get_job_status", "mcp_vercel_get_job_status\x00get_job_status", "poll"},
		{"mcp_gh_create_issue", "create_issue", "mcp_gh_create_issue\x00create_issue", "other"},
		// Without it, by the name's first later verb and its act words.
		{"mcp_my-db_get_schema", "", "mcp_my-db_get_schema", "read"},
		{"mcp_web-search_clear_cache", "", "mcp_web-search_clear_cache", "other"},
		{"get_schema", "get_schema", "get_schema", "read"},
		// The name alone says where the server ends: cut as it is.
		{"db__get_schema", "get_schema", "db__get_schema", "read"},
		{"mcp__db__create_issue", "get_schema", "mcp__db__create_issue", "other"},
	}
	for _, tt := range tests {
		name := MCPCallName(tt.tool, tt.mcpTool)
		if name != tt.wantName {
			t.Errorf("MCPCallName(%q, %q) = %q, want %q", tt.tool, tt.mcpTool, name, tt.wantName)
			continue
		}
		if got := r.ClassOf(name); got != tt.wantClass {
			t.Errorf("ClassOf(%q) = %q, want %q", name, got, tt.wantClass)
		}
		if ToolOf(name) != tt.tool {
			t.Errorf("ToolOf(%q) = %q", name, ToolOf(name))
		}
	}
}
