package guard

import (
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// TestResultEnvelope: under results.envelope strip (the loopgate preset)
// two results whose tool outputs are the same are the same result though
// their envelopes differ; under keep (a preset that follows an upstream
// guard) they are not; an event without an output hash (the live hook)
// is compared on its result hash under both.
func TestResultEnvelope(t *testing.T) {
	a := &CallEvent{Tool: "shell", ResultHash: 1, OutputHash: 7}
	b := &CallEvent{Tool: "shell", ResultHash: 2, OutputHash: 7}
	plainA := &CallEvent{Tool: "shell", ResultHash: 1}
	plainB := &CallEvent{Tool: "shell", ResultHash: 2}
	cases := []struct {
		preset         string
		sameEnveloped  bool
		wantedEnvelope string
	}{
		{"loopgate", true, "strip"},
		{"nanobot", false, "keep"},
		{"pi-loopguard", false, "keep"},
	}
	for _, c := range cases {
		r, err := rules.Preset(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		if r.Results.Envelope != c.wantedEnvelope {
			t.Errorf("%s: results.envelope %q, want %q", c.preset, r.Results.Envelope, c.wantedEnvelope)
		}
		g := NewGuard(r)
		_, ha := g.resultOf(a)
		_, hb := g.resultOf(b)
		if (ha == hb) != c.sameEnveloped {
			t.Errorf("%s: results differing only in their envelope compare same=%v, want %v", c.preset, ha == hb, c.sameEnveloped)
		}
		_, pa := g.resultOf(plainA)
		_, pb := g.resultOf(plainB)
		if pa == pb {
			t.Errorf("%s: results with different hashes and no output hash compare the same", c.preset)
		}
	}
}
