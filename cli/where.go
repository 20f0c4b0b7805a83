package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/report"
)

// maxLineWidth is the width of the widest line of text, in runes.
func maxLineWidth(text string) int {
	n := 0
	for l := range strings.SplitSeq(text, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// homeShort writes a path under home as ~/...: the narrow layout's paths.
func homeShort(path, home string) string {
	if rest, ok := strings.CutPrefix(path, home+string(os.PathSeparator)); ok && home != "" {
		return "~" + string(os.PathSeparator) + rest
	}
	return path
}

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
			var table bytes.Buffer
			tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "AGENT\tFOLDER\tFROM\tSTATE")
			var records []string // the same, one place a line, for a narrow terminal
			width := terminalWidth(outputFile(c))
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
				from := "" // a path under home says it with its ~
				if p.From != "~" {
					from = "  (from " + p.From + ")"
				}
				records = append(records, report.Wrap(fmt.Sprintf("%s  %s%s  %s", p.Location.Agent, report.Sanitize(homeShort(p.Path, home)), from, state),
					width, width-4, "    "))
				if len(cited) == 0 || cited[len(cited)-1] != p.Location {
					cited = append(cited, p.Location)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			out := table.String()
			if width > 0 && maxLineWidth(out) > width {
				out = strings.Join(records, "\n") + "\n"
			}
			if _, err := io.WriteString(c.App.Writer, out); err != nil {
				return err
			}
			if c.Bool("sources") {
				fmt.Fprintln(c.App.Writer)
				for _, l := range cited {
					line := fmt.Sprintf("%s: %s", l.Agent, l.Source)
					if width > 0 {
						// No indent: a URL keeps the whole width.
						line = report.Wrap(line, width, width, "")
					}
					fmt.Fprintln(c.App.Writer, line)
				}
			}
			return nil
		},
	}
}
