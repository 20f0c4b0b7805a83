package ingest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestClaudeCodeResumeCopy: a session resumed in CLI 2.0.x (real files of
// 2.0.2 and 2.0.65, IDE) has its earlier conversation written into the file
// again: new uuids, one timestamp, the prompt's blocks on lines of their
// own, each response with its message.id and tool_use ids but no requestId.
// Read as new lines, every copied call ran twice (a repeated read the guard
// answered, an edit it steered), every copied prompt was a turn and every
// copied response a request.
func TestClaudeCodeResumeCopy(t *testing.T) {
	const first = `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-01-06T22:27:16Z","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>a.go</ide_opened_file>"},{"type":"text","text":"fix the spec"}]}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-06T22:27:19Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-01-06T22:27:20Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]},"toolUseResult":{}}
{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s1","timestamp":"2026-01-06T22:27:25Z","requestId":"r2","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"text","text":"done"}]}}
`
	const copy = `{"type":"user","uuid":"c1","sessionId":"s1","timestamp":"2026-01-06T23:35:24Z","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>a.go</ide_opened_file>"}]}}
{"type":"user","uuid":"c2","parentUuid":"c1","sessionId":"s1","timestamp":"2026-01-06T23:35:24Z","message":{"role":"user","content":[{"type":"text","text":"fix the spec"}]}}
{"type":"assistant","uuid":"c3","parentUuid":"c2","sessionId":"s1","timestamp":"2026-01-06T23:35:24Z","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"c4","parentUuid":"c3","sessionId":"s1","timestamp":"2026-01-06T23:35:24Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}
{"type":"assistant","uuid":"c5","parentUuid":"c4","sessionId":"s1","timestamp":"2026-01-06T23:35:24Z","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"text","text":"done"}]}}
`
	const next = `{"type":"user","uuid":"u3","parentUuid":"c5","sessionId":"s1","timestamp":"2026-01-06T23:35:30Z","message":{"role":"user","content":"run it"}}
{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"s1","timestamp":"2026-01-06T23:35:35Z","requestId":"r3","message":{"id":"m3","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"u4","parentUuid":"a3","sessionId":"s1","timestamp":"2026-01-06T23:35:36Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"package a"}]},"toolUseResult":{}}
`
	runConformance(t, "claude-code", []conformanceCase{
		{name: "copy then a new prompt", file: "s1.jsonl", text: first + copy + next,
			sessions: "s1 main 2t 3r t1/Read=package a t2/Read=package a"},
		// A resume whose copy ends the file: the copied prompts are no
		// turns either.
		{name: "copy at the end", file: "s1.jsonl", text: first + copy,
			sessions: "s1 main 1t 2r t1/Read=package a"},
		// Lines without requestId whose message.id was never read with
		// one (files written through a proxy) are read as before.
		{name: "no requestId anywhere", file: "s1.jsonl", text: copy,
			sessions: "s1 main 2t 2r t1/Read=package a"},
		// A proxy writes no requestId on any line (real 2.0.29 files,
		// message ids "msg_<time>"): a response read in an earlier turn
		// is the copy, and the prompts copied before it are no turns.
		{name: "copy without requestId anywhere", file: "s1.jsonl", text: noRequestID(first) + copy + noRequestID(next),
			sessions: "s1 main 2t 3r t1/Read=package a t2/Read=package a"},
	})
}

// noRequestID drops the requestId members of lines.
func noRequestID(lines string) string {
	return regexp.MustCompile(`"requestId":"[^"]*",`).ReplaceAllString(lines, "")
}

// TestClaudeCodeResumeCopyNoMessageID: through a proxy, some response
// lines carry no message.id either (real 2.0.29 file): nothing keys their
// copy to the response it copies, but its call was read and answered
// before under the same id and tool. Read again, the copied call ran twice.
func TestClaudeCodeResumeCopyNoMessageID(t *testing.T) {
	const call = `{"type":"assistant","uuid":"%s","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-06T22:27:19Z","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"r%s","parentUuid":"%s","sessionId":"s1","timestamp":"2026-01-06T22:27:20Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}
`
	const prompt = `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-01-06T22:27:16Z","message":{"role":"user","content":"fix the spec"}}
`
	const next = `{"type":"user","uuid":"u3","sessionId":"s1","timestamp":"2026-01-06T23:35:30Z","message":{"role":"user","content":"run it"}}
{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"s1","timestamp":"2026-01-06T23:35:35Z","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"u4","parentUuid":"a3","sessionId":"s1","timestamp":"2026-01-06T23:35:36Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"package a"}]}}
`
	first, again := fmt.Sprintf(call, "a1", "1", "a1"), fmt.Sprintf(call, "c1", "2", "c1")
	other := strings.ReplaceAll(again, `"name":"Read"`, `"name":"Grep"`)
	runConformance(t, "claude-code", []conformanceCase{
		{name: "copied call", file: "s1.jsonl", text: prompt + first + again + next,
			sessions: "s1 main 2t 3r t1/Read=package a t2/Read=package a"},
		// The same id under another tool is no copy: both calls are kept.
		{name: "id again, other tool", file: "s1.jsonl", text: prompt + first + other + next,
			sessions: "s1 main 2t 3r t1/Read=package a t1/Grep=package a t2/Read=package a"},
	})
}

// TestClaudeCodeForkContextLine: a forked agent's file of CLI 2.1.23 to
// 2.1.50 (prompt_suggestion, acompact) starts with the parent's last
// response, whose parentUuid is a line of the parent's file: the context
// the agent was forked with. It was read as the agent's first request,
// in a turn of its own before the agent's prompt.
func TestClaudeCodeForkContextLine(t *testing.T) {
	const text = `{"type":"assistant","uuid":"c1","parentUuid":"p9","isSidechain":true,"agentId":"aprompt_suggestion-1","sessionId":"s1","timestamp":"2026-02-02T13:25:46Z","requestId":"rP","message":{"id":"mP","role":"assistant","model":"m","content":[{"type":"text","text":"Now the output shows progress."}]}}
{"type":"user","uuid":"u1","parentUuid":"c1","isSidechain":true,"agentId":"aprompt_suggestion-1","sessionId":"s1","timestamp":"2026-02-02T13:25:46Z","message":{"role":"user","content":"[SUGGESTION MODE: Suggest what the user might naturally type next.]"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":true,"agentId":"aprompt_suggestion-1","sessionId":"s1","timestamp":"2026-02-02T13:25:50Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.json"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","isSidechain":true,"agentId":"aprompt_suggestion-1","sessionId":"s1","timestamp":"2026-02-02T13:25:51Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"{}"}]}}
`
	// An auto-compaction forked mid-turn: the parent's last response is a
	// call, followed by its result; both ran in the parent.
	const compact = `{"type":"assistant","uuid":"c1","parentUuid":"p9","isSidechain":true,"agentId":"acompact-1","sessionId":"s1","timestamp":"2026-02-04T08:04:55Z","requestId":"rP","message":{"id":"mP","role":"assistant","model":"m","content":[{"type":"tool_use","id":"tP","name":"Edit","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"c2","parentUuid":"c1","isSidechain":true,"agentId":"acompact-1","sessionId":"s1","timestamp":"2026-02-04T08:04:56Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tP","content":"edited"}]}}
{"type":"user","uuid":"u1","parentUuid":"c2","isSidechain":true,"agentId":"acompact-1","sessionId":"s1","timestamp":"2026-02-04T08:04:57Z","message":{"role":"user","content":"Your task is to create a detailed summary of the conversation so far."}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":true,"agentId":"acompact-1","sessionId":"s1","timestamp":"2026-02-04T08:05:15Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","isSidechain":true,"agentId":"acompact-1","sessionId":"s1","timestamp":"2026-02-04T08:05:16Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"{}"}]}}
`
	runConformance(t, "claude-code", []conformanceCase{
		{name: "parent's response first", file: "s1/subagents/agent-aprompt_suggestion-1.jsonl", text: text,
			sessions: "s1 aprompt_suggestion-1 1t 1r t1/Read={}"},
		{name: "parent's last call and its result first", file: "s1/subagents/agent-acompact-1.jsonl", text: compact,
			sessions: "s1 acompact-1 1t 1r t1/Read={}"},
		// The parent's last result alone (real 2.1.50 files): its call's
		// line is the parent's. It was a result with no call, a problem.
		{name: "parent's last result alone first", file: "s1/subagents/agent-acompact-1.jsonl", text: compact[strings.Index(compact, "\n")+1:],
			sessions: "s1 acompact-1 1t 1r t1/Read={}"},
	})
}

// TestClaudeCodeRepeatedLine: lines written into the file again whole (the
// same uuid, message.id and requestId; a real 2.1.143 file has 17 calls
// and their results re-appended at its end) are the request and results
// read before: their calls were read twice.
func TestClaudeCodeRepeatedLine(t *testing.T) {
	const a1 = `{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-05-21T02:22:30Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}]}}
`
	const r1 = `{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-05-21T02:22:31Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}
`
	const text = `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-05-21T02:22:29Z","message":{"role":"user","content":"read a.go"}}
` + a1 + r1 + `{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s1","timestamp":"2026-05-21T02:22:35Z","requestId":"r2","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"text","text":"done"}]}}
` + a1 + r1
	runConformance(t, "claude-code", []conformanceCase{{
		name: "a request's line and its result again", file: "s1.jsonl", text: text,
		sessions: "s1 main 1t 2r t1/Read=package a",
	}})
}

// TestClaudeCodeStreamJSONSubagent: the output of claude -p
// --output-format stream-json (the Agent SDK's message stream) marks a
// subagent's messages with parent_tool_use_id, the Task/Agent call running
// it, and has no isSidechain or agentId; its session id is session_id.
// The subagent's prompt was a turn of the main session and its calls the
// main agent's.
func TestClaudeCodeStreamJSONSubagent(t *testing.T) {
	const text = `{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Read","Task"],"model":"m","uuid":"i1"}
{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"find x"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"a1"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"find x"}]},"parent_tool_use_id":"t1","session_id":"s1","uuid":"u1"}
{"type":"assistant","message":{"id":"m2","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"x"}}]},"parent_tool_use_id":"t1","session_id":"s1","uuid":"a2"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t2","type":"tool_result","content":"xx"}]},"parent_tool_use_id":"t1","session_id":"s1","uuid":"u2"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"found"}]}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u3"}
{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"done","session_id":"s1","uuid":"r1"}
`
	runConformance(t, "claude-code", []conformanceCase{{
		name: "a Task's subagent", file: "out.jsonl", text: text,
		sessions: "s1 main 1t 1r t1/Task=found | s1 t1 1t 1r t2/Read=xx",
		check: func(t *testing.T, ss []*Session) {
			if len(ss) == 2 && ss[1].Parent != "s1" {
				t.Errorf("subagent's parent = %q, want s1", ss[1].Parent)
			}
		},
	}})
}
