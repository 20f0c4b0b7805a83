package guard

import (
	gobuild "go/build"
	"strings"
	"testing"
)

// TestGuardImports: the guard, with everything it imports from this
// module, reaches only rules, internal helpers and its own internal
// bridge (to package replayfast); never a reader
// (ingest), the tokenizer or a report, so that a program embedding the
// guard (the live hook) links none of them.
func TestGuardImports(t *testing.T) {
	const module = "github.com/loopgate/loopgate/"
	allowed := func(p string) bool {
		return p == module+"analyze/guard" || p == module+"analyze/guard/internal/bridge" || p == module+"analyze/guard/shellcmd" || p == module+"rules" ||
			(strings.HasPrefix(p, module+"internal/") && p != module+"internal/tokens")
	}
	seen := map[string]bool{}
	var walk func(path, dir string)
	walk = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		pkg, err := gobuild.Import(path, dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if !allowed(imp) {
				t.Errorf("%s imports %s", path, imp)
			}
			walk(imp, pkg.Dir)
		}
	}
	walk(module+"analyze/guard", ".")
	if !seen[module+"rules"] {
		t.Errorf("the walk never reached rules: it saw %v", seen)
	}
}
