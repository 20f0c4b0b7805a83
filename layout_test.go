package main

import (
	gobuild "go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mayImport is docs/architecture.md's table of which of the module's
// packages each package may import directly. Data flows one way, ingest ->
// analyze -> report; the guard is a library that knows nothing of ingest,
// tokenizers or reports; the command line (cli) is the only package that
// sees them all. A package missing here fails the test: a new
// package takes its place in the table and in the document.
var mayImport = map[string][]string{
	".":                             {"cli"},
	"ingest":                        {"internal/decisionlog", "internal/jsonx", "internal/lazyre", "internal/resultmembers"},
	"rules":                         {"internal/jsonx", "internal/snapbin", "internal/yamlstrict"},
	"analyze/guard":                 {"analyze/guard/internal/bridge", "analyze/guard/shellcmd", "rules", "internal/jsonx", "internal/resultmembers", "internal/snapbin"},
	"analyze/guard/internal/bridge": {"analyze/guard/shellcmd", "rules", "internal/jsonx", "internal/resultmembers"},
	"analyze/guard/shellcmd":        {"internal/jsonx"},
	"analyze/guard/replayfast":      {"analyze/guard", "analyze/guard/internal/bridge", "analyze/guard/shellcmd", "internal/jsonx", "internal/resultmembers"},
	"analyze/pipeline":              {},
	"analyze":                       {"analyze/guard", "analyze/guard/replayfast", "analyze/guard/shellcmd", "analyze/pipeline", "ingest", "rules", "internal/jsonx", "internal/tokens"},
	"analyze/gate":                  {"analyze", "analyze/guard", "ingest", "rules", "internal/atomicfile", "internal/tokens", "internal/yamlstrict"},
	"report":                        {"analyze", "analyze/gate", "analyze/guard", "ingest", "internal/jsonx", "internal/redact"},
	"live":                          {"analyze/guard", "rules", "internal/agents", "internal/atomicfile", "internal/decisionlog", "internal/jsonx", "internal/redact", "internal/snapbin"},
	"live/hookcmd":                  {"live", "analyze/guard", "ingest", "rules"},
	"live/simulate":                 {"live", "analyze", "ingest", "rules", "internal/decisionlog", "internal/jsonx", "internal/redact", "internal/tokens"},
	"cli":                           {"*"},
	"internal/jsonx":                {},
	"internal/lazyre":               {},
	"internal/agents":               {},
	"internal/yamlstrict":           {},
	"internal/tokens":               {"internal/atomicfile"},
	"internal/redact":               {"internal/jsonx", "internal/lazyre"},
	"internal/snapbin":              {},
	"internal/resultmembers":        {},
	"internal/decisionlog":          {"internal/jsonx"},
	"internal/atomicfile":           {},
	"internal/periodic":             {},
	"cli/progress":                  {"internal/periodic"},
	"internal/memlimit":             {"internal/periodic"},
	"internal/corpusgen":            {},
	"internal/formatcheck":          {},
	"cmd/gencorpus":                 {"internal/corpusgen"},
	"cmd/hookbench":                 {"live", "rules"},
	"cmd/loopgate-hook":             {"live/hookcmd"},
	"cmd/linefloor":                 {"ingest", "internal/jsonx"},
	"cmd/formatcheck":               {"ingest", "internal/formatcheck"},
	"lab":                           {},
	"cmd/genpartials":               {"analyze", "analyze/guard", "report", "rules"},
	"internal/filecache":            {"internal/atomicfile"},
}

// floors is the house drawn by top-level folder, from the foundation up:
// a package may import only from a floor below its own (or from its own
// folder, as analyze/gate imports analyze). internal/ is the foundation
// (JSON, tokens, redaction, strict YAML, ...) and imports nothing above
// it; the command layer (cli, live) sits on top of what it drives.
var floors = map[string]int{
	"internal": 0,
	"ingest":   1,
	"rules":    1,
	"analyze":  2,
	"report":   3,
	"live":     3,
	"cli":      4,
	".":        5,
	"cmd":      5,
	"lab":      5,
}

// topFolder is the first element of a package's path in the module.
func topFolder(pkg string) string {
	top, _, _ := strings.Cut(pkg, "/")
	return top
}

// floor is the floor of a package's top-level folder; a folder missing
// from floors is put above everything, so TestLayout's table check names it.
func floor(pkg string) int {
	if f, ok := floors[topFolder(pkg)]; ok {
		return f
	}
	return 99
}

// TestLayout checks every package's imports (tests excluded) against
// mayImport, and that nothing but main imports the command line.
func TestLayout(t *testing.T) {
	const module = "github.com/loopgate/loopgate"
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "fixtures" || d.Name() == "docs" || d.Name() == "build") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		pkg, err := gobuild.ImportDir(dir, 0)
		if err != nil {
			continue // no Go files, or only tests
		}
		name := filepath.ToSlash(dir)
		allowed, known := mayImport[name]
		if !known {
			t.Errorf("package %s is not in the layout table (mayImport, docs/architecture.md)", name)
			continue
		}
		checked++
		for _, imp := range pkg.Imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				if imp == module {
					t.Errorf("%s imports main", name)
				}
				continue
			}
			if rel == "cli" && name != "." {
				t.Errorf("%s imports cli: only main may", name)
			}
			if from, to := floor(name), floor(rel); from <= to && topFolder(name) != topFolder(rel) {
				t.Errorf("%s (floor %d) imports %s (floor %d): an import running back up the house (docs/architecture.md)", name, from, rel, to)
			}
			if !slices.Contains(allowed, "*") && !slices.Contains(allowed, rel) {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow it", name, rel)
			}
		}
	}
	if checked < len(mayImport) {
		t.Errorf("checked %d packages, the table names %d: a package in the table is gone", checked, len(mayImport))
	}
}
