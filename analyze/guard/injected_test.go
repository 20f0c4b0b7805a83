package guard

import (
	"strings"
	"testing"
)

// TestCutInjected: a steer or halt message of a preset appended to a
// result as a paragraph of its own (as loopgate's pi extension and
// OpenCode plugin append them) is not part of the result; other text is.
func TestCutInjected(t *testing.T) {
	loopgateSteer := "loopgate: bash failed 2 times with identical arguments. Read the error and change the call instead of retrying it unchanged."
	cases := []struct{ in, want string }{
		{"cat: x: No such file\n\n" + loopgateSteer, "cat: x: No such file"},
		{"lab-loop\n\n\n[hermes note: this is the 3rd consecutive identical call to bash]", "lab-loop\n"},
		{"out\n\nLoop detected: the last 10 tool calls follow a repeating pattern. Try a different approach.", "out"},
		{"out\n\nLoopGuard: bash called 3 times with identical arguments", "out"},
		// Qwen Code 0.24.4 appends a PostToolUse additionalContext to the
		// result it records: "\n\n" and the context (appendAdditionalContext,
		// chunks/chunk-DPEB6S2R.js).
		{"Command: cat m\nOutput: cat: m: No such file\nExit Code: 1\nProcess Group PGID: (none)\n\n" +
			strings.ReplaceAll(loopgateSteer, "bash", "run_shell_command"),
			"Command: cat m\nOutput: cat: m: No such file\nExit Code: 1\nProcess Group PGID: (none)"},
		// Not a paragraph of its own, or not a preset's message.
		{"out\n" + loopgateSteer, "out\n" + loopgateSteer},
		{"out\n\nloopgate rocks", "out\n\nloopgate rocks"},
		{"out\n\nNote: bash has returned this same output 3 times", "out\n\nNote: bash has returned this same output 3 times"},
		{"no paragraphs at all", "no paragraphs at all"},
		// Only the tail is read.
		{"a\n\n" + loopgateSteer + strings.Repeat("x", 2*resultWindow), "a\n\n" + loopgateSteer + strings.Repeat("x", 2*resultWindow)},
	}
	for _, c := range cases {
		if got := cutInjected(c.in); got != c.want {
			t.Errorf("cutInjected(%.60q) = %.60q, want %.60q", c.in, got, c.want)
		}
	}
	// Every opening is a preset's, and loopgate's own steer is among them.
	found := false
	for _, o := range injectedOpenings() {
		if !strings.HasPrefix(o, "\n\n") || len(o) < 2+injectedMin {
			t.Errorf("opening %q", o)
		}
		found = found || o == "\n\nloopgate: "
	}
	if !found {
		t.Errorf("loopgate's steer opening is not looked for: %q", injectedOpenings())
	}
}

// TestCutNotesAsBoth: cutNotes, one walk over the tail, cuts every result
// as cutGuardSuffix and then cutInjected do, whichever of a guard note, an
// injected message and a plain paragraph comes first, and wherever they
// sit against the tail's window (a guard note moves the window cutInjected
// reads).
func TestCutNotesAsBoth(t *testing.T) {
	loopgateSteer := "\n\nloopgate: bash failed 2 times with identical arguments. Read the error."
	parts := []string{
		"", "out", "\n\n", "\n\n\n", "\n\nplain paragraph", strings.Repeat("y", 300),
		strings.Repeat("z", resultWindow-40), strings.Repeat("w\n", resultWindow/2+7),
		loopgateSteer, guardSuffixes[0] + " repeated]", guardSuffixes[2] + " 3rd call]", "\n\n[not a note]",
	}
	cut := 0
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				for _, d := range []string{"", "tail", "\n\n[", "\n\n"} {
					r := a + b + c + d
					want := cutInjected(cutGuardSuffix(r))
					if got := cutNotes(r); got != want {
						t.Fatalf("cutNotes(%.80q...) = %d bytes, want %d", r, len(got), len(want))
					}
					if want != r {
						cut++
					}
				}
			}
		}
	}
	if cut == 0 {
		t.Fatal("no result was cut: the cases test nothing")
	}
}
