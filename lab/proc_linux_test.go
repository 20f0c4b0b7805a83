package lab

import (
	"os/exec"
	"syscall"
)

// ownProcess makes the agent's command die with the test binary (a run
// stopped at its time limit leaves no agent behind) and puts it in a process
// group of its own, which a timeout kills whole (agents relaunch themselves).
func ownProcess(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
