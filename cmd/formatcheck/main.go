// Command formatcheck prints, for every real transcript under a samples
// folder, loopgate's reading beside a second, independent one
// (internal/formatcheck): sessions, calls, calls with results, repeated
// calls and tokens. A difference not listed in the expectations file, or
// an entry there that no longer holds, is printed after the table and
// makes the exit status 1 (docs/conformance.md).
//
//	go run ./cmd/formatcheck [-samples DIR] [-expectations FILE]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/loopgate/loopgate/internal/formatcheck"

	// The independent reading opens SQLite databases through
	// database/sql's driver "sqlite".
	_ "modernc.org/sqlite"
)

func main() {
	samples := flag.String("samples", "../shared/samples", "the folder of real transcripts")
	expectations := flag.String("expectations", "fixtures/conformance/expectations.txt", "the expectations file")
	flag.Parse()
	x, err := formatcheck.LoadExpectations(*expectations)
	if err != nil {
		fmt.Fprintln(os.Stderr, "formatcheck:", err)
		os.Exit(2)
	}
	rows, failures, err := compare(*samples, x, readLoopgate)
	if err != nil {
		fmt.Fprintln(os.Stderr, "formatcheck:", err)
		os.Exit(2)
	}
	printTable(os.Stdout, rows)
	if len(failures) > 0 {
		fmt.Printf("\n%d difference(s) or stale entries:\n", len(failures))
		for _, f := range failures {
			fmt.Println(f)
		}
		os.Exit(1)
	}
}

// pair shows loopgate's figure beside the independent one, once when they
// agree.
func pair(l, i int64, known bool) string {
	switch {
	case !known:
		return fmt.Sprintf("%d/-", l)
	case l == i:
		return fmt.Sprint(l)
	}
	return fmt.Sprintf("%d/%d", l, i)
}

// printTable writes one line per file: the two readings' figures
// (loopgate/independent where they differ), what covers a difference, and
// the file last (the paths are long).
func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "sessions\tcalls\twith results\trepeats\ttokens\tloopgate format\tindependent\tverdict\tfile")
	for _, r := range rows {
		l, i := r.Loopgate, r.Independent
		verdict := "equal"
		switch {
		case !r.Known:
			verdict = "no independent reading"
		case r.Unread:
			verdict = "not compared: loopgate reads no session"
		case len(r.Differ) > 0:
			verdict = "differ: " + strings.Join(r.Differ, ",")
		}
		if len(r.Notes) > 0 {
			verdict += ", expected: " + strings.Join(r.Notes, ", ")
		}
		format := l.Format
		if format == "" {
			format = "-"
		}
		indFormat := i.Format
		if !r.Known {
			indFormat = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			pair(int64(l.Sessions), int64(i.Sessions), r.Known), pair(int64(l.Calls), int64(i.Calls), r.Known),
			pair(int64(l.WithResults), int64(i.WithResults), r.Known), pair(int64(l.Repeats), int64(i.Repeats), r.Known),
			pair(l.Tokens, i.Tokens, r.Known), format, indFormat, verdict, r.File)
	}
	tw.Flush()
}
