package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/urfave/cli/v2"
)

// gate runs `loopgate gate ARGS...` in-process. Until main.go registers
// gateCommand, it adds the command to the app itself (the same wiring as
// run); afterwards it is exactly the loopgate helper.
func gate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	args = append([]string{"gate"}, args...)
	if newApp(nil, nil).Command("gate") != nil {
		return loopgate(t, args...)
	}
	t.Setenv("COLUMNS", "100")
	t.Setenv("NO_COLOR", "1")
	var out, errb bytes.Buffer
	app := newApp(&out, &errb)
	cmd := gateCommand()
	cmd.OnUsageError = app.OnUsageError
	app.Commands = append(app.Commands, cmd)
	err := app.Run(permuteArgs(app, append([]string{"loopgate"}, args...)))
	code := exitOK
	var ec cli.ExitCoder
	switch {
	case err == nil:
	case errors.As(err, &ec):
		if msg := ec.Error(); msg != "" {
			fmt.Fprintln(&errb, "loopgate: "+msg)
		}
		code = ec.ExitCode()
	default:
		fmt.Fprintln(&errb, "loopgate: "+err.Error())
		code = exitUsage
	}
	return out.String(), errb.String(), code
}

func TestGateScratch(t *testing.T) {
	out, errs, code := gate(t, "fixtures/golden/loopgate.gate.yaml", "--update")
	t.Logf("%d\n%s\n%s", code, out, errs)
}
