package live

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// Codex's PostToolUse for a shell command (tool_name "Bash") carries the
// command's output alone as tool_response: no exit code, no error member,
// and no failure event (the agent lab, Codex 0.171.0: tool_response
// "cat: lab-missing.txt: No such file or directory\n" where the rollout
// says "Process exited with code 1"). Codex has already written the
// command's end to the rollout named by transcript_path when the hook
// runs: an event_msg item_completed whose item is {"type":
// "CommandExecution", "id": <call id>, "status", "exit_code"} (0.171.0,
// written before the PostToolUse hook is started), or, in older rollouts,
// an event_msg exec_command_end {"call_id", "exit_code"}. codexResultFacts
// reads it there, so a failed command is a failure in the hook as in
// replay (ingest reads the exit code from the function_call_output's
// header). When the rollout does not say (not written yet, not readable),
// the result is read as a success: what the event alone says.

// codexTail bounds how much of the rollout's end is read for the call.
const codexTail = 1 << 20

func codexResultFacts(ev *Event) {
	if ev.Kind != KindPost || ev.IsError || ev.Transcript == "" || ev.CallID == "" {
		return
	}
	if failed, exit, ok := codexCommandFailed(ev.Transcript, ev.CallID); ok && failed {
		ev.IsError, ev.ExitCode = true, exit
	}
}

// codexCommandFailed reports whether the rollout at path records the
// command of call id as failed, and its exit code when it says one (ok:
// it records its end at all).
func codexCommandFailed(path, id string) (failed bool, exit int, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return false, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false, 0, false
	}
	off := max(fi.Size()-codexTail, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return false, 0, false
	}
	quoted, _ := json.Marshal(id)
	lines := bytes.Split(data, []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], quoted) {
			continue
		}
		var rec struct {
			Type    string `json:"type"`
			Payload struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
				Exit   *int   `json:"exit_code"`
				Item   struct {
					Type   string `json:"type"`
					ID     string `json:"id"`
					Status string `json:"status"`
					Exit   *int   `json:"exit_code"`
				} `json:"item"`
			} `json:"payload"`
		}
		if json.Unmarshal(lines[i], &rec) != nil || rec.Type != "event_msg" {
			continue
		}
		p := rec.Payload
		switch {
		case p.Type == "item_completed" && p.Item.Type == "CommandExecution" && p.Item.ID == id:
			exit := 0
			if p.Item.Exit != nil {
				exit = *p.Item.Exit
			}
			return p.Item.Status == "failed" || exit != 0, exit, true
		case p.Type == "exec_command_end" && p.CallID == id && p.Exit != nil:
			return *p.Exit != 0, *p.Exit, true
		}
	}
	return false, 0, false
}
