//go:build !urfave_cli_no_docs

package cli

// The man command: the manual page, generated from the commands and flags
// themselves (urfave/cli's ToMan), so it says what --help says.

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff): loopgate man > loopgate.1",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			page, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, page)
			return err
		},
	}
}
