// Command loopgate replays AI-agent transcripts through tool-call loop
// guards and reports where calls would have been steered or blocked, whether
// each block was right, and how many tokens it would have saved.
//
// This file is the command line only: commands, flags, wiring and exit
// codes. The work is done by packages ingest, rules, analyze and report.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

// Exit codes (reference/ecosystem.md §1.1).
const (
	exitOK       = 0
	exitFindings = 1 // the gate failed or --fail-on tripped
	exitUsage    = 2 // usage, rules or input error that stopped the run
)

var version = "dev"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run is main without the process exit, so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	permuted, err := permuteArgs(app, args)
	if err != nil {
		fmt.Fprintln(stderr, "loopgate: "+err.Error())
		return exitUsage
	}
	err = app.Run(permuted)
	if err == nil {
		return exitOK
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
	return exitUsage
}

func usageError(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), exitUsage)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "loopgate",
		Usage:     "replay AI-agent transcripts through tool-call loop guards",
		Version:   version,
		Writer:    stdout,
		ErrWriter: stderr,
		// Usage errors go to standard error with exit code 2; standard
		// output carries only reports.
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return usageError("%v (see 'loopgate %s --help')", err, c.Command.Name)
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run() prints and exits
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
		Commands: []*cli.Command{
			replayCommand(),
			compareCommand(),
			sweepCommand(),
			mergeCommand(),
			gateCommand(),
			inspectCommand(),
			rulesCommand(),
			formatsCommand(),
			hookCommand(),
			whereCommand(),
			explainCommand(),
		},
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
// the flag otherwise (reference/ecosystem.md §2.1). Everything after "--"
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
	if len(cmd.Subcommands) > 0 && i < len(args) {
		if sub := cmd.Command(args[i]); sub != nil {
			out = append(out, args[i])
			cmd = sub
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
				return nil, fmt.Errorf("%s has an empty value (try 'loopgate %s --help')", a, cmd.Name)
			}
			continue
		}
		if takesValue(cmd, strings.TrimLeft(a, "-")) {
			if i+1 >= len(args) || args[i+1] == "--" {
				return nil, fmt.Errorf("%s needs a value, but nothing follows it (try 'loopgate %s --help')", a, cmd.Name)
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
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}

// Flags shared by several commands.
var (
	inputFormatFlag = &cli.StringFlag{Name: "input-format", Usage: "read every file as this format (see 'loopgate formats') instead of detecting it"}
	rulesFlag       = &cli.StringFlag{Name: "rules", Usage: "rules `FILE` (YAML)"}
	presetFlag      = &cli.StringFlag{Name: "preset", Usage: "built-in rules `NAME` (default: loopgate; see 'loopgate rules print --preset NAME')"}
	jobsFlag        = &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "files read in parallel (0: one per core)"}
	strictFlag      = &cli.BoolFlag{Name: "strict", Usage: "exit 2 when the input has any problem"}
	colorFlag       = &cli.StringFlag{Name: "color", Value: "auto", Usage: "color: auto|always|never (NO_COLOR is respected in auto)"}
	noRedactFlag    = &cli.BoolFlag{Name: "no-redact", Usage: "show secrets found in arguments and results (redacted by default)"}
	tokenizerFlag   = &cli.StringFlag{Name: "tokenizer", Value: "o200k_base", Usage: "token counter: o200k_base, cl100k_base, or chars4 (fast approximation)"}
	progressFlag    = &cli.StringFlag{Name: "progress", Value: "auto", Usage: "progress on standard error: auto (when it is a terminal)|always|never"}
)

func loadRules(c *cli.Context) (*rules.Rules, error) {
	file, preset := c.String("rules"), c.String("preset")
	switch {
	case file != "" && preset != "":
		return nil, usageError("--rules and --preset cannot be used together")
	case file != "":
		r, err := rules.Load(file)
		if err != nil {
			return nil, cli.Exit(err.Error(), exitUsage)
		}
		return r, nil
	default:
		if preset == "" {
			preset = "loopgate"
		}
		r, err := rules.Preset(preset)
		if err != nil {
			return nil, usageError("%v", err)
		}
		return r, nil
	}
}

func reportOptions(c *cli.Context, out *os.File) (report.Options, error) {
	mode := c.String("color")
	switch mode {
	case "auto", "always", "never":
	default:
		return report.Options{}, usageError("--color must be auto, always or never, not %q", mode)
	}
	return report.Options{Color: report.ColorEnabled(mode, out), Redact: !c.Bool("no-redact"), Width: terminalWidth(out)}, nil
}

// outputFile is the file the reports go to (standard output when run from
// main), or nil when they go to another writer (tests): color, width and
// the default format follow that writer, not whatever os.Stdout is.
func outputFile(c *cli.Context) *os.File {
	f, _ := c.App.Writer.(*os.File)
	return f
}

// terminalWidth is the width of the terminal behind f, or $COLUMNS, or 0
// (the renderers' default) when neither is known.
func terminalWidth(f *os.File) int {
	if f != nil && isatty.IsTerminal(f.Fd()) {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// collectFiles expands the paths, or finds the agents' sessions when none
// is given (cmd_input.go).
func collectFiles(c *cli.Context, problem func(ingest.Problem)) ([]string, error) {
	return inputFiles(c, problem)
}

func checkInputFormat(c *cli.Context) error {
	if f := c.String("input-format"); f != "" && ingest.LookupFormat(f) == nil {
		return usageError("unknown --input-format %q (known: %s)", f, strings.Join(ingest.FormatIDs(), ", "))
	}
	return nil
}

// progress prints files done and throughput on standard error, on one
// line rewritten in place. It is shown only when standard error is a
// terminal (or --progress always), and only once a run has lasted
// progressDelay: a short run prints nothing at all, not even a line erased
// at once. The line is erased when the run ends.
//
// update is called as each file is done. While watch runs, the line also
// moves within files: the bytes read so far, from a counter the readers
// add to, and their share of the corpus; a single file of gigabytes is
// not a minute of silence.
type progress struct {
	enabled bool
	mu      sync.Mutex
	shown   bool // a line is on the screen
	start   time.Time
	last    time.Time
	now     func() time.Time
	w       io.Writer
	// done and total are the files done and in all; bytes is what the
	// files done hold; finished is set once done reaches total.
	done, total int
	bytes       int64
	finished    bool
	// live counts the bytes read so far, files in progress included, and
	// totalBytes is the corpus size (0: unknown), while watch runs.
	live       *atomic.Int64
	totalBytes int64
}

const (
	progressDelay    = time.Second            // nothing before a run lasts this long
	progressInterval = 200 * time.Millisecond // at most one line per interval
)

func newProgress(c *cli.Context) *progress {
	return newProgressTo(c.String("progress"), c.App.ErrWriter, time.Now)
}

// newProgressTo is newProgress for a mode, a writer and a clock.
func newProgressTo(mode string, w io.Writer, now func() time.Time) *progress {
	on := mode == "always" || (mode == "auto" && isTerminal(w))
	return &progress{enabled: on, start: now(), now: now, w: w}
}

// isTerminal reports whether w is a terminal: an *os.File on a TTY. Any
// other writer (a pipe, a file, a buffer) is not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// watch starts redrawing the line every progressInterval for a run over
// files, and returns the counter for the readers to add to
// (ingest.Options.BytesRead) and a function that stops the redrawing and
// erases the line. Disabled, it returns nil and a function that does
// nothing: the readers count nothing.
func (p *progress) watch(files []string) (*atomic.Int64, func()) {
	if !p.enabled {
		return nil, func() {}
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil && f != "-" {
			continue // not read at all: a problem, no bytes
		}
		if err != nil || !st.Mode().IsRegular() {
			total = -1 // standard input or a pipe: the size is not known
			break
		}
		total += st.Size()
	}
	live := new(atomic.Int64)
	p.mu.Lock()
	p.live, p.totalBytes, p.total = live, max(total, 0), len(files)
	p.mu.Unlock()
	stopTicks := every(progressInterval, func() bool { p.tick(); return true })
	return live, func() {
		stopTicks()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.finished = true
		p.erase()
	}
}

// update notes that done of total files are done, holding bytes.
func (p *progress) update(done, total int, bytes int64) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total, p.bytes = done, total, bytes
	if done >= total {
		p.finished = true
		p.erase()
		return
	}
	p.draw()
}

// erasing returns w with the line erased before each write to it and not
// redrawn until the write is done: a report streamed to standard output
// (jsonl) on the terminal that shows the line would otherwise start its
// lines after it. The next tick draws the line again. Disabled, it
// returns w.
func (p *progress) erasing(w io.Writer) io.Writer {
	if !p.enabled {
		return w
	}
	return erasingWriter{p, w}
}

// erasingOnTerminal is erasing when w is a terminal, where the line is
// drawn too; a file or a pipe is left as it is: erasing the line for
// writes that do not reach the screen would only make it flicker.
func (p *progress) erasingOnTerminal(w io.Writer) io.Writer {
	if !isTerminal(w) {
		return w
	}
	return p.erasing(w)
}

type erasingWriter struct {
	p *progress
	w io.Writer
}

func (e erasingWriter) Write(b []byte) (int, error) {
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	e.p.erase()
	return e.w.Write(b)
}

// tick redraws the line with the bytes read so far.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.finished {
		p.draw()
	}
}

// erase removes the line, if one is shown (p.mu held).
func (p *progress) erase() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// draw writes the line, unless the run is too young or the last line too
// recent (p.mu held).
func (p *progress) draw() {
	now := p.now()
	if now.Sub(p.start) < progressDelay || (p.shown && now.Sub(p.last) < progressInterval) {
		return
	}
	bytes := p.bytes
	if p.live != nil {
		bytes = max(bytes, p.live.Load())
	}
	p.last, p.shown = now, true
	if bytes <= 0 {
		fmt.Fprintf(p.w, "\r%d/%d files ", p.done, p.total)
		return
	}
	mbs := float64(bytes) / 1e6 / now.Sub(p.start).Seconds()
	if p.totalBytes > 0 {
		share := min(100*float64(bytes)/float64(p.totalBytes), 100)
		fmt.Fprintf(p.w, "\r%d/%d files, %.1f of %.1f MB (%.0f%%), %.0f MB/s \033[K", p.done, p.total,
			float64(bytes)/1e6, float64(p.totalBytes)/1e6, share, mbs)
		return
	}
	fmt.Fprintf(p.w, "\r%d/%d files, %.1f MB, %.0f MB/s ", p.done, p.total, float64(bytes)/1e6, mbs)
}

// streamingMemoryLimit is the soft heap limit of the commands that stream a
// corpus (replay, inspect): they hold one session per worker, so the Go
// collector's default headroom (the heap may double before it runs) is
// what sets their peak memory. Measured on the 1 GiB benchmark corpus
// (docs/performance.md): peak RSS 208 -> 152 MB with chars4 and 231 -> 157
// MB with o200k_base, wall time within the run-to-run noise. It is soft: a
// session that needs more gets more (the collector then runs more often).
// GOMEMLIMIT, when set, wins. compare and sweep hold the whole corpus and
// keep Go's default.
const streamingMemoryLimit = 150 << 20

// streamingGCPercent is the GOGC of the same commands. Their live heap is
// small (one session per worker) while they allocate about nine bytes per
// byte read, so with Go's default of 100 the collector runs very often on
// a small heap; under the soft limit above, a larger percentage only
// spaces the collections out, and the limit still bounds the peak. On the
// 1 GiB benchmark corpus it cut CPU time by about a fifth (17.8 -> 13.8 s
// user+system) at the same peak RSS (docs/performance.md). GOGC, when
// set, wins.
const streamingGCPercent = 400

// limitStreamingMemory sets the limit and the GC percentage and returns
// what restores the ones before (tests run many commands in one process).
func limitStreamingMemory() (restore func()) {
	var undo []func()
	if os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(streamingMemoryLimit)
		stop := followLiveHeap()
		undo = append(undo, func() { stop(); debug.SetMemoryLimit(prev) })
	}
	if os.Getenv("GOGC") == "" {
		prev := debug.SetGCPercent(streamingGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

// followLiveHeap keeps the soft memory limit at one and a quarter times
// the live heap once that is over 120 MiB (below, the fixed limit of
// streamingMemoryLimit stands), following it down as well as up, and
// returns what stops it. A heap held at a fixed limit by data that is
// alive has the collector run back to back: a single session of 400 MB
// holds more than 150 MiB, and so, before the session spill, did the
// report of a million small sessions (a 254 MB log of 2 M one-request
// sessions: 90 s with the fixed limit, 55 s following the live heap).
//
// Twice the live heap, and only upwards, was the rule until 2026-11-24.
// On the generated corpus of eleven formats (hermes snapshots, Claude
// Code and Codex sessions of 23-43 MB) two such sessions in flight took
// the live heap past 120 MiB for a moment; the limit went to twice that
// and stayed, and the peak RSS was 255-357 MB. Measured on that corpus
// with analyze's memory gate at 8 MiB: one and a half times, both ways,
// 183-205 MB; one and a quarter, 173-182 MB. The price is paid by a
// session of hundreds of MB, which has the collector run more often: the
// 397 MB single session replays in 3.74 s at a peak of 609 MB, against
// 2.98 s and 730 MB at one and a half times (5.61 s and 911 MB with the
// old rule and no gate, measured the same hour).
func followLiveHeap() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return every(100*time.Millisecond, func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return false
		}
		live := int64(sample[0].Value.Uint64())
		debug.SetMemoryLimit(max(streamingMemoryLimit, live+live/4))
		return true
	})
}

// every calls f on a goroutine of its own every interval until f returns
// false or stop is called; stop returns once f has run for the last time.
func every(interval time.Duration, f func() bool) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if !f() {
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "replay transcripts under a rules file or preset and report",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{
			rulesFlag, presetFlag, inputFormatFlag, jobsFlag, strictFlag, colorFlag, noRedactFlag, tokenizerFlag, progressFlag, shardFlag, maxRecordFlag,
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "report format: table|json|jsonl|markdown|html (default: table on a terminal, json otherwise)"},
			&cli.StringFlag{Name: "fail-on", Value: "never", Usage: "exit 1 when any call is: steer (steered or worse)|block (blocked, deduped or halted)|harmful|never"},
			&cli.IntFlag{Name: "max-decisions", Value: 20, Usage: "decisions listed per session in table and markdown reports (0: all)"},
		}, slices.Concat(inputFlags, replayFlags)...),
		Action: func(c *cli.Context) error {
			defer limitStreamingMemory()()
			r, err := loadRules(c)
			if err != nil {
				return err
			}
			if err := checkInputFormat(c); err != nil {
				return err
			}
			format := c.String("format")
			if format == "" {
				format = "json"
				if isTerminal(c.App.Writer) {
					format = "table"
				}
			}
			if !contains(report.FormatNames(), format) {
				return usageError("--format must be one of %s, not %q", strings.Join(report.FormatNames(), ", "), format)
			}
			failOn := c.String("fail-on")
			if !contains([]string{"steer", "block", "harmful", "never"}, failOn) {
				return usageError("--fail-on must be steer, block, harmful or never, not %q", failOn)
			}
			counter, err := tokens.New(c.String("tokenizer"))
			if err != nil {
				return usageError("%v", err)
			}
			opt, err := reportOptions(c, outputFile(c))
			if err != nil {
				return err
			}
			opt.MaxDecisions = c.Int("max-decisions")
			if err := replayReportOptions(c, &opt); err != nil {
				return err
			}

			in, err := ingestOptions(c)
			if err != nil {
				return err
			}
			var early []ingest.Problem
			files, err := collectFiles(c, func(p ingest.Problem) { early = append(early, p) })
			if err != nil {
				return err
			}
			files, shard, err := applyShard(c, files)
			if err != nil {
				return err
			}
			opt.Partial = shard.partial(files, []*rules.Rules{r}, counter.Name(), len(early))
			prog := newProgress(c)
			read, stopProgress := prog.watch(files)
			in.BytesRead, in.Keep = read, sessionKeep(c)
			ropt := analyze.Options{Rules: r, Tokens: counter, Jobs: c.Int("jobs"), Ingest: in, Progress: prog.update}
			out := prog.erasingOnTerminal(c.App.Writer)
			var jl *report.JSONL
			if format == "jsonl" {
				jl = report.NewJSONL(out, opt)
				ropt.DropSessions = true
				// The lines of each file go out when it is done.
				ropt.FileEmitted = func() { _ = jl.Flush() }
			} else {
				// The report's sessions wait on disk, not in memory, for
				// the report to be written (analyze/spill.go).
				ropt.SpillSessions = spillSessions
			}
			var usage analyze.TokensInfo
			ropt.OnSession = func(s *analyze.SessionResult) {
				usage.NoteUsage(s)
				if jl != nil {
					_ = jl.Session(s)
				}
			}
			estimatedBefore := tokens.Estimated(counter)
			rep := analyze.Replay(files, ropt)
			stopProgress()
			rep.Tokens.EstimatedTexts = tokens.Estimated(counter) - estimatedBefore
			defer rep.Close()
			rep.Problems = append(early, rep.Problems...)
			rep.Summary.Problems += len(early)
			rep.Tokens.SessionsUsageUnused = usage.SessionsUsageUnused
			warnApproximated(c, counter)
			if err := rep.SpillError(); err != nil {
				fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: session summaries could not wait in a temporary file (%v); they were kept in memory (set TMPDIR to a writable directory)\n", err)
			}
			if jl != nil {
				err = jl.Finish(rep)
			} else {
				err = report.Render(format, out, rep, opt)
			}
			if err != nil {
				return cli.Exit(err.Error(), exitUsage)
			}
			printProblems(c, rep.Problems, rep.Summary.Problems)
			return verdict(c, rep, failOn)
		},
	}
}

// spillSessions is replay's Options.SpillSessions for the formats that
// need the whole report; a test turns it off to compare.
var spillSessions = true

// warnApproximated says on standard error when the tokenizer could not
// count some texts and counted them as bytes/4 instead (internal/tokens):
// the report's tokenizer label would otherwise claim more than was done.
func warnApproximated(c *cli.Context, counter tokens.Counter) {
	if n := tokens.Approximated(counter); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: %s could not tokenize %d text(s); they were counted as bytes/4\n", counter.Name(), n)
	}
	if n := tokens.Estimated(counter); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "loopgate: note: %d text(s) over 4 MiB were not tokenized whole; their tokens are estimated from their first and last 512 KiB\n", n)
	}
}

// verdict turns a finished report into the exit code: 2 under --strict
// when the input had problems, 1 when --fail-on tripped.
func verdict(c *cli.Context, rep *analyze.Report, failOn string) error {
	s := rep.Summary
	if c.Bool("strict") && s.Problems > 0 {
		return cli.Exit(fmt.Sprintf("%d input problem(s) and --strict is set", s.Problems), exitUsage)
	}
	tripped := false
	switch failOn {
	case "steer":
		tripped = s.Steered+s.Blocked+s.Deduped+s.Halted > 0
	case "block":
		tripped = s.Blocked+s.Deduped+s.Halted > 0
	case "harmful":
		tripped = s.Harmful > 0
	}
	if tripped {
		return cli.Exit(fmt.Sprintf("--fail-on %s tripped (steered %d, blocked %d, deduped %d, halted %d, harmful %d)", failOn, s.Steered, s.Blocked, s.Deduped, s.Halted, s.Harmful), exitFindings)
	}
	return nil
}

// tuningFormat picks the report format of compare and sweep.
func tuningFormat(c *cli.Context) (string, error) {
	format := c.String("format")
	if format == "" {
		format = "json"
		if isTerminal(c.App.Writer) {
			format = "table"
		}
	}
	if !contains(report.TuningFormats(), format) {
		return "", usageError("--format must be one of %s, not %q", strings.Join(report.TuningFormats(), ", "), format)
	}
	return format, nil
}

// replayConfigs reads the paths once and replays them under each of cfgs,
// for compare and sweep (analyze.ReplayAll: bounded memory, whatever the
// corpus size). With --strict, any input problem is printed and the run
// fails without a report.
func replayConfigs(c *cli.Context, cfgs []*rules.Rules, counter tokens.Counter) ([]*analyze.Report, analyze.CorpusFacts, *analyze.Partial, error) {
	if err := checkInputFormat(c); err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	in, err := ingestOptions(c)
	if err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	var early []ingest.Problem
	files, err := collectFiles(c, func(p ingest.Problem) { early = append(early, p) })
	if err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	files, shard, err := applyShard(c, files)
	if err != nil {
		return nil, analyze.CorpusFacts{}, nil, err
	}
	partial := shard.partial(files, cfgs, counter.Name(), len(early))
	prog := newProgress(c)
	read, stopProgress := prog.watch(files)
	in.BytesRead, in.Keep = read, sessionKeep(c)
	opt := analyze.Options{Tokens: counter, Jobs: c.Int("jobs"), Ingest: in, Progress: prog.update}
	reports, facts := analyze.ReplayAll(files, opt, cfgs, early)
	stopProgress()
	if problems := reports[0].Problems; c.Bool("strict") && len(problems) > 0 {
		for _, p := range problems {
			msg := p.Message
			if !c.Bool("no-redact") {
				msg = report.Redact(msg) // a message may quote a call id or tool name
			}
			fmt.Fprintf(c.App.ErrWriter, "%s:%d: %s\n", report.SafeLine(p.File), p.Line, report.Sanitize(msg))
		}
		// The summary counts the problems a file had past those listed.
		return nil, facts, nil, cli.Exit(fmt.Sprintf("%d input problem(s) and --strict is set", reports[0].Summary.Problems), exitUsage)
	}
	printProblems(c, reports[0].Problems, reports[0].Summary.Problems)
	return reports, facts, partial, nil
}

var tuningFlags = append([]cli.Flag{inputFormatFlag, jobsFlag, strictFlag, colorFlag, noRedactFlag, tokenizerFlag, progressFlag, shardFlag, maxRecordFlag,
	&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "table|json|csv|markdown|html (default: table on a terminal, json otherwise)"}}, inputFlags...)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "several presets or rules files side by side on the same corpus",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "preset", Usage: "presets to compare (comma-separated or repeated; default: all presets when no --rules is given)"},
			&cli.StringSliceFlag{Name: "rules", Usage: "rules files to compare (repeatable)"},
		}, tuningFlags...),
		Action: func(c *cli.Context) error {
			format, err := tuningFormat(c)
			if err != nil {
				return err
			}
			counter, err := tokens.New(c.String("tokenizer"))
			if err != nil {
				return usageError("%v", err)
			}
			var configs []*rules.Rules
			presets := c.StringSlice("preset")
			if len(presets) == 0 && len(c.StringSlice("rules")) == 0 {
				presets = rules.PresetNames()
			}
			var names []string
			for _, p := range presets {
				names = append(names, strings.Split(p, ",")...)
			}
			for _, name := range names {
				if strings.TrimSpace(name) == "" {
					continue
				}
				r, err := rules.Preset(strings.TrimSpace(name))
				if err != nil {
					return usageError("%v", err)
				}
				configs = append(configs, r)
			}
			for _, f := range c.StringSlice("rules") {
				r, err := rules.Load(f)
				if err != nil {
					return cli.Exit(err.Error(), exitUsage)
				}
				configs = append(configs, r)
			}
			if len(configs) == 0 {
				return usageError("nothing to compare: --preset and --rules name no rules")
			}
			reports, facts, partial, err := replayConfigs(c, configs, counter)
			if err != nil {
				return err
			}
			var rows []analyze.CompareRow
			for i, rep := range reports {
				rows = append(rows, analyze.CompareRow{Name: configs[i].Name, Source: configs[i].Source, Summary: rep.Summary})
			}
			warnApproximated(c, counter)
			opt, err := reportOptions(c, outputFile(c))
			if err != nil {
				return err
			}
			opt.Partial = partial
			opt.Problems = reports[0].Problems
			if err := report.Compare(format, c.App.Writer, rows, facts, opt); err != nil {
				return cli.Exit(err.Error(), exitUsage)
			}
			return nil
		},
	}
}

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "vary thresholds; precision, recall and tokens per setting, with the Pareto front",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{rulesFlag, presetFlag,
			&cli.StringSliceFlag{Name: "vary", Usage: "`KEY=RANGE` to vary, e.g. tools.class:read.block_at=2..6 or detectors.repeat.block_at=3,5 (repeatable: the cross product is replayed)"},
		}, tuningFlags...),
		Action: func(c *cli.Context) error {
			format, err := tuningFormat(c)
			if err != nil {
				return err
			}
			base, err := loadRules(c)
			if err != nil {
				return err
			}
			counter, err := tokens.New(c.String("tokenizer"))
			if err != nil {
				return usageError("%v", err)
			}
			if len(c.StringSlice("vary")) == 0 {
				return usageError("sweep needs at least one --vary KEY=RANGE (see 'loopgate sweep --help')")
			}
			var varies []analyze.Vary
			for _, spec := range c.StringSlice("vary") {
				v, err := analyze.ParseVary(spec)
				if err != nil {
					return usageError("%v", err)
				}
				varies = append(varies, v)
			}
			// Check every key and value before reading the corpus.
			cfgs, settings, err := analyze.Configs(base, varies)
			if err != nil {
				return usageError("%v", err)
			}
			reports, facts, partial, err := replayConfigs(c, cfgs, counter)
			if err != nil {
				return err
			}
			rows := analyze.SweepRows(settings, reports)
			warnApproximated(c, counter)
			opt, err := reportOptions(c, outputFile(c))
			if err != nil {
				return err
			}
			opt.Partial = partial
			opt.Problems = reports[0].Problems
			if err := report.Sweep(format, c.App.Writer, base.Name+" ("+base.Source+")", rows, facts, opt); err != nil {
				return cli.Exit(err.Error(), exitUsage)
			}
			return nil
		},
	}
}

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show the normalized stream: sessions, turns, requests, calls",
		ArgsUsage: "PATH...",
		Flags: append([]cli.Flag{
			inputFormatFlag, jobsFlag, strictFlag, colorFlag, noRedactFlag, rulesFlag, presetFlag, progressFlag, shardFlag, maxRecordFlag,
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table|json"},
			&cli.BoolFlag{Name: "calls", Usage: "list every call"},
		}, inputFlags...),
		Action: func(c *cli.Context) error {
			defer limitStreamingMemory()()
			format := c.String("format")
			if format != "table" && format != "json" {
				return usageError("--format must be table or json for inspect, not %q", format)
			}
			if err := checkInputFormat(c); err != nil {
				return err
			}
			r, err := loadRules(c) // only for the class column
			if err != nil {
				return err
			}
			opt, err := reportOptions(c, outputFile(c))
			if err != nil {
				return err
			}
			in, err := ingestOptions(c)
			if err != nil {
				return err
			}
			var problems []ingest.Problem
			addProblem := func(p ingest.Problem) { problems = append(problems, p) }
			files, err := collectFiles(c, addProblem)
			if err != nil {
				return err
			}
			if files, _, err = applyShard(c, files); err != nil {
				return err
			}
			withCalls := c.Bool("calls")
			sessions := []report.InspectSession{}
			prog := newProgress(c)
			read, stopProgress := prog.watch(files)
			// JSON is written as the sessions come (a corpus of millions of
			// sessions is not held); the table needs them all for its widths.
			var jw *report.InspectJSONWriter
			if format == "json" {
				jw = report.NewInspectJSONWriter(prog.erasingOnTerminal(c.App.Writer), opt)
			}
			// Each file's problems are listed as a replay lists them: the
			// first 1000, then one entry for the rest; all are counted.
			// Files are read in parallel and shown in their order, the
			// same for any --jobs.
			count := len(problems)
			var bytesDone int64
			in.BytesRead, in.Keep = read, sessionKeep(c)
			analyze.ReadInOrder(files, c.Int("jobs"), in,
				func(s *ingest.Session) report.InspectSession {
					return report.NewInspectSession(s, r.ClassOf, withCalls, opt)
				},
				func(is report.InspectSession) {
					if jw != nil {
						jw.Session(&is)
					} else {
						sessions = append(sessions, is)
					}
				},
				func(i int, fp *analyze.FileProblems) {
					problems = append(problems, fp.List...)
					count += fp.Count()
					if !prog.enabled {
						return
					}
					if fi, err := os.Stat(files[i]); err == nil {
						bytesDone += fi.Size()
					}
					prog.update(i+1, len(files), bytesDone)
				})
			stopProgress()
			if jw != nil {
				err = jw.Finish(problems)
			} else {
				err = report.InspectTable(c.App.Writer, sessions, problems, count, opt)
			}
			if err != nil {
				return cli.Exit(err.Error(), exitUsage)
			}
			printProblems(c, problems, count)
			if c.Bool("strict") && count > 0 {
				return cli.Exit(fmt.Sprintf("%d input problem(s) and --strict is set", count), exitUsage)
			}
			return nil
		},
	}
}

func rulesCommand() *cli.Command {
	return &cli.Command{
		Name:   "rules",
		Usage:  "print a preset or the effective rules; validate a rules file",
		Action: showHelp,
		Subcommands: []*cli.Command{
			{
				Name:  "print",
				Usage: "print the effective rules as YAML that --rules accepts back",
				Flags: []cli.Flag{rulesFlag, presetFlag,
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
						return cli.Exit(err.Error(), exitUsage)
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
						fmt.Fprintf(c.App.Writer, "%s: ok (rules %q)\n", f, r.Name)
					}
					if bad > 0 {
						return cli.Exit("", exitUsage)
					}
					return nil
				},
			},
		},
	}
}

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
			}
			fmt.Fprintln(w, "\nDetection tries the formats in this order; --input-format NAME skips it.")
			return nil
		},
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
