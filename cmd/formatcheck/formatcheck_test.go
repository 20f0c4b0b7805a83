package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/formatcheck"
)

// TestIndependentCount reads every real transcript beside the repository
// with loopgate and with the independent reading (internal/formatcheck)
// and fails on any figure where they differ (sessions, calls, calls with
// results, repeated calls, tokens), and on a file the independent reading
// does not know, unless the expectations file lists it; a listed
// difference that is gone fails as a stale entry.
func TestIndependentCount(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the two readings of every sample (tens of megabytes) are compared in the full tier")
	}
	root := filepath.Join("..", "..", "..", "shared", "samples")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("samples not found at %s (they live beside the repository, not in it): %v", root, err)
	}
	x, err := formatcheck.LoadExpectations(filepath.Join("..", "..", "fixtures", "conformance", "expectations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rows, failures, err := compare(root, x, readLoopgate)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("no file under %s", root)
	}
	for _, f := range failures {
		t.Error(f)
	}
	if t.Failed() {
		var b strings.Builder
		printTable(&b, rows)
		t.Logf("the two readings (go run ./cmd/formatcheck prints the same):\n%s", b.String())
	}
}
