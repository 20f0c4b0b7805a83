package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNewDetectorIsOneFile adds a detector the way a contributor would,
// in a copy of the module: one file in analyze/guard
// (testdata/newdetector/same_tool.go) and its section in docs/rules.md
// (testdata/newdetector/rules.md, plus its name in the evaluation-order
// sentence). Nothing else is edited, and the registry tests must pass
// with the new detector among the others: validated, printed, settable,
// saved and restored, documented, no other list. Slow (it builds the
// guard's tests in the copy): skipped with -short.
func TestNewDetectorIsOneFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a copy of the module; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: it lists the module's files to copy")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	list, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the module's files cannot be listed", err)
	}
	// The copy's folder is the same from one run to the next (one per
	// checkout), so that the build cache serves the copy's packages a
	// second time: the compiler writes a package's folder into its
	// output, and a fresh temporary folder made every package of the
	// module new to the cache each run.
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), "loopgate-newdetector-"+hex.EncodeToString(sum[:6]))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		if strings.Contains(rel, "testdata/") || strings.HasPrefix(rel, "fixtures/") || strings.HasPrefix(rel, ".") {
			continue
		}
		copyFile(t, filepath.Join(root, rel), filepath.Join(dir, rel))
	}
	// The one file.
	copyFile(t, filepath.Join("testdata", "newdetector", "same_tool.go"), filepath.Join(dir, "analyze", "guard", "same_tool.go"))
	// Its documentation: its section and override row, and its place in
	// the evaluation order (it ranks last).
	section, err := os.ReadFile(filepath.Join("testdata", "newdetector", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	docPath := filepath.Join(dir, "docs", "rules.md")
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	order := regexp.MustCompile(`(among equals, the first in this order: [a-z_,\s]+)\.`)
	if !order.Match(doc) {
		t.Fatal("docs/rules.md has no evaluation-order sentence")
	}
	doc = order.ReplaceAll(doc, []byte("$1, same_tool."))
	if err := os.WriteFile(docPath, append(doc, section...), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", "^(TestDetectorRegistry|TestOneFilePerDetector|TestNoOtherDetectorList|TestDetectorsNameThemselves)$", "./analyze/guard")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the registry tests fail with the new detector: %v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestDetectorRegistry/same_tool ", "--- PASS: TestOneFilePerDetector ", "--- PASS: TestNoOtherDetectorList "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the copy's test output lacks %q:\n%s", want, out)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
