package cli

// The formats command: the input formats and how each is detected.

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/report"
)

func formatsCommand() *cli.Command {
	return &cli.Command{
		Name:  "formats",
		Usage: "list input formats and how each is detected",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			w := c.App.Writer
			width := terminalWidth(outputFile(c))
			field := func(s string) string { // the text of a field, wrapped under itself
				const indent = "            "
				if width <= 0 {
					return s
				}
				return report.Wrap(s, width-len(indent), width-len(indent), indent)
			}
			for _, f := range ingest.Formats() {
				fmt.Fprintf(w, "%s\n  reads:    %s\n  detected: %s\n", f.ID, field(f.Reads), field(f.Detection))
				if f.FixtureOnly {
					fmt.Fprintf(w, "  checked:  %s\n", field("fixture only (written from the agent's public source; no real file read yet)"))
				}
			}
			fmt.Fprintln(w, "\nDetection tries the formats in this order; --input-format NAME skips it.")
			return nil
		},
	}
}
