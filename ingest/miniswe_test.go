package ingest

import "testing"

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
    {"role": "assistant", "content": "THOUGHT: two blocks is a format error, but the regex takes the first"},
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

func FuzzMiniSWEAgent(f *testing.F) {
	fuzzOneFormat(f, formatMiniSWEAgent, "a.traj.json", miniTraj,
		`{"trajectory_format": "mini-swe-agent-1", "messages": [{"role": "assistant", "content": [{"type": "text", "text": "`+"```bash\\nx\\n```"+`"}]}, {"role": 1}]}`)
}
