// Command loopgate replays AI-agent transcripts through tool-call loop
// guards and reports where calls would have been steered or blocked, whether
// each block was right, and how many tokens it would have saved.
//
// This file only starts the command line, which cli builds: its
// commands, flags, wiring and exit codes. The work is done by packages
// ingest, rules, analyze and report.
package main

import (
	"io"
	"os"

	"github.com/loopgate/loopgate/cli"
)

// version is what --version prints: set with -ldflags "-X main.version=...",
// else by version.go from the build info.
var version = "dev"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run is main without the process exit, so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Run(args, stdout, stderr, version)
}
