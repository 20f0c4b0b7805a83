package ingest

import (
	"testing"
)

// ccEdgeFiles are Claude Code files whose lines are not all of the common
// shapes (TestEdgeGolden holds what is read of them).
var ccEdgeFiles = []string{
	// The common shapes: a prompt, a call, its result as a string and as
	// blocks, an error, a split response, usage.
	`{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"read a"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"hm","signature":"zz"},{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":5,"cache_creation":{"x":1}}}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s1","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a","limit":null}}]}}
{"type":"user","uuid":"u2","parentUuid":"a2","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"line\n\"one\" \u00e9 \ud83d\ude00"}]},"toolUseResult":{"file":{"content":"line"}}}
{"type":"assistant","uuid":"a3","sessionId":"s1","requestId":"r2","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"t3","name":"Grep","input":"not an object"}]}}
{"type":"user","uuid":"u3","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a"},{"type":"image","source":{}}],"is_error":true},{"type":"tool_result","tool_use_id":"t3","content":null},{"type":"tool_result","tool_use_id":"t9"}]}}
`,
	// Messages and content of other shapes.
	`{"type":"user","uuid":"u1","message":null}
{"type":"user","uuid":"u2"}
{"type":"user","uuid":"u3","message":"text"}
{"type":"user","uuid":"u4","message":{"role":"user","content":null}}
{"type":"user","uuid":"u5","message":{"role":"user","content":5}}
{"type":"user","uuid":"u6","message":{"role":"user"}}
{"type":"user","uuid":"u7","message":{"role":"user","content":[]}}
{"type":"user","uuid":"u8","message":{"role":"user","content":[null,{"type":"text","text":"after null"}]}}
{"type":"user","uuid":"u9","message":{"role":"user","content":["a string block"]}}
{"type":"assistant","uuid":"a1","message":{"id":"m1","model":"claude-x","content":"plain assistant text"}}
{"type":"assistant","uuid":"a2","message":{"id":"m2","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}
`,
	// Repeated, case-folded and escaped keys; members of other kinds.
	`{"type":"user","type":"assistant","uuid":"u1","message":{"role":"user","content":"a"}}
{"type":"user","uuid":"u2","message":{"role":"user","content":"b","content":"c"}}
{"Type":"user","uuid":"u3","message":{"role":"user","content":"d"}}
{"t\u0079pe":"user","uuid":"u4","message":{"role":"user","content":"e"}}
{"type":"user","uuid":"u5","isSidechain":"true","message":{"role":"user","content":"f"}}
{"type":"user","uuid":"u6","isMeta":1,"message":{"role":"user","content":"g"}}
{"type":"user","uuid":7,"message":{"role":"user","content":"h"}}
{"type":"assistant","uuid":"a1","message":{"id":"m1","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"p":1}}]}}
{"type":"user","uuid":"u7","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r","is_error":"yes"}]}}
{"type":"user","uuid":"u8","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r","is_error":false,"is_error":true}]}}
{"type":"user","uuid":"u9","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","Content":"R","content":"r"}]}}
{"type":"user","uuid":"u10","isMeta":null,"isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r2","is_error":null}]}}
{"type":"assistant","uuid":"a2","message":{"id":"m2","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Read","Name":"READ","input":{}}]}}
{"type":"assistant","uuid":"a3","message":{"id":"m3","model":"claude-x","content":[{"type":"tool_use","id":5,"name":"Read","input":{}}]}}
`,
	// Invalid UTF-8 in a prompt, a text block and a result.
	"{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff byte\"}}\n" +
		"{\"type\":\"assistant\",\"uuid\":\"a1\",\"message\":{\"id\":\"m1\",\"model\":\"c\",\"content\":[{\"type\":\"text\",\"text\":\"t\xc3\"},{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Read\",\"input\":{\"p\":\"\xfe\"}}]}}\n" +
		"{\"type\":\"user\",\"uuid\":\"u2\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"r\xff\"}]}}\n",
	// Server tools, sidechains, compaction, meta lines, commands.
	`{"type":"user","uuid":"u1","sessionId":"s2","message":{"role":"user","content":"search"}}
{"type":"assistant","uuid":"a1","sessionId":"s2","message":{"id":"m1","model":"c","content":[{"type":"server_tool_use","id":"st1","name":"web_search","input":{"query":"x"}},{"type":"web_search_tool_result","tool_use_id":"st1","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}},{"type":"server_tool_use","id":"st2","name":"web_search","input":{"query":"y"}},{"type":"web_search_tool_result","tool_use_id":"st2","content":[{"type":"web_search_result","title":"T","url":"u"}]}]}}
{"type":"user","uuid":"u2","isSidechain":true,"agentId":"ag1","sessionId":"s2","message":{"role":"user","content":"sub task"}}
{"type":"assistant","uuid":"a2","parentUuid":"u2","isSidechain":true,"sessionId":"s2","message":{"id":"m2","model":"c","content":[{"type":"tool_use","id":"t5","name":"Glob","input":{"pattern":"*"}}]}}
{"type":"user","uuid":"u3","parentUuid":"a2","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t5","content":"a.go"}]}}
{"type":"system","uuid":"x1","subtype":"compact_boundary","message":{"weird":[1,2]}}
{"type":"user","uuid":"u4","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}
{"type":"user","uuid":"u5","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>x</local-command-caveat>"}}
{"type":"user","uuid":"u6","message":{"role":"user","content":"<command-name>/clear</command-name>"}}
{"type":"user","uuid":"u7","message":{"role":"user","content":[{"type":"text","text":"  typed "},{"type":"text","text":"prompt"}]}}
{"type":"summary","summary":"s","leafUuid":"u7"}
{"type":"file-history-snapshot","messageId":"m9","snapshot":{}}
{"uuid":"no-type","message":{"role":"user","content":"x"}}
`,
	// Lines that are not JSON or not whole.
	`{"type":"user","uuid":"u1","message":{"role":"user","content":"a"}} trailing
{"type":"user","uuid":"u2","message":{"role":"user","content":"b"}
not json at all
{"type":"user","uuid":"u3","message":{"role":"user","content":"c"}}`,
}

func FuzzClaudeCodeEdge(f *testing.F) {
	for _, file := range ccEdgeFiles {
		f.Add([]byte(file))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEdgeRead(t, data, "session.jsonl", formatClaudeCode)
	})
}
