package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A subagent transcript as Claude Code 2.1.332 writes it (the lab's
// subagent run): sidechain lines with the subagent's agentId.
const claudeSubagentLines = `{"parentUuid":null,"isSidechain":true,"agentId":"a1b2","type":"user","message":{"role":"user","content":"print the sub word"},"uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s1","version":"2.1.332"}
{"parentUuid":"u1","isSidechain":true,"agentId":"a1b2","type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo lab-sub"}}],"usage":{"input_tokens":10,"output_tokens":5}},"requestId":"r1","uuid":"a1","timestamp":"2026-01-01T00:00:01.000Z","sessionId":"s1"}
{"parentUuid":"a1","isSidechain":true,"agentId":"a1b2","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"lab-sub"}]},"uuid":"u2","timestamp":"2026-01-01T00:00:02.000Z","sessionId":"s1"}
`

// TestClaudeSubagentMeta: agent-<id>.meta.json beside a subagent's
// transcript is read with it (its type, description and delegating call a
// note, parentAgentId the parent), skipped by a walk, and one clear
// problem when named on its own. So is a workflow's agent's, in
// subagents/workflows/<id>/ beside the workflow's journal.jsonl (CLI
// 2.1.16x, real sessions), which a walk skips too: both were read as files
// of no known format.
func TestClaudeSubagentMeta(t *testing.T) {
	tests := []struct {
		name     string
		workflow bool   // in subagents/workflows/wf_1/, with a journal.jsonl
		meta     string // "" writes none
		parent   string
		note     string // a substring of the one note; "" wants none
		problems []string
	}{
		{
			name:   "as 2.1.332 writes it",
			meta:   `{"agentType":"general-purpose","isBuiltIn":true,"launchedWithDefaults":true,"description":"lab subagent","toolUseId":"toolu_lab1_0","spawnDepth":1,"requestShape":"background","model":"claude-sonnet-4-5","finished":true}`,
			parent: "s1",
			note:   `subagent type "general-purpose", description "lab subagent", started by call toolu_lab1_0 (agent-a1b2.meta.json)`,
		},
		{
			name:   "started by another subagent",
			meta:   `{"agentType":"Explore","toolUseId":"toolu_9","parentAgentId":"a0ff","spawnDepth":2}`,
			parent: "a0ff",
			note:   "of subagent a0ff",
		},
		{name: "none (older versions)", parent: "s1"},
		{name: "type only", meta: `{"agentType":"general-purpose"}`, parent: "s1", note: `subagent type "general-purpose" (`},
		{name: "not JSON", meta: `{"agentType":`, parent: "s1", problems: []string{"agent-a1b2.meta.json", "not Claude Code's subagent metadata"}},
		{name: "a workflow's agent", workflow: true, meta: `{"agentType":"workflow-subagent"}`, parent: "s1", note: `subagent type "workflow-subagent" (`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := filepath.Join(t.TempDir(), "projects", "-work")
			dir := filepath.Join(project, "s1", "subagents")
			if tt.workflow {
				dir = filepath.Join(dir, "workflows", "wf_1")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			journal := filepath.Join(dir, "journal.jsonl")
			if tt.workflow {
				if err := os.WriteFile(journal, []byte(`{"type":"started","key":"v2:1","agentId":"a1b2"}`+"\n"+`{"type":"result","key":"v2:1","agentId":"a1b2","result":{"findings":[]}}`+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			transcript := filepath.Join(dir, "agent-a1b2.jsonl")
			if err := os.WriteFile(transcript, []byte(claudeSubagentLines), 0o644); err != nil {
				t.Fatal(err)
			}
			meta := filepath.Join(dir, "agent-a1b2.meta.json")
			if tt.meta != "" {
				if err := os.WriteFile(meta, []byte(tt.meta), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sessions, problems := readAll(t, transcript, Options{})
			if len(sessions) != 1 || sessions[0].Agent != "a1b2" {
				t.Fatalf("want the subagent's session a1b2, got %d session(s); problems %v", len(sessions), problems)
			}
			s := sessions[0]
			if s.Parent != tt.parent {
				t.Errorf("parent %q, want %q", s.Parent, tt.parent)
			}
			if tt.note == "" && len(s.Notes) > 0 || tt.note != "" && (len(s.Notes) != 1 || !strings.Contains(s.Notes[0], tt.note)) {
				t.Errorf("notes %q, want one holding %q", s.Notes, tt.note)
			}
			want := 0
			if len(tt.problems) > 0 {
				want = 1
			}
			if len(problems) != want {
				t.Fatalf("problems %v, want %d", problems, want)
			}
			for _, p := range problems {
				for _, want := range tt.problems {
					if !strings.Contains(p.File+": "+p.Message, want) {
						t.Errorf("problem %s: %s does not name %q", p.File, p.Message, want)
					}
				}
			}

			// A walk of the project folder reads the transcript, never the
			// metadata on its own.
			files := Expand([]string{project}, func(p Problem) { t.Error(p) })
			if len(files) != 1 || files[0] != transcript {
				t.Errorf("a walk read %v, want only %s", files, transcript)
			}
			// Named on its own: one problem saying what it is.
			if tt.meta != "" {
				_, problems := readAll(t, meta, Options{})
				if len(problems) != 1 || !strings.Contains(problems[0].Message, "not a transcript: Claude Code's metadata of subagent a1b2") || strings.Contains(problems[0].Message, "no known format") {
					t.Errorf("named on its own: problems %v, want one saying it is subagent a1b2's metadata", problems)
				}
			}
			if tt.workflow {
				_, problems := readAll(t, journal, Options{})
				if len(problems) != 1 || !strings.Contains(problems[0].Message, "not a transcript: Claude Code's journal of workflow wf_1") {
					t.Errorf("the journal named on its own: problems %v, want one saying it is workflow wf_1's journal", problems)
				}
			}
		})
	}
}
