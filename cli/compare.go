package cli

// The compare command: several presets or rules files side by side.

import (
	"io"
	"slices"
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
		}, tuningFlags("compare")...),
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
				rows = append(rows, analyze.CompareRow{Name: configs[i].Name, Source: configs[i].Source, Group: compareGroup(configs[i]), Summary: rep.Summary})
			}
			sortByGroup(rows)
			opt, err := tuningOptions(c, counter, partial, reports[0].Problems)
			if err != nil {
				return err
			}
			return writeReport(c, func(w io.Writer) error { return report.Compare(format, w, rows, facts, opt) })
		},
	}
}

// rulesFilesGroup is the compare group of rules that are no preset.
const rulesFilesGroup = "rules files"

// compareGroup is the group compare shows a row in: the preset's group
// (loopgate's own, seed designs, shipped guards), or rules files.
func compareGroup(r *rules.Rules) string {
	if r.Source == "preset:"+r.Name {
		if g := rules.PresetGroup(r.Name); g != "" {
			return g
		}
	}
	return rulesFilesGroup
}

// sortByGroup orders the rows group by group (rules.PresetGroups, then
// rules files), keeping the order given within a group.
func sortByGroup(rows []analyze.CompareRow) {
	rank := map[string]int{}
	for i, g := range append(rules.PresetGroups(), rulesFilesGroup) {
		rank[g] = i
	}
	slices.SortStableFunc(rows, func(a, b analyze.CompareRow) int { return rank[a.Group] - rank[b.Group] })
}
