package ingest

import "testing"

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
	})
}
