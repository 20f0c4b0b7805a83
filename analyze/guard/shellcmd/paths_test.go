package shellcmd

import (
	"path"
	"strings"
	"testing"
)

// overlapSplit is Overlap written over split components, the plain
// reading of its rule, which Overlap must agree with.
func overlapSplit(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	a, b = clean(a), clean(b)
	if a == "." || b == "." || a == "/" || b == "/" {
		return true
	}
	split := func(p string) []string {
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		for _, c := range parts {
			if c == ".." {
				return nil
			}
		}
		return parts
	}
	starts := func(short, long []string) bool {
		if len(short) > len(long) {
			return false
		}
		for i := range short {
			if short[i] != long[i] {
				return false
			}
		}
		return true
	}
	inRow := func(short, long []string) bool {
		for i := 0; i+len(short) <= len(long); i++ {
			if starts(short, long[i:]) {
				return true
			}
		}
		return false
	}
	ca, cb := split(a), split(b)
	if ca == nil || cb == nil {
		return true
	}
	if path.IsAbs(a) && path.IsAbs(b) {
		return starts(ca, cb) || starts(cb, ca)
	}
	if inRow(ca, cb) || inRow(cb, ca) {
		return true
	}
	// The last components of the absolute one are the first of the
	// relative one.
	tailHead := func(abs, rel []string) bool {
		for i := range abs {
			if starts(abs[i:], rel) {
				return true
			}
		}
		return false
	}
	switch {
	case path.IsAbs(a) && !path.IsAbs(b):
		return tailHead(ca, cb)
	case path.IsAbs(b) && !path.IsAbs(a):
		return tailHead(cb, ca)
	}
	return false
}

var overlapSeeds = [][2]string{
	{"src/a.go", "/repo/src/a.go"}, {"a/b", "xa/b"}, {"a/b", "a/bc"}, {"a/b", "x/a/b/c"},
	{"/r/a", "/r/a/b"}, {"/r/ab", "/r/a"}, {"..", "a"}, {"a/../../b", "c"}, {"a..b", "a..b/c"},
	{"x/..y", "..y"}, {"a", "b/a/a"}, {"a/a", "b/a/a/a"}, {"/", "x"}, {"~", "x"}, {`a\b`, "a/b"},
	{"s/*.go", "s/x"}, {"/a/b/", "/a/b"}, {"./a", "a"}, {"a//b", "a/b"},
	{"/r/src", "src/a"}, {"/r/src/lib", "src/lib/a"}, {"/r/src", "lib/a"}, {"/r/a/b", "b"}, {"/r/ab", "b/c"},
}

// TestOverlapMatchesSplit: Overlap gives what the component-wise reading
// gives, both ways round.
func TestOverlapMatchesSplit(t *testing.T) {
	for _, c := range overlapSeeds {
		for _, p := range [][2]string{c, {c[1], c[0]}} {
			if got, want := Overlap(p[0], p[1]), overlapSplit(p[0], p[1]); got != want {
				t.Errorf("Overlap(%q, %q) = %v, component-wise %v", p[0], p[1], got, want)
			}
		}
	}
}

func FuzzOverlapMatchesSplit(f *testing.F) {
	for _, c := range overlapSeeds {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := Overlap(a, b), overlapSplit(a, b); got != want {
			t.Errorf("Overlap(%q, %q) = %v, component-wise %v", a, b, got, want)
		}
	})
}
