package cli

// Where a command's report goes and in which format: --format checked
// against the output registry (report.OutputsOf), whose list is also the
// flag's help and its shell completion (completion.go), and --output FILE.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/cli/progress"
	"github.com/loopgate/loopgate/internal/atomicfile"
	"github.com/loopgate/loopgate/report"
)

// formatFlag is a command's --format flag; usage holds one %s, where the
// command's formats go ("table|json|html").
func formatFlag(command, value, usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: value, Usage: fmt.Sprintf(usage, formatChoices(command))}
}

// formatChoices lists a command's formats as its help does.
func formatChoices(command string) string {
	return strings.Join(report.FormatNames(command), "|")
}

// outputFlag is --output of a command that writes a report; the endings
// that choose a format (reportFormat) are listed from the registry.
func outputFlag(command string) *cli.StringFlag {
	var exts []string
	for _, o := range report.OutputsOf(command) {
		if o.Ext != "" {
			exts = append(exts, o.Ext+" "+o.Name)
		}
	}
	return &cli.StringFlag{Name: "output", Aliases: []string{"o"},
		Usage: "write the report to `FILE` instead of standard output (replaced whole once written); without --format, its ending chooses: " + strings.Join(exts, ", ")}
}

// gateOutputFlag is the gate's --output: its --format has a default.
func gateOutputFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "output", Aliases: []string{"o"},
		Usage: "write what --format prints to `FILE` instead of standard output (replaced whole once written)"}
}

// checkFormat is --format checked against the command's formats.
func checkFormat(c *cli.Context, command string) (string, error) {
	format := c.String("format")
	names := report.FormatNames(command)
	if !slices.Contains(names, format) {
		return "", usageError("--format must be %s, not %q", oneOf(names), format)
	}
	return format, nil
}

// oneOf words a list of choices: "a or b", "one of a, b, c".
func oneOf(names []string) string {
	if len(names) == 2 {
		return names[0] + " or " + names[1]
	}
	return "one of " + strings.Join(names, ", ")
}

// reportFormat is the format of a report command: --format checked
// against the command's formats; without it, the one --output's ending
// names, else table on a terminal and json otherwise. A web page on a
// terminal is refused.
func reportFormat(c *cli.Context, command string) (string, error) {
	path := c.String("output")
	toTerminal := path == "" && progress.IsTerminal(c.App.Writer)
	if c.String("format") == "" {
		format := "json"
		if toTerminal {
			format = "table"
		}
		if path != "" {
			ext := strings.ToLower(filepath.Ext(path))
			for _, o := range report.OutputsOf(command) {
				if o.Ext != "" && o.Ext == ext {
					format = o.Name
				}
			}
		}
		return format, nil
	}
	format, err := checkFormat(c, command)
	if err != nil {
		return "", err
	}
	for _, o := range report.OutputsOf(command) {
		if o.Name == format && o.Page && toTerminal {
			// A page of tens of kilobytes of style and script is no use
			// on a terminal.
			return "", usageError("--format %s writes a web page: write it to a file (--output report.html, or > report.html) and open that", format)
		}
	}
	return format, nil
}

// reportTarget is the terminal the report's colors and width follow: the
// standard output's (outputFile), or none when --output names a file.
func reportTarget(c *cli.Context) *os.File {
	if c.String("output") != "" {
		return nil
	}
	return outputFile(c)
}

// reportOutput is where a report is written: stdout (the writer given),
// or --output's file, written beside its path and renamed over it once
// the report is whole, so that a failed run leaves the old file.
type reportOutput struct {
	w    io.Writer
	path string
	file *atomicfile.File
	buf  *bufio.Writer
}

// openReport opens the report's output; stdout is the writer to use when
// --output is not given. The caller ends it with finish.
func openReport(c *cli.Context, stdout io.Writer) (*reportOutput, error) {
	path := c.String("output")
	if path == "" {
		return &reportOutput{w: stdout}, nil
	}
	f, err := atomicfile.Create(path, "."+filepath.Base(path)+".tmp*", 0o644)
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("cannot write %s: %v", path, err), ExitUsage)
	}
	o := &reportOutput{path: path, file: f, buf: bufio.NewWriterSize(f, 1<<16)}
	o.w = o.buf
	return o, nil
}

// finish ends the report: with err nil the file (if any) replaces its
// path, otherwise it is removed and err returned. Only the first call
// does anything, so that a deferred finish(errAborted) cleans up after an
// early return.
func (o *reportOutput) finish(err error) error {
	if o.file == nil {
		return err
	}
	f := o.file
	o.file = nil
	if err == nil {
		err = o.buf.Flush()
	}
	if err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("cannot write %s: %v", o.path, err)
	}
	return nil
}

// errAborted ends a report that was not written.
var errAborted = fmt.Errorf("the report was not written")

// writeReport writes a finished report to standard output or --output;
// a failure is exit 2.
func writeReport(c *cli.Context, write func(io.Writer) error) error {
	dest, err := openReport(c, c.App.Writer)
	if err != nil {
		return err
	}
	if err := dest.finish(write(dest.w)); err != nil {
		return cli.Exit(err.Error(), ExitUsage)
	}
	return nil
}
