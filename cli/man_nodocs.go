//go:build urfave_cli_no_docs

package cli

// The man command of a binary built with -tags urfave_cli_no_docs (the
// release builds: the tag leaves out urfave/cli's document generators,
// which cost every process, a live hook's included, time at start). The
// release archives carry the page as man/loopgate.1 instead.

import "github.com/urfave/cli/v2"

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff): loopgate man > loopgate.1",
		Action: func(c *cli.Context) error {
			return usageError("this loopgate was built without its manual page (-tags urfave_cli_no_docs): the release archive has it as man/loopgate.1, and docs/cli.md documents the same commands")
		},
	}
}
