package ingest

import (
	"slices"
	"strings"
	"testing"
)

// A ResolverOutput line (openhands/resolver/resolver_output.py) whose
// history holds dataclasses.asdict events: fields flattened, no ids.
const resolverRecord = `{"issue": {"owner": "acme", "repo": "tool", "number": 7, "title": "Add a license", "body": "MIT please"}, "issue_type": "issue", "instruction": "Please fix the issue.", "base_commit": "", "git_patch": "diff --git a/LICENSE b/LICENSE", "history": [` +
	`{"content": "Please fix the issue.", "images_urls": null, "wait_for_response": false, "action": "message", "action_risk": null}, ` +
	`{"command": "ls", "thought": "Look first.", "keep_prompt": true, "action": "run", "is_confirmed": "confirmed", "action_risk": null}, ` +
	`{"content": "README.md", "command_id": -1, "command": "ls", "exit_code": 0, "observation": "run"}, ` +
	`{"code": "print(1)", "thought": "", "action": "run_ipython", "is_confirmed": "confirmed", "action_risk": null, "kernel_init_code": "from agentskills import *"}, ` +
	`{"content": "Traceback: boom", "observation": "error"}, ` +
	`{"content": "Done, I think.", "images_urls": null, "wait_for_response": true, "action": "message", "action_risk": null}, ` +
	`{"outputs": {}, "thought": "Finished.", "action": "finish"}` +
	`], "metrics": {"accumulated_cost": 0.1}, "success": true, "comment_success": null, "result_explanation": "ok", "error": null}`

func TestOpenHandsResolverConformance(t *testing.T) {
	runConformance(t, formatOpenHandsResolver, []conformanceCase{
		{
			name: "one record: the instruction is the turn, actions the calls",
			file: "output.jsonl", text: resolverRecord + "\n" + strings.Replace(resolverRecord, `"number": 7`, `"number": 8`, 1) + "\n",
			sessions: "acme/tool#7 main 1t 4r event-2/run=README.md event-4/run_ipython=Traceback: boom event-7/finish=! | acme/tool#8 main 1t 4r event-2/run=README.md event-4/run_ipython=Traceback: boom event-7/finish=!",
			check: func(t *testing.T, s []*Session) {
				calls := s[0].Turns[0].Requests[1].Calls
				if calls[0].ArgsRaw != `{"code":"print(1)"}` || !calls[0].IsError {
					t.Errorf("run_ipython call: args %s (want the action less its bookkeeping), error %v (an error observation)", calls[0].ArgsRaw, calls[0].IsError)
				}
			},
		},
		{
			name:     "an observation with no action waiting",
			file:     "output.jsonl",
			text:     `{"issue": {"owner": "o", "repo": "r", "number": 1}, "instruction": "i", "history": [{"action": "message", "content": "i"}, {"observation": "run", "content": "x"}]}` + "\n",
			sessions: "o/r#1 main 1t 0r ",
			problems: []string{"run observation answers no call waiting"},
			lines:    []int{1},
		},
		{
			// The resolver's GitHub Action runs start with a recall
			// action and its observation: neither a call nor a result, even
			// with a command waiting.
			name: "recall and state observations answer no call",
			file: "output.jsonl",
			text: `{"issue": {"owner": "o", "repo": "r", "number": 5}, "instruction": "i", "history": [` +
				`{"content": "i", "action": "message"}, {"query": "i", "action": "recall"}, ` +
				`{"command": "ls", "action": "run"}, {"content": "microagent knowledge", "observation": "recall"}, ` +
				`{"content": "", "observation": "agent_state_changed"}, {"content": "a.go", "command": "ls", "observation": "run"}]}` + "\n",
			sessions: "o/r#5 main 1t 1r event-3/run=a.go",
		},
		{
			// A failed command: OpenHands' CmdOutputObservation gives no
			// success in the resolver's history; its exit code says it.
			name: "a run observation with a non-zero exit code is an error",
			file: "output.jsonl",
			text: `{"issue": {"owner": "o", "repo": "r", "number": 6}, "instruction": "i", "history": [` +
				`{"content": "i", "action": "message"}, ` +
				`{"command": "make", "action": "run"}, {"content": "Error 2", "command": "make", "exit_code": 2, "observation": "run"}, ` +
				`{"command": "go vet", "action": "run"}, {"content": "bad", "command": "go vet", "observation": "run", "metadata": {"exit_code": 1, "pid": -1}, "hidden": false}, ` +
				`{"command": "ls", "action": "run"}, {"content": "a.go", "command": "ls", "observation": "run", "metadata": {"exit_code": 0}}, ` +
				`{"command": "sleep 99", "action": "run"}, {"content": "", "observation": "run", "extras": {"metadata": {"exit_code": -1}}}, ` +
				`{"command": "true", "action": "run"}, {"content": "", "observation": "run", "success": true, "metadata": {"exit_code": 3}}]}` + "\n",
			sessions: "o/r#6 main 1t 5r event-2/run=Error 2 event-4/run=bad event-6/run=a.go event-8/run= event-10/run=",
			check: func(t *testing.T, s []*Session) {
				var got []bool
				for _, r := range s[0].Turns[0].Requests {
					for _, c := range r.Calls {
						got = append(got, c.IsError)
					}
				}
				if want := []bool{true, true, false, true, false}; !slices.Equal(got, want) {
					t.Errorf("errors %v, want %v (exit 2, 1, 0, -1; success true)", got, want)
				}
			},
		},
	})
}

func FuzzOpenHandsResolver(f *testing.F) {
	fuzzOneFormat(f, formatOpenHandsResolver, "output.jsonl", resolverRecord,
		`{"issue": {}, "instruction": "x", "history": [{"observation": "run", "content": 1}, {"action": "run", "command": [1]}, 3]}`)
}
