package cli

// The gate command: replay golden transcripts under the rules a gate file
// names and fail (exit 1) when any case's expectations do not hold. The
// gate file's schema and the checks live in analyze/gate; the CI outputs
// (JUnit, SARIF, GitHub annotations and step summary) in package report.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze/gate"
	"github.com/loopgate/loopgate/internal/memlimit"
	"github.com/loopgate/loopgate/report"
)

// snapshotArgsChars is how much of a decision's arguments a snapshot keeps:
// enough to recognize the call, short enough for a one-line diff.
const snapshotArgsChars = 120

func gateCommand() *cli.Command {
	return &cli.Command{
		Name:      "gate",
		Usage:     "CI gate: replay golden transcripts and check the expectations of a gate file",
		ArgsUsage: "[FILE] (default: " + gate.DefaultFile + ")",
		Flags: []cli.Flag{
			jobsFlag(), colorFlag(), noRedactFlag(), maxRecordFlag(),
			&cli.BoolFlag{Name: "update", Usage: "rewrite every case's snapshot from this run instead of comparing with it"},
			&cli.StringFlag{Name: "junit", Usage: "also write a JUnit XML report (one testcase per case) to `FILE`"},
			&cli.StringFlag{Name: "sarif", Usage: "also write a SARIF 2.1.0 report (failed expectations) to `FILE`"},
			&cli.StringFlag{Name: "html", Usage: "also write a self-contained HTML page (cases, pass or fail, diffs) to `FILE`"},
			formatFlag("gate", "table", "what to print: %s (table: one line per case; json: the result as one document, docs/ci.md; html: the page)"),
			gateOutputFlag(),
			&cli.BoolFlag{Name: "sarif-decisions", Usage: "with --sarif, also report every blocked and harmful decision"},
			&cli.BoolFlag{Name: "github", Usage: "print GitHub Actions annotations, and append a summary to $GITHUB_STEP_SUMMARY when it is set"},
		},
		Action:      runGate,
		Subcommands: []*cli.Command{gateInitCommand()},
	}
}

func runGate(c *cli.Context) error {
	// The gate replays as replay does: the same soft memory limit.
	defer memlimit.ForStreaming()()
	if c.NArg() > 1 {
		return usageError("gate takes one gate FILE, not %d (%s)", c.NArg(), strings.Join(c.Args().Slice(), " "))
	}
	if c.Bool("sarif-decisions") && c.String("sarif") == "" {
		return usageError("--sarif-decisions needs --sarif FILE")
	}
	format, err := checkFormat(c, "gate")
	if err != nil {
		return err
	}
	file := gateFile(c.Args().First())
	opt, err := reportOptions(c, reportTarget(c))
	if err != nil {
		return err
	}
	// stop ends the run with exit 2 (the gate file, a snapshot or an
	// output file is wrong); with --github it also annotates the error,
	// at the gate file's line when it has one.
	stop := func(err error) error {
		if c.Bool("github") {
			var gfe *gate.FileError
			if errors.As(err, &gfe) {
				_ = report.GateErrorGitHub(c.App.Writer, gfe.File, gfe.Line, gfe.Msg)
			} else {
				_ = report.GateErrorGitHub(c.App.Writer, "", 0, err.Error())
			}
		}
		return cli.Exit(err.Error(), ExitUsage)
	}
	limit, err := maxRecord(c)
	if err != nil {
		return err
	}
	g, err := gate.Load(file)
	if err != nil {
		var gfe *gate.FileError
		if _, serr := os.Stat(file); errors.Is(serr, fs.ErrNotExist) && errors.As(err, &gfe) {
			gfe.Msg += "; " + gateInitHint(c.Args().First(), file)
		}
		return stop(err)
	}
	res, err := gate.Run(g, gate.Options{
		Jobs:      c.Int("jobs"),
		Update:    c.Bool("update"),
		MaxRecord: limit,
		// Snapshots are committed to a repository: always redacted,
		// whatever --no-redact says.
		SnapshotArgs: func(s string) string { return report.AbbreviateArgs(report.Redact(s), snapshotArgsChars) },
		SnapshotText: report.Redact,
	})
	if err != nil {
		return stop(err)
	}

	dest, err := openReport(c, c.App.Writer)
	if err != nil {
		return stop(err)
	}
	if err := dest.finish(report.GateFormats.Write(format, dest.w, res, opt)); err != nil {
		return stop(err)
	}
	if path := c.String("html"); path != "" {
		if err := writeReportFile(path, func(w io.Writer) error { return report.GateHTML(w, res, opt) }); err != nil {
			return stop(err)
		}
	}
	if path := c.String("junit"); path != "" {
		if err := writeReportFile(path, func(w io.Writer) error { return report.GateJUnit(w, res, opt) }); err != nil {
			return stop(err)
		}
	}
	if path := c.String("sarif"); path != "" {
		sopt := report.SARIFOptions{Decisions: c.Bool("sarif-decisions"), Version: c.App.Version}
		if err := writeReportFile(path, func(w io.Writer) error { return report.GateSARIF(w, res, sopt, opt) }); err != nil {
			return stop(err)
		}
	}
	if c.Bool("github") {
		if err := report.GateGitHub(c.App.Writer, res, opt); err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
		if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
			if err := appendReportFile(path, func(w io.Writer) error { return report.GateMarkdown(w, res, opt) }); err != nil {
				return stop(err)
			}
		}
	}
	if n := res.Failed(); n > 0 {
		return cli.Exit(fmt.Sprintf("gate failed: %d of %d case(s) failed", n, len(res.Cases)), ExitFindings)
	}
	return nil
}

// writeReportFile writes a report to path, creating its directory
// (--junit build/reports/gate.xml works on a clean checkout).
func writeReportFile(path string, render func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if err := render(f); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	return nil
}

func appendReportFile(path string, render func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot append to $GITHUB_STEP_SUMMARY (%s): %v", path, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("cannot append to $GITHUB_STEP_SUMMARY (%s): %v", path, err)
	}
	if err := render(f); err != nil {
		f.Close()
		return fmt.Errorf("cannot append to $GITHUB_STEP_SUMMARY (%s): %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot append to $GITHUB_STEP_SUMMARY (%s): %v", path, err)
	}
	return nil
}

// gateFile is the gate file a run checks: the one named,
// DIR/loopgate.gate.yaml for a directory, loopgate.gate.yaml here for none.
func gateFile(arg string) string {
	if arg == "" {
		return gate.DefaultFile
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return filepath.Join(arg, gate.DefaultFile)
	}
	return arg
}

// gateInitHint says how to write the gate file that is not there.
func gateInitHint(arg, file string) string {
	init := "loopgate gate init PATH..."
	if file != gate.DefaultFile {
		init += " --output " + file
	}
	if arg == "" {
		return "name a gate file (loopgate gate FILE), or write one from transcripts: " + init
	}
	return "write one from transcripts: " + init
}
