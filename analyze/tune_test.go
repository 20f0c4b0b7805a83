package analyze

import (
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

func TestChoose(t *testing.T) {
	row := func(val string, harmful, stopped, steered, actions int) TuneRow {
		return TuneRow{Settings: []Setting{{"detectors.repeat.block_at", val}},
			Summary: Summary{Harmful: harmful, RedundantStopped: stopped, Steered: steered, StoppedActions: actions}}
	}
	for _, tc := range []struct {
		name    string
		rows    []TuneRow
		maxHarm int
		want    int
	}{
		{"recall first", []TuneRow{row("3", 0, 5, 0, 0), row("2", 0, 8, 4, 1)}, 0, 1},
		{"budget excludes", []TuneRow{row("3", 0, 5, 0, 0), row("2", 1, 8, 0, 0)}, 0, 0},
		{"budget admits", []TuneRow{row("3", 0, 5, 0, 0), row("2", 1, 8, 0, 0)}, 1, 1},
		{"fewer steers", []TuneRow{row("3", 0, 5, 3, 0), row("4", 0, 5, 1, 0)}, 0, 1},
		{"fewer stopped actions", []TuneRow{row("3", 0, 5, 1, 2), row("4", 0, 5, 1, 0)}, 0, 1},
		{"closest to the base", []TuneRow{row("3", 0, 4, 0, 0), row("6", 0, 5, 0, 0), row("4", 0, 5, 0, 0)}, 0, 2},
		{"none keeps to it", []TuneRow{row("3", 2, 5, 0, 0)}, 1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Choose(tc.rows, tc.maxHarm); got != tc.want {
				t.Errorf("Choose = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestCommentKey(t *testing.T) {
	text := "scope:\n  window: 0s\ntools:\n  class:shell:\n    no_progress:\n      block_at: 2\ndetectors:\n  no_progress:\n    only: [a]\n    block_at: 1\n"
	for _, tc := range []struct{ key, line string }{
		{"detectors.no_progress.block_at", "    block_at: 1 # x"},
		{"tools.class:shell.no_progress.block_at", "      block_at: 2 # x"},
		{"scope.window", "  window: 0s # x"},
		{"detectors.repeat.block_at", ""},
	} {
		got := commentKey(text, tc.key, "x")
		if tc.line == "" {
			if got != text {
				t.Errorf("%s: changed a text without the key:\n%s", tc.key, got)
			}
			continue
		}
		if !strings.Contains(got, tc.line+"\n") || strings.Count(got, "# x") != 1 {
			t.Errorf("%s: want the line %q in\n%s", tc.key, tc.line, got)
		}
	}
}

// TestWhyValue: the rules file's reason for a value, against the values
// tried beside it (the chosen row is row 0 here).
func TestWhyValue(t *testing.T) {
	row := func(val string, harmful, stopped int) TuneRow {
		return TuneRow{Settings: []Setting{{"detectors.repeat.block_at", val}},
			Summary: Summary{Harmful: harmful, RedundantStopped: stopped}}
	}
	for _, tc := range []struct {
		name string
		rows []TuneRow
		want string
	}{
		{"more is harmful", []TuneRow{row("3", 0, 5), row("2", 2, 8), row("4", 0, 3)}, "the values that stop more"},
		{"a tie", []TuneRow{row("3", 0, 5), row("4", 0, 5)}, "no value tried stops more"},
		{"the rest stop fewer", []TuneRow{row("3", 0, 5), row("4", 0, 3)}, "every other value tried stops fewer"},
		{"alone", []TuneRow{row("3", 0, 5)}, "the only value tried"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := whyValue(tc.rows, 0, 0); !strings.HasPrefix(got, tc.want) {
				t.Errorf("whyValue = %q, want %q...", got, tc.want)
			}
		})
	}
}

// TestTuneGrid: the default search of a preset, key by key.
func TestTuneGrid(t *testing.T) {
	for _, tc := range []struct {
		preset string
		want   []string // KEY=VALUES
	}{
		{"loopgate", []string{"detectors.dedup.dedup_at=2,3,4", "scope.reset=turn,session,mentioned"}},
		{"hermes-dedup", []string{"detectors.dedup.dedup_at=2,3,4", "scope.reset=turn,session"}},
		{"attractor", nil},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			r, err := rules.Preset(tc.preset)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range TuneGrid(r) {
				got = append(got, v.Key+"="+strings.Join(v.Values, ","))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("TuneGrid(%s) = %v, want %v", tc.preset, got, tc.want)
			}
		})
	}
}
