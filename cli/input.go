package cli

// The front door of the reading commands (replay, compare, sweep,
// inspect): where their transcripts come from when no PATH is given, the
// filters on sessions, the exit when nothing is found, and the input
// problems told on standard error.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/cli/progress"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/agents"
	"github.com/loopgate/loopgate/report"

	// The SQLite driver ingest reads agents' databases with (hermes'
	// state.db, OpenCode's opencode.db): the program links it, not ingest,
	// so that the hook's own binary starts without it.
	_ "modernc.org/sqlite"
)

// inputFlags are the flags of every command that reads transcripts.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "agent", Usage: "with no PATH, read only this agent's default session folders (repeatable; see 'loopgate where')"},
		&cli.BoolFlag{Name: "allow-empty", Usage: "exit 0 when no transcript is found (default: exit 2)"},
		&cli.StringFlag{Name: "since", Usage: "only sessions that end at or after `TIME`: a date (2026-11-01), an RFC 3339 time, or a duration before now (7d, 12h)"},
		&cli.StringFlag{Name: "until", Usage: "only sessions that start at or before `TIME` (same forms as --since)"},
		&cli.StringSliceFlag{Name: "session", Usage: "only the session `ID` (a prefix matches, so an id keeps its subagents too; ID/AGENT, the selector reports show, picks one subagent, ID/main the main one; repeatable)"},
		&cli.StringFlag{Name: "tool", Usage: "only sessions that call the tool `NAME`"},
	}
}

// stderrProblems is how many input problems a command prints on standard
// error; the count of the rest follows.
const stderrProblems = 20

// inputFiles lists the files a reading command reads: its PATHs, or, with
// none, the default session folders of the agents (ingest.Locations),
// each named on standard error with the files it held. A PATH that does
// not exist, and no transcript at all, are usage errors (exit 2) unless
// --allow-empty accepts the latter.
func inputFiles(c *cli.Context, problem func(ingest.Problem)) ([]string, error) {
	if err := checkProgress(c); err != nil {
		return nil, err
	}
	if _, err := sessionFilter(c, time.Now()); err != nil {
		return nil, err
	}
	agents, err := agentNames(c)
	if err != nil {
		return nil, err
	}
	paths := c.Args().Slice()
	var files []string
	if len(paths) == 0 {
		home, _ := os.UserHomeDir()
		read := 0
		for _, p := range ingest.Places(agents, home, os.Getenv) {
			if !p.Exists || p.Location.Unread != "" {
				continue
			}
			found := p.Files(problem)
			read++
			fmt.Fprintf(c.App.ErrWriter, "loopgate: reading %s sessions in %s: %s\n", p.Location.Agent, report.Sanitize(p.Path), plural(len(found), "file"))
			files = append(files, found...)
		}
		if read == 0 {
			if c.Bool("allow-empty") {
				return nil, nil
			}
			return nil, usageError("no PATH given and no agent session folder found on this machine (see 'loopgate where'; --allow-empty accepts this)")
		}
	} else {
		if len(agents) > 0 {
			return nil, usageError("--agent chooses among the default session folders; it does not go with a PATH")
		}
		for _, p := range paths {
			if p == "-" {
				continue
			}
			if _, err := os.Stat(p); err != nil {
				return nil, usageError("%s: %s", report.Sanitize(p), statError(err))
			}
		}
		files = ingest.Expand(paths, problem)
	}
	if len(files) == 0 && !c.Bool("allow-empty") {
		return nil, usageError("no transcript found (files ending in .json, .jsonl or their .gz; --allow-empty accepts this)")
	}
	return files, nil
}

func statError(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such file or directory"
	case os.IsPermission(err):
		return "permission denied"
	}
	return err.Error()
}

// agentNames checks --agent against the agents' names (internal/agents:
// an old spelling is an alias) and the session folders loopgate knows.
func agentNames(c *cli.Context) ([]string, error) {
	var names []string
	for _, a := range c.StringSlice("agent") {
		for _, n := range strings.Split(a, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			name, ok := agents.Canonical(n)
			if !ok {
				return nil, usageError("unknown --agent %q (known: %s)", n, strings.Join(agents.Names(), ", "))
			}
			if !contains(ingest.LocationAgents(), name) {
				return nil, usageError("--agent %s: loopgate knows no default session folder of %s (it has them for %s); name its files as PATH", n, name, strings.Join(ingest.LocationAgents(), ", "))
			}
			names = append(names, name)
		}
	}
	return names, nil
}

// sessionFilter builds the ingest.Options.Keep of --since, --until,
// --session and --tool (nil when none is given). now is the clock the
// durations count back from.
func sessionFilter(c *cli.Context, now time.Time) (func(*ingest.Session) bool, error) {
	var since, until time.Time
	var err error
	if v := c.String("since"); v != "" {
		if since, err = parseWhen(v, now, false); err != nil {
			return nil, usageError("--since: %v", err)
		}
	}
	if v := c.String("until"); v != "" {
		if until, err = parseWhen(v, now, true); err != nil {
			return nil, usageError("--until: %v", err)
		}
	}
	ids := c.StringSlice("session")
	tool := c.String("tool")
	if since.IsZero() && until.IsZero() && len(ids) == 0 && tool == "" {
		return nil, nil
	}
	stats := filterStatsOf(c)
	return func(s *ingest.Session) bool {
		keep := func() bool {
			if len(ids) > 0 && !selectsAny(s, ids) {
				return false
			}
			if !since.IsZero() || !until.IsZero() {
				start, end := s.Span()
				if start.IsZero() {
					stats.untimed.Add(1)
					return false // no time: it cannot be said to be in the window
				}
				if !since.IsZero() && end.Before(since) {
					return false
				}
				if !until.IsZero() && start.After(until) {
					return false
				}
			}
			return tool == "" || callsTool(s, tool)
		}()
		if keep {
			stats.kept.Add(1)
		} else {
			stats.dropped.Add(1)
		}
		return keep
	}, nil
}

// filterStats counts what the session filters did, for the line that
// says so on standard error: sessions left out are not lost silently.
type filterStats struct {
	kept, dropped, untimed atomic.Int64
	problemsLeftOut        atomic.Int64 // of files whose every session was left out
}

// filterStatsOf is the run's filterStats (one per command run, kept in
// the app's metadata: the filter is built more than once).
func filterStatsOf(c *cli.Context) *filterStats {
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	st, ok := c.App.Metadata["filterStats"].(*filterStats)
	if !ok {
		st = &filterStats{}
		c.App.Metadata["filterStats"] = st
	}
	return st
}

// printFilterStats says how many sessions the filters kept, when a filter
// was given.
func printFilterStats(c *cli.Context) {
	st, ok := c.App.Metadata["filterStats"].(*filterStats)
	if !ok || st.kept.Load()+st.dropped.Load() == 0 {
		return
	}
	msg := fmt.Sprintf("loopgate: the filters kept %s of %s", report.Thousands(st.kept.Load()), plural(int(st.kept.Load()+st.dropped.Load()), "session"))
	if n := st.untimed.Load(); n > 0 {
		msg += fmt.Sprintf("; %s recorded no time, which --since and --until cannot place", plural(int(n), "session"))
	}
	if n := st.problemsLeftOut.Load(); n > 0 {
		msg += fmt.Sprintf("; %s of files whose sessions were all left out not listed", plural(int(n), "problem"))
	}
	fmt.Fprintln(c.App.ErrWriter, msg)
}

// selectsAny says whether one of the --session values names s (a prefix
// of its selector, ingest.SelectorMatches).
func selectsAny(s *ingest.Session, values []string) bool {
	for _, v := range values {
		if ingest.SelectorMatches(s.ID, s.Agent, v) {
			return true
		}
	}
	return false
}

func callsTool(s *ingest.Session, tool string) bool {
	for _, t := range s.Turns {
		for _, r := range t.Requests {
			for _, c := range r.Calls {
				if c.Tool == tool {
					return true
				}
			}
		}
	}
	return false
}

// parseWhen reads a --since or --until value: a duration back from now
// ("7d", "12h", "90m"), a date (the day's start, or with end its last
// instant, in local time) or an RFC 3339 time.
func parseWhen(v string, now time.Time, end bool) (time.Time, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return now.Add(-time.Duration(days) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", v, time.Local); err == nil {
		if end {
			return t.AddDate(0, 0, 1).Add(-time.Nanosecond), nil
		}
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-11-01), an RFC 3339 time (2026-11-01T09:00:00Z) or a duration (7d, 12h)", v)
}

// sessionKeep is the ingest.Options.Keep of the filter flags (nil when
// none is given); inputFiles checked them.
func sessionKeep(c *cli.Context) func(*ingest.Session) bool {
	keep, _ := sessionFilter(c, time.Now())
	return keep
}

// problemsLeftOut is the ingest.Options.ProblemsLeftOut that counts, for
// printFilterStats, the problems of files the filters left out whole.
func problemsLeftOut(c *cli.Context) func(int) {
	st := filterStatsOf(c)
	return func(n int) { st.problemsLeftOut.Add(int64(n)) }
}

// printProblems tells the input problems on standard error, the first
// stderrProblems of them and how many more there were (total counts every
// problem, also those a report does not list), after what the session
// filters kept.
func printProblems(c *cli.Context, problems []ingest.Problem, total int) {
	printFilterStats(c)
	total = max(total, len(problems))
	if total == 0 {
		return
	}
	w := c.App.ErrWriter
	if c.Command.Name == "replay" && (c.String("format") == "" || c.String("format") == "table") && c.String("output") == "" &&
		progress.IsTerminal(c.App.Writer) && progress.IsTerminal(w) {
		// The table on the same terminal lists them: say them once.
		fmt.Fprintf(w, "loopgate: %s in the input (the report lists them)\n", plural(total, "problem"))
		return
	}
	fmt.Fprintf(w, "loopgate: %s in the input:\n", plural(total, "problem"))
	for _, p := range problems[:min(stderrProblems, len(problems))] {
		where := p.File
		if p.Line > 0 {
			where += ":" + strconv.Itoa(p.Line)
		}
		msg := p.Message
		if !c.Bool("no-redact") {
			// A file name may hold a secret as well as a message.
			where, msg = report.Redact(where), report.Redact(msg)
		}
		where = report.Sanitize(where)
		if width := stderrWidth(c); width > 0 { // the file gives way from the left: its name and line stay
			where = report.CutLeft(where, max(width-12, 16))
		}
		fmt.Fprintln(w, fitStderr(c, fmt.Sprintf("  %s: %s", where, report.Sanitize(msg))))
	}
	if more := total - min(stderrProblems, len(problems)); more > 0 {
		fmt.Fprintf(w, "  …and %s more (the report lists them)\n", report.Thousands(int64(more)))
	}
}

// stderrWidth is the width of the terminal behind standard error (or
// $COLUMNS), 0 when unknown.
func stderrWidth(c *cli.Context) int {
	f, _ := c.App.ErrWriter.(*os.File)
	return terminalWidth(f)
}

// fitStderr wraps a message for standard error to its terminal's width,
// the lines after the first indented; unchanged when the width is unknown.
func fitStderr(c *cli.Context, line string) string {
	const indent = "      "
	if width := stderrWidth(c); width > 0 {
		return report.Wrap(line, width, width-len(indent), indent)
	}
	return line
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return report.Thousands(int64(n)) + " " + noun + "s"
}

// replayFlags shape replay's table and markdown reports.
func replayFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "top", Value: report.DefaultTopSessions, Usage: "sessions shown in table and markdown reports, those where the guard saved most first (0: all)"},
		&cli.StringFlag{Name: "by", Usage: "add a per-`PERIOD` view of calls, stops and tokens saved to table and markdown reports: day"},
	}
}

// replayReportOptions takes --top, --by and checks --max-decisions and
// --progress, which took any value before.
func replayReportOptions(c *cli.Context, opt *report.Options) error {
	if n := c.Int("max-decisions"); n < 0 {
		return usageError("--max-decisions must be 0 (all) or more, not %d", n)
	}
	if n := c.Int("top"); n < 0 {
		return usageError("--top must be 0 (all) or more, not %d", n)
	}
	switch by := c.String("by"); by {
	case "", "day":
		opt.By = by
	default:
		return usageError("--by must be day, not %q", by)
	}
	opt.Top = c.Int("top")
	return nil
}

// checkProgress refuses a --progress value that is not auto, always or
// never (any other value silently meant never).
func checkProgress(c *cli.Context) error {
	switch v := c.String("progress"); v {
	case "auto", "always", "never", "": // "": a command without the flag
		return nil
	default:
		return usageError("--progress must be auto, always or never, not %q", v)
	}
}
