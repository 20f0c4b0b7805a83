package live

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// TestCodexCommandFailed: the exit code of a shell call is read from the
// rollout Codex wrote before its PostToolUse hook (item_completed of a
// CommandExecution, or an older exec_command_end).
func TestCodexCommandFailed(t *testing.T) {
	rollout := `{"type":"session_meta","payload":{"id":"s"}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_ok","status":"completed","exit_code":0}}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_bad","status":"failed","exit_code":1}}}
{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_old","exit_code":2}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_other","output":"Process exited with code 1"}}
`
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, []byte(rollout), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		id         string
		failed, ok bool
		exit       int
	}{
		{"call_ok", false, true, 0},
		{"call_bad", true, true, 1},
		{"call_old", true, true, 2},
		{"call_other", false, false, 0}, // no end event: not known
		{"call_none", false, false, 0},
	}
	for _, c := range cases {
		failed, exit, ok := codexCommandFailed(path, c.id)
		if failed != c.failed || ok != c.ok || exit != c.exit {
			t.Errorf("%s: failed %v exit %d ok %v, want %v %d %v", c.id, failed, exit, ok, c.failed, c.exit, c.ok)
		}
	}
	if _, _, ok := codexCommandFailed(filepath.Join(t.TempDir(), "missing"), "call_bad"); ok {
		t.Error("a missing rollout says something")
	}
	// Through the protocol: a PostToolUse whose tool_response holds the
	// output alone is a failure when the rollout says so.
	p := Lookup("codex")
	ev, err := p.ParseEvent([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","turn_id":"t","transcript_path":` + jsonx.Quote(path) +
		`,"tool_name":"Bash","tool_use_id":"call_bad","tool_input":{"command":"cat x"},"tool_response":"cat: x: No such file or directory\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	p.resultFacts(&ev)
	if !ev.IsError || ev.ExitCode != 1 {
		t.Errorf("the rollout's failed command: error %v, exit code %d; want an error result with exit code 1", ev.IsError, ev.ExitCode)
	}
}
