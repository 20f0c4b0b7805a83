package cli

import (
	"bytes"
	"io"
	"testing"
)

// run is Run with the version of a build without one, as main calls it.
func run(args []string, stdout, stderr io.Writer) int {
	return Run(args, stdout, stderr, "dev")
}

// loopgate runs the CLI in-process and returns stdout, stderr and the exit code.
func loopgate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("COLUMNS", "100")
	t.Setenv("NO_COLOR", "1")
	var out, errb bytes.Buffer
	code := run(append([]string{"loopgate"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}
