package cli

// The app: its commands, the help and usage errors, the exit codes, and
// the argument permutation that lets flags follow paths.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/internal/lazyre"
	"github.com/loopgate/loopgate/live/hookcmd"
	"github.com/loopgate/loopgate/report"
)

// Exit codes (docs/cli.md, "Output and exit codes").
const (
	ExitOK       = 0
	ExitFindings = 1 // the gate failed or --fail-on tripped
	ExitUsage    = 2 // usage, rules or input error that stopped the run
)

// Run runs the command line args (args[0] is the program) with the
// reports on stdout and messages on stderr, and returns the exit code.
// version is what --version prints and the reports name.
func Run(args []string, stdout, stderr io.Writer, version string) int {
	if len(args) > 1 && args[1] == "hook" {
		if f, ok := hookcmd.ParseArgs(args[2:]); ok {
			return hookcmd.Run(f, os.Stdin, stdout, stderr)
		}
	}
	return runApp(newAppOf(stdout, stderr, version, commandsFor(args)), args, stderr)
}

// runApp is Run with the app built.
func runApp(app *cli.App, args []string, stderr io.Writer) int {
	permuted, err := permuteArgs(app, args)
	if err != nil {
		if isAgentHook(args) {
			// Exit 2 would block the call in Claude Code and Gemini.
			fmt.Fprintf(stderr, "loopgate: %v (allowed: the hook fails open)\n", err)
			return ExitOK
		}
		fmt.Fprintln(stderr, "loopgate: "+err.Error())
		return ExitUsage
	}
	err = app.Run(permuted)
	if err == nil {
		return ExitOK
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := ec.Error(); msg != "" {
			// Errors may quote a path or a value from a file.
			fmt.Fprintln(stderr, "loopgate: "+report.Sanitize(msg))
		}
		return ec.ExitCode()
	}
	fmt.Fprintln(stderr, "loopgate: "+report.Sanitize(err.Error()))
	return ExitUsage
}

// The help wraps to the terminal's width (or $COLUMNS): urfave/cli's
// templates write each flag's usage on one line, however long.
func init() {
	plain := cli.HelpPrinter
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		f, _ := w.(*os.File)
		width := terminalWidth(f)
		if width <= 0 {
			plain(w, templ, data)
			return
		}
		var b bytes.Buffer
		plain(&b, templ, data)
		io.WriteString(w, wrapHelp(b.String(), width))
	}
}

// wrapHelp breaks the lines of a help text longer than width at spaces.
// A line with a column of descriptions ("   --rules FILE   rules FILE")
// goes on under the description's column; when that column leaves less
// than minHelpText, the description starts on the next line, indented
// by helpIndent more than the name.
func wrapHelp(text string, width int) string {
	const minHelpText, helpIndent = 24, 6
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if utf8.RuneCountInString(line) <= width {
			continue
		}
		body := strings.TrimLeft(line, " ")
		lead := len(line) - len(body)
		col := -1
		if gap := strings.Index(body, "  "); gap > 0 {
			col = lead + gap + len(body[gap:]) - len(strings.TrimLeft(body[gap:], " "))
		}
		switch {
		case col < 0: // prose: its own lines keep its indent
			lines[i] = strings.Repeat(" ", lead) + report.Wrap(body, width-lead, width-lead, strings.Repeat(" ", lead))
		case width-col >= minHelpText:
			pad := strings.Repeat(" ", col)
			lines[i] = line[:col] + report.Wrap(line[col:], width-col, width-col, pad)
		default:
			pad := strings.Repeat(" ", lead+helpIndent)
			lines[i] = strings.TrimRight(line[:col], " ") + "\n" + pad + report.Wrap(line[col:], width-len(pad), width-len(pad), pad)
		}
	}
	return strings.Join(lines, "\n")
}

func usageError(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), ExitUsage)
}

// commands are the app's commands, in its help's order.
func commands() []*cli.Command {
	return []*cli.Command{
		replayCommand(),
		compareCommand(),
		sweepCommand(),
		tuneCommand(),
		mergeCommand(),
		gateCommand(),
		inspectCommand(),
		rulesCommand(),
		formatsCommand(),
		hookCommand(),
		whereCommand(),
		explainCommand(),
		completionCommand(),
		manCommand(),
		completeCommand(),
	}
}

// isAgentHook says the command line runs the hook itself (not one of its
// subcommands, which a person runs).
func isAgentHook(args []string) bool {
	if len(args) < 2 || args[1] != "hook" {
		return false
	}
	if len(args) > 2 {
		for _, sub := range hookCommand().Subcommands {
			if sub.HasName(args[2]) {
				return false
			}
		}
	}
	return true
}

// commandsFor is the commands a run of args needs built: the live hook,
// which an agent starts once per tool call, builds its own command alone:
// building every command's flags and help was a measurable part of a hook
// call (docs/performance.md, "The live hook, every preset"). It runs as it
// does in the whole app (TestHookAppAlone).
func commandsFor(args []string) []*cli.Command {
	if len(args) > 1 && args[1] == "hook" {
		return []*cli.Command{hookCommand()}
	}
	return commands()
}

func newApp(stdout, stderr io.Writer, version string) *cli.App {
	return newAppOf(stdout, stderr, version, commands())
}

func newAppOf(stdout, stderr io.Writer, version string, commands []*cli.Command) *cli.App {
	app := &cli.App{
		Name:      "loopgate",
		Usage:     "replay AI-agent transcripts through tool-call loop guards",
		Version:   version,
		Writer:    stdout,
		ErrWriter: stderr,
		// Usage errors go to standard error with exit code 2; standard
		// output carries only reports.
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return usageError("%s (see '%s --help')", longFlagNames(err.Error()), commandPath(c))
		},
		ExitErrHandler: func(*cli.Context, error) {}, // Run prints and exits
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cpuprofile", Hidden: true, Usage: "write a CPU profile to `FILE` (docs/performance.md)"},
			&cli.StringFlag{Name: "memprofile", Hidden: true, Usage: "write a heap profile to `FILE` at exit"},
		},
		Before: func(c *cli.Context) error {
			if f := c.String("cpuprofile"); f != "" {
				out, err := os.Create(f)
				if err != nil {
					return usageError("%v", err)
				}
				if err := pprof.StartCPUProfile(out); err != nil {
					return usageError("%v", err)
				}
			}
			return nil
		},
		After: func(c *cli.Context) error {
			if c.String("cpuprofile") != "" {
				pprof.StopCPUProfile()
			}
			if f := c.String("memprofile"); f != "" {
				out, err := os.Create(f)
				if err != nil {
					return usageError("%v", err)
				}
				defer out.Close()
				return pprof.WriteHeapProfile(out)
			}
			return nil
		},
		Commands:        commands,
		HideHelpCommand: true,
		Action:          showHelp,
		// --vary values hold commas (KEY=2,3,5); lists of presets are
		// split by the commands themselves.
		DisableSliceFlagSeparator: true,
	}
	for _, c := range app.Commands {
		setupCommand(c, app.OnUsageError)
	}
	return app
}

// commandPath is the command as typed: "loopgate gate init", not "init"
// (there is no 'loopgate init').
func commandPath(c *cli.Context) string {
	var names []string
	for _, l := range c.Lineage() {
		if l.Command != nil && l.Command.Name != "" {
			names = append(names, l.Command.Name)
		}
	}
	slices.Reverse(names)
	if len(names) == 0 || names[0] != "loopgate" {
		names = append([]string{"loopgate"}, names...)
	}
	return strings.Join(names, " ")
}

// goFlagName is a flag as the standard flag package's errors write it
// ("-jobs"); every long flag of loopgate is spelled with two dashes.
var goFlagName = lazyre.New(`(^|[ :])-([A-Za-z0-9][A-Za-z0-9-]+)\b`)

// longFlagNames rewrites the flag names of a flag parser's error as a
// user types them: "-foo" becomes "--foo" (one-letter flags keep one dash).
func longFlagNames(msg string) string {
	return goFlagName.Get().ReplaceAllString(msg, "$1--$2")
}

// setupCommand applies the app's settings that urfave/cli v2 does not pass
// down to commands. App.HideHelpCommand only hides the app's own help
// command: every command still gets a "help" subcommand, alias "h", added
// when it runs (Command.setup), so `loopgate replay h` printed help instead
// of reading the path h. With HideHelpCommand on each command, every
// argument of a command is a path; help stays available as --help/-h.
func setupCommand(c *cli.Command, onUsageError cli.OnUsageErrorFunc) {
	if c.OnUsageError == nil { // hook keeps its own: it fails open
		c.OnUsageError = onUsageError
	}
	c.HideHelpCommand = true
	for _, sub := range c.Subcommands {
		setupCommand(sub, onUsageError)
	}
}

// noArgs refuses positional arguments for a command that takes none,
// rather than ignoring them.
func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("'%s' takes no arguments, but got %q (see '%s --help')",
			c.Command.HelpName, strings.Join(c.Args().Slice(), " "), c.Command.HelpName)
	}
	return nil
}

// showHelp is the action of the app and of a command that only holds
// subcommands: help when given nothing, and an unknown command is a usage
// error (exit 2), not urfave/cli's "No help topic" with exit code 3. At the
// top level, where no path can be, "help [COMMAND]" still shows help.
func showHelp(c *cli.Context) error {
	args := c.Args().Slice()
	if c.Command.HelpName == c.App.HelpName || c.Command.Name == "" { // the app itself
		switch {
		case len(args) == 0:
			return cli.ShowAppHelp(c)
		case args[0] == "help" || args[0] == "h":
			if len(args) > 1 && c.App.Command(args[1]) != nil {
				return cli.ShowCommandHelp(c, args[1])
			}
			return cli.ShowAppHelp(c)
		}
		return usageError("unknown command %q (see 'loopgate --help')", args[0])
	}
	if len(args) == 0 {
		return cli.ShowSubcommandHelp(c)
	}
	var names []string
	for _, sub := range c.Command.Subcommands {
		names = append(names, sub.Name)
	}
	return usageError("unknown command '%s %s' (known: %s)", c.Command.HelpName, args[0], strings.Join(names, ", "))
}

// permuteArgs moves flags given after the paths in front of them, so that
// `loopgate replay a.jsonl --preset nanobot` works: urfave/cli v2 stops
// parsing flags at the first positional argument and would silently drop
// the flag otherwise, as Go's flag package does
// (https://pkg.go.dev/flag: "Flag parsing stops just before the first
// non-flag argument"). Everything after "--"
// stays positional.
//
// A flag that takes a value but is the last argument is an error here: left
// to the flag parser it would take the "--" this function adds as its value
// and fail with a misleading message ("not \"--\"").
func permuteArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	out := []string{args[0]}
	i := 1
	// Global flags before the command.
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" {
		out = append(out, args[i])
		i++
	}
	if i >= len(args) {
		return out, nil
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return append(out, args[i:]...), nil
	}
	out = append(out, args[i])
	i++
	// A command with subcommands (rules print|check): permute after the
	// subcommand name.
	path := "loopgate " + cmd.Name
	if len(cmd.Subcommands) > 0 && i < len(args) {
		if sub := cmd.Command(args[i]); sub != nil {
			out = append(out, args[i])
			cmd = sub
			path += " " + sub.Name
			i++
		}
	}
	var flags, positional []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if name, value, ok := strings.Cut(a, "="); ok {
			if value == "" && takesValue(cmd, strings.TrimLeft(name, "-")) {
				return nil, fmt.Errorf("%s has an empty value (try '%s --help')", a, path)
			}
			continue
		}
		if takesValue(cmd, strings.TrimLeft(a, "-")) {
			if i+1 >= len(args) || args[i+1] == "--" {
				return nil, fmt.Errorf("%s needs a value, but nothing follows it (try '%s --help')", a, path)
			}
			flags = append(flags, args[i+1])
			i++
		}
	}
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out, nil
}

func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return valueFlag(f)
			}
		}
	}
	return false
}

// valueFlag tells whether a flag takes a value (every flag of ours but the
// booleans does).
func valueFlag(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}
