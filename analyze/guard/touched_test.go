package guard

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPromptClearsAsEveryKey: a user prompt under scope.reset: mentioned
// clears, among the keys calls touched since the prompt before
// (Guard.touched), what no reader holds; the guard decides, verdict for
// verdict, and saves the same state, as one that looks at every key the
// session numbered at every prompt (touchedAll set before each prompt).
// The streams mix file reads and writes, shell commands, prompts naming
// some of their paths and prompts naming none, with snapshots restored
// midway (after which every key is looked at once).
func TestPromptClearsAsEveryKey(t *testing.T) {
	prompts := []string{"", "please look at a.go again", "b.go and a.go changed", "run make", "see /long/ and x.txt"}
	for _, preset := range []string{"loopgate", "claude-code", "hermes"} {
		r, err := PresetRules(preset)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range 40 {
			rng := rand.New(rand.NewPCG(uint64(seed), 13))
			steps := randomSteps(rng, 150)
			for i := range steps {
				if rng.IntN(6) == 0 {
					steps[i].prompt = prompts[rng.IntN(len(prompts))]
					steps[i].user = steps[i].prompt == ""
				}
			}
			touched, every := NewSavableGuard(r), NewSavableGuard(r)
			for i, s := range steps {
				if s.prompt != "" {
					every.touchedAll = true
				}
				a, b := applyStep(touched, r, i, s), applyStep(every, r, i, s)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s seed %d step %d: %+v with the touched keys, %+v looking at every key", preset, seed, i, a, b)
				}
				sa, errA := touched.AppendState(nil)
				sb, errB := every.AppendState(nil)
				if errA != nil || errB != nil || !bytes.Equal(sa, sb) {
					t.Fatalf("%s seed %d step %d: the saved states differ (%v, %v)", preset, seed, i, errA, errB)
				}
				if i == 75 {
					// Go on from a restored guard: its first prompt looks
					// at every key.
					touched = NewSavableGuard(r)
					if err := touched.RestoreState(sa); err != nil {
						t.Fatal(err)
					}
					if !touched.touchedAll {
						t.Fatal("a restored guard does not look at every key at its first prompt")
					}
				}
			}
		}
	}
}
