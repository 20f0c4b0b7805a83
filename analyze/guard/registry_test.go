package guard

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// The detector-registry test: a detector is described once, in its file
// in this package (its settings, registered with the rules, and its
// logic), and everything else that knows detectors is derived from that.

// TestDetectorRegistry: the guard's registry and the rules' table name
// the same detectors, and every one of them is accepted by validation,
// printed by rules print and read back, reachable by its keys (detectors.
// NAME.*, tools.SEL.NAME.*, with tools.SEL.NAME refused as a section like
// tools.SEL.repeat), built into a guard whose state is saved and restored
// exactly, and documented in docs/rules.md.
func TestDetectorRegistry(t *testing.T) {
	for _, name := range rules.DetectorNames {
		if registry[name] == nil {
			t.Errorf("detector %q has no constructor in the registry (its file registers none)", name)
		}
	}
	for name := range registry {
		if !slices.Contains(rules.DetectorNames, name) {
			t.Errorf("the registry has %q, which the rules' table lacks", name)
		}
	}
	if t.Failed() {
		t.FailNow() // a guard of these rules cannot be built
	}
	doc := readDoc(t)
	for _, name := range rules.DetectorNames {
		t.Run(name, func(t *testing.T) {
			checkDetector(t, name, doc)
		})
	}
	order := regexp.MustCompile(`among equals, the first in this order: ([a-z_,\s]+)\.`).FindStringSubmatch(doc)
	got := ""
	if order != nil {
		got = strings.Join(strings.Fields(order[1]), " ")
	}
	if want := strings.Join(rules.DetectorNames, ", "); got != want {
		t.Errorf("docs/rules.md gives the evaluation order as %q, the rules' table %q", got, want)
	}
}

func readDoc(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func checkDetector(t *testing.T, name, doc string) {
	// Validation accepts the detector named with its defaults, and it is on.
	r, err := rules.Parse([]byte("name: only-"+name+"\ndetectors:\n  "+name+": {}\n"), "only-"+name+".yaml")
	if err != nil {
		t.Fatalf("validation refuses it: %v", err)
	}
	if settingsOf(r, name) == nil {
		t.Fatalf("Parse did not keep its settings")
	}
	// rules print writes it, and reads it back the same.
	text, err := r.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^detectors:\n(?:  .*\n)*  ` + name + `:\n    enabled: true\n`).Match(text) {
		t.Errorf("rules print does not write detectors.%s:\n%s", name, text)
	}
	back, err := rules.Parse(text, "printed")
	if err != nil || settingsOf(back, name) == nil {
		t.Errorf("the printed rules do not read back with it: %v", err)
	}
	// Its keys: detectors.NAME.enabled, and every override field under a
	// tool selector; the selector's detector section itself is no value.
	c := r.Clone()
	if err := c.Set("detectors."+name+".enabled", "false"); err != nil {
		t.Errorf("Set(detectors.%s.enabled): %v", name, err)
	}
	fields := rules.OverrideFields(name)
	if !slices.Contains(fields, "off") {
		t.Errorf("its override takes %v, not off", fields)
	}
	for _, f := range fields {
		key := "tools.class:read." + name + "." + f
		c := r.Clone()
		if err := c.Set(key, overrideValue(f)); err != nil {
			t.Errorf("Set(%s): %v", key, err)
			continue
		}
		if !slices.Contains(c.SettableKeys(), key) {
			t.Errorf("SettableKeys lacks %s once it is set", key)
		}
		if c.Tools["class:read"].Override(name) == nil {
			t.Errorf("Set(%s) left no override for the guard to read", key)
		}
	}
	section := r.Clone().Set("tools.read."+name, "3")
	repeatSection := r.Clone().Set("tools.read.repeat", "3")
	if section == nil || repeatSection == nil || strings.Replace(section.Error(), name, "repeat", 1) != repeatSection.Error() {
		t.Errorf("Set(tools.read.%s): %v; tools.read.repeat gives %v", name, section, repeatSection)
	}
	// The guard builds it, alone, and saves and restores its state.
	g := NewGuard(r)
	if len(g.dets) != 1 {
		t.Fatalf("a guard of rules naming only %s has %d detectors", name, len(g.dets))
	}
	for seed := range 2 {
		steps := randomSteps(rand.New(rand.NewPCG(uint64(seed), 11)), 60)
		checkSnapshots(t, fmt.Sprintf("%s seed %d", name, seed), r, steps, 3+seed)
	}
	// Its file, named after it, whose literals the scan reads
	// (TestNoOtherDetectorList).
	if _, err := os.Stat(name + ".go"); err != nil {
		t.Errorf("no file %s.go in analyze/guard: %v", name, err)
	}
	// A detector that counts by key: plain makes the guard build plain
	// keys (usesPlainKeys, callkey.go, knows it).
	if reflect.ValueOf(settingsOf(r, name)).Elem().FieldByName("Key").IsValid() {
		p, err := rules.Parse([]byte("detectors:\n  "+name+": {key: plain}\n"), "plain.yaml")
		if err != nil || !usesPlainKeys(p) {
			t.Errorf("with key: plain, UsesPlainKeys does not say so (%v)", err)
		}
	}
	// docs/rules.md: its section, and its row of override fields.
	if !strings.Contains(doc, "\n**`"+name+"`**:") {
		t.Errorf("docs/rules.md has no section **`%s`**:", name)
	}
	row := regexp.MustCompile("(?m)^\\| `" + name + "` \\| (.*) \\|$").FindStringSubmatch(doc)
	var documented []string
	if row != nil {
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(row[1], -1) {
			documented = append(documented, m[1])
		}
	}
	if !slices.Equal(documented, fields) {
		t.Errorf("docs/rules.md's override table gives %s %v, the rules' table %v", name, documented, fields)
	}
}

// settingsOf returns the detector's settings in the rules, or nil.
func settingsOf(r *rules.Rules, name string) any { return r.Detectors.Settings(name) }

// overrideValue is a value Set takes for an override field.
func overrideValue(field string) string {
	switch {
	case field == "off":
		return "true"
	case strings.HasSuffix(field, "_at"):
		return "7"
	}
	return "text"
}

// nameListRoots are the packages that know detectors by name.
var nameListRoots = []string{".", "../../rules", "..", "../gate", "../../cli", "../../report", "../../live"}

// nameLiteralsAllowed are the places where a detector's name is written
// for another reason than listing detectors: file, the literal, and why.
var nameLiteralsAllowed = map[string]string{
	"analyze/guard/event.go:dedup": "the name of the Dedup action",
	"report/html_replay.go:dedup":  "the Dedup action",
	"analyze/tune.go:no_progress":  "tune's search of shell calls' no_progress threshold",
}

// TestNoOtherDetectorList: a detector's name is written as a string in
// one place only, its own file here (NAME.go); any other such literal in
// the packages that know detectors is a list kept by hand, which drifts.
func TestNoOtherDetectorList(t *testing.T) {
	found := 0
	used := map[string]bool{}
	eachSource(t, nameListRoots, func(rel string, src []byte) {
		for _, lit := range detectorLiterals(t, rel, src) {
			found++
			if _, ok := nameLiteralsAllowed[rel+":"+lit.name]; ok {
				used[rel+":"+lit.name] = true
				continue
			}
			t.Errorf("%s:%d: the detector name %q outside its file analyze/guard/%s.go: derive it from rules.DetectorNames or the detector's registration", rel, lit.line, lit.name, lit.name)
		}
	})
	if found == 0 {
		t.Fatal("no detector literal found at all: the scan reads nothing")
	}
	for place := range nameLiteralsAllowed {
		if !used[place] {
			t.Errorf("nameLiteralsAllowed lets %s, which no longer writes it: drop the entry", place)
		}
	}
}

// TestDetectorsNameThemselves: the name a detector's verdicts carry (the
// "detector" of every report) and the name it resolves its per-tool
// settings by are its registered name, in every detector's file.
func TestDetectorsNameThemselves(t *testing.T) {
	for _, name := range rules.DetectorNames {
		src, err := os.ReadFile(name + ".go")
		if err != nil {
			t.Fatal(err)
		}
		uses := selfNames(t, name+".go", src)
		if len(uses) == 0 {
			t.Errorf("%s.go: no verdict or setting names its detector", name)
		}
		for _, u := range uses {
			if u.name != name {
				t.Errorf("%s.go:%d: the detector %s names itself %q", name, u.line, name, u.name)
			}
		}
	}
	bad := []byte("package guard\n\nfunc f(d *base, c *callCtx, v Verdict) {\n\t_ = d.verdict(Halt, \"stal\", 1, \"\", c, nil)\n\t_ = v.Detector == \"stall\"\n}\n")
	if u := selfNames(t, "stall.go", bad); len(u) != 2 || u[0].name != "stal" {
		t.Errorf("the check misses a misspelt name: %v", u)
	}
}

// selfNames returns the detector names a detector's file gives its
// verdicts (verdict), its settings (effOf, resolve) and the verdicts it
// compares (stoppedByOther, X.Detector == "...").
func selfNames(t *testing.T, file string, src []byte) []nameLiteral {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []nameLiteral
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, _ := strconv.Unquote(lit.Value)
			out = append(out, nameLiteral{s, fset.Position(lit.Pos()).Line})
		}
	}
	argAt := map[string]int{"verdict": 1, "effOf": 1, "resolve": 0, "stoppedByOther": 1}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			fn := ""
			switch f := n.Fun.(type) {
			case *ast.Ident:
				fn = f.Name
			case *ast.SelectorExpr:
				fn = f.Sel.Name
			}
			if i, ok := argAt[fn]; ok && i < len(n.Args) {
				add(n.Args[i])
			}
		case *ast.BinaryExpr:
			for _, side := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
				if sel, ok := side[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Detector" {
					add(side[1])
				}
			}
		}
		return true
	})
	return out
}

// TestNoOtherDetectorListFails: the scan finds a list written anywhere
// else, so TestNoOtherDetectorList can fail.
func TestNoOtherDetectorListFails(t *testing.T) {
	src := []byte("package rules\n\nvar names = []string{\"repeat\", \"stall\", \"other\"}\n\ntype T struct {\n\tF int `yaml:\"cap\"`\n}\n")
	lits := detectorLiterals(t, "rules/set.go", src)
	var got []string
	for _, l := range lits {
		got = append(got, l.name)
	}
	if !slices.Equal(got, []string{"repeat", "stall"}) {
		t.Errorf("the scan found %v in a list of repeat and stall (tags aside)", got)
	}
	if l := detectorLiterals(t, "analyze/guard/stall.go", src); len(l) != 1 || l[0].name != "repeat" {
		t.Errorf("in stall.go, only repeat is another detector's name: %v", l)
	}
}

type nameLiteral struct {
	name string
	line int
}

// detectorLiterals returns the string literals of file (path from the
// repository's root) that are a detector's name, or name a detector's
// key (detectors.NAME..., tools.SEL.NAME...), where that file has no
// reason to write it: struct tags are left out (a settings key such as
// yaml:"key" is no detector's), and a detector's file may write its own
// name.
func detectorLiterals(t *testing.T, file string, src []byte) []nameLiteral {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	tags := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if fl, ok := n.(*ast.Field); ok && fl.Tag != nil {
			tags[fl.Tag] = true
		}
		return true
	})
	own := ""
	if dir, base := filepath.Split(file); dir == "analyze/guard/" {
		own = strings.TrimSuffix(base, ".go")
	}
	var out []nameLiteral
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || tags[lit] {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, name := range rules.DetectorNames {
			if name != own && namesDetector(s, name) {
				out = append(out, nameLiteral{name, fset.Position(lit.Pos()).Line})
			}
		}
		return true
	})
	return out
}

// namesDetector reports whether s is the detector's name or a key of its
// settings.
func namesDetector(s, name string) bool {
	return s == name || strings.HasPrefix(s, "detectors."+name+".") || s == "detectors."+name ||
		strings.HasPrefix(s, "tools.") && strings.Contains(s, "."+name+".")
}

// repoPath returns a file's path from the repository's root.
func repoPath(t *testing.T, file string) string {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

// TestOneFilePerDetector: each detector is one file, NAME.go, that holds
// its registration (register: its settings with the rules, its
// constructor here), its settings type and its constructor; nothing else
// registers detector settings with the rules (a second table or
// registration there or here would be a second list).
func TestOneFilePerDetector(t *testing.T) {
	regs := map[string][]string{} // detector name -> files registering it
	var others []string           // calls of rules.RegisterDetector outside register
	eachSource(t, []string{".", "../../rules"}, func(rel string, src []byte) {
		found := registrations(t, rel, src)
		for _, r := range found.regs {
			regs[r.name] = append(regs[r.name], rel)
			if want := "analyze/guard/" + r.name + ".go"; rel != want {
				t.Errorf("%s registers detector %q, whose file is %s", rel, r.name, want)
				continue
			}
			if !found.types[r.settings] {
				t.Errorf("%s: the settings type %s of %q is not declared in its file", rel, r.settings, r.name)
			}
			if !found.funcs[r.ctor] {
				t.Errorf("%s: the constructor %s of %q is not declared in its file", rel, r.ctor, r.name)
			}
		}
		for _, line := range found.direct {
			if rel != "analyze/guard/detector.go" {
				others = append(others, fmt.Sprintf("%s:%d", rel, line))
			}
		}
	})
	for _, name := range rules.DetectorNames {
		if len(regs[name]) != 1 {
			t.Errorf("detector %q is registered in %v, not once in its own file", name, regs[name])
		}
	}
	if len(regs) != len(rules.DetectorNames) {
		t.Errorf("the sources register %d detectors, the rules know %d", len(regs), len(rules.DetectorNames))
	}
	for _, o := range others {
		t.Errorf("%s: rules.RegisterDetector called outside register (detector.go): a second place that describes detectors", o)
	}
	// The scan itself: a file with a second registration of repeat's
	// settings and a direct call is caught.
	bad := []byte("package guard\n\nvar _ = register(rules.Detector[repeatSettings]{Name: \"repeat\"}, newRepeat)\n\nfunc init() { rules.RegisterDetector(rules.Detector[x]{Name: \"stall\"}) }\n")
	if f := registrations(t, "analyze/guard/table.go", bad); len(f.regs) != 1 || f.regs[0].name != "repeat" || len(f.direct) != 1 {
		t.Errorf("the scan misses a registration: %+v", f)
	}
}

type registration struct{ name, settings, ctor string }

type registrationScan struct {
	regs   []registration
	direct []int // lines calling rules.RegisterDetector
	types  map[string]bool
	funcs  map[string]bool
}

// registrations finds in a file its calls register(rules.Detector[T]{Name:
// "NAME", ...}, ctor), its calls of rules.RegisterDetector, and the types
// and functions it declares.
func registrations(t *testing.T, file string, src []byte) registrationScan {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := registrationScan{types: map[string]bool{}, funcs: map[string]bool{}}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			out.types[n.Name.Name] = true
		case *ast.FuncDecl:
			if n.Recv == nil {
				out.funcs[n.Name.Name] = true
			}
		case *ast.CallExpr:
			switch fn := n.Fun.(type) {
			case *ast.SelectorExpr:
				if fn.Sel.Name == "RegisterDetector" {
					out.direct = append(out.direct, fset.Position(n.Pos()).Line)
				}
			case *ast.Ident:
				if fn.Name != "register" || len(n.Args) != 2 {
					return true
				}
				lit, ok := n.Args[0].(*ast.CompositeLit)
				if !ok {
					return true
				}
				var r registration
				if ix, ok := lit.Type.(*ast.IndexExpr); ok {
					if id, ok := ix.Index.(*ast.Ident); ok {
						r.settings = id.Name
					}
				}
				if id, ok := n.Args[1].(*ast.Ident); ok {
					r.ctor = id.Name
				}
				for _, e := range lit.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
							if v, ok := kv.Value.(*ast.BasicLit); ok {
								r.name, _ = strconv.Unquote(v.Value)
							}
						}
					}
				}
				out.regs = append(out.regs, r)
			}
		}
		return true
	})
	return out
}

// eachSource calls fn with every non-test Go file of the folders (paths
// from this package) and its path from the repository's root.
func eachSource(t *testing.T, roots []string, fn func(rel string, src []byte)) {
	t.Helper()
	for _, root := range roots {
		files, err := filepath.Glob(filepath.Join(root, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fn(repoPath(t, file), src)
		}
	}
}
