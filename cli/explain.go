package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/report"
)

// explainCommand says why the guard stopped (or let through) one call:
// the chain of earlier calls with the same guard key, what it did with
// each and the first line of each result, and why the detector fired.
func explainCommand() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "why one call was steered or blocked: the chain of calls the guard counted",
		ArgsUsage: "PATH",
		Flags: []cli.Flag{rulesFlag(), presetFlag(), inputFormatFlag(), noRedactFlag(),
			&cli.StringFlag{Name: "session", Usage: "the session `ID`: its selector (ID, or ID/AGENT for a subagent, as reports show it) or a prefix of it; needed when the file holds several"},
			&cli.IntFlag{Name: "call", Usage: "the call number `N` in its session (a decision's call)"},
			formatFlag("explain", "text", "%s"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("explain needs one PATH (see 'loopgate explain --help')")
			}
			if c.Int("call") < 1 {
				return usageError("explain needs --call N (the call number a report gives)")
			}
			if _, err := checkFormat(c, "explain"); err != nil {
				return err
			}
			if err := checkInputFormat(c); err != nil {
				return err
			}
			r, err := loadRules(c)
			if err != nil {
				return err
			}
			var problems []ingest.Problem
			files, err := inputFiles(c, func(p ingest.Problem) { problems = append(problems, p) })
			if err != nil {
				return err
			}
			want := c.String("session")
			var matches []*ingest.Session
			var exact *ingest.Session // the one want names exactly, if any
			for _, f := range files {
				ingest.ReadFile(f, ingest.Options{Format: c.String("input-format"), KeepText: r.ReadsText()}, &ingest.Sink{
					OnSession: func(s *ingest.Session) {
						if ingest.SelectorMatches(s.ID, s.Agent, want) {
							matches = append(matches, s)
							if exact == nil && want != "" && ingest.SelectorExact(s.ID, s.Agent, want) {
								exact = s
							}
						}
					},
					OnProblem: func(p ingest.Problem) { problems = append(problems, p) },
				})
			}
			printProblems(c, problems, len(problems))
			if exact != nil {
				matches = []*ingest.Session{exact}
			}
			switch {
			case len(matches) == 0 && want == "":
				return usageError("no session found in %s", c.Args().First())
			case len(matches) == 0:
				return usageError("no session %q in %s", want, c.Args().First())
			case len(matches) > 1:
				var ids []string
				for _, s := range matches[:min(len(matches), 10)] {
					ids = append(ids, report.Sanitize(s.Selector()))
				}
				more := ""
				if len(matches) > 10 {
					more = fmt.Sprintf(", and %d more", len(matches)-10)
				}
				return usageError("%d sessions match; name one with --session: %s%s", len(matches), strings.Join(ids, ", "), more)
			}
			counter, _ := tokens.New("chars4") // explain counts no savings
			ex, err := analyze.Explain(analyze.Prepare(matches[0]), r, analyze.NewTokenCache(counter), c.Int("call"))
			if err != nil {
				return usageError("%v", err)
			}
			redact := func(s string) string {
				if c.Bool("no-redact") {
					return report.Sanitize(s)
				}
				return report.Sanitize(report.Redact(s))
			}
			if c.String("format") == "json" {
				ex.Key, ex.Why = redact(ex.Key), redact(ex.Why)
				ex.Session, ex.Selector = redact(ex.Session), redact(ex.Selector)
				ex.Decision.Args, ex.Decision.Message = redact(ex.Decision.Args), redact(ex.Decision.Message)
				for i := range ex.Chain {
					ex.Chain[i].Args, ex.Chain[i].Result = redact(ex.Chain[i].Args), redact(ex.Chain[i].Result)
				}
				return report.WriteJSON(c.App.Writer, ex)
			}
			w := c.App.Writer
			d := &ex.Decision
			fmt.Fprintf(w, "session %s, rules %s\n", redact(ex.Selector), r.Name)
			// On a terminal the lines fit its width: the arguments are cut
			// to what the line leaves, the reason wraps.
			width := terminalWidth(outputFile(c))
			head := fmt.Sprintf("call %d (turn %d, line %d): %s ", d.Call, d.Turn, d.Line, redact(d.Tool))
			tail := " -> " + d.Action.String()
			argsWidth := 80
			if width > 0 {
				argsWidth = max(min(argsWidth, width-utf8.RuneCountInString(head+tail)), 20)
			}
			fmt.Fprintf(w, "%s%s%s\n", head, report.AbbreviateArgs(redact(d.Args), argsWidth), tail)
			why := "why: " + redact(ex.Why)
			if width > 0 {
				why = report.Wrap(why, width, width-5, "     ")
			}
			fmt.Fprintln(w, why)
			if ex.Key == "" {
				fmt.Fprintln(w, "the rules give this call no guard key: no earlier call is counted with it")
				return nil
			}
			fmt.Fprintf(w, "\ncalls with the same guard key (%s), * counted:\n", report.AbbreviateArgs(redact(ex.Key), 70))
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "\tCALL\tLINE\tTURN\tACTION\tRESULT (first line)")
			for _, l := range ex.Chain {
				mark := " "
				if l.Counted {
					mark = "*"
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\n", mark, l.Call, l.Line, l.Turn, l.Action, report.AbbreviateArgs(redact(l.Result), 60))
			}
			return tw.Flush()
		},
	}
}
