package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestGateSummaryColor: PASS is green and FAIL red with color on, in the
// codes fatih/color writes (the ones the summary wrote by hand before it
// moved here); without color the lines are the same, codes removed.
func TestGateSummaryColor(t *testing.T) {
	res := testGateResult()
	var plain, colored bytes.Buffer
	GateSummary(&plain, res, Options{Redact: true})
	GateSummary(&colored, res, Options{Redact: true, Color: true})
	const pass, fail = "\x1b[32mPASS\x1b[0m  ", "\x1b[31mFAIL\x1b[0m  "
	passed, failed := 0, 0
	for i := range res.Cases {
		if res.Cases[i].Passed() {
			passed++
		} else {
			failed++
		}
	}
	if passed == 0 || failed == 0 {
		t.Fatalf("the test gate has %d passing and %d failing cases, want some of each", passed, failed)
	}
	got := colored.String()
	if n := strings.Count(got, pass); n != passed {
		t.Errorf("%d green PASS, want %d:\n%q", n, passed, got)
	}
	if n := strings.Count(got, fail); n != failed {
		t.Errorf("%d red FAIL, want %d:\n%q", n, failed, got)
	}
	stripped := strings.NewReplacer("\x1b[32m", "", "\x1b[31m", "", "\x1b[0m", "").Replace(got)
	if stripped != plain.String() {
		t.Errorf("without color the summary differs from the colored one, codes removed:\n%s\n---\n%s", plain.String(), stripped)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("escape codes with color off: %q", plain.String())
	}
}
