package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/gate"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/report"
)

// gateInitCommand writes a first gate file from transcripts: one case per
// transcript, its expectations what a replay finds today (the stops, and
// harmful 0), snapshots on; the user edits it and records the snapshots.
func gateInitCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "write a gate file with one case per transcript, expectations taken from a replay",
		ArgsUsage: "PATH...",
		Flags: []cli.Flag{rulesFlag(), presetFlag(), inputFormatFlag(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: gate.DefaultFile, Usage: "the gate `FILE` to write"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite the gate file if it exists"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError("gate init needs the transcripts: PATH... (files or directories)")
			}
			if err := checkInputFormat(c); err != nil {
				return err
			}
			preset := c.String("preset")
			if preset == "" {
				preset = "loopgate"
			}
			r, err := loadRules(c)
			if err != nil {
				return err
			}
			out := c.String("output")
			// What the gate file says the rules are: the preset, or the
			// rules file as the gate file's own directory reaches it.
			under, rulesLine := "the "+preset+" preset", "preset: "+preset
			if file := c.String("rules"); file != "" {
				rel, err := relativeTo(out, file)
				if err != nil {
					return usageError("%v", err)
				}
				under, rulesLine = "the rules in "+file, "rules: "+yamlString(filepath.ToSlash(rel))
			}
			if _, err := os.Stat(out); err == nil && !c.Bool("force") {
				return usageError("%s exists; --force overwrites it, --output FILE writes another", out)
			}
			for _, p := range c.Args().Slice() {
				if p == "-" {
					return usageError("gate init reads files, not standard input: a gate case names a file")
				}
				if _, err := os.Stat(p); err != nil {
					return usageError("%s: %s", p, statError(err))
				}
			}
			var problems []ingest.Problem
			files := ingest.Expand(c.Args().Slice(), func(p ingest.Problem) { problems = append(problems, p) })
			if len(files) == 0 {
				return usageError("no transcript found in %s", strings.Join(c.Args().Slice(), " "))
			}
			counter, err := tokens.New("chars4") // the expectations hold no token counts
			if err != nil {
				return usageError("%v", err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "# Written by loopgate gate init: one case per transcript, its expectations what\n")
			fmt.Fprintf(&b, "# a replay under %s found. Edit them to what the guard must do\n", under)
			fmt.Fprintf(&b, "# (docs/ci.md), then record the snapshots: %s\n", report.GateUpdateCommand(out))
			fmt.Fprintf(&b, "%s\ntokenizer: chars4\nsnapshots: true\ncases:\n", rulesLine)
			names := map[string]bool{}
			written := 0
			var harmful []string // the cases whose harmful: 0 today's replay breaks, at their lines
			for _, f := range files {
				rep := analyze.Replay([]string{f}, analyze.Options{Rules: r, Tokens: counter, Ingest: ingest.Options{Format: c.String("input-format")}})
				problems = append(problems, rep.Problems...)
				if rep.Summary.Sessions == 0 {
					fmt.Fprintf(c.App.ErrWriter, "loopgate: %s: no session read; left out\n", f)
					continue
				}
				rel, err := relativeTo(out, f)
				if err != nil {
					return usageError("%v", err)
				}
				name := initCaseName(f, names)
				s := rep.Summary
				fmt.Fprintf(&b, "\n  - name: %s\n    transcript: %s\n    expect:\n", yamlString(name), yamlString(globEscape(filepath.ToSlash(rel))))
				fmt.Fprintf(&b, "      calls: %d\n      steered: %d\n      blocked: %d\n      deduped: %d\n      halted: %d\n",
					s.Calls, s.Steered, s.Blocked, s.Deduped, s.Halted)
				if s.Harmful > 0 {
					line := strings.Count(b.String(), "\n") + 1
					harmful = append(harmful, fmt.Sprintf("%s:%d (%s: %d harmful)", out, line, name, s.Harmful))
					fmt.Fprintf(&b, "      harmful: 0        # the replay found %d harmful stop(s): tune the rules, or edit this\n", s.Harmful)
				} else {
					b.WriteString("      harmful: 0\n")
				}
				if s.Problems > 0 {
					fmt.Fprintf(&b, "      problems: %d       # input problems the replay found (a gate expects none unless told)\n", s.Problems)
				}
				written++
			}
			if written == 0 {
				return usageError("no session read in %s: no gate file written", strings.Join(c.Args().Slice(), " "))
			}
			if dir := filepath.Dir(out); dir != "." {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return cli.Exit(err.Error(), ExitUsage)
				}
			}
			if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
				return cli.Exit(err.Error(), ExitUsage)
			}
			printProblems(c, problems, len(problems))
			fmt.Fprintf(c.App.Writer, "wrote %s: %s under %s\nedit the expectations, then record the snapshots: %s\n",
				out, plural(written, "case"), under, report.GateUpdateCommand(out))
			if len(harmful) > 0 {
				// A gate expects no harmful stop; these cases fail until
				// the rules are tuned or the expectation is edited (the
				// gate's --update records snapshots, not expectations).
				fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: today's replay has harmful stops in %s, which the gate will fail until you tune the rules or edit the expectation at:\n", plural(len(harmful), "case"))
				for _, h := range harmful {
					fmt.Fprintf(c.App.ErrWriter, "  %s\n", h)
				}
			}
			return nil
		},
	}
}

// relativeTo is path as written in a file at out: relative to out's
// directory (gate files resolve their paths from where they are).
func relativeTo(out, path string) (string, error) {
	dir, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(dir, abs); err == nil {
		return rel, nil
	}
	return abs, nil
}

// initCaseName is a case's name: the transcript's file name, or its path when
// two transcripts share a name (names must differ).
func initCaseName(file string, used map[string]bool) string {
	name := filepath.Base(file)
	if used[name] {
		name = filepath.ToSlash(file)
	}
	for n := 2; used[name]; n++ {
		name = fmt.Sprintf("%s (%d)", filepath.ToSlash(file), n)
	}
	used[name] = true
	return name
}

// globEscape escapes the characters a gate file's transcript reads as a
// glob (it is always matched with filepath.Glob).
func globEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(p)
}

// yamlString writes s as a YAML double-quoted scalar (JSON's string syntax
// is one).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
