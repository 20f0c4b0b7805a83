package ingest

import "testing"

// An ATIF-v1.4 trajectory as Harbor's RFC 0001 lays it out.
const atifTrajectory = `{
  "schema_version": "ATIF-v1.4",
  "session_id": "025B810F-B3A2-4C67-93C0-FE7A142A947A",
  "agent": {"name": "harbor-agent", "version": "1.0.0", "model_name": "gemini-2.5-flash"},
  "steps": [
    {"step_id": 1, "timestamp": "2025-10-11T10:30:00Z", "source": "system", "message": "You are a financial assistant."},
    {"step_id": 2, "timestamp": "2025-10-11T10:30:01Z", "source": "user", "message": "Price of GOOGL?"},
    {"step_id": 3, "timestamp": "2025-10-11T10:30:02Z", "source": "agent", "message": "Searching.",
     "reasoning_content": "Use the search tool.",
     "tool_calls": [
       {"tool_call_id": "call_price_1", "function_name": "financial_search", "arguments": {"ticker": "GOOGL", "metric": "price"}},
       {"tool_call_id": "call_news_1", "function_name": "news_search", "arguments": {"q": "GOOGL"}}],
     "observation": {"results": [{"source_call_id": "call_price_1", "content": "GOOGL is $185.35"}]},
     "metrics": {"prompt_tokens": 520, "completion_tokens": 80, "cached_tokens": 200, "cost_usd": 0.0004}},
    {"step_id": 4, "timestamp": "2025-10-11T10:30:03Z", "source": "agent", "message": "",
     "observation": {"results": [{"source_call_id": "call_news_1", "content": [{"type": "text", "text": "No news."}]}, {"content": "a note with no call"}]}},
    {"step_id": 5, "timestamp": "2025-10-11T10:30:04Z", "source": "agent", "message": "",
     "tool_calls": [
       {"tool_call_id": "<redacted>", "function_name": "terminal", "arguments": "<redacted>"},
       {"tool_call_id": "<redacted>", "function_name": "search_files", "arguments": "<redacted>"}],
     "observation": {"results": [{"source_call_id": "<redacted>", "content": "one"}, {"source_call_id": "<redacted>", "content": "two"}]}},
    {"step_id": 6, "source": "environment", "message": "?"}
  ],
  "final_metrics": {"total_prompt_tokens": 520, "total_completion_tokens": 80, "total_steps": 6}
}
`

func TestATIFConformance(t *testing.T) {
	runConformance(t, formatATIF, []conformanceCase{
		{name: "a trajectory", file: "trajectory.json", text: atifTrajectory,
			sessions: "025B810F-B3A2-4C67-93C0-FE7A142A947A main 1t 3r call_price_1/financial_search=GOOGL is $185.35 call_news_1/news_search=No news. <redacted>/terminal=one <redacted>/search_files=two",
			check: func(t *testing.T, s []*Session) {
				r := s[0].Turns[0].Requests[0]
				if r.Usage == nil || r.Usage.Input != 520 || r.Usage.Output != 80 || r.Usage.CacheRead != 200 {
					t.Errorf("usage = %+v", r.Usage)
				}
				if r.Calls[0].ArgsRaw != `{"ticker":"GOOGL","metric":"price"}` || s[0].Model != "gemini-2.5-flash" {
					t.Errorf("args %s, model %s", r.Calls[0].ArgsRaw, s[0].Model)
				}
				if len(s[0].Notes) != 1 {
					t.Errorf("the step of an unknown source is not noted: %q", s[0].Notes)
				}
			}},
		{name: "a result for no call", file: "t.json",
			text:     "{\"schema_version\": \"ATIF-v1.7\", \"session_id\": \"s\", \"agent\": {\"name\": \"a\", \"version\": \"1\"}, \"steps\": [\n {\"step_id\": 1, \"source\": \"user\", \"message\": \"go\"},\n {\"step_id\": 2, \"source\": \"agent\", \"message\": \"\", \"observation\": {\"results\": [{\"source_call_id\": \"c1\", \"content\": \"x\"}]}}\n]}\n",
			sessions: "s main 1t 1r ", problems: []string{"result for call c1 has no matching call"}, lines: []int{3}},
		// Harbor's Terminus 2 writes the terminal's screen once for all the
		// step's keystrokes, and its mini-swe-agent converter each
		// command's output, as results with no source_call_id.
		{name: "results with no id answer their step's calls", file: "h.json",
			text: `{"schema_version": "ATIF-v1.5", "session_id": "h", "agent": {"name": "terminus-2", "version": "2.0.0"}, "steps": [
 {"step_id": 1, "source": "user", "message": "fix the build"},
 {"step_id": 2, "source": "agent", "message": "",
  "tool_calls": [{"tool_call_id": "call_0_1", "function_name": "bash_command", "arguments": {"keystrokes": "cd /app\n", "duration": 0.1}},
                 {"tool_call_id": "call_0_2", "function_name": "bash_command", "arguments": {"keystrokes": "ls\n", "duration": 0.1}}],
  "observation": {"results": [{"content": "root@x:/app# ls\nMakefile"}]}},
 {"step_id": 3, "source": "agent", "message": "",
  "tool_calls": [{"tool_call_id": "call_3_1", "function_name": "bash_command", "arguments": {"command": "make"}}],
  "observation": {"results": [{"content": "<returncode>0</returncode>"}]}},
 {"step_id": 4, "source": "agent", "message": "",
  "tool_calls": [{"tool_call_id": "a", "function_name": "computer_click", "arguments": {}}, {"tool_call_id": "b", "function_name": "computer_key", "arguments": {}}],
  "observation": {"results": [{"content": "clicked"}, {"content": "typed"}]}},
 {"step_id": 5, "source": "agent", "message": "", "observation": {"results": [{"content": "the screen, no call"}]}}
]}`,
			sessions: "h main 1t 4r call_0_1/bash_command= call_0_2/bash_command=root@x:/app# ls\nMakefile call_3_1/bash_command=<returncode>0</returncode> a/computer_click=clicked b/computer_key=typed"},
		// Harbor's conversion of a mini-swe-agent run keeps its
		// observations: a non-zero returncode, and a format error (the
		// reply was refused, its first command never ran) are failures.
		{name: "a mini-swe-agent run's failed results", file: "m.json",
			text: `{"schema_version": "ATIF-v1.2", "session_id": "m",
 "agent": {"name": "mini-swe-agent", "version": "1.14.4", "extra": {"agent_config": {"format_error_template": "Please always provide EXACTLY ONE action in triple backticks, found {{actions|length}} actions."}}},
 "steps": [
 {"step_id": 1, "source": "user", "message": "fix it"},
 {"step_id": 2, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "call_2_1", "function_name": "bash_command", "arguments": {"command": "cd /repo"}}],
  "observation": {"results": [{"content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."}]}},
 {"step_id": 3, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "call_3_1", "function_name": "bash_command", "arguments": {"command": "cd /repo && pytest"}}],
  "observation": {"results": [{"content": "<returncode>1</returncode>\n<output>1 failed</output>"}]}},
 {"step_id": 4, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "call_4_1", "function_name": "bash_command", "arguments": {"command": "ls"}}],
  "observation": {"results": [{"content": "<returncode>0</returncode>\n<output>a</output>"}]}}
]}`,
			sessions: "m main 1t 3r call_2_1/bash_command=Please always provide EXACTLY ONE action in triple backticks, found 2 actions. call_3_1/bash_command=<returncode>1</returncode>\n<output>1 failed</output> call_4_1/bash_command=<returncode>0</returncode>\n<output>a</output>",
			check: func(t *testing.T, s []*Session) {
				var errs []bool
				for _, r := range s[0].Turns[0].Requests {
					for _, c := range r.Calls {
						errs = append(errs, c.IsError)
					}
				}
				if len(errs) != 3 || !errs[0] || !errs[1] || errs[2] {
					t.Errorf("errors %v, want the format error and the returncode 1 only", errs)
				}
			}},
		// Harbor's conversion of a Codex rollout keeps each output's text:
		// a code-mode script's list of content items as Python's str() of
		// the list, a shell output with its header.
		{name: "a Codex run's failed results", file: "c.json",
			text: `{"schema_version": "ATIF-v1.7", "session_id": "c", "agent": {"name": "codex", "version": "0.147.0"},
 "steps": [
 {"step_id": 1, "source": "system", "message": "<permissions instructions>sandbox</permissions instructions>"},
 {"step_id": 2, "source": "user", "message": "# AGENTS.md instructions for /app\n\n<INSTRUCTIONS>\nrun make test\n</INSTRUCTIONS>"},
 {"step_id": 3, "source": "user", "message": "<environment_context>\n  <cwd>/app</cwd>\n  <shell>bash</shell>\n</environment_context>"},
 {"step_id": 4, "source": "user", "message": "fix it"},
 {"step_id": 5, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "k1", "function_name": "exec", "arguments": {"input": "await tools.exec_command({cmd: 'make'})"}}],
  "observation": {"results": [{"source_call_id": "k1", "content": "[{'type': 'input_text', 'text': 'Script failed\\nWall time 0.0 seconds\\nOutput:\\n'}, {'type': 'input_text', 'text': 'Script error:\\nexec_command failed'}]"}]}},
 {"step_id": 3, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "k2", "function_name": "exec", "arguments": {"input": "await tools.exec_command({cmd: 'ls'})"}}],
  "observation": {"results": [{"source_call_id": "k2", "content": "[{'type': 'input_text', 'text': 'Script completed\\nWall time 0.1 seconds\\nOutput:\\n'}, {'type': 'input_text', 'text': 'Script failed'}]"}]}},
 {"step_id": 4, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "k3", "function_name": "exec_command", "arguments": {"cmd": "pytest"}}],
  "observation": {"results": [{"source_call_id": "k3", "content": "Chunk ID: 1a2b\nWall time: 0.2 seconds\nProcess exited with code 2\nOutput:\n1 failed"}]}},
 {"step_id": 5, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "k4", "function_name": "exec_command", "arguments": {"cmd": "true"}}],
  "observation": {"results": [{"source_call_id": "k4", "content": "Chunk ID: 3c4d\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n"}]}}
]}`,
			sessions: "c main 1t 4r k1/exec=[{'type': 'input_text', 'text': 'Script failed\\nWall time 0.0 seconds\\nOutput:\\n'}, {'type': 'input_text', 'text': 'Script error:\\nexec_command failed'}] k2/exec=[{'type': 'input_text', 'text': 'Script completed\\nWall time 0.1 seconds\\nOutput:\\n'}, {'type': 'input_text', 'text': 'Script failed'}] k3/exec_command=Chunk ID: 1a2b\nWall time: 0.2 seconds\nProcess exited with code 2\nOutput:\n1 failed k4/exec_command=Chunk ID: 3c4d\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n",
			check: func(t *testing.T, s []*Session) {
				var errs []bool
				for _, r := range s[0].Turns[0].Requests {
					for _, c := range r.Calls {
						errs = append(errs, c.IsError)
					}
				}
				if len(errs) != 4 || !errs[0] || errs[1] || !errs[2] || errs[3] {
					t.Errorf("errors %v, want the failed script and the exit code 2 only", errs)
				}
				if s[0].Turns[0].UserText != "fix it" || len(s[0].Notes) != 1 {
					t.Errorf("user text %q, notes %q; want the typed prompt and a note of 2 injected steps", s[0].Turns[0].UserText, s[0].Notes)
				}
			}},
		// Context of the same shape from another agent is its user's text.
		{name: "injected-looking user steps of another agent", file: "o.json",
			text: `{"schema_version": "ATIF-v1.6", "session_id": "o", "agent": {"name": "terminus-2", "version": "2.0.0"}, "steps": [
 {"step_id": 1, "source": "user", "message": "<environment_context>x</environment_context>"},
 {"step_id": 2, "source": "agent", "message": "ok"},
 {"step_id": 3, "source": "user", "message": "fix it"}
]}`,
			sessions: "o main 2t 1r "},
	})
}

func TestPyInputTextHead(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`[{'type': 'input_text', 'text': 'Script failed\nWall time 0.0 seconds'}]`, "Script failed\nWall time 0.0 seconds", true},
		{`[{'type': 'input_text', 'text': "it's \\ \x41\u00e9\t"}]`, "it's \\ A\u00e9\t", true},
		{`[{'type': 'input_text', 'text': 'a\'b'}, {'type': 'input_text', 'text': 'c'}]`, "a'b", true},
		{`[{'type': 'input_text', 'text': 'no end`, "", false},
		{`[{'type': 'input_text', 'text': '\x4'}]`, "", false},
		{`[{"type": "input_text", "text": "json, not Python"}]`, "", false},
		{"Script failed\nWall time 0.0 seconds", "", false},
	} {
		got, ok := pyInputTextHead(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("pyInputTextHead(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzATIF(f *testing.F) {
	fuzzOneFormat(f, formatATIF, "trajectory.json", atifTrajectory,
		`{"schema_version": "ATIF-v1.0", "steps": [{"source": "agent", "tool_calls": [{"tool_call_id": 1}], "metrics": {"prompt_tokens": "x"}}, null]}`)
}
