//go:build fuzzreadstarts

package ingest

// The tool behind scripts/fuzzread-starts.sh: it writes
// testdata/fuzzread-starts.txt, the seeds FuzzRead's fuzzing runs start
// from (fuzzStarts says why).

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	_ "unsafe" // go:linkname
)

// fuzzCoverage is the fuzzer's edge counters (internal/fuzz, Go 1.18 and
// later), live when the code is built with -d=libfuzzer.
//
//go:linkname fuzzCoverage internal/fuzz.coverage
func fuzzCoverage() []byte

func TestWriteFuzzReadStarts(t *testing.T) {
	seeds := readSeeds(t)
	cov := fuzzCoverage()
	if len(cov) == 0 {
		t.Fatal("no edge counters: build with -gcflags=...=-d=libfuzzer (scripts/fuzzread-starts.sh)")
	}
	// The edges each seed reaches through FuzzRead's whole check.
	edges := make([][]int, len(seeds))
	all := map[int]bool{}
	for i, s := range seeds {
		clear(cov)
		readOne(t, s.data, s.format, s.name)
		for e, c := range cov {
			if c != 0 {
				edges[i] = append(edges[i], e)
				all[e] = true
			}
		}
	}
	// Greedy cover: the seed that reaches the most edges not yet reached,
	// the smaller input on a tie, until every edge is reached.
	covered := map[int]bool{}
	var keys []string
	for len(covered) < len(all) {
		best, gain := -1, 0
		for i, s := range seeds {
			n := 0
			for _, e := range edges[i] {
				if !covered[e] {
					n++
				}
			}
			if n > gain || n == gain && n > 0 && len(s.data) < len(seeds[best].data) {
				best, gain = i, n
			}
		}
		for _, e := range edges[best] {
			covered[e] = true
		}
		keys = append(keys, seeds[best].key())
	}
	slices.Sort(keys)
	out := fmt.Sprintf("# FuzzRead's fuzzing starts (ingest/fuzz_test.go, fuzzStarts): %d of its %d seeds,\n"+
		"# every one of the %d edges of loopgate's code that the seeds reach. Written by\n"+
		"# scripts/fuzzread-starts.sh; one seed a line: the fixture under fixtures/ and the format forced.\n",
		len(keys), len(seeds), len(all))
	out += strings.Join(keys, "\n") + "\n"
	if err := os.WriteFile(filepath.Join("testdata", "fuzzread-starts.txt"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d seeds of %d reach all %d edges", len(keys), len(seeds), len(all))
}
