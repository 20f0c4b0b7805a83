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
// ("hg" in /proc/self/smaps), and asking took no memory: the resident set
// grew by less than the 256 MiB that were allocated to find the range.
func TestAdviseHugePages(t *testing.T) {
	enabled, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	size, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if hugePageAdvice(string(enabled), string(size), "") == 0 {
		t.Skipf("transparent huge pages are not given on advice here (%q)", strings.TrimSpace(string(enabled)))
	}
	before := residentBytes(t)
	adviseHugePages()
	if grew := residentBytes(t) - before; grew > 32<<20 {
		t.Errorf("the resident set grew by %d MiB", grew>>20)
	}
	if got := advisedBytes(t); got < 64<<20 {
		t.Errorf("%d MiB of the address space advised for huge pages, want at least 64", got>>20)
	}
}

func residentBytes(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip(err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return pages * os.Getpagesize()
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
