package analyze

import (
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/gen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestLoopgatePresetOnPlantedLoops is issue 5's acceptance claim, checked on
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
		m, err := gen.Generate(dir, gen.Config{Seed: seed, TotalBytes: 4 << 20, MaxFileBytes: 1 << 20, MaxResultBytes: 32 << 10, Loops: true})
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
