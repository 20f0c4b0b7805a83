package main

// The hook command: loopgate as an agent's hook (internal/live), and its
// helpers: simulate (drive a transcript through the hook and compare with
// replay) and install/uninstall (the agent's settings file).

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/internal/live"
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
			agentFlag(), rulesFlag, presetFlag,
			&cli.StringFlag{Name: "state-dir", Usage: "per-session state `DIR` (default $XDG_STATE_HOME/loopgate or ~/.local/state/loopgate)"},
			&cli.BoolFlag{Name: "shadow", Usage: "never block or steer: only record what the guard would do, with the real results, in the decision log"},
			&cli.StringFlag{Name: "log", Usage: "append every event and decision to this JSONL decision `FILE` (default with --shadow: decisions.jsonl in the state directory)"},
			&cli.DurationFlag{Name: "expire", Value: 7 * 24 * time.Hour, Usage: "remove the state of sessions untouched this long (0: never)"},
		},
		Action: runHook,
		Subcommands: []*cli.Command{
			hookSimulateCommand(),
		},
	}
}

// runHook never stops the agent on its own failure: a usage or rules error
// is said on stderr and the call is allowed (exit 0 with no answer).
func runHook(c *cli.Context) error {
	// One event, then exit: collecting garbage would cost more than the
	// memory it frees, unless a huge session's state needs it.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)
	stderr := c.App.ErrWriter
	cfg, err := hookConfig(c)
	if err != nil {
		fmt.Fprintf(stderr, "loopgate: %v (allowed: the hook fails open)\n", err)
		io.Copy(io.Discard, io.LimitReader(os.Stdin, maxHookInput))
		return nil
	}
	input, err := io.ReadAll(io.LimitReader(os.Stdin, maxHookInput+1))
	if err != nil {
		fmt.Fprintf(stderr, "loopgate: reading the hook event: %v (allowed: the hook fails open)\n", err)
		return nil
	}
	if len(input) > maxHookInput {
		fmt.Fprintf(stderr, "loopgate: hook event larger than %d bytes (allowed: the hook fails open)\n", maxHookInput)
		return nil
	}
	reply := live.Handle(cfg, input)
	c.App.Writer.Write(reply.Stdout)
	io.WriteString(stderr, reply.Stderr)
	if reply.Exit != 0 {
		return cli.Exit("", reply.Exit)
	}
	return nil
}

// hookConfig reads the hook's flags.
func hookConfig(c *cli.Context) (live.Config, error) {
	p := live.Protocols[c.String("agent")]
	if p == nil {
		return live.Config{}, fmt.Errorf("--agent must be one of %s, not %q", strings.Join(live.AgentNames(), ", "), c.String("agent"))
	}
	r, err := loadRules(c)
	if err != nil {
		return live.Config{}, err
	}
	dir := c.String("state-dir")
	if dir == "" {
		if dir, err = live.DefaultStateDir(); err != nil {
			return live.Config{}, err
		}
	}
	cfg := live.Config{Protocol: p, Rules: r, RulesName: rulesName(c, r), StateDir: dir,
		Shadow: c.Bool("shadow"), Log: c.String("log"), TTL: c.Duration("expire")}
	if cfg.Shadow && cfg.Log == "" {
		cfg.Log = dir + string(os.PathSeparator) + "decisions.jsonl"
	}
	return cfg, nil
}

// rulesName names the rules in the decision log: the preset, or the file.
func rulesName(c *cli.Context, r *rules.Rules) string {
	if f := c.String("rules"); f != "" {
		return f
	}
	if p := c.String("preset"); p != "" {
		return p
	}
	return "loopgate"
}
