package ingest

import (
	"strings"
	"testing"
)

// A Roo Code task UI log: its api_req_started holds the usage without the
// request text, so no tool result can be taken from the next request;
// command_output and mcp_server_response messages show what a command and
// an MCP call returned. Tool kinds are Roo Code's (updateTodoList,
// appliedDiff); finishTask asks to hand a subtask's completion back.
const rooUILog = `[
{"ts":1787366936311,"type":"say","say":"text","text":"plan the migration","images":[]},
{"ts":1787366936362,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\",\"tokensIn\":30760,\"tokensOut\":432,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0.02}"},
{"ts":1787366979566,"type":"ask","ask":"tool","text":"{\"tool\":\"updateTodoList\",\"todos\":[]}","partial":false,"isAnswered":true},
{"ts":1787366980208,"type":"ask","ask":"tool","text":"{\"tool\":\"readFile\",\"path\":\"plans/README.md\",\"isOutsideWorkspace\":false,\"content\":\"c:\\\\p\\\\plans\\\\README.md\",\"reason\":\"(up to 200 lines)\"}","isAnswered":true},
{"ts":1787366988656,"type":"ask","ask":"use_mcp_server","text":"{\"type\":\"use_mcp_tool\",\"serverName\":\"memory\",\"toolName\":\"search_nodes\",\"arguments\":\"{\\\"query\\\":\\\"x\\\"}\"}","isAnswered":true},
{"ts":1787366988674,"type":"say","say":"mcp_server_request_started"},
{"ts":1787366988692,"type":"say","say":"mcp_server_response","text":"{\"entities\": []}","images":[]},
{"ts":1787366988732,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\",\"tokensIn\":34412,\"tokensOut\":292,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0.03}"},
{"ts":1787366990000,"type":"ask","ask":"command","text":"go test ./...","isAnswered":true},
{"ts":1787366991000,"type":"say","say":"command_output","text":"ok  pkg/a"},
{"ts":1787366992000,"type":"say","say":"command_output","text":"ok  pkg/b"},
{"ts":1787366993000,"type":"ask","ask":"tool","text":"{\"tool\":\"appliedDiff\",\"path\":\"a.go\",\"diff\":\"...\"}","isAnswered":true},
{"ts":1787366995714,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\",\"tokensIn\":42625,\"tokensOut\":316,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0.03}"},
{"ts":1787366996000,"type":"ask","ask":"followup","text":"{\"question\":\"Which option?\",\"suggest\":[{\"answer\":\"A\"}]}","isAnswered":true},
{"ts":1787366996500,"type":"say","say":"user_feedback","text":"A, but condense first","images":[]},
{"ts":1787366996600,"type":"say","say":"condense_context","contextCondense":{"cost":0.1,"prevContextTokens":100,"newContextTokens":10,"summary":"s"}},
{"ts":1787366996700,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\",\"tokensIn\":10,\"tokensOut\":3}"},
{"ts":1787366996800,"type":"ask","ask":"tool","text":"{\"tool\":\"newTask\",\"mode\":\"architect\",\"content\":\"map the KV code\"}","isAnswered":true},
{"ts":1787366996900,"type":"say","say":"subtask_result","text":"the KV map"},
{"ts":1787366997000,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\",\"tokensIn\":11,\"tokensOut\":3}"},
{"ts":1787366998000,"type":"say","say":"completion_result","text":"Done."},
{"ts":1787366999000,"type":"ask","ask":"tool","text":"{\"tool\":\"finishTask\"}"},
{"ts":1787367000000,"type":"ask","ask":"completion_result","text":""},
{"ts":1787367000500,"type":"ask","ask":"resume_completed_task"},
{"ts":1787367001000,"type":"say","say":"user_feedback","text":"now the tests","images":[]},
{"ts":1787367002000,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\",\"tokensIn\":12,\"tokensOut\":3}"}
]`

func TestClineUIRoo(t *testing.T) {
	sessions, problems := readText(t, "ui_messages.json", rooUILog)
	if len(sessions) != 1 || sessions[0].Format != formatClineUI {
		t.Fatalf("sessions %d; want one cline-ui session", len(sessions))
	}
	var got []string
	for _, tu := range sessions[0].Turns {
		for _, r := range tu.Requests {
			for _, c := range r.Calls {
				res := "-"
				if c.HasResult {
					res = c.Result
				}
				got = append(got, c.Tool+"="+res)
			}
		}
	}
	want := "update_todo_list=- read_file=- use_mcp_tool={\"entities\": []} execute_command=ok  pkg/a\nok  pkg/b apply_diff=- " +
		"ask_followup_question=A, but condense first new_task=the KV map attempt_completion=-"
	if strings.Join(got, " ") != want {
		t.Errorf("calls\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// The calls whose result the log does not keep say why.
	var why int
	for _, p := range problems {
		if strings.Contains(p.Message, "records no result for it") {
			why++
		}
	}
	if why != 4 || len(problems) != 4 {
		t.Errorf("problems %v; want the 4 naming the missing request text", problems)
	}
	if !strings.Contains(strings.Join(sessions[0].Notes, "\n"), "6 request(s) whose api_req_started carries no request text") {
		t.Errorf("notes %q", sessions[0].Notes)
	}
	// The message that resumes the completed task opens the second turn,
	// after the condense.
	if n := len(sessions[0].Turns); n != 2 || !sessions[0].Turns[1].CompactedBefore {
		t.Errorf("turns %d; want 2, the second compacted", n)
	}
}

// TestClineUIRooUsage: Roo Code's tokensIn is the whole input, cache
// included, whatever the protocol; Cline's leaves the cache out.
func TestClineUIRooUsage(t *testing.T) {
	for _, tc := range []struct {
		name, info string
		in         int64
	}{
		{"roo, anthropic protocol", `{\"apiProtocol\":\"anthropic\",\"tokensIn\":1000,\"tokensOut\":10,\"cacheWrites\":100,\"cacheReads\":800}`, 1000},
		{"cline", `{\"request\":\"x\",\"tokensIn\":100,\"tokensOut\":10,\"cacheWrites\":100,\"cacheReads\":800}`, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := `[{"ts":1,"type":"say","say":"text","text":"go"},{"ts":2,"type":"say","say":"api_req_started","text":"` + tc.info + `"}]`
			sessions, _ := readText(t, "ui_messages.json", text)
			if len(sessions) != 1 || len(sessions[0].Turns) != 1 || len(sessions[0].Turns[0].Requests) != 1 {
				t.Fatalf("want one request")
			}
			u := sessions[0].Turns[0].Requests[0].Usage
			if u == nil || u.Input != tc.in || u.CacheRead != 800 {
				t.Errorf("usage %+v, want input %d with 800 read from the cache", u, tc.in)
			}
		})
	}
}
