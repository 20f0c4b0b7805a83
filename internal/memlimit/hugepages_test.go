package memlimit

import "testing"

func TestHugePageAdvice(t *testing.T) {
	for _, tc := range []struct {
		name, enabled, size, choice string
		want                        int
	}{
		{"madvise", "always [madvise] never\n", "2097152\n", "", 2 << 20},
		{"madvise, arm64 64K granule", "always [madvise] never\n", "536870912\n", "", 512 << 20},
		{"always: huge pages without advice", "[always] madvise never\n", "2097152\n", "", 0},
		{"never", "always madvise [never]\n", "2097152\n", "", 0},
		{"unknown setting", "always madvise never\n", "2097152\n", "", 0},
		{"size unreadable", "always [madvise] never\n", "two MiB\n", "", 0},
		{"size not a power of two", "always [madvise] never\n", "3000000\n", "", 0},
		{"size zero", "always [madvise] never\n", "0\n", "", 0},
		{"nothing read", "", "", "", 0},
		{"turned off", "always [madvise] never\n", "2097152\n", "off", 0},
		{"a choice not known", "always [madvise] never\n", "2097152\n", "on", 2 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hugePageAdvice(tc.enabled, tc.size, tc.choice); got != tc.want {
				t.Errorf("hugePageAdvice(%q, %q, %q) = %d, want %d", tc.enabled, tc.size, tc.choice, got, tc.want)
			}
		})
	}
}

func TestHugeRange(t *testing.T) {
	const huge = 2 << 20
	for _, tc := range []struct {
		name       string
		p          uintptr
		n          int
		start, end int
	}{
		{"aligned", 0xc000000000, 8 << 20, 0, 8 << 20},
		{"starts past a boundary", 0xc000000000 + 4096, 8 << 20, huge - 4096, 3*huge + huge - 4096},
		{"ends short of a boundary", 0xc000000000, 8<<20 - 1, 0, 3 * huge},
		{"no whole huge page", 0xc000000000 + 4096, huge, huge - 4096, huge - 4096},
		{"smaller than a huge page", 0xc000000000 + 4096, 8192, huge - 4096, -4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, end := hugeRange(tc.p, tc.n, huge)
			if start != tc.start || end != tc.end {
				t.Errorf("hugeRange(%#x, %d) = %d, %d, want %d, %d", tc.p, tc.n, start, end, tc.start, tc.end)
			}
			if end > start && ((tc.p+uintptr(start))%huge != 0 || (tc.p+uintptr(end))%huge != 0 || end > tc.n) {
				t.Errorf("range %d..%d of %#x is not whole huge pages inside the allocation", start, end, tc.p)
			}
		})
	}
}
