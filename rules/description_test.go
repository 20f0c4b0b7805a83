package rules_test

import (
	"regexp"
	"strings"
	"testing"

	. "github.com/loopgate/loopgate/rules"
)

// TestPresetDescriptionsWhole: an unquoted YAML value ends at " #" (a
// comment), so "hermes-agent PR #14059 circuit breaker ..." printed as
// "hermes-agent PR". Every preset's description is its whole line.
func TestPresetDescriptionsWhole(t *testing.T) {
	line := regexp.MustCompile(`(?m)^description: (.*)$`)
	for _, name := range PresetNames() {
		src, err := PresetText(name)
		if err != nil {
			t.Fatal(err)
		}
		m := line.FindSubmatch(src)
		if m == nil {
			t.Errorf("%s: no description line", name)
			continue
		}
		raw := string(m[1])
		if q := raw[0]; q == '\'' || q == '"' {
			raw = strings.ReplaceAll(raw[1:len(raw)-1], "''", "'")
		}
		r, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if r.Description != raw {
			t.Errorf("%s: description %q, but its line says %q", name, r.Description, raw)
		}
	}
}
