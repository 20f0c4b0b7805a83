package hookcmd

import (
	"bytes"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/live"
)

// clientFor writes the hook client for the server ts over the state
// directory dir; it skips the test where there is no bash.
func clientFor(t *testing.T, addr, dir string) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash: the hook client is a bash script")
	}
	client, err := live.WriteHookClient(bash, addr, dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(client); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the client %s: %v %v, want mode 0700", client, fi, err)
	}
	return client
}

// runClient runs the hook client on an event as an agent would.
func runClient(t *testing.T, client, agent, event string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(client, "--agent", agent)
	cmd.Stdin = strings.NewReader(event)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("the client failed (it must exit 0 whatever happens): %v: %s", err, errOut.String())
	}
	return out.String(), errOut.String()
}

// stateOf is the state directory of a test server (serverFor).
func stateOf(t *testing.T, ts *httptest.Server) string {
	t.Helper()
	return ts.Config.Handler.(*Server).StateDir()
}

// TestHookClientAnswersAsTheHook: a session's events given to the hook
// client (as an agent whose hooks run a command gives them) get the
// answers `loopgate hook` prints for them, byte for byte: empty answers,
// denials, steers, and the answer to an event of 300 KB of text that is
// not all ASCII (the request's length is counted in bytes).
func TestHookClientAnswersAsTheHook(t *testing.T) {
	big := strings.Repeat("é ünïcode ✓ line\n", 300<<10/22)
	for _, preset := range []string{"loopgate", "hermes"} {
		t.Run(preset, func(t *testing.T) {
			ts, _ := serverFor(t, preset)
			client := clientFor(t, ts.Listener.Addr().String(), stateOf(t, ts))
			hookState := t.TempDir()
			events := claudeSession("s1")
			read := `"hook_event_name":"%s","session_id":"s2","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"/w/big.txt"},"tool_use_id":"b%d"`
			for i := range 2 {
				events = append(events, fmt.Sprintf("{"+read+"}", "PreToolUse", i),
					fmt.Sprintf("{"+read+`,"tool_response":%q}`, "PostToolUse", i, big))
			}
			answered := 0
			for i, ev := range events {
				var want, stderr bytes.Buffer
				f := Args{strings: map[string]string{"agent": "claude-code", "preset": preset, "state-dir": hookState}, expire: DefaultExpire}
				if code := Run(f, strings.NewReader(ev), &want, &stderr); code != 0 || stderr.Len() > 0 {
					t.Fatalf("event %d: the hook exited %d: %s", i, code, stderr.String())
				}
				got, said := runClient(t, client, "claude-code", ev)
				if got != want.String() || said != "" {
					t.Errorf("event %d: client %q (stderr %q), hook %q", i, got, said, want.String())
				}
				if got != "" {
					answered++
				}
			}
			if answered < 2 {
				t.Errorf("%d events answered: the comparison saw no answer but the empty one", answered)
			}
		})
	}
}

// TestHookClientFailsOpen: whatever stands between the agent and the
// server, the client prints no answer and exits 0, so the call goes on;
// a refusal and a missing token are said on stderr.
func TestHookClientFailsOpen(t *testing.T) {
	ev := claudeSession("s1")[1]
	ts, _ := serverFor(t, "loopgate")
	addr := ts.Listener.Addr().String()

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	wrongToken := t.TempDir()
	if err := os.WriteFile(filepath.Join(wrongToken, "serve.token"), []byte(strings.Repeat("0", 64)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, addr, dir, agent string
		said                   string // in stderr ("" for nothing at all)
	}{
		{"no server", closedAddr, stateOf(t, ts), "claude-code", ""},
		{"a token not the server's", addr, wrongToken, "claude-code", "answered 403"},
		{"no token file", addr, t.TempDir(), "claude-code", "no token in"},
		{"an agent the server does not know", addr, stateOf(t, ts), "nobody", "answered 404"},
		{"no agent", addr, stateOf(t, ts), "", "usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := clientFor(t, tc.addr, tc.dir)
			got, said := runClient(t, client, tc.agent, ev)
			if got != "" {
				t.Errorf("answer %q, want none", got)
			}
			if tc.said == "" && said != "" || tc.said != "" && !strings.Contains(said, tc.said) {
				t.Errorf("stderr %q, want %q", said, tc.said)
			}
		})
	}
}

// TestHookClientScriptRefuses: the client is written for a loopback
// server only, as the server listens.
func TestHookClientScriptRefuses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:7433", "192.168.1.2:7433", "7433", "127.0.0.1:"} {
		if _, err := live.HookClientScript("/bin/bash", addr, t.TempDir()); err == nil {
			t.Errorf("%q: a client written", addr)
		}
	}
}
