package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKimiSessionFolder: a Kimi CLI session folder as kimi_cli/session.py
// and subagents/store.py lay it out: context.jsonl beside its wire log
// wire.jsonl, and a subagent's own context, wire log and meta.json under
// subagents/<agent id>/. A walk reads the two contexts (the wire logs and
// meta.json are not transcripts), the subagent's as a scope of the
// session, each timed by its wire log's first message record.
func TestKimiSessionFolder(t *testing.T) {
	root := t.TempDir()
	session := filepath.Join(root, "sessions", "0a1b2c", "sess-9")
	agent := filepath.Join(session, "subagents", "ag-3")
	files := map[string]string{
		filepath.Join(session, "context.jsonl"): `{"role": "_system_prompt", "content": "sys"}
{"role": "_checkpoint", "id": 0}
{"role": "user", "content": "list files"}
{"role": "assistant", "content": [{"type": "text", "text": "ok"}], "tool_calls": [{"type": "function", "id": "Shell:0", "function": {"name": "Shell", "arguments": "{\"command\": \"ls\"}"}}]}
{"role": "tool", "content": [{"type": "text", "text": "a.txt"}], "tool_call_id": "Shell:0"}
{"role": "_usage", "token_count": 1200}
`,
		filepath.Join(session, "wire.jsonl"): `{"type": "metadata", "protocol_version": "1.10"}
{"timestamp": 1780000000.25, "message": {"type": "TurnBegin", "payload": {"user_input": "list files"}}}
{"timestamp": 1780000003.0, "message": {"type": "TurnEnd", "payload": {}}}
`,
		filepath.Join(agent, "context.jsonl"): `{"role": "user", "content": "look around"}
{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "id": "Glob:0", "function": {"name": "Glob", "arguments": "{\"pattern\": \"*\"}"}}]}
{"role": "tool", "content": "a.txt", "tool_call_id": "Glob:0"}
`,
		filepath.Join(agent, "wire.jsonl"): `{"type": "metadata", "protocol_version": "1.10"}
{"timestamp": 1780000001.5, "message": {"type": "TurnBegin", "payload": {"user_input": "look around"}}}
`,
		filepath.Join(agent, "meta.json"): `{"agent_id": "ag-3", "subagent_type": "explore", "status": "completed"}`,
	}
	writeFiles(t, "", files)
	var problems []string
	listed := Expand([]string{root}, func(p Problem) { problems = append(problems, p.Message) })
	var rel []string
	for _, p := range listed {
		r, _ := filepath.Rel(root, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	if got, want := strings.Join(rel, " "), "sessions/0a1b2c/sess-9/context.jsonl sessions/0a1b2c/sess-9/subagents/ag-3/context.jsonl"; got != want {
		t.Errorf("walk lists %s\nwant %s", got, want)
	}
	cases := []struct {
		path, id, agent, parent, calls string
		start                          time.Time
	}{
		{listed[0], "sess-9", "main", "", "Shell:0/Shell=a.txt", time.Unix(1780000000, 250e6).UTC()},
		{listed[1], "sess-9", "ag-3", "sess-9", "Glob:0/Glob=a.txt", time.Unix(1780000001, 500e6).UTC()},
	}
	if len(listed) != len(cases) {
		t.Fatalf("%d files listed, want %d", len(listed), len(cases))
	}
	for _, c := range cases {
		sessions, ps := readAll(t, c.path, Options{})
		if len(ps) > 0 || len(sessions) != 1 {
			t.Fatalf("%s: %d sessions, problems %v", c.path, len(sessions), ps)
		}
		s := sessions[0]
		if s.Format != formatKimi || s.ID != c.id || s.Agent != c.agent || s.Parent != c.parent || callSummary(s) != c.calls {
			t.Errorf("%s: read %s %s %s/%s %q, want kimi-cli %s %s/%s %q", c.path, s.Format, s.ID, s.Agent, s.Parent, callSummary(s), c.id, c.agent, c.parent, c.calls)
		}
		if start, _ := s.Span(); !start.Equal(c.start) {
			t.Errorf("%s: starts %v, want %v (the wire log's first record)", c.path, start, c.start)
		}
	}
	// Named explicitly, the wire log is still read (and is no Kimi CLI
	// context).
	if sessions, ps := readAll(t, filepath.Join(session, "wire.jsonl"), Options{}); len(sessions) != 0 || len(ps) == 0 {
		t.Errorf("wire.jsonl named explicitly: %d sessions, %d problems; want none read and a problem", len(sessions), len(ps))
	}
	if len(problems) > 0 {
		t.Errorf("walk problems: %v", problems)
	}
}

// TestKimiSubContextFiles: before subagents had folders of their own,
// Kimi CLI's Task tool wrote each subagent's history beside the session's
// context as context_sub_N.jsonl, and the session folder holds state.json
// (real sessions of March 2026 keep both). A walk reads the contexts, each
// subagent as a scope of the session, and leaves state.json alone.
func TestKimiSubContextFiles(t *testing.T) {
	root := t.TempDir()
	session := filepath.Join(root, "sessions", "0a1b2c", "sess-7")
	files := map[string]string{
		"context.jsonl": `{"role": "_checkpoint", "id": 0}
{"role": "user", "content": "build it"}
{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "id": "Task:0", "function": {"name": "Task", "arguments": "{\"description\": \"db\", \"subagent_name\": \"coder\", \"prompt\": \"write the queries\"}"}}]}
{"role": "tool", "content": "done", "tool_call_id": "Task:0"}
`,
		"context_sub_1.jsonl": `{"role": "_checkpoint", "id": 0}
{"role": "user", "content": "write the queries"}
{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "id": "WriteFile:0", "function": {"name": "WriteFile", "arguments": "{\"path\": \"q.py\", \"content\": \"x\"}"}}]}
{"role": "tool", "content": "written", "tool_call_id": "WriteFile:0"}
`,
		"context_sub_12.jsonl": `{"role": "user", "content": "check the queries"}
{"role": "assistant", "content": "fine"}
`,
		"state.json": `{"version": 1, "approval": {"yolo": false}, "additional_dirs": [], "dynamic_subagents": []}`,
	}
	writeFiles(t, session, files)
	var problems []string
	listed := Expand([]string{root}, func(p Problem) { problems = append(problems, p.Message) })
	if len(problems) > 0 {
		t.Errorf("walk problems: %v", problems)
	}
	got := map[string]string{}
	for _, p := range listed {
		sessions, ps := readAll(t, p, Options{})
		if len(ps) > 0 {
			t.Errorf("%s: problems %v", filepath.Base(p), ps)
		}
		for _, s := range sessions {
			got[filepath.Base(p)] = s.ID + " " + s.Agent + "/" + s.Parent + " " + callSummary(s)
		}
	}
	want := map[string]string{
		"context.jsonl":        "sess-7 main/ Task:0/Task=done",
		"context_sub_1.jsonl":  "sess-7 sub_1/sess-7 WriteFile:0/WriteFile=written",
		"context_sub_12.jsonl": "sess-7 sub_12/sess-7 ",
	}
	if len(got) != len(want) {
		t.Errorf("read %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: read %q, want %q", name, got[name], w)
		}
	}
}

// writeFiles writes each file's text at its path under dir, making the
// folders on the way.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
