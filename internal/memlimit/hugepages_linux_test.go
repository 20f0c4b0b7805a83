package memlimit

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAdviseHugePages: where the system gives huge pages to the ranges
// that ask, the heap then has a range of at least 64 MiB marked for them
// ("hg" in /proc/self/smaps), and asking took no memory: the peak resident
// set grew by less than 32 MiB, though hugeHeap bytes were allocated to
// find the range. It fails with the advice changed to MADV_NORMAL, and
// with the allocation's pages touched.
func TestAdviseHugePages(t *testing.T) {
	if systemHugePage() == 0 {
		t.Skip("transparent huge pages are not given on advice here (/sys/kernel/mm/transparent_hugepage), or LOOPGATE_HUGEPAGES=off")
	}
	// Writing 5 to clear_refs sets the peak (VmHWM) to the present size.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("the peak resident set cannot be reset here: %v", err)
	}
	before := statusBytes(t, "VmHWM:")
	adviseHugePages()
	if grew := statusBytes(t, "VmHWM:") - before; grew > 32<<20 {
		t.Errorf("the peak resident set grew by %d MiB", grew>>20)
	}
	if got := advisedBytes(t); got < 64<<20 {
		t.Errorf("%d MiB of the address space advised for huge pages, want at least 64", got>>20)
	}
}

// statusBytes reads a size in kB from /proc/self/status.
func statusBytes(t *testing.T, field string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == field && f[2] == "kB" {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return n << 10
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

// advisedBytes sums the sizes of the mappings whose VmFlags have "hg".
func advisedBytes(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	total, size := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "Size:":
			size, _ = strconv.Atoi(fields[1])
		case len(fields) > 0 && fields[0] == "VmFlags:":
			for _, flag := range fields[1:] {
				if flag == "hg" {
					total += size << 10
				}
			}
		}
	}
	return total
}
