package guard

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
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

var updateOpenings = flag.Bool("update", false, "write injected_openings.go again from the presets")

// openingsOfPresets are "\n\n" and the opening of each preset's steer and
// halt messages (up to the first placeholder, at least injectedMin bytes),
// each once, sorted: what presetOpenings must hold.
func openingsOfPresets() []string {
	seen := map[string]bool{}
	var out []string
	for _, name := range rules.PresetNames() {
		r, err := rules.Preset(name)
		if err != nil {
			continue
		}
		messageFields(reflect.ValueOf(r), func(msg string) {
			open := msg
			if i := strings.IndexByte(open, '{'); i >= 0 {
				open = open[:i]
			}
			if len(open) >= injectedMin && !seen[open] {
				seen[open] = true
				out = append(out, "\n\n"+open)
			}
		})
	}
	sort.Strings(out)
	return out
}

// messageFields calls f with every non-empty string field of v whose name
// ends in "Message", except block messages, at any depth.
func messageFields(v reflect.Value, f func(string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			messageFields(v.Elem(), f)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			fd := t.Field(i)
			if !fd.IsExported() {
				continue
			}
			fv := v.Field(i)
			name := fd.Name
			if strings.HasSuffix(name, "Message") && name != "BlockMessage" {
				if fv.Kind() == reflect.Pointer && !fv.IsNil() {
					fv = fv.Elem()
				}
				if fv.Kind() == reflect.String {
					if s := fv.String(); s != "" {
						f(s)
					}
					continue
				}
			}
			messageFields(fv, f)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			messageFields(v.MapIndex(k), f)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			messageFields(v.Index(i), f)
		}
	}
}

// TestPresetOpenings: presetOpenings (injected_openings.go) are the
// openings of the presets' messages as they are now; a preset whose steer
// or halt message changed fails here until `go test ./analyze/guard -run
// TestPresetOpenings -update` writes the file again. The table is written
// out because working it out at run time loaded every preset, the most
// of a short replay's instructions and of a live hook call's that reads a
// result (docs/performance.md, "Presets loaded").
func TestPresetOpenings(t *testing.T) {
	want := openingsOfPresets()
	if *updateOpenings {
		var b bytes.Buffer
		b.WriteString("// Code generated by TestPresetOpenings -update; DO NOT EDIT.\n\npackage guard\n\n")
		b.WriteString("// presetOpenings are \"\\n\\n\" and the opening of each preset's steer and\n")
		b.WriteString("// halt messages, up to the first placeholder, sorted (injectedOpenings).\n")
		b.WriteString("var presetOpenings = []string{\n")
		for _, o := range want {
			fmt.Fprintf(&b, "\t%q,\n", o)
		}
		b.WriteString("}\n")
		if err := os.WriteFile("injected_openings.go", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !reflect.DeepEqual(presetOpenings, want) {
		t.Errorf("presetOpenings = %q,\nthe presets' = %q (go test ./analyze/guard -run TestPresetOpenings -update)", presetOpenings, want)
	}
}
