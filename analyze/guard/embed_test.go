package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExampleOutsideModule builds and runs the package's runnable example
// (example_test.go) as the main program of a module of its own, which
// requires this one through a replace directive: the example compiles
// only if the guard's exported API holds nothing a program outside this
// module cannot name (an internal package's type), and it must print what
// its Output comment says.
func TestExampleOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body, want := exampleBody(t, string(src))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/embed\n\ngo 1.26\n\n" +
			"require github.com/loopgate/loopgate v0.0.0\n\n" +
			"replace github.com/loopgate/loopgate => " + root + "\n",
		"go.sum": string(sum),
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n\n" +
			"\t\"github.com/loopgate/loopgate/analyze/guard\"\n)\n\nfunc main() {\n" + body + "}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	// The module's requirements come from the module cache or GOPROXY
	// as the environment sets them; the go.sum copied above vouches for
	// them.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in a module of its own: %v\n%s\nmain.go:\n%s", err, out, files["main.go"])
	}
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("the example outside the module printed\n%s\nwant (its Output comment)\n%s", got, want)
	}
}

// exampleBody returns the statements of example_test.go's Example and the
// output its Output comment expects.
func exampleBody(t *testing.T, src string) (body, output string) {
	const open, marker = "func Example() {\n", "\t// Output:\n"
	start := strings.Index(src, open)
	end := strings.Index(src, marker)
	if start < 0 || end < start {
		t.Fatal("example_test.go: no Example with an Output comment")
	}
	body = src[start+len(open) : end]
	rest := src[end+len(marker):]
	rest = rest[:strings.Index(rest, "\n}")]
	var lines []string
	for line := range strings.SplitSeq(rest, "\n") {
		lines = append(lines, strings.TrimPrefix(strings.TrimSpace(line), "// "))
	}
	return body, strings.Join(lines, "\n")
}
