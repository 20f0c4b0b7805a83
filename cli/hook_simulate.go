package cli

// `loopgate hook simulate`: the command of package live/simulate, which
// drives transcripts through the live hook as an agent would and compares
// every call's action with what `loopgate replay` decides under the same
// rules (docs/live.md).

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/live/simulate"
)

func hookSimulateCommand() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "feed transcripts through the hook as the agent would and compare each call's action with replay",
		ArgsUsage: "PATH...",
		Flags: []cli.Flag{
			agentFlag(), rulesFlag(), presetFlag(), inputFormatFlag(),
			&cli.StringFlag{Name: "state-dir", Usage: "state `DIR` for the simulated sessions (default: a temporary directory, removed after)"},
			&cli.BoolFlag{Name: "exec", Usage: "run every hook event through a new hook process, as the agent does (slower): loopgate-hook beside this loopgate when it is of the same build, else 'loopgate hook'"},
			&cli.BoolFlag{Name: "verbose", Usage: "list every call, not only those whose actions differ"},
		},
		Action: runHookSimulate,
	}
}

func runHookSimulate(c *cli.Context) error {
	agent := live.Canonical(c.String("agent"))
	if c.String("agent") == "" {
		agent = "claude-code"
	}
	if !slices.Contains(simulate.Agents, agent) {
		return usageError("simulate writes the hook events of %s, not %q", strings.Join(simulate.Agents, ", "), c.String("agent"))
	}
	r, err := loadRules(c)
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usageError("simulate needs transcript PATHs")
	}
	dir := c.String("state-dir")
	if dir == "" {
		if dir, err = os.MkdirTemp("", "loopgate-simulate-"); err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
		defer os.RemoveAll(dir)
	}
	sim := &simulate.Simulator{Agent: agent, Rules: r, RulesArgs: hookRulesArgs(c), StateDir: dir, Exec: c.Bool("exec")}
	if sim.Exec {
		if sim.Binary, err = os.Executable(); err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
		// The process hook install would write: loopgate-hook beside
		// this loopgate, of its build, else this loopgate's hook.
		if own := ownHookBinary(sim.Binary, c.App.ErrWriter); own != "" {
			sim.Binary, sim.OwnBinary = own, true
		}
	}
	var problems int
	files := ingest.Expand(c.Args().Slice(), func(p ingest.Problem) {
		problems++
		fmt.Fprintf(c.App.ErrWriter, "loopgate: %s:%d: %s\n", p.File, p.Line, p.Message)
	})
	if len(files) == 0 {
		return cli.Exit("no transcript found", ExitUsage)
	}
	w := bufio.NewWriter(c.App.Writer)
	defer w.Flush()
	total, differ := 0, 0
	for _, f := range files {
		results, err := sim.File(f, ingest.Options{Format: c.String("input-format")})
		if err != nil {
			return cli.Exit(err.Error(), ExitUsage)
		}
		for _, res := range results {
			total += len(res.Calls)
			d := res.Differences()
			differ += len(d)
			fmt.Fprintf(w, "%s %s/%s: %d calls, %d as replay\n", res.File, res.Session, res.Agent, len(res.Calls), len(res.Calls)-len(d))
			for _, cc := range res.Calls {
				if c.Bool("verbose") || !cc.Same() {
					fmt.Fprintf(w, "  call %d %s: hook %s, replay %s\n", cc.Index, cc.Tool, cc.Hook, cc.Replay)
				}
			}
		}
	}
	fmt.Fprintf(w, "%d calls, %d with the same action, detector and message as replay, %d differ\n", total, total-differ, differ)
	if differ > 0 {
		w.Flush()
		return cli.Exit("", ExitFindings)
	}
	return nil
}

// hookRulesArgs are the rules flags to pass on to a hook process.
func hookRulesArgs(c *cli.Context) []string {
	if f := c.String("rules"); f != "" {
		return []string{"--rules", f}
	}
	if p := c.String("preset"); p != "" {
		return []string{"--preset", p}
	}
	return nil
}
