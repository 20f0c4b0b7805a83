package cli

// The formats command: the input formats and how each is detected.

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/ingest"
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
			for _, f := range ingest.Formats() {
				fmt.Fprintf(w, "%s\n  reads:    %s\n  detected: %s\n", f.ID, f.Reads, f.Detection)
				if f.FixtureOnly {
					fmt.Fprintf(w, "  checked:  fixture only (written from the agent's public source; no real file read yet)\n")
				}
			}
			fmt.Fprintln(w, "\nDetection tries the formats in this order; --input-format NAME skips it.")
			return nil
		},
	}
}
