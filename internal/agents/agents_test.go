package agents

import (
	"slices"
	"testing"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"gemini", "gemini-cli"}, {"gemini-cli", "gemini-cli"}, {"claude-code", "claude-code"},
		{"kimi", "kimi-cli"}, {"copilot", "copilot-cli"}, {"hermes-agent", "hermes"}, {"cursor", "cursor"},
		{"qwen", "qwen-code"}, {"nobody", ""}, {"", ""}, {"Gemini", ""},
	} {
		got, ok := Canonical(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// TestOneNamePerSpelling: no spelling names two agents, and every agent's
// spellings lead back to it.
func TestOneNamePerSpelling(t *testing.T) {
	seen := map[string]string{}
	for _, n := range Names() {
		sp := Spellings(n)
		if len(sp) == 0 || sp[0] != n {
			t.Errorf("Spellings(%q) = %v", n, sp)
		}
		for _, s := range sp {
			if other, dup := seen[s]; dup {
				t.Errorf("%q names both %s and %s", s, other, n)
			}
			seen[s] = n
			if c, _ := Canonical(s); c != n || !slices.Equal(Spellings(s), sp) {
				t.Errorf("%q resolves to %q, not %q", s, c, n)
			}
		}
	}
}
