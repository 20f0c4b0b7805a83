package cli

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// TestPermuteArgs: flags after the paths go in front of them, with their
// values; what follows "--" stays positional; a value flag with nothing
// after it is an error naming the command.
func TestPermuteArgs(t *testing.T) {
	app := newApp(io.Discard, io.Discard, "dev")
	for _, tc := range []struct {
		args    string
		want    string
		wantErr string
	}{
		{"loopgate replay a.jsonl --preset nanobot b.jsonl", "loopgate replay --preset nanobot -- a.jsonl b.jsonl", ""},
		{"loopgate replay a.jsonl --strict --format=json", "loopgate replay --strict --format=json -- a.jsonl", ""},
		{"loopgate replay a.jsonl -- --preset", "loopgate replay -- a.jsonl --preset", ""},
		{"loopgate rules print --preset hermes", "loopgate rules print --preset hermes", ""},
		{"loopgate --cpuprofile=x replay a", "loopgate --cpuprofile=x replay -- a", ""},
		{"loopgate nosuch a --b", "loopgate nosuch a --b", ""},
		{"loopgate replay a.jsonl --preset", "", "--preset needs a value, but nothing follows it (try 'loopgate replay --help')"},
		{"loopgate replay a.jsonl --format=", "", "--format= has an empty value (try 'loopgate replay --help')"},
	} {
		got, err := permuteArgs(app, strings.Fields(tc.args))
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, strings.Fields(tc.want)) {
			t.Errorf("%q: %q (%v), want %q", tc.args, got, err, tc.want)
		}
	}
}
