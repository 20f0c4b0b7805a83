package cli

// The inspect command: the normalized stream, session by session.

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/memlimit"
	"github.com/loopgate/loopgate/report"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show the normalized stream: sessions, turns, requests, calls",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{
			inputFormatFlag(), jobsFlag(), strictFlag(), colorFlag(), noRedactFlag(), rulesFlag(), presetFlag(), progressFlag(), shardFlag(), maxRecordFlag(),
			formatFlag("inspect", "table", "%s"),
			&cli.BoolFlag{Name: "calls", Usage: "list every call"},
		}, inputFlags()...),
		Action: func(c *cli.Context) error {
			defer memlimit.ForStreaming()()
			format, err := checkFormat(c, "inspect")
			if err != nil {
				return err
			}
			if err := checkInputFormat(c); err != nil {
				return err
			}
			r, err := loadRules(c) // only for the class column
			if err != nil {
				return err
			}
			opt, err := reportOptions(c, outputFile(c))
			if err != nil {
				return err
			}
			in, err := ingestOptions(c)
			if err != nil {
				return err
			}
			var problems []ingest.Problem
			addProblem := func(p ingest.Problem) { problems = append(problems, p) }
			files, err := collectFiles(c, addProblem)
			if err != nil {
				return err
			}
			if files, _, err = applyShard(c, files); err != nil {
				return err
			}
			withCalls := c.Bool("calls")
			sessions := []report.InspectSession{}
			prog := newProgress(c)
			read, stopProgress := prog.Watch(files)
			// JSON is written as the sessions come (a corpus of millions of
			// sessions is not held); the table needs them all for its widths.
			var jw *report.InspectJSONWriter
			if format == "json" {
				jw = report.NewInspectJSONWriter(prog.ErasingOnTerminal(c.App.Writer), opt)
			}
			// Each file's problems are listed as a replay lists them: the
			// first 1000, then one entry for the rest; all are counted.
			// Files are read in parallel and shown in their order, the
			// same for any --jobs.
			count := len(problems)
			var bytesDone int64
			in.BytesRead, in.Keep, in.ProblemsLeftOut = read, sessionKeep(c), problemsLeftOut(c)
			analyze.ReadInOrder(files, c.Int("jobs"), in,
				func(s *ingest.Session) report.InspectSession {
					return report.NewInspectSession(s, r.ClassOf, withCalls, opt)
				},
				func(is report.InspectSession) {
					if jw != nil {
						jw.Session(&is)
					} else {
						sessions = append(sessions, is)
					}
				},
				func(i int, fp *analyze.FileProblems) {
					problems = append(problems, fp.List...)
					count += fp.Count()
					if !prog.Enabled() {
						return
					}
					if fi, err := os.Stat(files[i]); err == nil {
						bytesDone += fi.Size()
					}
					prog.Update(i+1, len(files), bytesDone)
				})
			stopProgress()
			if jw != nil {
				err = jw.Finish(problems)
			} else {
				err = report.InspectTable(c.App.Writer, sessions, problems, count, opt)
			}
			if err != nil {
				return cli.Exit(err.Error(), ExitUsage)
			}
			printProblems(c, problems, count)
			if c.Bool("strict") && count > 0 {
				return cli.Exit(fmt.Sprintf("%d input problem(s) and --strict is set", count), ExitUsage)
			}
			return nil
		},
	}
}
