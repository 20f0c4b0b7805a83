// Command peakrss runs a command and writes its peak resident memory, in
// KiB, to the file named by $PEAKRSS_OUT. The tests run loopgate through it:
// a child started straight from a large test process inherits that
// process's high-water mark (Linux records the old memory's peak at exec,
// and Go starts children with vfork), this small one passes on its own.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(125)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		os.WriteFile(os.Getenv("PEAKRSS_OUT"), fmt.Appendf(nil, "%d\n", ru.Maxrss), 0o644)
	}
	os.Exit(code)
}
