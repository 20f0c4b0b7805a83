// Package agents is the one list of the agents' names loopgate's commands
// take (--agent of replay, where and hook): each agent's canonical name,
// and the other spellings accepted for it. The session folders (package
// ingest's locations) and the hook protocols (package live) are
// keyed by one of these spellings; the command line resolves what a user
// types through Canonical, so that a name works the same
// everywhere.
package agents

import "slices"

// agent is one agent: its canonical name (the product's own name for its
// command line, lower case), then the spellings also accepted.
type agent struct {
	name    string
	aliases []string
}

var known = []agent{
	{name: "claude-code", aliases: []string{"claude", "claudecode"}},
	{name: "codex", aliases: []string{"codex-cli"}},
	{name: "gemini-cli", aliases: []string{"gemini"}},
	{name: "qwen-code", aliases: []string{"qwen"}},
	{name: "opencode"},
	{name: "pi", aliases: []string{"pi-mono"}},
	{name: "cline"},
	{name: "cursor"},
	{name: "hermes", aliases: []string{"hermes-agent"}},
	{name: "openhands"},
	{name: "nanobot"},
	{name: "kimi-cli", aliases: []string{"kimi"}},
	{name: "copilot-cli", aliases: []string{"copilot"}},
}

// Canonical is the canonical name of the agent a user named (its name or
// an alias), and false for a name of no agent.
func Canonical(name string) (string, bool) {
	for _, a := range known {
		if a.name == name || slices.Contains(a.aliases, name) {
			return a.name, true
		}
	}
	return "", false
}

// Names are the canonical names, in the list's order.
func Names() []string {
	names := make([]string, len(known))
	for i, a := range known {
		names[i] = a.name
	}
	return names
}
