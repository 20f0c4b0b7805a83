package cli

// The sweep command: thresholds varied over a range, one row per setting.

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "vary thresholds; precision, recall and tokens per setting, with the Pareto front",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{rulesFlag(), presetFlag(),
			&cli.StringSliceFlag{Name: "vary", Usage: "`KEY=RANGE` to vary, e.g. tools.class:read.block_at=2..6 or detectors.repeat.block_at=3,5 (repeatable: the cross product is replayed)"},
		}, tuningFlags("sweep")...),
		Action: func(c *cli.Context) error {
			format, err := tuningFormat(c)
			if err != nil {
				return err
			}
			base, err := loadRules(c)
			if err != nil {
				return err
			}
			counter, err := tokens.New(c.String("tokenizer"))
			if err != nil {
				return usageError("%v", err)
			}
			if len(c.StringSlice("vary")) == 0 {
				return usageError("sweep needs at least one --vary KEY=RANGE (see 'loopgate sweep --help')")
			}
			var varies []analyze.Vary
			for _, spec := range c.StringSlice("vary") {
				v, err := analyze.ParseVary(spec)
				if err != nil {
					return usageError("%v", err)
				}
				varies = append(varies, v)
			}
			// Check every key and value before reading the corpus.
			cfgs, settings, err := analyze.Configs(base, varies)
			if err != nil {
				return usageError("%v", err)
			}
			// The base rules as they are come first: the row every setting
			// is measured against. A varied key of a detector the base has
			// off turns it on in every other row, which is said.
			baseRow := make([]analyze.Setting, len(varies))
			for i, v := range varies {
				baseRow[i] = analyze.Setting{Key: v.Key, Value: base.Value(v.Key)}
				if d, off := base.DetectorOff(v.Key); off {
					baseRow[i].Value = "off"
					fmt.Fprintln(c.App.ErrWriter, fitStderr(c, fmt.Sprintf("loopgate: note: %s is off in %s; varying %s turns it on (the base row has it off)", d, base.Name, v.Key)))
				}
			}
			cfgs = append([]*rules.Rules{base}, cfgs...)
			settings = append([][]analyze.Setting{baseRow}, settings...)
			reports, facts, partial, err := replayConfigs(c, cfgs, counter)
			if err != nil {
				return err
			}
			rows := analyze.SweepRows(settings, reports)
			rows[0].Base = true
			opt, err := tuningOptions(c, counter, partial, reports[0].Problems)
			if err != nil {
				return err
			}
			return writeReport(c, func(w io.Writer) error {
				return report.Sweep(format, w, base.Name+" ("+base.Source+")", rows, facts, opt)
			})
		},
	}
}
