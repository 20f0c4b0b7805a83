package ingest

import (
	"strings"
	"testing"
)

// A function-calling .traj (sweagent/types.py: history items with agent
// and message_type; tool messages name their calls in tool_call_ids).
const sweTrajFC = `{
  "trajectory": [],
  "history": [
    {"role": "system", "content": "SETTING: ...", "agent": "main", "message_type": "system_prompt"},
    {"role": "user", "content": "Here is a demonstration", "agent": "main", "message_type": "observation", "is_demo": true},
    {"role": "assistant", "content": "demo", "action": "ls", "agent": "main", "is_demo": true,
     "tool_calls": [{"function": {"arguments": "{}", "name": "bash"}, "id": "call_demo", "type": "function"}], "message_type": "action"},
    {"role": "tool", "content": "demo output", "agent": "main", "message_type": "observation", "tool_call_ids": ["call_demo"], "is_demo": true},
    {"role": "user", "content": "We're solving this issue: ...", "agent": "main", "message_type": "observation"},
    {"role": "assistant", "content": "Find it.", "thought": "Find it.", "action": "find_file x.py", "agent": "main",
     "tool_calls": [{"function": {"arguments": "{\"file_name\":\"x.py\"}", "name": "find_file"}, "id": "call_1", "type": "function"}],
     "message_type": "action"},
    {"role": "tool", "content": "Found 1 matches", "agent": "main", "message_type": "observation", "tool_call_ids": ["call_1"]},
    {"role": "assistant", "content": "Done.", "thought": "Done.", "action": "submit", "agent": "main",
     "tool_calls": [{"function": {"arguments": "{}", "name": "submit"}, "id": "call_2", "type": "function"}], "message_type": "action"},
    {"role": "tool", "content": "diff --git", "agent": "main", "message_type": "observation", "tool_call_ids": ["call_2"]}
  ],
  "info": {"exit_status": "submitted", "model_stats": {"tokens_sent": 100}},
  "replay_config": "{}",
  "environment": "swe_main"
}
`

// A non-function-calling history: the action is a command line, its
// output a user message.
const sweTrajText = `{"history": [
 {"role": "system", "content": "s", "agent": "main", "message_type": "system_prompt"},
 {"role": "user", "content": "Fix the bug", "agent": "main", "message_type": "observation"},
 {"role": "assistant", "content": "DISCUSSION\nlook\n` + "```" + `\nls -a\n` + "```" + `", "thought": "look", "action": "ls -a\n", "agent": "main", "message_type": "action"},
 {"role": "user", "content": "a.py", "agent": "main", "message_type": "observation"},
 {"role": "assistant", "content": "bad format", "thought": "", "action": "", "agent": "main", "message_type": "action"},
 {"role": "user", "content": "Your output was not formatted correctly", "agent": "main", "message_type": "observation"}
]}`

// Only the trajectory steps.
const sweTrajSteps = `{"trajectory": [
 {"action": "open a.py", "observation": "[File: a.py]", "response": "open it", "thought": "open it", "state": "{}", "execution_time": 0.1},
 {"action": "submit", "observation": "diff", "response": "done", "thought": "done"}
], "info": {"exit_status": "submitted"}}`

func TestSWEAgentConformance(t *testing.T) {
	runConformance(t, formatSWEAgent, []conformanceCase{
		{name: "function calling: tool_call_ids join", file: "django__django-1.traj", text: sweTrajFC,
			sessions: "django__django-1 main 1t 2r call_1/find_file=Found 1 matches call_2/submit=diff --git",
			check: func(t *testing.T, s []*Session) {
				if len(s[0].Notes) != 1 || !strings.Contains(s[0].Notes[0], "3 demonstration") {
					t.Errorf("the demonstration is not noted as skipped: %q", s[0].Notes)
				}
			}},
		{name: "text actions: the next observation is the result", file: "inst.traj", text: sweTrajText,
			sessions: "inst main 1t 2r action-1/bash=a.py",
			check: func(t *testing.T, s []*Session) {
				if c := s[0].Turns[0].Requests[0].Calls[0]; c.ArgsRaw != `{"command":"ls -a"}` {
					t.Errorf("args = %s", c.ArgsRaw)
				}
			}},
		{name: "the submit ending the history takes the trajectory's last observation", file: "inst.traj",
			text: `{"history": [
 {"role": "user", "content": "Fix the bug", "agent": "main", "message_type": "observation"},
 {"role": "assistant", "content": "look", "action": "ls -a\n", "agent": "main", "message_type": "action"},
 {"role": "user", "content": "a.py", "agent": "main", "message_type": "observation"},
 {"role": "assistant", "content": "done", "action": "submit\n", "agent": "main", "message_type": "action"}
], "trajectory": [
 {"action": "ls -a\n", "observation": "a.py", "response": "look"},
 {"action": "submit\n", "observation": "\ndiff --git a/a.py b/a.py", "response": "done"}
], "info": {"exit_status": "submitted"}}`,
			sessions: "inst main 1t 2r action-1/bash=a.py action-2/submit=\ndiff --git a/a.py b/a.py"},
		{name: "a last step of another action answers nothing", file: "inst.traj",
			text: `{"history": [
 {"role": "user", "content": "Fix the bug", "agent": "main", "message_type": "observation"},
 {"role": "assistant", "content": "done", "action": "submit", "agent": "main", "message_type": "action"}
], "trajectory": [{"action": "ls", "observation": "a.py"}]}`,
			sessions: "inst main 1t 1r action-1/submit=!", problems: []string{"has no result"}},
		{name: "trajectory steps when there is no history", file: "inst.traj", text: sweTrajSteps,
			sessions: "inst main 1t 2r action-1/open=[File: a.py] action-2/submit=diff"},
		{name: "a tool message for an unknown call", file: "inst.traj",
			text:     "{\"history\": [\n {\"role\": \"user\", \"content\": \"go\"},\n {\"role\": \"tool\", \"content\": \"x\", \"tool_call_ids\": [\"c9\"]}\n]}\n",
			sessions: "inst main 1t 0r ", problems: []string{"result for call c9 has no matching call"}, lines: []int{3}},
	})
}

func FuzzSWEAgent(f *testing.F) {
	fuzzOneFormat(f, formatSWEAgent, "x.traj", sweTrajFC, sweTrajText, sweTrajSteps,
		`{"history": [{"role": "assistant", "action": 5}, {"role": "tool", "tool_call_ids": "c"}], "trajectory": 1}`)
}

// TestSWEAgentEmpty: a trajectory with nothing of its run is still a
// session (every file is a session or a problem).
func TestSWEAgentEmpty(t *testing.T) {
	for _, text := range []string{`{"history": []}`, `{"history": [{"role": "user", "content": "demo", "is_demo": true}]}`} {
		sessions, problems := readText(t, "x.traj", text)
		if len(sessions) != 1 || sessions[0].Format != formatSWEAgent || len(problems) != 0 {
			t.Errorf("%s: %d sessions, problems %q", text, len(sessions), problemSummary(problems))
		}
	}
}

// TestSWEAgentActionTool: a text action is a call of the SWE-agent
// command it starts with, else of bash with the whole line as its command
// (SWE-agent runs every action in its shell), so that rm, python and
// sed -i are read as the shell commands they are.
func TestSWEAgentActionTool(t *testing.T) {
	for _, tc := range []struct{ action, tool, args string }{
		{"open src/a.py 20", "open", `{"action":"open src/a.py 20"}`},
		{"edit 12:14\n    return x\nend_of_edit", "edit", `{"action":"edit 12:14\n    return x\nend_of_edit"}`},
		{"find_file \"x.py\"", "find_file", `{"action":"find_file \"x.py\""}`},
		{"submit\n", "submit", `{"action":"submit"}`},
		{"python reproduce.py", "bash", `{"command":"python reproduce.py"}`},
		{"rm reproduce.py", "bash", `{"command":"rm reproduce.py"}`},
		{"echo \"=== A ===\"\ncat docker-compose.yml", "bash", `{"command":"echo \"=== A ===\"\ncat docker-compose.yml"}`},
		{"opener x", "bash", `{"command":"opener x"}`},
		{"str_replace_editor view /testbed/a.py  --view_range 1 20", "str_replace_editor",
			`{"action":"str_replace_editor view /testbed/a.py  --view_range 1 20","command":"view","path":"/testbed/a.py"}`},
		{"str_replace_editor create '/testbed/b.py' --file_text 'x'", "str_replace_editor",
			`{"action":"str_replace_editor create '/testbed/b.py' --file_text 'x'","command":"create","path":"/testbed/b.py"}`},
		{"create reproduce.py", "create", `{"action":"create reproduce.py","path":"reproduce.py"}`},
		{"create\treproduce.py", "create", `{"action":"create\treproduce.py","path":"reproduce.py"}`},
	} {
		c := sweActionCall(tc.action, 3, 1)
		if c.Tool != tc.tool || c.ArgsRaw != tc.args {
			t.Errorf("sweActionCall(%q) = %s %s, want %s %s", tc.action, c.Tool, c.ArgsRaw, tc.tool, tc.args)
		}
	}
}
