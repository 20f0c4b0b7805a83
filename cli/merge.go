package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

// This file wires scale-out (docs/scale.md): --shard on the reading
// commands, and 'loopgate merge', which combines the shards' partial
// reports into the report of one run.

func shardFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "shard", Usage: "read only shard `K/N` of the files found (K from 1 to N; each file's shard is a hash of its path under its PATH), and write what 'loopgate merge' needs into json/jsonl reports"}
}

// sharding is the --shard of a run: which files it kept and what its
// partial report must say.
type sharding struct {
	shard analyze.Shard
	total int
	index []int
}

// applyShard keeps the files of --shard K/N (all of them without it).
func applyShard(c *cli.Context, files []string) ([]string, *sharding, error) {
	spec := c.String("shard")
	if spec == "" {
		return files, nil, nil
	}
	sh, err := analyze.ParseShard(spec)
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	kept, index := analyze.ShardFiles(files, c.Args().Slice(), sh)
	return kept, &sharding{shard: sh, total: len(files), index: index}, nil
}

// partial is what a shard's report carries for the merge: nil when the
// run was not sharded.
func (s *sharding) partial(files []string, cfgs []*rules.Rules, tokenizer string, early int) *analyze.Partial {
	if s == nil {
		return nil
	}
	p := &analyze.Partial{
		Version:       loopgateVersion(),
		Tokenizer:     tokenizer,
		Shard:         s.shard.String(),
		TotalFiles:    s.total,
		Files:         append([]string{}, files...),
		FileIndex:     s.index,
		EarlyProblems: early,
	}
	for _, r := range cfgs {
		p.RulesHashes = append(p.RulesHashes, analyze.RulesHash(r))
	}
	return p
}

// loopgateVersion is the module version of a released build, else the VCS
// revision a development build was made from (with "+dirty" for changes
// not committed), else "devel".
func loopgateVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
}

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the partial reports of shards (--shard K/N) into the report of one run",
		ArgsUsage: "PARTIAL... (files, or - for standard input)",
		Flags: append([]cli.Flag{colorFlag(),
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "report format (replay: " + formatChoices("replay") + "; compare and sweep: " + formatChoices("compare") + "; default: table on a terminal, json otherwise)"},
			outputFlag("merge"),
			&cli.BoolFlag{Name: "allow-missing", Usage: "merge even when some shards are missing (they are named on standard error)"},
			&cli.IntFlag{Name: "max-decisions", Value: 20, Usage: "decisions listed per session in table and markdown reports (0: all)"},
			maxRecordFlag(),
		}, replayFlags()...),
		Action: func(c *cli.Context) error {
			names := c.Args().Slice()
			if len(names) == 0 {
				return usageError("no PARTIAL given: name the shards' reports (made with --shard K/N and --format json, or jsonl for replay)")
			}
			limit, err := maxRecord(c)
			if err != nil {
				return err
			}
			var replays []analyze.ReplayPart
			var tunings []analyze.TuningPart
			stdinUsed := false
			for _, name := range names {
				var rp *analyze.ReplayPart
				var tp *analyze.TuningPart
				if name == "-" {
					if stdinUsed {
						return usageError("- is given twice")
					}
					stdinUsed = true
					rp, tp, err = report.ReadPartialMax(name, os.Stdin, limit)
				} else {
					// A file is read as the merge walks it, not held
					// (report.OpenPartial).
					var closeFile func() error
					rp, tp, closeFile, err = report.OpenPartial(name, limit)
					if closeFile != nil {
						defer closeFile()
					}
				}
				if err != nil {
					return cli.Exit(err.Error(), ExitUsage)
				}
				if rp != nil {
					replays = append(replays, *rp)
				} else {
					tunings = append(tunings, *tp)
				}
			}
			if len(replays) > 0 && len(tunings) > 0 {
				return usageError("replay reports and compare or sweep reports cannot be merged together")
			}
			opt, err := reportOptions(c, reportTarget(c))
			if err != nil {
				return err
			}
			// The partial reports were redacted as they were written (or
			// not, under --no-redact): the merge shows what they hold.
			opt.Redact = false
			opt.MaxDecisions = c.Int("max-decisions")
			if err := replayReportOptions(c, &opt); err != nil {
				return err
			}
			warnMissing := func(missing []string) {
				if len(missing) > 0 {
					fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: shard(s) %s missing: this is not the report of one run over all the files\n", strings.Join(missing, ", "))
				}
			}
			if len(replays) > 0 {
				rep, missing, err := analyze.MergeReplays(replays, c.Bool("allow-missing"))
				if err != nil {
					return cli.Exit(err.Error(), ExitUsage)
				}
				defer rep.Close()
				warnMissing(missing)
				if err := rep.SpillError(); err != nil {
					fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: session summaries could not wait in a temporary file (%v); they were kept in memory (set TMPDIR to a writable directory)\n", err)
				}
				format, err := reportFormat(c, "replay")
				if err != nil {
					return err
				}
				return writeReport(c, func(w io.Writer) error { return report.Render(format, w, rep, opt) })
			}
			merged, missing, err := analyze.MergeTuning(tunings, c.Bool("allow-missing"))
			if err != nil {
				return cli.Exit(err.Error(), ExitUsage)
			}
			warnMissing(missing)
			command := "compare"
			if merged.Sweep != nil {
				command = "sweep"
			}
			format, err := reportFormat(c, command)
			if err != nil {
				return err
			}
			opt.Problems = merged.Problems
			return writeReport(c, func(w io.Writer) error {
				if merged.Sweep != nil {
					return report.Sweep(format, w, merged.Base, merged.Sweep, merged.Corpus, opt)
				}
				return report.Compare(format, w, merged.Compare, merged.Corpus, opt)
			})
		},
	}
}
