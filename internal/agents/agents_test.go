package agents

import "testing"

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
	if names := Names(); len(names) != len(known) {
		t.Fatalf("Names() = %v for %d agents", names, len(known))
	}
	for i, a := range known {
		if n := Names()[i]; n != a.name {
			t.Errorf("Names()[%d] = %q, want %q", i, n, a.name)
		}
		for _, s := range append([]string{a.name}, a.aliases...) {
			if other, dup := seen[s]; dup {
				t.Errorf("%q names both %s and %s", s, other, a.name)
			}
			seen[s] = a.name
			if c, _ := Canonical(s); c != a.name {
				t.Errorf("%q resolves to %q, not %q", s, c, a.name)
			}
		}
	}
}
