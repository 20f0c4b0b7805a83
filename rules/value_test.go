package rules_test

import (
	"testing"

	. "github.com/loopgate/loopgate/rules"
)

func TestValue(t *testing.T) {
	r, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	on := r.Clone()
	if err := on.Set("detectors.repeat.block_at", "4"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r         *Rules
		key, want string
	}{
		{r, "key.style", "sorted"},
		{r, "key.ignore", "[timeout, timeout_ms, toolCallId, callId, requestId, traceId, spanId]"},
		{r, "detectors.repeat.block_at", ""}, // loopgate has no repeat detector
		{on, "detectors.repeat.block_at", "4"},
		{on, "detectors.repeat.enabled", "true"},
		{r, "no.such.key", ""},
	} {
		if got := tc.r.Value(tc.key); got != tc.want {
			t.Errorf("%s: Value(%q) = %q, want %q", tc.r.Name, tc.key, got, tc.want)
		}
	}
	if d, off := r.DetectorOff("detectors.repeat.block_at"); !off || d != "detectors.repeat" {
		t.Errorf("loopgate: DetectorOff(repeat) = %q, %v", d, off)
	}
	if _, off := on.DetectorOff("detectors.repeat.block_at"); off {
		t.Errorf("repeat set: still off")
	}
	if _, off := r.DetectorOff("key.style"); off {
		t.Errorf("key.style is not a detector's")
	}
}
