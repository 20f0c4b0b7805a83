//go:build unix

package hookcmd

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestHookClientReadsASocket: an agent written for Node (Gemini CLI,
// Qwen Code, Cline) gives its hook's process a socket as its stdin, not a
// pipe (libuv's stdio): the client reads the event from it all the same.
func TestHookClientReadsASocket(t *testing.T) {
	ts, _ := serverFor(t, "loopgate")
	client := clientFor(t, ts.Listener.Addr().String(), stateOf(t, ts))
	events := claudeSession("s1")
	answered := 0
	for i, ev := range events[:5] {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		ours, theirs := os.NewFile(uintptr(fds[0]), "agent"), os.NewFile(uintptr(fds[1]), "hook stdin")
		cmd := exec.Command(client, "--agent", "claude-code")
		var out, errOut bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		theirs.Close()
		ours.WriteString(ev)
		// The agent's end of the event: the socket's write side shut, as
		// Node ends the child's stdin.
		syscall.Shutdown(int(ours.Fd()), syscall.SHUT_WR)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("event %d: %v %s", i, err, errOut.String())
		}
		ours.Close()
		if errOut.Len() > 0 {
			t.Errorf("event %d: stderr %q", i, errOut.String())
		}
		if out.Len() > 0 {
			answered++
		}
	}
	// events[:5]: the prompt, the first read and its result, the second
	// read (denied: the same call, nothing changed) and its result.
	if answered != 1 {
		t.Errorf("%d events answered over a socket, want the repeated read's denial", answered)
	}
}
