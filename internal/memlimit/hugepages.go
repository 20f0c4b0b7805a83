package memlimit

import (
	"strconv"
	"strings"
	"sync"
)

// hugeHeap is how much of the heap's address space the streaming commands
// ask to have backed by transparent huge pages (adviseHugePages). It is
// address space, not memory: a page is only taken when the heap touches
// it. It is the soft limit's size, the heap those commands keep to unless
// a session needs more; past it the heap gets ordinary pages. A smaller range
// gave less of the gain, a larger one no more (docs/performance.md, "Huge
// pages for the heap").
const hugeHeap = streamingLimit

// adviseOnce: the advice is given once per process. Tests run many
// commands in one process, and the heap keeps its advised range.
var adviseOnce sync.Once

// hugePageAdvice says how large a huge page is when advising a range is
// what it takes to get them, 0 otherwise. It reads the kernel's
// transparent huge page setting (the contents of
// /sys/kernel/mm/transparent_hugepage/enabled, such as "always [madvise]
// never"), its huge page size (hpage_pmd_size) and the user's choice (the
// environment variable LOOPGATE_HUGEPAGES): "always" gives them without
// advice, "never" not at all, a setting or size this code does not know
// is left alone, and LOOPGATE_HUGEPAGES=off asks for none, for a system
// where the kernel's work to find huge pages costs more than they save.
func hugePageAdvice(enabled, size, choice string) int {
	if choice == "off" || !strings.Contains(enabled, "[madvise]") {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(size))
	if err != nil || n <= 0 || n&(n-1) != 0 {
		return 0
	}
	return n
}

// hugeRange is the part of the n bytes from address p that starts and
// ends on a boundary of huge bytes (a power of two): the offsets from p of
// its start and end, with end <= start when no whole huge page fits.
func hugeRange(p uintptr, n, huge int) (start, end int) {
	h := uintptr(huge)
	first := (p + h - 1) &^ (h - 1)
	last := (p + uintptr(n)) &^ (h - 1)
	return int(first - p), int(last - p)
}
