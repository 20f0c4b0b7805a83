package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// openCodeSchema is the part of OpenCode's tables the reader reads
// (packages/opencode/src/session/session.sql.ts).
const openCodeSchema = `
CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, time_created INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
INSERT INTO session VALUES ('ses_1', NULL, 1000);
INSERT INTO message VALUES ('msg_1', 'ses_1', 1000, 1000, '{"role": "user", "time": {"created": 1000}}');
INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_1', 1000, 1000, '{"type": "text", "text": "LAB-LOOP: print the lab word"}');
INSERT INTO message VALUES ('msg_2', 'ses_1', 2000, 2000, '{"role": "assistant", "time": {"created": 2000}, "modelID": "lab"}');
INSERT INTO part VALUES ('prt_2', 'msg_2', 'ses_1', 2000, 2000, '{"type": "step-start"}');
`

// TestOpenCodeToolPartResult: a tool part's result is what OpenCode sends
// the model for it. The shapes are those OpenCode 1.18.33 wrote in the
// lab; the interrupted one is a bash call whose run the loopgate plugin
// aborted (client.session.abort) in tool.execute.after: OpenCode records it
// as error "Tool execution aborted" with the output it had and
// interrupted true, and sends that output to the model.
func TestOpenCodeToolPartResult(t *testing.T) {
	tests := []struct {
		name    string
		state   string
		result  string
		isError bool
		has     bool
		notes   int
	}{
		{"completed", `{"status": "completed", "input": {"command": "echo lab-loop"}, "output": "lab-loop\n", "metadata": {"output": "lab-loop\n", "exit": 0}}`, "lab-loop\n", false, true, 0},
		{"completed, non-zero exit", `{"status": "completed", "input": {"command": "cat lab-missing.txt"}, "output": "cat: lab-missing.txt: No such file or directory\n", "metadata": {"exit": 1}}`, "cat: lab-missing.txt: No such file or directory\n", true, true, 0},
		{"completed, no output, exit code 1", `{"status": "completed", "input": {"command": "cat lab-absent.txt 2> /dev/null"}, "output": "(no output)", "metadata": {"output": "(no output)", "exit": 1}}`, "(no output)", true, true, 0},
		{"error", `{"status": "error", "input": {"command": "echo lab-loop"}, "error": "Error: loopgate: blocked"}`, "Error: loopgate: blocked", true, true, 0},
		{"interrupted with output", `{"metadata": {"output": "lab-loop\n", "interrupted": true}, "status": "error", "input": {"command": "echo lab-loop", "description": "lab"}, "time": {"start": 3000, "end": 3100}, "error": "Tool execution aborted"}`, "lab-loop\n", false, true, 1},
		{"interrupted with empty output", `{"metadata": {"output": "", "interrupted": true}, "status": "error", "input": {"command": "sleep 60"}, "error": "Tool execution aborted"}`, "", false, true, 1},
		{"interrupted, non-zero exit", `{"metadata": {"output": "partial\n", "exit": 2, "interrupted": true}, "status": "error", "input": {"command": "make"}, "error": "Tool execution aborted"}`, "partial\n", true, true, 1},
		{"interrupted with no output", `{"metadata": {"interrupted": true}, "status": "error", "input": {"filePath": "a.txt"}, "error": "Tool execution aborted"}`, "Tool execution aborted", true, true, 0},
		{"running", `{"status": "running", "input": {"command": "echo lab-loop"}, "time": {"start": 3000}}`, "", false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			part := fmt.Sprintf(`{"type": "tool", "tool": "bash", "callID": "call_1", "state": %s}`, tt.state)
			script := openCodeSchema + fmt.Sprintf("INSERT INTO part VALUES ('prt_3', 'msg_2', 'ses_1', 2001, 2001, '%s');\n", strings.ReplaceAll(part, "'", "''"))
			path := buildDB(t, []byte(script), t.TempDir(), "opencode.db")
			sessions, problems := readAll(t, path, Options{})
			if len(sessions) != 1 || len(sessions[0].Turns) != 1 || len(sessions[0].Turns[0].Requests) != 1 || len(sessions[0].Turns[0].Requests[0].Calls) != 1 {
				t.Fatalf("want one session with one call, got %d session(s); problems %v", len(sessions), problems)
			}
			c := sessions[0].Turns[0].Requests[0].Calls[0]
			if c.HasResult != tt.has || c.Result != tt.result || c.IsError != tt.isError {
				t.Errorf("result %q (has %v, error %v), want %q (has %v, error %v)", c.Result, c.HasResult, c.IsError, tt.result, tt.has, tt.isError)
			}
			// A completed command's exit code is kept beside its result, as
			// the plugin hands it to the hook.
			if want := strings.Contains(tt.state, `"completed"`) && strings.Contains(tt.state, `"exit": 1`); (c.ExitCode == 1) != want {
				t.Errorf("exit code %d, want 1: %v", c.ExitCode, want)
			}
			if c.ArgsRaw == "" || c.ArgsRaw == "{}" {
				t.Errorf("arguments %q: the part's input is lost", c.ArgsRaw)
			}
			if n := len(sessions[0].Notes); n != tt.notes {
				t.Errorf("%d note(s) %q, want %d", n, sessions[0].Notes, tt.notes)
			}
			if wantProblems := !tt.has; (len(problems) > 0) != wantProblems {
				t.Errorf("problems %v, want some: %v", problems, wantProblems)
			}
		})
	}
}
