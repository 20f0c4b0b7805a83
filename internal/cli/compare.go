package cli

// The compare command: several presets or rules files side by side.

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "several presets or rules files side by side on the same corpus",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "preset", Usage: "presets to compare (comma-separated or repeated; default: all presets when no --rules is given)"},
			&cli.StringSliceFlag{Name: "rules", Usage: "rules files to compare (repeatable)"},
		}, tuningFlags...),
		Action: func(c *cli.Context) error {
			format, err := tuningFormat(c)
			if err != nil {
				return err
			}
			counter, err := tokens.New(c.String("tokenizer"))
			if err != nil {
				return usageError("%v", err)
			}
			var configs []*rules.Rules
			presets := c.StringSlice("preset")
			if len(presets) == 0 && len(c.StringSlice("rules")) == 0 {
				presets = rules.PresetNames()
			}
			var names []string
			for _, p := range presets {
				names = append(names, strings.Split(p, ",")...)
			}
			for _, name := range names {
				if strings.TrimSpace(name) == "" {
					continue
				}
				r, err := rules.Preset(strings.TrimSpace(name))
				if err != nil {
					return usageError("%v", err)
				}
				configs = append(configs, r)
			}
			for _, f := range c.StringSlice("rules") {
				r, err := rules.Load(f)
				if err != nil {
					return cli.Exit(err.Error(), ExitUsage)
				}
				configs = append(configs, r)
			}
			if len(configs) == 0 {
				return usageError("nothing to compare: --preset and --rules name no rules")
			}
			reports, facts, partial, err := replayConfigs(c, configs, counter)
			if err != nil {
				return err
			}
			var rows []analyze.CompareRow
			for i, rep := range reports {
				rows = append(rows, analyze.CompareRow{Name: configs[i].Name, Source: configs[i].Source, Summary: rep.Summary})
			}
			opt, err := tuningOptions(c, counter, partial, reports[0].Problems)
			if err != nil {
				return err
			}
			if err := report.Compare(format, c.App.Writer, rows, facts, opt); err != nil {
				return cli.Exit(err.Error(), ExitUsage)
			}
			return nil
		},
	}
}
