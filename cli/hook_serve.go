package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/live/hookcmd"
)

func hookServeCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "answer the hook events that agents post over HTTP (Claude Code's and Qwen Code's \"http\" hooks), on the loopback interface, until stopped: no process starts per tool call",
		UsageText: "loopgate hook serve [--listen HOST:PORT] [--preset NAME | --rules FILE] [--state-dir DIR] [--shadow] [--log FILE]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "listen", Value: live.DefaultListen, Usage: "listen on `HOST:PORT` (a loopback address only; port 0 picks a free one, printed)"},
		}, hookFlags(", and its token file serve.token")...),
		Action: runHookServe,
	}
}

// runHookServe listens until SIGINT or SIGTERM. Unlike the hook, its own
// failure to start is an error: nothing is running yet that it could
// stop, and the agents' HTTP hooks fail open while no server answers.
func runHookServe(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if c.String("rules") != "" && c.String("preset") != "" {
		return usageError("--rules and --preset cannot be used together")
	}
	addr := c.String("listen")
	if err := live.CheckListen(addr); err != nil {
		return usageError("%v", err)
	}
	s, err := hookcmd.NewServer(c, c.App.ErrWriter)
	if err != nil {
		return cli.Exit("loopgate: "+err.Error(), ExitUsage)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return cli.Exit("loopgate: "+err.Error(), ExitUsage)
	}
	fmt.Fprintln(c.App.ErrWriter, live.ListenLine(ln.Addr().String(), s.StateDir()))
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.Serve(ctx, ln); err != nil && err != context.Canceled {
		return cli.Exit("loopgate: "+err.Error(), 1)
	}
	return nil
}
