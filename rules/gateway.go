package rules

import (
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Gateway calls (docs/rules.md, "Tools in no class list"). Cline (classic,
// XML tool calls), Roo Code and Kilo Code call every MCP server's tool
// through one tool of their own, use_mcp_tool, whose arguments name the
// server and the tool called: server_name, tool_name and arguments (cline/cline
// src/core/task/tools/handlers/UseMcpToolHandler.ts at 884fbfb2, where
// arguments is JSON text the handler parses; RooCodeInc/Roo-Code
// src/shared/tools.ts at cb836567, NativeToolArgs.use_mcp_tool, where it is
// an object; Kilo-Org/kilocode-legacy src/shared/tools.ts at c3aeac05, the
// same with __save_to_file). Cline's UI log records the call as
// ClineAskUseMcpServer, with serverName and toolName (cline/cline
// apps/vscode/src/shared/ExtensionMessage.ts at 21cb8d25).
//
// The name use_mcp_tool says nothing of what a call does, the tool it
// calls does: a call of use_mcp_tool is classed by the words of that
// tool's name, as a tool of that name in no class list would be
// (get_schema a read, get_job_status a poll, create_issue other). The
// rules see such a call under its call name (CallName): the gateway's name
// and the tool's, joined by callNameSep. A call name is only ever classed
// and matched, never keyed: a call's key keeps the gateway's name and all
// its arguments (server, tool and the tool's arguments).

// callNameSep joins a gateway's name and the called tool's in a call name:
// a byte no tool name holds.
const callNameSep = "\x00"

// The gateways: use_mcp_tool calls the tool its arguments name;
// access_mcp_resource (server_name, uri) reads an MCP resource, which the
// rules class as a tool named resourceReader followed by the words of its
// uri (a resource's data, read with the MCP method resources/read:
// modelcontextprotocol.io/specification/2025-06-18/server/resources).
const (
	Gateway         = "use_mcp_tool"
	ResourceGateway = "access_mcp_resource"
	resourceReader  = "read_resource"
)

// IsGateway reports whether a tool's calls are classed by what their
// arguments name. It is cheap enough to ask of every call.
func IsGateway(tool string) bool { return tool == Gateway || tool == ResourceGateway }

// CallName returns the name the rules class a call by: its tool's name, or
// for a gateway call that names what it calls, the gateway's name joined
// to that: the tool use_mcp_tool calls (tool_name, or toolName in Cline's
// UI log), or read_resource and the uri access_mcp_resource reads.
func CallName(tool string, args jsonx.Value) string {
	if !IsGateway(tool) || args.Kind != jsonx.Object {
		return tool
	}
	keys, prefix := [...]string{"tool_name", "toolName"}, ""
	if tool == ResourceGateway {
		keys, prefix = [...]string{"uri", "uri"}, resourceReader+" "
	}
	for _, key := range keys {
		if inner, ok := args.GetString(key); ok {
			inner = strings.TrimSpace(inner)
			if inner != "" && !strings.Contains(inner, callNameSep) {
				return tool + callNameSep + prefix + inner
			}
		}
	}
	return tool
}

// splitCallName returns the gateway's and the called tool's names of a call
// name (ok false for a plain tool name).
func splitCallName(name string) (gateway, inner string, ok bool) {
	i := strings.IndexByte(name, callNameSep[0])
	if i < 0 {
		return name, "", false
	}
	return name[:i], name[i+1:], true
}

// ToolOf returns the tool name a call name was made from (the gateway's).
func ToolOf(name string) string {
	tool, _, _ := splitCallName(name)
	return tool
}

// MCPCallName returns the name the rules class a call of an MCP server's
// tool by when the agent names that tool apart from the name the model
// called (Gemini CLI's hook events: mcp_context.tool_name beside a
// tool_name of mcp_SERVER_TOOL, google-gemini/gemini-cli
// packages/core/src/hooks/types.ts at 5411f113, McpToolContext): the
// called name joined to the tool's own, as a gateway call's is, when the
// called name alone does not say where the server's name ends (toolPart);
// else the called name.
func MCPCallName(tool, mcpTool string) string {
	mcpTool = strings.TrimSpace(mcpTool)
	if mcpTool == "" || mcpTool == tool || toolPart(tool) != tool ||
		strings.Contains(tool, callNameSep) || strings.Contains(mcpTool, callNameSep) {
		return tool
	}
	return tool + callNameSep + mcpTool
}
