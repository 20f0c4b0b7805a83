package cli

// The replay command: one rules file or preset over the transcripts, one
// report, and the exit code --fail-on asks for.

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/memlimit"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "replay transcripts under a rules file or preset and report",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{
			rulesFlag(), presetFlag(), inputFormatFlag(), jobsFlag(), strictFlag(), colorFlag(), noRedactFlag(), tokenizerFlag(), progressFlag(), shardFlag(), maxRecordFlag(),
			formatFlag("replay", "", "report format: %s (default: table on a terminal, json otherwise)"), outputFlag("replay"),
			&cli.StringFlag{Name: "fail-on", Value: "never", Usage: "exit 1 when any call is: steer (steered or worse)|block (blocked, deduped or halted)|harmful|never"},
			&cli.IntFlag{Name: "max-decisions", Value: 20, Usage: "decisions listed per session in table and markdown reports (0: all)"},
		}, slices.Concat(inputFlags(), replayFlags(), cacheFlags())...),
		Action: func(c *cli.Context) error {
			defer memlimit.ForStreaming()()
			r, err := loadRules(c)
			if err != nil {
				return err
			}
			if err := checkInputFormat(c); err != nil {
				return err
			}
			format, err := reportFormat(c, "replay")
			if err != nil {
				return err
			}
			failOn := c.String("fail-on")
			if !contains([]string{"steer", "block", "harmful", "never"}, failOn) {
				return usageError("--fail-on must be steer, block, harmful or never, not %q", failOn)
			}
			counter, err := tokens.New(c.String("tokenizer"))
			if err != nil {
				return usageError("%v", err)
			}
			opt, err := reportOptions(c, reportTarget(c))
			if err != nil {
				return err
			}
			opt.MaxDecisions = c.Int("max-decisions")
			if err := replayReportOptions(c, &opt); err != nil {
				return err
			}

			in, err := ingestOptions(c)
			if err != nil {
				return err
			}
			var early []ingest.Problem
			files, err := collectFiles(c, func(p ingest.Problem) { early = append(early, p) })
			if err != nil {
				return err
			}
			files, shard, err := applyShard(c, files)
			if err != nil {
				return err
			}
			opt.Partial = shard.partial(files, []*rules.Rules{r}, counter.Name(), len(early))
			cache, trimCache, err := openCache(c)
			if err != nil {
				return err
			}
			defer trimCache()
			prog := newProgress(c)
			dest, err := openReport(c, prog.ErasingOnTerminal(c.App.Writer))
			if err != nil {
				return err
			}
			defer dest.finish(errAborted)
			read, stopProgress := prog.Watch(files)
			in.BytesRead, in.Keep, in.ProblemsLeftOut = read, sessionKeep(c), problemsLeftOut(c)
			ropt := analyze.Options{Rules: r, Tokens: counter, Jobs: c.Int("jobs"), Ingest: in, Progress: prog.Update}
			if ropt.Cache = cache; cache != nil {
				ropt.CacheVersion = cacheVersion()
			}
			out := dest.w
			var jl *report.JSONL
			if format == "jsonl" {
				jl = report.NewJSONL(out, opt)
				ropt.DropSessions = true
				// The lines of each file go out when it is done.
				ropt.FileEmitted = func() { _ = jl.Flush() }
			} else {
				// The report's sessions wait on disk, not in memory, for
				// the report to be written (analyze/spill.go).
				ropt.SpillSessions = spillSessions
			}
			var usage analyze.TokensInfo
			ropt.OnSession = func(s *analyze.SessionResult) {
				usage.NoteUsage(s)
				if jl != nil {
					_ = jl.Session(s)
				}
			}
			estimatedBefore := tokens.Estimated(counter)
			rep := analyze.Replay(files, ropt)
			stopProgress()
			if ropt.Cache == nil {
				// With a cache, the replay counted them per session.
				rep.Tokens.EstimatedTexts = tokens.Estimated(counter) - estimatedBefore
			}
			defer rep.Close()
			rep.Problems = append(early, rep.Problems...)
			rep.Summary.Problems += len(early)
			rep.Tokens.SessionsUsageUnused = usage.SessionsUsageUnused
			warnApproximated(c, counter)
			if err := rep.SpillError(); err != nil {
				fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: session summaries could not wait in a temporary file (%v); they were kept in memory (set TMPDIR to a writable directory)\n", err)
			}
			if jl != nil {
				err = jl.Finish(rep)
			} else {
				err = report.Render(format, out, rep, opt)
			}
			if err = dest.finish(err); err != nil {
				return cli.Exit(err.Error(), ExitUsage)
			}
			printProblems(c, rep.Problems, rep.Summary.Problems)
			return verdict(c, rep, failOn)
		},
	}
}

// spillSessions is replay's Options.SpillSessions for the formats that
// need the whole report; a test turns it off to compare.
var spillSessions = true

// warnApproximated says on standard error when the tokenizer could not
// count some texts and counted them as bytes/4 instead (internal/tokens):
// the report's tokenizer label would otherwise claim more than was done.
func warnApproximated(c *cli.Context, counter tokens.Counter) {
	if n := tokens.Approximated(counter); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: %s could not tokenize %d text(s); they were counted as bytes/4\n", counter.Name(), n)
	}
	if n := tokens.Estimated(counter); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "loopgate: note: %d text(s) over 4 MiB were not tokenized whole; their tokens are estimated from their first and last 512 KiB\n", n)
	}
}

// verdict turns a finished report into the exit code: 2 under --strict
// when the input had problems, 1 when --fail-on tripped.
func verdict(c *cli.Context, rep *analyze.Report, failOn string) error {
	s := rep.Summary
	if c.Bool("strict") && s.Problems > 0 {
		return cli.Exit(fmt.Sprintf("%d input problem(s) and --strict is set", s.Problems), ExitUsage)
	}
	tripped := false
	switch failOn {
	case "steer":
		tripped = s.Steered+s.Blocked+s.Deduped+s.Halted > 0
	case "block":
		tripped = s.Blocked+s.Deduped+s.Halted > 0
	case "harmful":
		tripped = s.Harmful > 0
	}
	if tripped {
		return cli.Exit(fmt.Sprintf("--fail-on %s tripped (steered %d, blocked %d, deduped %d, halted %d, harmful %d)", failOn, s.Steered, s.Blocked, s.Deduped, s.Halted, s.Harmful), ExitFindings)
	}
	return nil
}
