package main

import (
	"bufio"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A reference in the repository's code comments, docs, scripts and presets
// must resolve for someone holding only the repository: to a file of it
// (docs/architecture.md, docs/rules.md, ...) or to a public URL. These are
// the references that do not: the product design and the reference notes
// the project was started from, the lab's shared folder, the tracker's issue
// numbers, and paths of a developer's machine.
var unresolvable = []struct {
	what string
	re   *regexp.Regexp
}{
	{"DESIGN.md, which is not in the repository", regexp.MustCompile(`DESIGN\.md`)},
	{"the lab's shared folder", regexp.MustCompile(`(?:^|[^\w/.-])(?:\.\./)?shared/(?:samples|reference|DESIGN)`)},
	{"a reference note outside the repository", regexp.MustCompile(`(?:^|[^\w/.-])reference/[\w-]+\.md`)},
	{"an issue number", regexp.MustCompile(`(?i)\bissues?\s+#?[0-9]+\b`)},
	{"a path of a developer's machine", regexp.MustCompile(`(?:^|[^\w.~-])/(?:work|root)/|/home/(?:[a-z][\w-]*)/`)},
}

// exampleHomes are home folders of made-up users that docs and comments
// write example paths under (a session folder, a working directory).
var exampleHome = regexp.MustCompile(`/home/(?:me|user|u|dev|you|alice|bob)/`)

// samplesPath is where tests and scripts read the lab's real transcripts
// from: data they read (and skip without), not a citation.
var samplesPath = regexp.MustCompile(`\.\./shared/samples`)

// badReference returns what is wrong with text, or "". data says text may
// name the samples folder as data it reads.
func badReference(text string, data bool) string {
	text = exampleHome.ReplaceAllString(text, "")
	if data {
		text = samplesPath.ReplaceAllString(text, "")
	}
	for _, u := range unresolvable {
		if m := u.re.FindString(text); m != "" {
			return strings.TrimSpace(m) + ": " + u.what
		}
	}
	return ""
}

func TestBadReference(t *testing.T) {
	cases := []struct {
		text string
		data bool
		bad  bool
	}{
		{`the JSON contract (DESIGN.md "Reports")`, false, true},
		{`see ../shared/samples/hermes`, false, true},
		{`reads ../shared/samples when present`, true, false},
		{`shared/samples/third-party/hermes`, true, true},
		{`the shapes (reference/formats-hermes.md §3.A)`, false, true},
		{`https://platform.openai.com/docs/api-reference/chat/create`, false, false},
		{`found in issue 7's review`, false, true},
		{`Issue 8: a gzip stream`, false, true},
		{`local-call guard of issue #3699`, false, true},
		{`https://github.com/HKUDS/nanobot/issues/3699`, false, false},
		{`go.dev/issue/75804`, false, false},
		{`the owner, or issue N when loopgate is wrong`, false, false},
		{`/work/shared/reference/formats-nanobot.md`, false, true},
		{`written on /home/alex/src/loopgate`, false, true},
		{`reading codex sessions in /home/me/.codex/sessions`, false, false},
		{`apps/vscode/src/shared/messages/content.ts`, false, false},
		{`~/.cache/loopgate/o200k_base.bpe`, false, false},
	}
	for _, c := range cases {
		if got := badReference(c.text, c.data); (got != "") != c.bad {
			t.Errorf("badReference(%q, %v) = %q, want bad %v", c.text, c.data, got, c.bad)
		}
	}
}

// TestReferencesResolve reads every Go file's comments, the docs and the
// README, the scripts and CI files, and the presets' comments (rules print
// --source shows them), and fails on a reference that does not resolve
// (unresolvable). Tests and scripts may read ../shared/samples: that is
// data, not a citation. Fenced blocks of the docs show output and data
// files verbatim, whose owners may be tracker issues: there only the other
// references are checked.
func TestReferencesResolve(t *testing.T) {
	t.Parallel()
	fail := func(file string, line int, why string) {
		t.Errorf("%s:%d: %s", file, line, why)
	}
	skipDir := map[string]bool{".git": true, "fixtures": true, "testdata": true, "node_modules": true, "build": true}
	var goFiles, docs []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (skipDir[d.Name()] || strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".go"):
			goFiles = append(goFiles, p)
		case strings.HasSuffix(p, ".md") && (strings.HasPrefix(p, "docs/") || !strings.Contains(p, "/")):
			docs = append(docs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(goFiles) < 100 || len(docs) < 10 {
		t.Fatalf("found %d Go files and %d docs: not the repository's root?", len(goFiles), len(docs))
	}

	fset := token.NewFileSet()
	for _, p := range goFiles {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		data := strings.HasSuffix(p, "_test.go")
		for _, g := range f.Comments {
			for _, c := range g.List {
				for i, line := range strings.Split(c.Text, "\n") {
					if why := badReference(line, data); why != "" {
						fail(p, fset.Position(c.Pos()).Line+i, why)
					}
				}
			}
		}
	}

	for _, p := range docs {
		fenced := false
		eachLine(t, p, func(n int, line string) {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
			}
			why := badReference(line, false)
			if fenced && strings.HasSuffix(why, "an issue number") {
				return
			}
			if why != "" {
				fail(p, n, why)
			}
		})
	}

	// Scripts and CI files whole (their comments, and the messages they
	// print), and the presets' comments.
	var others []string
	for _, glob := range []string{"scripts/*", ".ci/*", "rules/presets/*.yaml", "live/plugins/*"} {
		m, _ := filepath.Glob(glob)
		others = append(others, m...)
	}
	if len(others) < 10 {
		t.Fatalf("found %d scripts, CI files and presets", len(others))
	}
	for _, p := range others {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			continue
		}
		data := strings.HasPrefix(p, "scripts/") || strings.HasPrefix(p, ".ci/")
		eachLine(t, p, func(n int, line string) {
			if why := badReference(line, data); why != "" {
				fail(p, n, why)
			}
		})
	}
}

func eachLine(t *testing.T, p string, fn func(n int, line string)) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		fn(n, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}
