package cli

// The rules command: print a preset or the effective rules, check a file.

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

func rulesCommand() *cli.Command {
	return &cli.Command{
		Name:   "rules",
		Usage:  "print a preset or the effective rules; validate a rules file",
		Action: showHelp,
		Subcommands: []*cli.Command{
			{
				Name:  "print",
				Usage: "print the effective rules as YAML that --rules accepts back",
				Flags: []cli.Flag{rulesFlag(), presetFlag(),
					&cli.BoolFlag{Name: "list", Usage: "list the preset names"},
					&cli.BoolFlag{Name: "source", Usage: "with --preset: print the preset file as written, with the comments that cite its design and readings"}},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					if c.Bool("list") {
						for _, n := range rules.PresetNames() {
							fmt.Fprintln(c.App.Writer, n)
						}
						return nil
					}
					if c.Bool("source") {
						if c.String("preset") == "" {
							return usageError("--source goes with --preset NAME")
						}
						b, err := rules.PresetText(c.String("preset"))
						if err != nil {
							return usageError("%v", err)
						}
						_, err = c.App.Writer.Write(b)
						return err
					}
					r, err := loadRules(c)
					if err != nil {
						return err
					}
					b, err := r.YAML()
					if err != nil {
						return cli.Exit(err.Error(), ExitUsage)
					}
					_, err = c.App.Writer.Write(b)
					return err
				},
			},
			{
				Name:      "check",
				Usage:     "validate a rules file and explain its errors",
				ArgsUsage: "FILE...",
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return usageError("rules check needs a FILE")
					}
					bad := 0
					for _, f := range c.Args().Slice() {
						r, err := rules.Load(f)
						if err != nil {
							fmt.Fprintln(c.App.ErrWriter, err)
							bad++
							continue
						}
						fmt.Fprintf(c.App.Writer, "%s: ok (rules %q)\n", f, report.Redact(r.Name))
					}
					if bad > 0 {
						return cli.Exit("", ExitUsage)
					}
					return nil
				},
			},
		},
	}
}
