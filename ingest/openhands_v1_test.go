package ingest

import (
	"strings"
	"testing"
)

// Events as the software-agent-sdk serializes them (openhands/sdk/event):
// a kind, a string id, a source; an ActionEvent with its tool call and
// the LLM response it came from; observations naming the action.
var ohV1Events = []string{
	`{"kind": "SystemPromptEvent", "id": "e0", "timestamp": "2026-03-01T09:00:00", "source": "agent", "system_prompt": {"type": "text", "text": "You are OpenHands."}, "tools": []}`,
	`{"kind": "MessageEvent", "id": "e1", "timestamp": "2026-03-01T09:00:01", "source": "user", "llm_message": {"role": "user", "content": [{"type": "text", "text": "Fix the test"}]}}`,
	`{"kind": "ActionEvent", "id": "e2", "timestamp": "2026-03-01T09:00:02", "source": "agent", "thought": [{"type": "text", "text": "Look first."}], "action": {"kind": "ExecuteBashAction", "command": "ls"}, "tool_name": "execute_bash", "tool_call_id": "call_a", "tool_call": {"id": "call_a", "name": "execute_bash", "arguments": "{\"command\": \"ls\"}", "origin": "completion"}, "llm_response_id": "resp_1"}`,
	`{"kind": "ActionEvent", "id": "e3", "timestamp": "2026-03-01T09:00:02", "source": "agent", "thought": [], "action": {"kind": "StrReplaceEditorAction", "command": "view", "path": "/w/t.py"}, "tool_name": "str_replace_editor", "tool_call_id": "call_b", "tool_call": {"id": "call_b", "name": "str_replace_editor", "arguments": "{\"command\": \"view\", \"path\": \"/w/t.py\"}", "origin": "completion"}, "llm_response_id": "resp_1"}`,
	`{"kind": "ObservationEvent", "id": "e4", "timestamp": "2026-03-01T09:00:03", "source": "environment", "observation": {"kind": "ExecuteBashObservation", "content": [{"type": "text", "text": "t.py"}], "is_error": false}, "action_id": "e2", "tool_name": "execute_bash", "tool_call_id": "call_a"}`,
	`{"kind": "AgentErrorEvent", "id": "e5", "timestamp": "2026-03-01T09:00:03", "source": "agent", "tool_name": "str_replace_editor", "tool_call_id": "call_b", "error": "path does not exist"}`,
	`{"kind": "Condensation", "id": "e6", "timestamp": "2026-03-01T09:00:04", "source": "environment", "forgotten_event_ids": ["e2"], "summary": "looked around"}`,
	`{"kind": "MessageEvent", "id": "e7", "timestamp": "2026-03-01T09:00:05", "source": "user", "llm_message": {"role": "user", "content": [{"type": "text", "text": "Now edit it"}]}}`,
	`{"kind": "ActionEvent", "id": "e8", "timestamp": "2026-03-01T09:00:06", "source": "agent", "action": {"kind": "FileEditAction", "path": "t.py", "content": "x"}, "tool_name": "file_editor"}`,
	`{"kind": "UserRejectObservation", "id": "e9", "timestamp": "2026-03-01T09:00:07", "source": "user", "action_id": "e8", "tool_name": "file_editor", "rejection_reason": "not now"}`,
	`{"kind": "MessageEvent", "id": "e10", "timestamp": "2026-03-01T09:00:08", "source": "agent", "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "Stopped."}]}}`,
}

func TestOpenHandsV1Conformance(t *testing.T) {
	want := "events main 2t 3r call_a/execute_bash=t.py call_b/str_replace_editor=path does not exist e8/file_editor=not now"
	check := func(t *testing.T, s []*Session) {
		tr := s[0].Turns
		if !tr[1].CompactedBefore {
			t.Error("the Condensation does not mark the next turn compacted")
		}
		calls := tr[0].Requests[0].Calls
		if calls[0].ArgsRaw != `{"command": "ls"}` || !calls[1].IsError || calls[0].IsError {
			t.Errorf("arguments or errors not read: %+v", calls)
		}
		if c := tr[1].Requests[0].Calls[0]; c.ArgsRaw != `{"path":"t.py","content":"x"}` || !c.IsError {
			t.Errorf("an action without tool call: arguments %s (want the action less its kind), error %v", c.ArgsRaw, c.IsError)
		}
		if len(s[0].Notes) != 1 || !strings.Contains(s[0].Notes[0], "1 SystemPromptEvent") {
			t.Errorf("notes = %q", s[0].Notes)
		}
	}
	runConformance(t, formatOpenHandsV1, []conformanceCase{
		{name: "a JSON array of events", file: "events.json", text: "[\n" + strings.Join(ohV1Events, ",\n") + "\n]\n", sessions: want, check: check},
		{name: "JSONL, one event a line", file: "events.jsonl", text: strings.Join(ohV1Events, "\n") + "\n", sessions: want, check: check},
		{
			// A command that ran and failed: is_error false, its exit code
			// not 0 (the SDK's TerminalObservation); -1 did not finish.
			name: "a terminal observation with a non-zero exit code is an error",
			file: "events.jsonl",
			text: ohV1Events[1] + "\n" +
				`{"kind": "ActionEvent", "id": "a1", "action": {"kind": "TerminalAction", "command": "make"}, "tool_name": "terminal", "tool_call_id": "c1", "tool_call": {"id": "c1", "name": "terminal", "arguments": "{\"command\": \"make\"}"}, "llm_response_id": "r1"}` + "\n" +
				`{"kind": "ObservationEvent", "id": "o1", "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": "Error 2"}], "is_error": false, "exit_code": 2}, "action_id": "a1", "tool_call_id": "c1"}` + "\n" +
				`{"kind": "ActionEvent", "id": "a2", "action": {"kind": "TerminalAction", "command": "ls"}, "tool_name": "terminal", "tool_call_id": "c2", "tool_call": {"id": "c2", "name": "terminal", "arguments": "{\"command\": \"ls\"}"}, "llm_response_id": "r2"}` + "\n" +
				`{"kind": "ObservationEvent", "id": "o2", "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": "a.go"}], "is_error": false, "exit_code": 0}, "action_id": "a2", "tool_call_id": "c2"}` + "\n",
			sessions: "events main 1t 2r c1/terminal=Error 2 c2/terminal=a.go",
			check: func(t *testing.T, s []*Session) {
				tr := s[0].Turns[0]
				if !tr.Requests[0].Calls[0].IsError || tr.Requests[1].Calls[0].IsError {
					t.Errorf("errors: exit 2 %v (want true), exit 0 %v (want false)", tr.Requests[0].Calls[0].IsError, tr.Requests[1].Calls[0].IsError)
				}
				// The exit code stays beside the text, as the hook gets it.
				if a, b := tr.Requests[0].Calls[0].ExitCode, tr.Requests[1].Calls[0].ExitCode; a != 2 || b != 0 {
					t.Errorf("exit codes %d and %d, want 2 and 0", a, b)
				}
			},
		},
		{
			name:     "an observation of an action not in the file",
			file:     "events.jsonl",
			text:     ohV1Events[1] + "\n" + `{"kind": "ObservationEvent", "id": "o", "action_id": "gone", "observation": {"content": []}}` + "\n",
			sessions: "events main 1t 0r ",
			problems: []string{"answers action gone, which is not in the file"},
			lines:    []int{2},
		},
	})
}

func FuzzOpenHandsV1(f *testing.F) {
	fuzzOneFormat(f, formatOpenHandsV1, "events.jsonl", strings.Join(ohV1Events, "\n"), "["+strings.Join(ohV1Events, ",")+"]",
		`{"kind": "ActionEvent", "id": 5, "tool_call": {"arguments": {"a": 1}}, "action": []}`)
}
