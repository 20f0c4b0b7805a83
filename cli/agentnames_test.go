package cli

import (
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/internal/agents"
	"github.com/loopgate/loopgate/live"
)

func TestInGoBuildCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GOCACHE", cache)
	for _, tc := range []struct {
		prog string
		want bool
	}{
		{"/tmp/go-build419102840/b001/exe/loopgate", true},
		{filepath.Join(cache, "4f", "4f00aa-d", "loopgate"), true},
		{"/home/u/go/bin/loopgate", false},
		{"/usr/local/bin/loopgate", false},
		{"/home/u/.cache/go-build/4f/4f00aa-d/loopgate", true},
		{"/home/u/src/go-builder/loopgate", false},
	} {
		if got := inGoBuildCache(tc.prog); got != tc.want {
			t.Errorf("inGoBuildCache(%q) = %v, want %v", tc.prog, got, tc.want)
		}
	}
}

// TestHookAgentSpellings: the hook takes every spelling of an agent it
// speaks to, and lists the canonical names.
func TestHookAgentSpellings(t *testing.T) {
	for _, name := range []string{"gemini", "gemini-cli", "claude-code", "cursor", "cline", "codex", "hermes", "openhands"} {
		if live.Canonical(name) == "" {
			t.Errorf("the hook does not take --agent %s", name)
		}
	}
	if live.Canonical("gemini") != live.Canonical("gemini-cli") {
		t.Errorf("gemini and gemini-cli are different hook agents")
	}
	for _, n := range live.AgentNames() {
		if n == "gemini" {
			t.Errorf("the hook lists the old spelling gemini: %v", live.AgentNames())
		}
	}
	if live.Canonical("nobody") != "" {
		t.Errorf("the hook takes --agent nobody")
	}
	// The hook's protocols are keyed by the command line's canonical names.
	for _, n := range live.AgentNames() {
		if c, ok := agents.Canonical(n); !ok || c != n {
			t.Errorf("the hook's agent %q is not a canonical name of internal/agents (%q)", n, c)
		}
	}
}
