package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// mini-swe-agent's saved trajectory (minisweagent/run/utils/save.py):
// info, messages, trajectory_format. Actions are ```bash blocks; the
// harness answers with the output under <returncode> and <output>.
const miniTraj = `{
  "info": {"exit_status": "Submitted", "submission": "", "model_stats": {"instance_cost": 0.01, "api_calls": 3}},
  "messages": [
    {"role": "system", "content": "You are a helpful assistant that can interact with a computer."},
    {"role": "user", "content": "Please solve this issue: the tests fail"},
    {"role": "assistant", "content": "THOUGHT: look around\n\n` + "```bash" + `\nls -la\n` + "```" + `"},
    {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>"},
    {"role": "assistant", "content": "THOUGHT: two blocks is a format error: nothing runs\n\n` + "```bash" + `\nls\n` + "```" + `\n` + "```bash" + `\npwd\n` + "```" + `"},
    {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
    {"role": "assistant", "content": "` + "```bash" + `\npython a.py\n` + "```" + `"},
    {"role": "user", "content": "<returncode>1</returncode>\n<output>\nTraceback\n</output>"}
  ],
  "trajectory_format": "mini-swe-agent-1"
}
`

func TestMiniSWEAgentConformance(t *testing.T) {
	runConformance(t, formatMiniSWEAgent, []conformanceCase{
		{name: "saved trajectory", file: "last_mini_run.traj.json", text: miniTraj,
			sessions: "last_mini_run main 1t 3r action-1/bash=<returncode>0</returncode>\n<output>\na.py\n</output> action-2/bash=<returncode>1</returncode>\n<output>\nTraceback\n</output>",
			check: func(t *testing.T, s []*Session) {
				calls := s[0].Turns[0].Requests
				if calls[0].Calls[0].IsError || !calls[2].Calls[0].IsError {
					t.Error("a non-zero <returncode> is an error, zero is not")
				}
				if a := calls[0].Calls[0].ArgsRaw; a != `{"command":"ls -la"}` {
					t.Errorf("args = %s", a)
				}
				if len(s[0].Notes) != 1 {
					t.Errorf("the harness's format-error message is not noted: %q", s[0].Notes)
				}
			}},
		{name: "a bare messages array in a .traj.json", file: "issue.traj.json",
			text:     `[{"role": "user", "content": "go"}, {"role": "assistant", "content": "` + "```mswea_bash_command\\necho hi\\n```" + `"}, {"role": "user", "content": "hi"}]`,
			sessions: "issue main 1t 1r action-1/bash=hi"},
		{name: "an action with no output is a call with no result", file: "issue.traj.json",
			text:     "[\n{\"role\": \"user\", \"content\": \"go\"},\n{\"role\": \"assistant\", \"content\": \"```bash\\nls\\n```\"}\n]\n",
			sessions: "issue main 1t 1r action-1/bash=!", problems: []string{"has no result"}, lines: []int{3}},
	})
}

// TestMiniSWEAgentFailed: a result is an error when its command failed or
// never ran, by 2.x's extra fields first, else by what the observation
// template printed.
func TestMiniSWEAgentFailed(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		extra      *miniExtra
		want       bool
	}{
		{"1.x zero", "<returncode>0</returncode>\n<output>\nok\n</output>", nil, false},
		{"1.x non-zero", "<returncode>2</returncode>\n<output>\n</output>", nil, true},
		{"2.x exception first", "<exception>An error occurred while executing the command: timeout</exception>\n<returncode>-1</returncode>\n<output>\n</output>", nil, true},
		{"2.x mini.yaml JSON", "{\n  \"returncode\": 1,\n  \"output\": \"boom\"\n}", nil, true},
		{"2.x mini.yaml JSON zero", "{\n  \"returncode\": 0,\n  \"output\": \"fine\"\n}", nil, false},
		{"extra returncode wins over the text", "<returncode>0</returncode>", &miniExtra{Returncode: []byte("137")}, true},
		{"extra returncode zero", "no template status", &miniExtra{Returncode: []byte("0")}, false},
		{"extra exception_info", "", &miniExtra{Returncode: []byte("-1"), ExceptionInfo: "action was not executed"}, true},
		{"2.x rejection", "Commands not executed. The user rejected your commands with the following message: no", &miniExtra{InterruptType: "UserRejection"}, true},
		{"1.x rejection", "Command not executed. The user rejected your command with the following message: go to x", nil, true},
		{"1.x timeout", "The last command <command>npm run dev</command> timed out and has been killed.\nThe output of the command was:\n <output>\n</output>", nil, true},
		{"a returncode inside the output is not the status", "listing\n<returncode>1</returncode>", nil, false},
		{"1.x interruption is no failure", "Interrupted by user: Temporary interruption caught.", nil, false},
	} {
		if got := miniFailed(tc.text, tc.extra); got != tc.want {
			t.Errorf("%s: miniFailed = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// An interactive run (mini's confirm mode, 1.x texts): the user rejects a
// command with a comment, interrupts, and adds a new task when the agent
// submits. Each answers the action waiting and is a turn.
const miniInteractive = `{"trajectory_format": "mini-swe-agent-1", "info": {}, "messages": [
 {"role": "system", "content": "s"},
 {"role": "user", "content": "Please solve this issue: x"},
 {"role": "assistant", "content": "` + "```bash\\nls -la prime-cli\\n```" + `"},
 {"role": "user", "content": "Command not executed. The user rejected your command with the following message: go to YudaiV3"},
 {"role": "assistant", "content": "` + "```bash\\ncd YudaiV3 && ls\\n```" + `"},
 {"role": "user", "content": "<returncode>0</returncode>\n<output>\nsrc\n</output>"},
 {"role": "assistant", "content": "` + "```bash\\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\n```" + `"},
 {"role": "user", "content": "Interrupted by user: Temporary interruption caught."},
 {"role": "assistant", "content": "` + "```bash\\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\n```" + `"},
 {"role": "user", "content": "The user added a new task: now add tests"},
 {"role": "assistant", "content": "thinking, no action"},
 {"role": "user", "content": "Interrupted by user: stop and explain"}
]}`

func TestMiniSWEAgentInteractive(t *testing.T) {
	s, problems := readText(t, "last_mini_run.traj.json", miniInteractive)
	if len(problems) != 0 || len(s) != 1 {
		t.Fatalf("sessions %d, problems %v", len(s), problems)
	}
	var texts []string
	var errs []bool
	for _, turn := range s[0].Turns {
		texts = append(texts, turn.UserText)
		for _, r := range turn.Requests {
			for _, c := range r.Calls {
				errs = append(errs, c.IsError)
			}
		}
	}
	if got, want := strings.Join(texts, "|"), "Please solve this issue: x|go to YudaiV3||now add tests|stop and explain"; got != want {
		t.Errorf("turns' user text = %q, want %q", got, want)
	}
	if fmt.Sprint(errs) != "[true false false false]" {
		t.Errorf("errors = %v, want only the rejected command's", errs)
	}
	if len(s[0].Notes) != 0 {
		t.Errorf("the user's messages are counted as harness feedback: %q", s[0].Notes)
	}
}

// TestMiniSWEAgentToolResults: 2.x's tool-calling trajectories answer each
// call with a tool message whose extra holds the exit status.
func TestMiniSWEAgentToolResults(t *testing.T) {
	const traj = `{"trajectory_format": "mini-swe-agent-1.1", "info": {}, "messages": [
 {"role": "user", "content": "fix it"},
 {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pytest\"}"}}]},
 {"role": "tool", "tool_call_id": "c1", "content": "{\"returncode\": 1}", "extra": {"raw_output": "F", "returncode": 1, "exception_info": ""}},
 {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
 {"role": "tool", "tool_call_id": "c2", "content": "a.py", "extra": {"raw_output": "a.py", "returncode": 0, "exception_info": ""}}
]}`
	s, problems := readText(t, "run.traj.json", traj)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	reqs := s[0].Turns[0].Requests
	if !reqs[0].Calls[0].IsError || reqs[1].Calls[0].IsError {
		t.Errorf("errors = %v, %v; want true, false", reqs[0].Calls[0].IsError, reqs[1].Calls[0].IsError)
	}
}

// TestMiniSWEAgentExit: 2.x closes the run with an "exit" message
// (agents/default.py); with Submitted it is the output of the submitting
// command, which gets no observation of its own.
func TestMiniSWEAgentExit(t *testing.T) {
	const tool = `{"trajectory_format": "mini-swe-agent-1.1", "info": {}, "messages": [
 {"role": "user", "content": "fix it"},
 {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
 {"role": "tool", "tool_call_id": "c1", "content": "a.py", "extra": {"returncode": 0, "exception_info": ""}},
 {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\"}"}}]},
 {"role": "exit", "content": "diff --git a/a.py", "extra": {"exit_status": "Submitted", "submission": "diff --git a/a.py"}}
]}`
	const text = `{"trajectory_format": "mini-swe-agent-1.1", "info": {}, "messages": [
 {"role": "user", "content": "fix it"},
 {"role": "assistant", "content": "` + "```mswea_bash_command\\npython run.py\\n```" + `"},
 {"role": "exit", "content": "boom", "extra": {"exit_status": "RuntimeError", "submission": ""}}
]}`
	const limit = `{"trajectory_format": "mini-swe-agent-1.1", "info": {}, "messages": [
 {"role": "user", "content": "fix it"},
 {"role": "assistant", "content": "` + "```mswea_bash_command\\nls\\n```" + `"},
 {"role": "user", "content": "<returncode>0</returncode>", "extra": {"returncode": 0}},
 {"role": "exit", "content": "LimitsExceeded", "extra": {"exit_status": "LimitsExceeded", "submission": ""}}
]}`
	for _, tc := range []struct {
		name, text, want string
		errs             string
	}{
		{"tool calls: Submitted answers the submitting call", tool, "run main 1t 2r c1/bash=a.py c2/bash=diff --git a/a.py", "[false false]"},
		{"text action: another status is a failure", text, "run main 1t 1r action-1/bash=boom", "[true]"},
		{"nothing waiting: the exit answers nothing", limit, "run main 1t 1r action-1/bash=<returncode>0</returncode>", "[false]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, problems := readText(t, "run.traj.json", tc.text)
			if len(problems) != 0 || len(s) != 1 {
				t.Fatalf("sessions %d, problems %v", len(s), problems)
			}
			if got := fmt.Sprintf("%s %s %dt %dr %s", s[0].ID, s[0].Agent, len(s[0].Turns), s[0].NumRequests(), callSummary(s[0])); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			var errs []bool
			for _, r := range s[0].Turns[0].Requests {
				for _, c := range r.Calls {
					errs = append(errs, c.IsError)
				}
			}
			if fmt.Sprint(errs) != tc.errs {
				t.Errorf("errors %v, want %s", errs, tc.errs)
			}
		})
	}
}

// TestMiniSWEAgentResponsesAPI: with a Responses API model
// (models/litellm_response_model.py) the reply is the response object and
// a result a function_call_output item (models/utils/
// actions_toolcall_response.py).
func TestMiniSWEAgentResponsesAPI(t *testing.T) {
	const traj = `{"trajectory_format": "mini-swe-agent-1.1", "info": {}, "messages": [
 {"role": "system", "content": "s"},
 {"role": "user", "content": "fix it"},
 {"id": "resp_1", "object": "response", "output": [
   {"type": "reasoning", "id": "rs_1", "summary": []},
   {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Run the tests."}]},
   {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash", "arguments": "{\"command\": \"pytest\"}"}
 ], "extra": {"actions": [{"command": "pytest", "tool_call_id": "call_1"}]}},
 {"type": "function_call_output", "call_id": "call_1", "output": "<returncode>1</returncode>\nF", "extra": {"returncode": 1, "exception_info": ""}},
 {"id": "resp_2", "object": "response", "output": [
   {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "bash", "arguments": "{\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\"}"}
 ]},
 {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}}
]}`
	s, problems := readText(t, "run.traj.json", traj)
	if len(problems) != 0 || len(s) != 1 {
		t.Fatalf("sessions %d, problems %v", len(s), problems)
	}
	if got, want := fmt.Sprintf("%dt %dr %s", len(s[0].Turns), s[0].NumRequests(), callSummary(s[0])), "1t 2r call_1/bash=<returncode>1</returncode>\nF call_2/bash="; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if c := s[0].Turns[0].Requests[0].Calls[0]; !c.IsError || c.ArgsRaw != `{"command": "pytest"}` {
		t.Errorf("first call: error %v, args %s", c.IsError, c.ArgsRaw)
	}
}

// TestMiniSWEAgentFormatError: 2.x keeps no reply it refused, only the
// error (extra.interrupt_type FormatError); that reply was a request
// (info.model_stats.api_calls counts it) with no call.
func TestMiniSWEAgentFormatError(t *testing.T) {
	const traj = `{"trajectory_format": "mini-swe-agent-1.1", "info": {"model_stats": {"api_calls": 3}}, "messages": [
 {"role": "user", "content": "fix it"},
 {"role": "user", "content": "No tool calls found in the response. Every response MUST include at least one tool call.", "extra": {"interrupt_type": "FormatError"}},
 {"role": "user", "content": "Expected exactly 1 action, found 2.", "extra": {"interrupt_type": "FormatError", "n_actions": 2, "model_response": "two blocks"}},
 {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
 {"role": "tool", "tool_call_id": "c1", "content": "a.py", "extra": {"returncode": 0}}
]}`
	s, problems := readText(t, "run.traj.json", traj)
	if len(problems) != 0 || len(s) != 1 {
		t.Fatalf("sessions %d, problems %v", len(s), problems)
	}
	rs := s[0].Turns[0].Requests
	if len(s[0].Turns) != 1 || len(rs) != 3 || len(rs[0].Calls)+len(rs[1].Calls) != 0 || len(rs[2].Calls) != 1 {
		t.Fatalf("turns %d, requests %d: want 1 turn, 3 requests, the call in the third", len(s[0].Turns), len(rs))
	}
	if rs[1].TextChars != len("two blocks") {
		t.Errorf("the refused reply's text = %d chars, want its model_response's", rs[1].TextChars)
	}
}

func FuzzMiniSWEAgent(f *testing.F) {
	fuzzOneFormat(f, formatMiniSWEAgent, "a.traj.json", miniTraj, miniInteractive,
		`{"trajectory_format": "mini-swe-agent-1", "messages": [{"role": "assistant", "content": [{"type": "text", "text": "`+"```bash\\nx\\n```"+`"}]}, {"role": 1}]}`,
		`{"trajectory_format": "mini-swe-agent-1.1", "messages": [{"object": "response", "output": [{"type": "function_call", "call_id": "c", "name": "bash", "arguments": 3}]}, {"type": "function_call_output", "call_id": "c", "output": [1]}, {"role": "exit", "extra": {"exit_status": 5}}]}`)
}
