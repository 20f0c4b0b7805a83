// Command loopgate-hook is loopgate's live hook in a binary of its own:
// `loopgate-hook --agent AGENT [FLAGS]` answers one hook event as `loopgate
// hook --agent AGENT [FLAGS]` does (package live/hookcmd). An agent starts
// the hook before (and after) every tool call; this binary links only
// what a hook call needs, and starts in a fraction of loopgate's time
// (docs/performance.md, "The live hook"). `loopgate hook install` writes
// it into an agent's settings when it lies beside loopgate, of the same
// build (docs/live.md).
package main

import (
	"os"

	"github.com/loopgate/loopgate/live/hookcmd"
)

func main() {
	os.Exit(hookcmd.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
