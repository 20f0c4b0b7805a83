package cli

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/report"
)

// whereCommand lists the agents' default session folders on this machine
// (ingest.Locations): what the reading commands read when given no PATH.
func whereCommand() *cli.Command {
	return &cli.Command{
		Name:  "where",
		Usage: "the agents' default session locations on this machine, and whether they exist",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "agent", Usage: "only this agent's locations (repeatable)"},
			&cli.BoolFlag{Name: "sources", Usage: "also say where each agent's code sets its locations"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			agents, err := agentNames(c)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "AGENT\tFOLDER\tFROM\tSTATE")
			var cited []*ingest.Location
			for _, p := range ingest.Places(agents, home, os.Getenv) {
				state := "absent"
				switch {
				case p.Exists && p.Location.Unread != "":
					state = "present, not read: " + p.Location.Unread
				case p.Exists:
					state = plural(len(p.Files(func(ingest.Problem) {})), "file")
				case p.Location.Unread != "":
					state = "absent (not read: " + p.Location.Unread + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Location.Agent, report.Sanitize(p.Path), p.From, state)
				if len(cited) == 0 || cited[len(cited)-1] != p.Location {
					cited = append(cited, p.Location)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if c.Bool("sources") {
				fmt.Fprintln(c.App.Writer)
				for _, l := range cited {
					fmt.Fprintf(c.App.Writer, "%s: %s\n", l.Agent, l.Source)
				}
			}
			return nil
		},
	}
}
