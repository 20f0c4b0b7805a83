package cli

// Flags and option helpers shared by several commands: rules, report
// options, the output's terminal, input paths and format.

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/cli/progress"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

// Flags shared by several commands. Each is built anew for every app:
// urfave/cli's Apply writes into the flag it parses with (its default,
// whether it was set), so one value shared by the apps of a process
// would be shared by two commands run at once in it (the tests run the
// CLI in parallel in one process; TestFlagsPerApp).

func inputFormatFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "input-format", Usage: "read every file as this format (see 'loopgate formats') instead of detecting it"}
}

func rulesFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "rules", Usage: "rules `FILE` (YAML)"}
}

func presetFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "preset", Usage: "built-in rules `NAME` (default: loopgate; see 'loopgate rules print --preset NAME')"}
}

func jobsFlag() *cli.IntFlag {
	return &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "files read in parallel (0: one per core)"}
}

func strictFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "strict", Usage: "exit 2 when the input has any problem"}
}

func colorFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "color", Value: "auto", Usage: "color: auto|always|never (NO_COLOR is respected in auto)"}
}

func noRedactFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "no-redact", Usage: "show secrets found in arguments and results (redacted by default)"}
}

func tokenizerFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "tokenizer", Value: "o200k_base", Usage: "token counter: o200k_base, cl100k_base, or chars4 (fast approximation)"}
}

func progressFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "progress", Value: "auto", Usage: "progress on standard error: auto (when it is a terminal)|always|never"}
}

func loadRules(c *cli.Context) (*rules.Rules, error) {
	file, preset := c.String("rules"), c.String("preset")
	switch {
	case file != "" && preset != "":
		return nil, usageError("--rules and --preset cannot be used together")
	case file != "":
		r, err := guard.LoadRules(file)
		if err != nil {
			return nil, cli.Exit(err.Error(), ExitUsage)
		}
		return r, nil
	default:
		if preset == "" {
			preset = "loopgate"
		}
		r, err := guard.PresetRules(preset)
		if err != nil {
			return nil, usageError("%v", err)
		}
		return r, nil
	}
}

func reportOptions(c *cli.Context, out *os.File) (report.Options, error) {
	mode := c.String("color")
	if !contains(report.ColorModes(), mode) {
		return report.Options{}, usageError("--color must be auto, always or never, not %q", mode)
	}
	return report.Options{Color: report.ColorEnabled(mode, out), Redact: !c.Bool("no-redact"), Width: terminalWidth(out)}, nil
}

// outputFile is the file the reports go to (standard output when run from
// main), or nil when they go to another writer (tests): color, width and
// the default format follow that writer, not whatever os.Stdout is.
func outputFile(c *cli.Context) *os.File {
	f, _ := c.App.Writer.(*os.File)
	return f
}

// terminalWidth is the width of the terminal behind f, or $COLUMNS, or 0
// (the renderers' default) when neither is known.
func terminalWidth(f *os.File) int {
	if f != nil && isatty.IsTerminal(f.Fd()) {
		if n := terminalColumns(f); n > 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// newProgress is the progress line of a run, on standard error as
// --progress asks.
func newProgress(c *cli.Context) *progress.Line {
	return progress.New(c.String("progress"), c.App.ErrWriter, time.Now)
}

// collectFiles expands the paths, or finds the agents' sessions when none
// is given (input.go).
func collectFiles(c *cli.Context, problem func(ingest.Problem)) ([]string, error) {
	return inputFiles(c, problem)
}

func checkInputFormat(c *cli.Context) error {
	if f := c.String("input-format"); f != "" && ingest.LookupFormat(f) == nil {
		return usageError("unknown --input-format %q (known: %s)", f, strings.Join(ingest.FormatIDs(), ", "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
