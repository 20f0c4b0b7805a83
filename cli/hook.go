package cli

// The hook command: loopgate as an agent's hook (live), and its
// helpers: simulate (drive a transcript through the hook and compare with
// replay) and install/uninstall (the agent's settings file).

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/live/hookcmd"
)

func agentFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "agent", Usage: "the agent: " + strings.Join(live.AgentNames(), ", ")}
}

func hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "live: decide one tool call of a running agent (one hook event on stdin, the agent's answer on stdout; loopgate-hook does the same, and starts faster)",
		UsageText: "loopgate hook --agent AGENT [--preset NAME | --rules FILE] [--state-dir DIR] [--shadow] [--log FILE]",
		Flags:     append([]cli.Flag{agentFlag()}, hookFlags("")...),
		Action:    runHook,
		// A hook that exits 2 blocks the call in Claude Code and Gemini:
		// a flag the hook does not know is said and the call allowed.
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			fmt.Fprintf(c.App.ErrWriter, "loopgate: %v (allowed: the hook fails open)\n", err)
			return nil
		},
		Subcommands: []*cli.Command{
			hookSimulateCommand(),
			hookServeCommand(),
			hookInstallCommand(false),
			hookInstallCommand(true),
		},
	}
}

// hookFlags are the flags of a hook call but --agent, which `hook serve`
// takes too; stateNote ends --state-dir's usage.
func hookFlags(stateNote string) []cli.Flag {
	return []cli.Flag{
		rulesFlag(), presetFlag(),
		&cli.StringFlag{Name: "state-dir", Usage: "per-session state `DIR`" + stateNote + " (default $XDG_STATE_HOME/loopgate or ~/.local/state/loopgate)"},
		&cli.BoolFlag{Name: "shadow", Usage: "never block or steer: only record what the guard would do, with the real results, in the decision log"},
		&cli.StringFlag{Name: "log", Usage: "append every event and decision to this JSONL decision `FILE` (default with --shadow: decisions.jsonl in the state directory)"},
		&cli.DurationFlag{Name: "expire", Value: hookcmd.DefaultExpire, Usage: "remove the state of sessions untouched this long (0: never)"},
	}
}

// runHook never stops the agent on its own failure: a usage or rules error
// is said on stderr and the call is allowed (exit 0 with no answer).
func runHook(c *cli.Context) error {
	if code := hookcmd.Run(c, os.Stdin, c.App.Writer, c.App.ErrWriter); code != 0 {
		return cli.Exit("", code)
	}
	return nil
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
			&cli.StringFlag{Name: "command", Usage: "the program the agent runs: a loopgate, or a loopgate-hook (default: loopgate-hook beside this loopgate when it is of the same build, else this loopgate; by absolute path)"},
			&cli.BoolFlag{Name: "http", Usage: "the agent posts each event to 'loopgate hook serve' instead of running a command (Claude Code, Qwen Code, and loopgate's OpenCode plugin and pi extension): the server's flags choose the rules"},
			&cli.StringFlag{Name: "listen", Value: live.DefaultListen, Usage: "with --http: the `HOST:PORT` the server listens on"})
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
	if !remove && c.Bool("http") {
		return installHTTPHook(c, agent, home, project)
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
	if reportInstall(c, in, remove) {
		fmt.Fprintf(c.App.Writer, "command: %s\n", command)
	}
	return nil
}

// reportInstall says what install or uninstall did (or would do), and
// whether it added loopgate's hook.
func reportInstall(c *cli.Context, in *live.Install, remove bool) (added bool) {
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
		added = true
	}
	if in.Backup != "" {
		fmt.Fprintf(w, "backup: %s\n", in.Backup)
	}
	for _, n := range in.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return added
}

// installHTTPHook writes the agent's hooks as URLs of a hook server
// (`loopgate hook serve`), with the token of the state directory the
// server uses. The rules are the server's: flags that choose them here
// would be ignored, so they are refused.
func installHTTPHook(c *cli.Context, agent, home, project string) error {
	if !live.HTTPHooks(agent) {
		return usageError("--http: %s's hooks run a command, they cannot post to a server (those of claude-code, qwen-code, opencode and pi can)", agent)
	}
	for _, f := range []string{"rules", "preset", "shadow", "log", "command"} {
		if c.IsSet(f) {
			return usageError("--%s does not go with --http: give it to 'loopgate hook serve', whose flags choose the rules and the log", f)
		}
	}
	if c.String("scope") != "user" {
		// The token would land in a file of the project, which its
		// repository may hold and publish.
		return usageError("--http installs in the user scope only: the settings then hold the server's token, which a project's files must not")
	}
	addr := c.String("listen")
	if err := live.CheckListen(addr); err != nil {
		return usageError("%v", err)
	}
	if _, port, _ := net.SplitHostPort(addr); port == "0" {
		return usageError("--listen %q: give the port the server listens on (it prints it)", addr)
	}
	dir := c.String("state-dir")
	var err error
	if dir == "" {
		dir, err = live.DefaultStateDir()
	} else {
		// The server's command line printed below may run elsewhere.
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return cli.Exit(err.Error(), ExitUsage)
	}
	// The token is a secret, and a dry run's output may be pasted
	// anywhere; it writes nothing either, not even the token.
	token := "<the token in " + filepath.Join(dir, "serve.token") + ">"
	if !c.Bool("dry-run") {
		if token, err = live.ServeToken(dir); err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
	}
	url := live.HookURL(addr, agent)
	in, err := live.InstallHTTPHooks(agent, c.String("scope"), home, project, url, token, c.Bool("dry-run"))
	if err != nil {
		return cli.Exit(err.Error(), ExitUsage)
	}
	reportInstall(c, in, false)
	fmt.Fprintf(c.App.Writer, "url: %s\n", url)
	serve := "loopgate hook serve --listen " + addr
	if c.IsSet("state-dir") {
		serve += " --state-dir " + shellQuote(dir)
	}
	fmt.Fprintf(c.App.Writer, "note: the agent's hooks are answered only while the server runs (%s, with the rules you choose); without it each call goes on unguarded\n", serve)
	// Whether one runs now, and of this build (the rules as measured).
	switch got, known, err := hookcmd.Probe(addr, token); {
	case err != nil:
		fmt.Fprintf(c.App.Writer, "note: no server answers at %s yet: start it\n", addr)
	case !known:
		fmt.Fprintf(c.App.Writer, "note: the server at %s does not take the token of %s: it keeps another state directory, and refuses the agent's events (which then run unguarded): restart it with --state-dir %s\n", addr, dir, shellQuote(dir))
	case got != hookcmd.HealthLine():
		fmt.Fprintf(c.App.Writer, "note: the server at %s is not of this loopgate's build (it says %q, this build is %q): restart it from this loopgate\n", addr, got, hookcmd.HealthLine())
	default:
		fmt.Fprintf(c.App.Writer, "server: %s answers (%s)\n", addr, got)
	}
	return nil
}

// hookCommandLine is the command the agent runs, with the hook's flags,
// each quoted for a POSIX shell: by default the hook's own binary
// (loopgate-hook) when it lies beside this program and is of its build
// (ownHookBinary), else this program's `hook` command; either by its
// absolute path, so that the agent's PATH does not matter. --command
// names another program (a loopgate-hook by its name).
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
		} else if own := ownHookBinary(prog, c.App.ErrWriter); own != "" {
			prog = own
		}
	}
	args := []string{prog, "hook", "--agent", agent}
	if live.IsHookProgram(prog) {
		args = []string{prog, "--agent", agent}
	}
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

// ownHookBinary is the hook's own binary beside the loopgate at exe
// (loopgate-hook, cmd/loopgate-hook), "" when there is none or it is of
// another build: its --version must say this build (hookcmd.VersionLine),
// so that the agent runs the rules as this loopgate measured them. Why
// none serves is said on w.
func ownHookBinary(exe string, w io.Writer) string {
	path := filepath.Join(filepath.Dir(exe), live.HookProgram+strings.ToLower(filepath.Ext(exe)))
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		fmt.Fprintf(w, "loopgate: note: no %s beside this loopgate (in %s): the hook runs this loopgate; %s, the hook alone, starts faster (docs/live.md, \"The hook's own binary\")\n", live.HookProgram, filepath.Dir(exe), live.HookProgram)
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != hookcmd.VersionLine() {
		fmt.Fprintf(w, "loopgate: note: %s is not of this loopgate's build (its --version says %q, this build is %q): the hook runs this loopgate; install both from one release\n", path, got, hookcmd.VersionLine())
		return ""
	}
	return path
}

// shellQuote quotes a word for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
