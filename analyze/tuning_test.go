package analyze

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestLoopgatePresetOnPlantedLoops is the preset's acceptance claim (docs/tuning.md), checked on
// a generated corpus with planted loops of every shape (seeded, so the run
// is reproducible): the loopgate preset makes no harmful stop, and its
// recall is at least that of every other preset that makes none. It also
// checks the truth side: replay finds exactly the redundant calls the
// generator planted.
func TestLoopgatePresetOnPlantedLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a corpus; skipped with -short")
	}
	for _, seed := range []int64{7, 99, 1, 2, 42, 123, 2024} {
		dir := t.TempDir()
		m, err := corpusgen.Generate(dir, corpusgen.Config{Seed: seed, TotalBytes: 4 << 20, MaxFileBytes: 1 << 20, MaxResultBytes: 32 << 10, Loops: true})
		if err != nil {
			t.Fatal(err)
		}
		files := ingest.Expand([]string{dir}, func(p ingest.Problem) { t.Errorf("%v", p) })
		corpus := LoadCorpus(files, Options{Jobs: 2})
		if len(corpus.Problems) > 0 {
			t.Fatalf("seed %d: the generated corpus has problems: %v", seed, corpus.Problems[0])
		}
		counter, _ := tokens.New("chars4")
		type result struct {
			harmful int
			recall  float64
		}
		results := map[string]result{}
		for _, name := range rules.PresetNames() {
			r, err := rules.Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			s := corpus.Run(r, counter, 2).Summary
			if s.Redundant != m.Totals.Redundant {
				t.Fatalf("seed %d %s: replay counts %d redundant calls, the generator planted %d", seed, name, s.Redundant, m.Totals.Redundant)
			}
			rec := 0.0
			if s.Recall != nil {
				rec = *s.Recall
			}
			results[name] = result{s.Harmful, rec}
		}
		own := results["loopgate"]
		if own.harmful != 0 {
			t.Errorf("seed %d: loopgate made %d harmful stops", seed, own.harmful)
		}
		for name, r := range results {
			if name != "loopgate" && r.harmful == 0 && r.recall > own.recall {
				t.Errorf("seed %d: %s has no harmful stop and recall %.3f, above loopgate's %.3f", seed, name, r.recall, own.recall)
			}
		}
		t.Logf("seed %d: %d redundant calls; loopgate recall %.3f; others %v", seed, m.Totals.Redundant, own.recall, results)
	}
}

func TestParseVary(t *testing.T) {
	cases := []struct {
		spec    string
		want    []string
		wantErr string
	}{
		{"detectors.repeat.block_at=2..5", []string{"2", "3", "4", "5"}, ""},
		{"tools.class:read.block_at=2..10/4", []string{"2", "6", "10"}, ""},
		{"scope.window=30s, 2m ,", []string{"30s", "2m"}, ""},
		{"x=7", []string{"7"}, ""},
		{"novalue", nil, "write KEY=RANGE"},
		{"x=5..2", nil, "ends before it starts"},
		{"x=a..b", nil, "whole numbers"},
		{"x=1..9/0", nil, "positive whole number"},
		{"x=1..100000", nil, "more than 1000 values"},
	}
	for _, tc := range cases {
		v, err := ParseVary(tc.spec)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(v.Values, tc.want) {
			t.Errorf("%q: got %v, %v; want %v", tc.spec, v.Values, err, tc.want)
		}
	}
}

// TestMarkPareto on a hand-computed case. Savings (context tokens) and
// harmful stops per row:
//
//	A 100/0  B 300/1  C 300/2  D 50/0  E 300/1
//
// A is best with 0 harm except nothing saves more at 0 harm: on the front.
// B saves the most with 1 harm: on the front, and so is E (equal, neither
// strictly better). C is beaten by B (same savings, less harm). D is beaten
// by A (more savings, same harm).
func TestMarkPareto(t *testing.T) {
	row := func(saved int64, harmful int) SweepRow {
		return SweepRow{Summary: Summary{ContextTokensSaved: saved, Harmful: harmful}}
	}
	rows := []SweepRow{row(100, 0), row(300, 1), row(300, 2), row(50, 0), row(300, 1)}
	MarkPareto(rows)
	want := []bool{true, true, false, false, true}
	for i, r := range rows {
		if r.Pareto != want[i] {
			t.Errorf("row %c: pareto %v, want %v", 'A'+i, r.Pareto, want[i])
		}
	}
}

// TestSweepRowsEqualSeparateReplays: every row of a sweep equals a replay
// of the files with the same settings, run from scratch.
func TestSweepRowsEqualSeparateReplays(t *testing.T) {
	files := ingest.Expand([]string{filepath.Join("..", "fixtures", "replay"), filepath.Join("..", "fixtures", "demo")}, func(p ingest.Problem) { t.Fatal(p) })
	counter, _ := tokens.New("chars4")
	base, err := rules.Preset("nanobot")
	if err != nil {
		t.Fatal(err)
	}
	varies := []Vary{{Key: "detectors.repeat.block_at", Values: []string{"2", "3", "5"}}, {Key: "tools.class:read.block_at", Values: []string{"2", "4"}}}
	cfgs, settings, err := Configs(base, varies)
	if err != nil {
		t.Fatal(err)
	}
	reports, _ := ReplayAll(files, Options{Tokens: counter, Jobs: 2}, cfgs, nil)
	rows := SweepRows(settings, reports)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 3x2 = 6", len(rows))
	}
	distinct := map[string]bool{}
	for _, row := range rows {
		r := base.Clone()
		for _, s := range row.Settings {
			if err := r.Set(s.Key, s.Value); err != nil {
				t.Fatal(err)
			}
		}
		want := Replay(files, Options{Rules: r, Tokens: counter, Jobs: 1}).Summary
		got, _ := json.Marshal(row.Summary)
		exp, _ := json.Marshal(want)
		if string(got) != string(exp) {
			t.Errorf("settings %v:\n sweep  %s\n replay %s", row.Settings, got, exp)
		}
		distinct[string(got)] = true
	}
	if len(distinct) < 3 {
		t.Errorf("only %d distinct summaries over 6 settings: the settings do not reach the engine", len(distinct))
	}
}

func TestSweepBadKeyNamesValidKeys(t *testing.T) {
	base, _ := rules.Preset("nanobot")
	_, _, err := Configs(base, []Vary{{Key: "detectors.repet.block_at", Values: []string{"3"}}})
	if err == nil || !strings.Contains(err.Error(), "detectors.repeat.block_at") {
		t.Errorf("bad key error %v does not name the valid key nearby", err)
	}
}
