package pipeline

import (
	"os"
	"sort"
)

// largestFirst returns the indices of files in runs of n in the given
// order, each run ordered by size, largest first (ties and unknown sizes
// keep their order).
func largestFirst(files []string, n int) []int {
	sizes := make([]int64, len(files))
	order := make([]int, len(files))
	for i, f := range files {
		order[i] = i
		if fi, err := os.Stat(f); err == nil {
			sizes[i] = fi.Size()
		}
	}
	for start := 0; start < len(order); start += n {
		run := order[start:min(start+n, len(order))]
		sort.SliceStable(run, func(a, b int) bool { return sizes[run[a]] > sizes[run[b]] })
	}
	return order
}
