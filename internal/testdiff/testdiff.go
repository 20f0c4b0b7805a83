// Package testdiff words how two texts differ, for test failures: the
// golden, round-trip and equivalence tests of several packages compare
// whole documents and show the first line where they part.
package testdiff

import (
	"strconv"
	"strings"
)

// FirstLine shows the first line where got differs from want, with its
// number, or says that no line differs (the texts then differ only in
// white space at the end).
func FirstLine(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(no line differs; whitespace at end?)"
}
