package formatcheck

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCountFile: each reading on a small file written here from its
// format's structure, with the figures counted by hand.
func TestCountFile(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string
		want             Count
	}{
		{
			name: "claude code: a message over two lines counts its usage once, a repeat, a result by id",
			file: "s.jsonl",
			text: `{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"go"}}
{"type":"assistant","sessionId":"s","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"x"}],"usage":{"input_tokens":2,"cache_read_input_tokens":100,"output_tokens":0}}}
{"type":"assistant","sessionId":"s","uuid":"a2","parentUuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"b":1,"a":2}}],"usage":{"input_tokens":2,"cache_read_input_tokens":100,"output_tokens":7}}}
{"type":"user","sessionId":"s","uuid":"u2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}
{"type":"assistant","sessionId":"s","uuid":"a3","parentUuid":"u2","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"a":2,"b":1}}]}}
`,
			want: Count{Format: "claude-code", Sessions: 1, Calls: 2, WithResults: 1, Repeats: 1, Tokens: 109},
		},
		{
			name: "claude code: a sidechain is a session of its own",
			file: "s.jsonl",
			text: `{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{}}]}}
{"type":"assistant","sessionId":"s","uuid":"b1","isSidechain":true,"parentUuid":null,"message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{}}]}}
{"type":"user","sessionId":"s","uuid":"b2","isSidechain":true,"parentUuid":"b1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"x"}]}}
`,
			want: Count{Format: "claude-code", Sessions: 2, Calls: 2, WithResults: 1},
		},
		{
			name: "codex rollout: outputs by call_id, the running token total",
			file: "rollout.jsonl",
			text: `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":80,"output_tokens":5}}}}
{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c2"}}
{"timestamp":"t","type":"response_item","payload":{"type":"web_search_call","status":"completed"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":250,"cached_input_tokens":200,"output_tokens":9}}}}
`,
			want: Count{Format: "codex", Sessions: 1, Calls: 2, WithResults: 1, Tokens: 259},
		},
		{
			name: "cline: results as text blocks in order, the Anthropic provider's cache added",
			file: "api_conversation_history.json",
			text: `[{"role":"user","content":[{"type":"text","text":"task"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}},{"type":"tool_use","id":"t2","name":"read_file","input":{"path":"b"}}],"metrics":{"tokens":{"prompt":10,"completion":5,"cached":1000}},"modelInfo":{"providerId":"anthropic"}},
{"role":"user","content":[{"type":"text","text":"[read_file for 'a'] Result:\n1"},{"type":"text","text":"<environment_details>"}]}]`,
			want: Count{Format: "cline", Sessions: 1, Calls: 2, WithResults: 1, Tokens: 1015},
		},
		{
			name: "hermes export: tool_calls as a JSON string, the session's token columns",
			file: "export.jsonl",
			text: `{"id":"s1","source":"cli","started_at":1.5,"input_tokens":40,"output_tokens":2,"messages":[{"role":"assistant","tool_calls":"[{\"id\":\"c1\",\"function\":{\"name\":\"terminal\",\"arguments\":\"{}\"}}]"},{"role":"tool","tool_call_id":"c1","content":"x"},{"role":"assistant","tool_calls":""}]}
`,
			want: Count{Format: "hermes-export", Sessions: 1, Calls: 1, WithResults: 1, Tokens: 42},
		},
		{
			name: "hermes trajectory: calls in tags, answered in order",
			file: "trajectories.jsonl",
			text: `{"conversations":[{"from":"human","value":"hi"},{"from":"gpt","value":"<tool_call>\n{\"name\":\"f\",\"arguments\":{}}\n</tool_call><tool_call>\n{\"name\":\"f\",\"arguments\":{}}\n</tool_call>"},{"from":"tool","value":"<tool_response>\n{}\n</tool_response>"}],"completed":true}
`,
			want: Count{Format: "hermes-trajectory", Sessions: 1, Calls: 2, WithResults: 1, Repeats: 1},
		},
		{
			name: "gemini stream-json: each init a session, results by tool_id, the run's total",
			file: "transcript.jsonl",
			text: `{"type":"init","session_id":"a","model":"m"}
{"type":"tool_use","tool_name":"read_file","tool_id":"r1","parameters":{"path":"x"}}
{"type":"tool_result","tool_id":"r1","status":"success","output":"x"}
{"type":"result","status":"success","stats":{"total_tokens":120,"input_tokens":100,"output_tokens":15}}
{"type":"init","session_id":"b","model":"m"}
{"type":"tool_use","tool_name":"read_file","tool_id":"r2","parameters":{"path":"x"}}
`,
			want: Count{Format: "gemini-stream-json", Sessions: 2, Calls: 2, WithResults: 1, Tokens: 120},
		},
		{
			name: "openhands: calls with tool_call_metadata, observations by cause, usage once per response",
			file: "trajectory.json",
			text: `[{"id":0,"source":"user","action":"message","args":{"content":"go"}},
{"id":1,"source":"agent","action":"run","args":{"command":"ls"},"tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"t1","model_response":{"id":"r1","choices":[{"message":{"tool_calls":[{"id":"t1","function":{"name":"execute_bash","arguments":"{\"command\": \"ls\"}"}}]}}],"usage":{"prompt_tokens":50,"completion_tokens":5}}}},
{"id":2,"source":"agent","observation":"run","cause":1,"content":"a"},
{"id":3,"source":"agent","action":"finish","args":{},"tool_call_metadata":{"function_name":"finish","tool_call_id":"t2","model_response":{"id":"r2","usage":{"prompt_tokens":60,"completion_tokens":2}}}}]`,
			want: Count{Format: "openhands", Sessions: 1, Calls: 2, WithResults: 1, Tokens: 117},
		},
		{
			name: "aider: a run per header, an edit per SEARCH block answered by Applied edit, a /run",
			file: ".aider.chat.history.md",
			text: "# aider chat started at 2025-05-01 10:00:00\n\n#### fix it\n\na.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n> Tokens: 2.5k sent, 120 received. Cost: $0.01 message, $0.01 session.\n> Applied edit to a.py\n\n#### /run pytest\n> Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: y\n> Added 3 lines of output to the chat.\n",
			want: Count{Format: "aider", Sessions: 1, Calls: 2, WithResults: 2, Tokens: 2620},
		},
		{
			name: "copilot: a subagent's calls are a session of their own, the shutdown's token totals",
			file: "events.jsonl",
			text: `{"type":"session.start","data":{"sessionId":"s"}}
{"type":"assistant.message","data":{"toolRequests":[{"toolCallId":"c1","name":"task","arguments":{}}]}}
{"type":"assistant.message","data":{"parentToolCallId":"c1","toolRequests":[{"toolCallId":"c2","name":"shell","arguments":"{\"command\":\"ls\"}"}]}}
{"type":"tool.execution_complete","data":{"parentToolCallId":"c1","toolCallId":"c2","success":true}}
{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true}}
{"type":"session.shutdown","data":{"tokenDetails":{"input":{"tokenCount":100},"output":{"tokenCount":15}}}}
`,
			want: Count{Format: "copilot-cli", Sessions: 2, Calls: 2, WithResults: 2, Tokens: 115},
		},
		{
			name: "converted export: meta.token_counts, a response over two events counted once, a repeated total skipped, the cache added to a split input",
			file: "develop-1.json",
			text: `{"messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"Bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}],
"meta":{"token_counts":[
{"type":"token_count","info":{"total_token_usage":{"input_tokens":3,"cached_input_tokens":1000,"output_tokens":2},"last_token_usage":{"input_tokens":3,"cached_input_tokens":1000,"output_tokens":2}}},
{"type":"token_count","info":{"total_token_usage":{"input_tokens":3,"cached_input_tokens":1000,"output_tokens":50},"last_token_usage":{"input_tokens":3,"cached_input_tokens":1000,"output_tokens":50}}},
{"type":"token_count","info":{"total_token_usage":{"input_tokens":3,"cached_input_tokens":1000,"output_tokens":50},"last_token_usage":{"input_tokens":3,"cached_input_tokens":1000,"output_tokens":50}}},
{"type":"token_count","info":{"total_token_usage":{"input_tokens":1,"cached_input_tokens":2000,"output_tokens":9},"last_token_usage":{"input_tokens":1,"cached_input_tokens":2000,"output_tokens":9}}}]}}`,
			want: Count{Format: "openai-chat", Sessions: 1, Calls: 1, WithResults: 1, Tokens: 1053 + 2010},
		},
		{
			name: "converted export: the messages' own _metadata.tokens win over meta.token_counts",
			file: "develop-2.json",
			text: `{"messages":[{"role":"assistant","content":"x","_metadata":{"tokens":{"input":10,"output":5,"reasoning":2,"cache":{"read":100,"write":1}}}}],
"meta":{"token_counts":[{"type":"token_count","info":{"last_token_usage":{"input_tokens":10,"cached_input_tokens":100,"output_tokens":5}}}]}}`,
			want: Count{Format: "openai-chat", Sessions: 1, Tokens: 116},
		},
		{
			name: "converted export: a subagent's messages (role assistant-subagent-<id>) are a session of their own; token_counts stay the main session's",
			file: "bugfix-1.json",
			text: `{"messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c1","type":"function","function":{"name":"Agent","arguments":"{}"}}]},
{"role":"assistant-subagent-q1","content":"look","_metadata":{"original_role":"user"}},
{"role":"assistant-subagent-q1","content":"","tool_calls":[{"id":"d1","type":"function","function":{"name":"Read","arguments":"{\"p\":1}"}}],"_metadata":{"original_role":"assistant"}},
{"role":"assistant-subagent-q1","tool_call_id":"d1","content":"r","_metadata":{"original_role":"tool"}},
{"role":"assistant-subagent-q1","content":"","tool_calls":[{"id":"d2","type":"function","function":{"name":"Read","arguments":"{\"p\":1}"}}],"_metadata":{"original_role":"assistant"}},
{"role":"tool","tool_call_id":"c1","content":"done"}],
"meta":{"token_counts":[{"type":"token_count","info":{"last_token_usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5}}}]}}`,
			want: Count{Format: "openai-chat", Sessions: 2, Calls: 3, WithResults: 2, Repeats: 1, Tokens: 15},
		},
		{
			name: "kimi wire: loop events' calls and results, usage per step",
			file: "wire.jsonl",
			text: `{"type":"metadata","protocol_version":"1.4"}
{"type":"context.append_loop_event","event":{"type":"tool.call","toolCallId":"Bash_0","name":"Bash","args":{"command":"ls"}}}
{"type":"context.append_loop_event","event":{"type":"tool.result","toolCallId":"Bash_0","result":{"output":"a"}}}
{"type":"context.append_loop_event","event":{"type":"step.end","usage":{"inputOther":10,"inputCacheRead":100,"inputCacheCreation":0,"output":5}}}
`,
			want: Count{Format: "kimi-wire", Sessions: 1, Calls: 1, WithResults: 1, Tokens: 115},
		},
		{
			name: "cline ui log: the next request's result headers answer the round's calls in order; request usage",
			file: "ui_messages.json",
			text: `[{"ts":1,"type":"say","say":"text","text":"task"},
{"ts":2,"type":"say","say":"api_req_started","text":"{\"tokensIn\":10,\"tokensOut\":5,\"cacheReads\":100}","modelInfo":{"providerId":"anthropic"}},
{"ts":3,"type":"say","say":"tool","text":"{\"tool\":\"readFile\",\"path\":\"a\"}"},
{"ts":4,"type":"ask","ask":"command","text":"ls"},
{"ts":5,"type":"ask","ask":"command_output","text":"a"},
{"ts":6,"type":"say","say":"api_req_started","text":"{\"request\":\"[read_file for 'a'] Result:\\nx\",\"tokensIn\":1,\"tokensOut\":2}"}]`,
			want: Count{Format: "cline-ui", Sessions: 1, Calls: 2, WithResults: 1, Tokens: 118},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := CountFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("CountFile = %+v\nwant        %+v", got, tc.want)
			}
		})
	}
}

// TestCountFileUnknown: a file of no format the reading knows is said so.
func TestCountFileUnknown(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(p, []byte("just some text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CountFile(p); !errors.Is(err, ErrUnknown) {
		t.Errorf("CountFile(text) error = %v; want ErrUnknown", err)
	}
}
