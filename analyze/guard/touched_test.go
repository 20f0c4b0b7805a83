package guard

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
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

// observedOverlap is invalidatesObserved as it was written before the
// reaches were kept: the noted text split at each test and every pair of
// paths cleaned by shellcmd.Overlap.
func observedOverlap(fx shellcmd.Effect, text string) bool {
	if fx.Kind != shellcmd.EffectAct {
		return false
	}
	if fx.All || text == observedAll {
		return true
	}
	if text == "" {
		return false
	}
	for r := range strings.SplitSeq(text, observedSep) {
		for _, w := range fx.Paths {
			if shellcmd.Overlap(w, r) {
				return true
			}
		}
	}
	return false
}

// TestObservedReach: an observation noted as text (noteObserver) and
// tested against an act by the reaches of their paths, kept after the
// first test (invalidatesObserved), is invalidated exactly when the paths
// compared anew say (observedOverlap), at the first test and the next; and,
// for observations of named paths, when shellcmd.Effect.Invalidates says.
func TestObservedReach(t *testing.T) {
	paths := []string{"", "a.go", "src/a.go", "/repo/src/a.go", "/repo/src", "/repo/b.go", "../x", ".",
		"/", "~/p/a.md", `C:\w\a.py`, "w/a.py", "s/*.go", "s/x", "a/../../b", "/r/ab", "/r/a", "~", "./a"}
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(from int) []string {
		var out []string
		for range rng.IntN(4) {
			out = append(out, paths[from+rng.IntN(len(paths)-from)])
		}
		return out
	}
	for n := range 4000 {
		// An observation of "" alone is noted as no path: the readers
		// never name one (argPaths, shellcmd), so only half the
		// observations may hold it.
		from := n % 2
		act := shellcmd.Effect{Kind: shellcmd.EffectAct, Paths: pick(0), All: rng.IntN(10) == 0}
		obs := shellcmd.Effect{Kind: shellcmd.EffectObserve, Paths: pick(from), All: rng.IntN(10) == 0}
		var acts []string
		for _, p := range act.Paths {
			acts = append(acts, shellcmd.Reach(p))
		}
		var g Guard
		// The same key observing again, after the first tests: its new
		// observation is what counts.
		again := shellcmd.Effect{Kind: shellcmd.EffectObserve, Paths: pick(from), All: rng.IntN(10) == 0}
		for _, o := range []shellcmd.Effect{obs, again} {
			g.noteObserver(0, o)
			rk := &g.readers[0]
			want := observedOverlap(act, rk.text)
			if from == 1 && want != act.Invalidates(o) {
				t.Fatalf("act %q, observation %q: the former test %v, Invalidates %v", act.Paths, o.Paths, want, !want)
			}
			for try := range 2 {
				if got := invalidatesObserved(act.All, acts, rk); got != want {
					t.Fatalf("act %q (all %v), observation %q (%q), test %d: %v, want %v", act.Paths, act.All, o.Paths, rk.text, try+1, got, want)
				}
			}
		}
	}
}
