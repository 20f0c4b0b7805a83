package cli

// What compare and sweep share: the report format and replaying the
// corpus once under several rules.

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

// tuningFormat picks the report format of compare and sweep.
func tuningFormat(c *cli.Context) (string, error) {
	return reportFormat(c, c.Command.Name)
}

// tuningOptions are the report options of compare and sweep once the
// corpus is replayed: the tokenizer's warnings said, the shard's partial
// and the first report's input problems set.
func tuningOptions(c *cli.Context, counter tokens.Counter, partial *analyze.Partial, problems []analyze.Problem) (report.Options, error) {
	warnApproximated(c, counter)
	opt, err := reportOptions(c, reportTarget(c))
	if err != nil {
		return opt, err
	}
	opt.Partial = partial
	opt.Problems = problems
	return opt, nil
}

// replayConfigs reads the paths once and replays them under each of cfgs,
// for compare and sweep (analyze.ReplayAll: bounded memory, whatever the
// corpus size). With --strict, any input problem is printed and the run
// fails without a report. onSession, when given, receives each session's
// result under the first configuration.
func replayConfigs(c *cli.Context, cfgs []*rules.Rules, counter tokens.Counter, onSession ...func(*analyze.SessionResult)) ([]*analyze.Report, analyze.CorpusFacts, *analyze.Partial, error) {
	if err := checkInputFormat(c); err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	in, err := ingestOptions(c)
	if err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	var early []ingest.Problem
	files, err := collectFiles(c, func(p ingest.Problem) { early = append(early, p) })
	if err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	files, shard, err := applyShard(c, files)
	if err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	partial := shard.partial(files, cfgs, counter.Name(), len(early))
	prog := newProgress(c)
	read, stopProgress := prog.Watch(files)
	in.BytesRead, in.Keep, in.ProblemsLeftOut = read, sessionKeep(c), problemsLeftOut(c)
	opt := analyze.Options{Tokens: counter, Jobs: c.Int("jobs"), Ingest: in, Progress: prog.Update}
	for _, f := range onSession {
		opt.OnSession = f
	}
	reports, facts := analyze.ReplayAll(files, opt, cfgs, early)
	stopProgress()
	if problems := reports[0].Problems; c.Bool("strict") && len(problems) > 0 {
		for _, p := range problems {
			msg := p.Message
			if !c.Bool("no-redact") {
				msg = report.Redact(msg) // a message may quote a call id or tool name
			}
			fmt.Fprintf(c.App.ErrWriter, "%s:%d: %s\n", report.SafeLine(p.File), p.Line, report.Sanitize(msg))
		}
		// The summary counts the problems a file had past those listed.
		return nil, facts, nil, cli.Exit(fmt.Sprintf("%d input problem(s) and --strict is set", reports[0].Summary.Problems), ExitUsage)
	}
	printProblems(c, reports[0].Problems, reports[0].Summary.Problems)
	return reports, facts, partial, nil
}

// tuningFlags are the flags compare and sweep share; command names the
// one whose formats --format lists.
func tuningFlags(command string) []cli.Flag {
	return append([]cli.Flag{inputFormatFlag(), jobsFlag(), strictFlag(), colorFlag(), noRedactFlag(), tokenizerFlag(), progressFlag(), shardFlag(), maxRecordFlag(),
		formatFlag(command, "", "%s (default: table on a terminal, json otherwise)"), outputFlag(command)}, inputFlags()...)
}
