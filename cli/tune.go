package cli

// The tune command: the sweep engine over a small grid (or --vary), the
// best setting under a harm budget, the trade-off curve, a rules file.

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

func tuneCommand() *cli.Command {
	var flags []cli.Flag
	for _, f := range tuningFlags("sweep") {
		// tune prints one table (the rules file is its product, its own
		// --output); its --shard chooses on part of the corpus, so that
		// the rest can check the choice (no report for merge).
		switch f.Names()[0] {
		case "format", "output":
		case "shard":
			flags = append(flags, tuneShardFlag())
		default:
			flags = append(flags, f)
		}
	}
	return &cli.Command{
		Name:      "tune",
		Usage:     "search thresholds on your history; the best setting under a harm budget as a rules file",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "start from the preset `NAME` (default: loopgate)"},
			rulesFlag(),
			&cli.IntFlag{Name: "max-harm", Usage: "harm budget: the most harmful stops the chosen setting may make"},
			&cli.StringSliceFlag{Name: "vary", Usage: "`KEY=RANGE` to search instead of the default grid, as sweep takes it (repeatable)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the chosen rules to `FILE` (without it tune only prints)"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite --output if it exists"},
		}, flags...),
		Action: runTune,
	}
}

// tuneShardFlag is replay's --shard for tune: the files it tunes on. The
// split is the one replay, compare and sweep make with the same K/N and
// PATHs, so the other shards hold out the rest.
func tuneShardFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "shard", Usage: "tune on shard `K/N` of the files found only (each file's shard is a hash of its path under its PATH, as replay --shard splits them); check the choice on the other shards with replay --shard"}
}

func runTune(c *cli.Context) error {
	if c.Int("max-harm") < 0 {
		return usageError("--max-harm must be 0 or more")
	}
	base, baseName, err := tuneBase(c)
	if err != nil {
		return err
	}
	out := c.String("output")
	if out != "" && !c.Bool("force") {
		if _, err := os.Stat(out); err == nil {
			return usageError("%s exists; --force overwrites it", out)
		}
	}
	counter, err := tokens.New(c.String("tokenizer"))
	if err != nil {
		return usageError("%v", err)
	}
	varies := analyze.TuneGrid(base)
	if specs := c.StringSlice("vary"); len(specs) > 0 {
		varies = nil
		for _, spec := range specs {
			v, err := analyze.ParseVary(spec)
			if err != nil {
				return usageError("%v", err)
			}
			varies = append(varies, v)
		}
	}
	if len(varies) == 0 {
		return usageError("%s has no blocking threshold to search: name the keys with --vary KEY=RANGE", baseName)
	}
	cfgs, settings, err := analyze.TuneConfigs(base, varies)
	if err != nil {
		return usageError("%v", err)
	}
	newest := ""
	reports, facts, partial, err := replayConfigs(c, cfgs, counter, func(s *analyze.SessionResult) {
		if s.EndedAt > newest { // RFC 3339 UTC to the second: text order is time order
			newest = s.EndedAt
		}
	})
	if err != nil {
		return err
	}
	warnApproximated(c, counter)
	rows := analyze.TuneRows(settings, reports)
	maxHarm := c.Int("max-harm")
	chosen := analyze.Choose(rows, maxHarm)
	w := c.App.Writer
	corpus := analyze.TuneCorpus{Facts: facts, Newest: newest}
	if partial != nil {
		corpus.Shard, corpus.TotalFiles = partial.Shard, partial.TotalFiles
		fmt.Fprintf(w, "Shard %s: %d of the %d files found.\n", partial.Shard, len(partial.Files), partial.TotalFiles)
	}
	fmt.Fprintf(w, "Corpus: %d files, %d sessions, %d calls, %d redundant, %d problems; newest session ended %s.\n",
		facts.Files, facts.Sessions, facts.Calls, facts.Redundant, facts.Problems, orUnknown(newest))
	fmt.Fprintf(w, "Base: %s. %d settings tried; harm budget %d.\n\n", baseName, len(rows), maxHarm)
	printTuneFront(w, rows, chosen)
	fmt.Fprintf(w, "\nbase:   %s\n", analyze.Figures(rows[0].Summary))
	if chosen < 0 {
		return cli.Exit(fmt.Sprintf("no setting keeps to --max-harm %d; raise it or search other values with --vary", maxHarm), ExitFindings)
	}
	fmt.Fprintf(w, "chosen: %s\n", analyze.Figures(rows[chosen].Summary))
	for _, s := range rows[chosen].Settings {
		fmt.Fprintf(w, "  %s: %s\n", s.Key, s.Value)
	}
	if out == "" {
		fmt.Fprintln(w, "Nothing written: --output FILE writes these rules.")
		return nil
	}
	text, err := analyze.TuneFile(cfgs[chosen], baseName, rows, chosen, maxHarm, corpus)
	if err == nil {
		_, err = rules.Parse(text, out) // what we write must load back
	}
	if err != nil {
		return cli.Exit(fmt.Sprintf("cannot write the tuned rules: %v", err), ExitUsage)
	}
	if err := os.WriteFile(out, text, 0o644); err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", out, err), ExitUsage)
	}
	fmt.Fprintf(w, "Wrote %s.\n", out)
	return nil
}

// tuneBase loads the base rules: --rules FILE or --base PRESET.
func tuneBase(c *cli.Context) (*rules.Rules, string, error) {
	file, preset := c.String("rules"), c.String("base")
	if file != "" && preset != "" {
		return nil, "", usageError("--rules and --base cannot be used together")
	}
	if file != "" {
		r, err := rules.Load(file)
		if err != nil {
			return nil, "", usageError("%v", err)
		}
		return r, r.Name, nil
	}
	if preset == "" {
		preset = "loopgate"
	}
	r, err := rules.Preset(preset)
	if err != nil {
		return nil, "", usageError("%v", err)
	}
	return r, preset, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown (no transcript records a time)"
	}
	return s
}

// printTuneFront prints the Pareto front of harm and recall in 80
// columns: the settings' values in the order of the keys listed above
// the table; * marks the chosen row, "base" the base rules.
func printTuneFront(w io.Writer, rows []analyze.TuneRow, chosen int) {
	var keys []string
	for _, s := range rows[0].Settings {
		keys = append(keys, s.Key)
	}
	fmt.Fprintln(w, "Trade-off (the Pareto front of harmful and recall); a setting is the values of")
	for _, k := range keys {
		fmt.Fprintf(w, "  %s\n", k)
	}
	const setWidth = 30
	fmt.Fprintf(w, "  %-*s %7s %7s %9s %13s %8s\n", setWidth, "setting", "harmful", "recall", "precision", "tokens saved", "steered")
	for _, i := range analyze.FrontOrder(rows) {
		r := rows[i]
		var vals []string
		for _, s := range r.Settings {
			vals = append(vals, s.Value)
		}
		label := strings.Join(vals, ", ")
		if r.Base {
			label += " (base)"
		}
		if len(label) > setWidth {
			label = label[:setWidth-1] + "…"
		}
		mark := " "
		if i == chosen {
			mark = "*"
		}
		s := r.Summary
		fmt.Fprintf(w, "%s %-*s %7d %7s %9s %13d %8d\n", mark, setWidth, label, s.Harmful, analyze.Percent(s.Recall), analyze.Percent(s.Precision), s.TokensSaved, s.Steered)
	}
}
