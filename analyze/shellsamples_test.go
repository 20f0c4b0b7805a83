package analyze

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/ingest"
	"mvdan.cc/sh/v3/syntax"
)

// TestShellClassOnSamples reads every shell command of the real samples
// beside the repository and checks the classification against a second,
// blunter reading of the same parse: a command the classifier calls an
// observation has no output redirection to a file and runs no program
// known to write (rm, mv, cp, tee, touch, mkdir, sed -i, apply_patch), no
// interpreter and no build, and nothing in the background.
func TestShellClassOnSamples(t *testing.T) {
	samples := filepath.Join("..", "..", "shared", "samples")
	if _, err := os.Stat(samples); err != nil {
		t.Skip("../shared/samples is absent: the real commands are not read")
	}
	var observed, acted, total int
	files := ingest.Expand([]string{samples}, func(ingest.Problem) {})
	for _, f := range files {
		sink := &ingest.Sink{OnProblem: func(ingest.Problem) {}, OnSession: func(s *ingest.Session) {
			for _, tr := range s.Turns {
				for _, rq := range tr.Requests {
					for ci := range rq.Calls {
						c := &rq.Calls[ci]
						if !shellcmd.Tools[c.Tool] {
							continue
						}
						args := c.ArgsValue()
						cmd, ok := shellcmd.FromCall(c.Tool, false, args)
						if !ok {
							t.Errorf("%s:%d: %s is a shell tool but FromCall declines it", f, c.Line, c.Tool)
							continue
						}
						total++
						if cmd.Acts {
							acted++
							continue
						}
						observed++
						text, _ := args.GetString("command")
						if text == "" {
							text, _ = args.GetString("cmd")
						}
						if text == "" {
							continue // an argument vector: read through bash -lc
						}
						if why := writesBluntly(text); why != "" {
							t.Errorf("%s:%d: %q is classed as an observation but %s", f, c.Line, text, why)
						}
					}
				}
			}
		}}
		ingest.ReadFile(f, ingest.Options{}, sink)
	}
	if total == 0 {
		t.Fatal("no shell call found in the samples")
	}
	t.Logf("%d shell calls: %d observations, %d acts", total, observed, acted)
}

// writesBluntly is the second reading: "" when nothing in the command
// writes, else why it may.
func writesBluntly(command string) string {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return "it does not parse"
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Background {
				why = "it runs in the background"
			}
		case *syntax.Redirect:
			out := x.Op == syntax.RdrOut || x.Op == syntax.AppOut || x.Op == syntax.RdrAll || x.Op == syntax.AppAll || x.Op == syntax.ClbOut
			if target := x.Word.Lit(); out && target != "/dev/null" && target != "/dev/stderr" && target != "/dev/stdout" {
				why = "it redirects output to " + target
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			prog := path.Base(x.Args[0].Lit())
			switch prog {
			case "rm", "mv", "cp", "tee", "touch", "mkdir", "apply_patch", "python", "python3", "node", "npm", "go", "make", "cargo", "pip", "curl", "sleep", "kill":
				why = "it runs " + prog
			case "sed":
				for _, a := range x.Args[1:] {
					if l := a.Lit(); l == "-i" || strings.HasPrefix(l, "-i") {
						why = "it runs sed -i"
					}
				}
			}
		}
		return why == ""
	})
	return why
}
