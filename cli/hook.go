package cli

// The hook command: loopgate as an agent's hook (live), and its
// helpers: simulate (drive a transcript through the hook and compare with
// replay) and install/uninstall (the agent's settings file).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/rules"
)

// maxHookInput bounds the event read from stdin (a tool result may be
// large; a runaway writer must not exhaust memory).
const maxHookInput = 64 << 20

func agentFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "agent", Usage: "the agent: " + strings.Join(live.AgentNames(), ", ")}
}

func hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "live: decide one tool call of a running agent (one hook event on stdin, the agent's answer on stdout)",
		UsageText: "loopgate hook --agent AGENT [--preset NAME | --rules FILE] [--state-dir DIR] [--shadow] [--log FILE]",
		Flags: []cli.Flag{
			agentFlag(), rulesFlag(), presetFlag(),
			&cli.StringFlag{Name: "state-dir", Usage: "per-session state `DIR` (default $XDG_STATE_HOME/loopgate or ~/.local/state/loopgate)"},
			&cli.BoolFlag{Name: "shadow", Usage: "never block or steer: only record what the guard would do, with the real results, in the decision log"},
			&cli.StringFlag{Name: "log", Usage: "append every event and decision to this JSONL decision `FILE` (default with --shadow: decisions.jsonl in the state directory)"},
			&cli.DurationFlag{Name: "expire", Value: hookExpireDefault, Usage: "remove the state of sessions untouched this long (0: never)"},
		},
		Action: runHook,
		// A hook that exits 2 blocks the call in Claude Code and Gemini:
		// a flag the hook does not know is said and the call allowed.
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			fmt.Fprintf(c.App.ErrWriter, "loopgate: %v (allowed: the hook fails open)\n", err)
			return nil
		},
		Subcommands: []*cli.Command{
			hookSimulateCommand(),
			hookInstallCommand(false),
			hookInstallCommand(true),
		},
	}
}

// runHook never stops the agent on its own failure: a usage or rules error
// is said on stderr and the call is allowed (exit 0 with no answer).
func runHook(c *cli.Context) error {
	if code := hookMain(c, c.App.Writer, c.App.ErrWriter); code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// hookFlags are the hook's flag values: urfave/cli's context, or
// hookArgs' own reading of a plain command line.
type hookFlags interface {
	String(name string) string
	Bool(name string) bool
	Duration(name string) time.Duration
}

// hookMain runs one hook call and returns the exit status.
func hookMain(c hookFlags, stdout, stderr io.Writer) int {
	// One event, then exit: collecting garbage would cost more than the
	// memory it frees, unless a huge session's state needs it.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)
	cfg, err := hookConfig(c)
	if err != nil {
		fmt.Fprintf(stderr, "loopgate: %v (allowed: the hook fails open)\n", err)
		io.Copy(io.Discard, io.LimitReader(os.Stdin, maxHookInput))
		return 0
	}
	input, err := io.ReadAll(io.LimitReader(os.Stdin, maxHookInput+1))
	if err != nil {
		fmt.Fprintf(stderr, "loopgate: reading the hook event: %v (allowed: the hook fails open)\n", err)
		return 0
	}
	if len(input) > maxHookInput {
		fmt.Fprintf(stderr, "loopgate: hook event larger than %d bytes (allowed: the hook fails open)\n", maxHookInput)
		return 0
	}
	reply := live.Handle(cfg, input)
	stdout.Write(reply.Stdout)
	io.WriteString(stderr, reply.Stderr)
	return reply.Exit
}

// hookArgs reads the arguments after `loopgate hook` when they are only
// the hook's own flags, each given once, as --name VALUE or --name=VALUE
// (--shadow alone), which is how `hook install` writes them. Anything else
// (help, a subcommand, another flag, a value starting with a dash, an
// empty --name=, a duration that does not parse) is ok=false, and
// urfave/cli reads the command line as for every command: its parsing, a
// fifth of a hook call's instructions, is skipped only where both read the
// same values (TestHookArgsAreTheApp).
func hookArgs(args []string) (f hookArgValues, ok bool) {
	f = hookArgValues{strings: map[string]string{}, expire: hookExpireDefault}
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		if !strings.HasPrefix(args[i], "--") || name == "" || seen[name] || hasValue && value == "" {
			return f, false
		}
		seen[name] = true
		switch name {
		case "shadow":
			if hasValue {
				return f, false
			}
			f.shadow = true
			continue
		case "agent", "rules", "preset", "state-dir", "log", "expire":
		default:
			return f, false
		}
		if !hasValue {
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
				return f, false
			}
			i++
			value = args[i]
		}
		if name == "expire" {
			d, err := time.ParseDuration(value)
			if err != nil {
				return f, false
			}
			f.expire = d
			continue
		}
		f.strings[name] = value
	}
	return f, true
}

// hookExpireDefault is --expire's default.
const hookExpireDefault = 7 * 24 * time.Hour

// hookArgValues are the flags hookArgs read.
type hookArgValues struct {
	strings map[string]string
	shadow  bool
	expire  time.Duration
}

func (f hookArgValues) String(name string) string { return f.strings[name] }

func (f hookArgValues) Bool(name string) bool { return name == "shadow" && f.shadow }

func (f hookArgValues) Duration(name string) time.Duration {
	if name == "expire" {
		return f.expire
	}
	return 0
}

// hookConfig reads the hook's flags.
func hookConfig(c hookFlags) (live.Config, error) {
	p := live.Lookup(c.String("agent"))
	if p == nil {
		return live.Config{}, fmt.Errorf("--agent must be one of %s, not %q", strings.Join(live.AgentNames(), ", "), c.String("agent"))
	}
	dir := c.String("state-dir")
	if dir == "" {
		var err error
		if dir, err = live.DefaultStateDir(); err != nil {
			return live.Config{}, err
		}
	}
	r, text, digest, err := hookRules(c, dir)
	if err != nil {
		return live.Config{}, err
	}
	cfg := live.Config{Protocol: p, Rules: r, RulesText: text, RulesDigest: digest, RulesName: rulesName(c, r), StateDir: dir,
		Shadow: c.Bool("shadow"), Log: c.String("log"), TTL: c.Duration("expire"), ContentText: ingest.ContentText,
		Results: live.ResultReading{Envelope: ingest.EnvelopeOf, Failed: ingest.ResultFailed, Outcomes: ingest.ClineOutcomes}}
	if cfg.Shadow && cfg.Log == "" {
		cfg.Log = dir + string(os.PathSeparator) + "decisions.jsonl"
	}
	return cfg, nil
}

// hookRules is loadRules for a process that decides one call: a preset is
// parsed alone, where rules.Preset parses every preset on first use (a
// quarter of a hook call's start). TestHookRulesArePresets checks that
// both give the same rules. It also returns the text the rules were
// parsed from and its digest (the snapshot's tag: live.Config.RulesText).
// The rules parsed are kept in the state directory dir, so that the next
// call reads them instead of parsing the same text (live.CachedRules).
func hookRules(c hookFlags, dir string) (*rules.Rules, []byte, []byte, error) {
	source := c.String("rules")
	var data []byte
	var preset string // a built-in preset's name, "" for a rules file
	if source != "" {
		if c.String("preset") != "" {
			return nil, nil, nil, usageError("--rules and --preset cannot be used together")
		}
		// Read once and parsed from what was read, so that the text
		// digested is the text parsed (rules.Load's limit and wording).
		var err error
		if data, err = readRulesFile(source); err != nil {
			return nil, nil, nil, cli.Exit(err.Error(), ExitUsage)
		}
	} else {
		preset = c.String("preset")
		if preset == "" {
			preset = "loopgate"
		}
		var err error
		if data, err = rules.PresetText(preset); err != nil {
			return nil, nil, nil, usageError("%v", err)
		}
		source = "preset:" + preset
	}
	text := live.SourceText(source, data)
	var digest []byte
	if preset != "" {
		digest = live.PresetDigest(preset, text)
	} else {
		digest = live.RulesDigest(text)
	}
	r, err := live.CachedRules(dir, digest, func() (*rules.Rules, error) { return guard.ParseRules(data, source) })
	if err != nil {
		return nil, nil, nil, cli.Exit(err.Error(), ExitUsage)
	}
	return r, text, digest, nil
}

// readRulesFile reads a rules file as rules.Load does.
func readRulesFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the rules file: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, rules.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the rules file: %v", path, errors.Unwrap(err))
	}
	return data, nil
}

// rulesName names the rules in the decision log: the preset, or the file.
func rulesName(c hookFlags, r *rules.Rules) string {
	if f := c.String("rules"); f != "" {
		return f
	}
	if p := c.String("preset"); p != "" {
		return p
	}
	return "loopgate"
}

func hookInstallCommand(remove bool) *cli.Command {
	name, usage := "install", "add loopgate's hook to an agent's settings (other hooks kept; the file backed up first)"
	if remove {
		name, usage = "uninstall", "remove loopgate's hook entries from an agent's settings (nothing else)"
	}
	flags := []cli.Flag{
		agentFlag(),
		&cli.StringFlag{Name: "scope", Value: "user", Usage: "user (the agent's settings in your home) or project (in the current directory)"},
		&cli.BoolFlag{Name: "dry-run", Usage: "print the settings as they would be, write nothing"},
	}
	if !remove {
		flags = append(flags, rulesFlag(), presetFlag(),
			&cli.StringFlag{Name: "state-dir", Usage: "pass --state-dir `DIR` to the hook"},
			&cli.BoolFlag{Name: "shadow", Usage: "install the hook in shadow mode (record only)"},
			&cli.StringFlag{Name: "log", Usage: "pass --log `FILE` to the hook"},
			&cli.StringFlag{Name: "command", Usage: "the loopgate program the agent runs (default: this one's absolute path)"})
	}
	return &cli.Command{Name: name, Usage: usage, Flags: flags, Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		return runHookInstall(c, remove)
	}}
}

func runHookInstall(c *cli.Context, remove bool) error {
	agent := live.Canonical(c.String("agent"))
	if agent == "" {
		return usageError("--agent must be one of %s, not %q", strings.Join(live.AgentNames(), ", "), c.String("agent"))
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return cli.Exit(err.Error(), ExitUsage)
	}
	project, err := os.Getwd()
	if err != nil {
		return cli.Exit(err.Error(), ExitUsage)
	}
	command := ""
	if !remove {
		if c.String("rules") != "" && c.String("preset") != "" {
			return usageError("--rules and --preset cannot be used together")
		}
		if _, err := loadRules(c); err != nil {
			return err
		}
		if command, err = hookCommandLine(c, agent); err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
	}
	in, err := live.InstallHooks(agent, c.String("scope"), home, project, command, remove, c.Bool("dry-run"))
	if err != nil {
		return cli.Exit(err.Error(), ExitUsage)
	}
	w := c.App.Writer
	switch {
	case c.Bool("dry-run"):
		fmt.Fprintf(w, "# %s (dry run: nothing written)\n%s", in.File, in.Content)
	case !in.Changed:
		fmt.Fprintf(w, "%s: nothing to change\n", in.File)
	case remove:
		fmt.Fprintf(w, "%s: loopgate's hook removed\n", in.File)
	default:
		fmt.Fprintf(w, "%s: loopgate's hook added for %s\n", in.File, strings.Join(in.Events, ", "))
	}
	if in.Backup != "" {
		fmt.Fprintf(w, "backup: %s\n", in.Backup)
	}
	for _, n := range in.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// hookCommandLine is the command the agent runs: this program (by its
// absolute path, so that the agent's PATH does not matter) with the
// hook's flags, each quoted for a POSIX shell.
func hookCommandLine(c *cli.Context, agent string) (string, error) {
	prog := c.String("command")
	if prog == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		if prog, err = filepath.Abs(exe); err != nil {
			return "", err
		}
		if inGoBuildCache(prog) {
			fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: this loopgate was built by 'go run' (%s): the go command deletes that file, and then the agent's hook fails; install loopgate (go install .) and run 'loopgate hook install' from there, or give --command PATH\n", prog)
		}
	}
	args := []string{prog, "hook", "--agent", agent}
	for _, f := range []string{"rules", "preset", "state-dir", "log"} {
		if v := c.String(f); v != "" {
			if f == "rules" || f == "state-dir" || f == "log" {
				abs, err := filepath.Abs(v)
				if err != nil {
					return "", err
				}
				v = abs
			}
			args = append(args, "--"+f, v)
		}
	}
	if c.Bool("shadow") {
		args = append(args, "--shadow")
	}
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " "), nil
}

// shellQuote quotes a word for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
