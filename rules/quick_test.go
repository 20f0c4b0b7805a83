package rules

import "testing"

func TestQuickPresets(t *testing.T) {
	for _, n := range PresetNames() {
		r, err := Preset(n)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := r.YAML()
		if n == "pi-loopguard" || n == "hermes-strict" {
			t.Log(string(y))
		}
	}
}
