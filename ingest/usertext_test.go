package ingest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// userTexts are the UserText of each turn of each session read, in order.
func userTexts(sessions []*Session) []string {
	var out []string
	for _, s := range sessions {
		for _, t := range s.Turns {
			out = append(out, t.UserText)
		}
	}
	return out
}

// TestUserTextInline reads small transcripts written here from each
// format's source: the user's text is kept, what the agent put around it
// (editor state, the files a mention pulled in, tool results, compaction
// summaries) is not.
func TestUserTextInline(t *testing.T) {
	copilotStart := `{"type":"session.start","data":{"sessionId":"s1","selectedModel":"m"},"id":"e1","timestamp":"2026-08-21T14:00:00.000Z","parentId":null}` + "\n"
	tests := []struct {
		name, file, text string
		want             []string
	}{
		{
			name: "cline: task, attached file's path, not its text nor environment_details; a resumption keeps none",
			file: "api_conversation_history.json",
			text: `[
{"role":"user","content":[{"type":"text","text":"<task>\nfix src/a.ts\n</task>"},{"type":"text","text":"Files attached by the user:\n\n<file_content path=\"docs/spec.md\">\nsee lib/other.ts\n</file_content>"},{"type":"text","text":"<environment_details>\n# Current Working Directory Files\nsrc/z.ts\n</environment_details>"}],"ts":1},
{"role":"assistant","content":[{"type":"text","text":"ok"}],"ts":2},
{"role":"user","content":[{"type":"text","text":"[TASK RESUMPTION] This task was interrupted.\n\nNew instructions for task continuation:\n<user_message>\nnow src/b.ts\n</user_message>"},{"type":"text","text":"<environment_details>\nsrc/z.ts\n</environment_details>"}],"ts":3},
{"role":"assistant","content":[{"type":"text","text":"ok"}],"ts":4},
{"role":"user","content":[{"type":"text","text":"[ERROR] You did not use a tool in your previous response!"},{"type":"text","text":"<environment_details>\nsrc/z.ts\n</environment_details>"}],"ts":5}
]`,
			want: []string{"\nfix src/a.ts\n\ndocs/spec.md", "", "[ERROR] You did not use a tool in your previous response!\n\n"},
		},
		{
			// The text is there, but the CLI gives its hooks none: replay
			// reads the message as one of unknown text, as the hook does.
			name: "cline CLI: no text, though the user_input element holds it",
			file: "s1.messages.json",
			text: `{"version":1,"sessionId":"s1","messages":[
{"id":"m1","role":"user","content":[{"type":"text","text":"<user_input mode=\"act\">read a.go</user_input>"}],"ts":1},
{"id":"m2","role":"assistant","content":[{"type":"text","text":"ok"}],"ts":2}]}`,
			want: []string{""},
		},
		{
			name: "gemini CLI: the @path stays, the referenced files' text goes",
			file: "session-2026-08-20T09-00-7d1e4b2a.jsonl",
			text: `{"sessionId":"g1","projectHash":"p","startTime":"2026-08-20T09:00:00.000Z","lastUpdated":"2026-08-20T09:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-08-20T09:00:01.000Z","type":"user","content":[{"text":"explain @src/a.go"},{"text":"\n--- Content from referenced files ---"},{"text":"\nContent from @src/a.go:\n"},{"text":"import \"lib/b.go\""},{"text":"\n--- End of content ---"}]}
{"id":"g1","timestamp":"2026-08-20T09:00:02.000Z","type":"gemini","content":"it imports b","model":"gemini-2.5-pro"}
`,
			want: []string{"explain @src/a.go\n"},
		},
		{
			name: "copilot CLI: content and the attached files' paths",
			file: "events.jsonl",
			text: copilotStart +
				`{"type":"user.message","data":{"content":"review this","transformedContent":"review this <reminder>x</reminder>","attachments":[{"type":"file","path":"/w/src/a.go","displayName":"a.go"}]},"id":"e2","timestamp":"2026-08-21T14:00:01.000Z","parentId":"e1"}` + "\n",
			want: []string{"review this\n/w/src/a.go"},
		},
		{
			name: "hermes trajectory: the compressor's summary is not the user's",
			file: "trajectory_samples.jsonl",
			text: `{"conversations":[{"from":"system","value":"tools"},{"from":"human","value":"fix a.txt"},{"from":"gpt","value":"done"},{"from":"human","value":"[CONTEXT COMPACTION] Earlier turns were compacted into the summary below.\nread b.txt"},{"from":"gpt","value":"ok"}]}` + "\n",
			want: []string{"fix a.txt", ""},
		},
		{
			name: "OpenAI chat: Claude Code's compaction summary is not the user's",
			file: "develop-1.json",
			text: `[{"role":"user","content":"read src/a.go"},{"role":"assistant","content":"ok"},` +
				`{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The summary below covers src/a.go."},{"role":"assistant","content":"ok"},` +
				`{"role":"user","content":"thanks"}]`,
			want: []string{"read src/a.go", "", "thanks"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := readString(tt.file, tt.text)
			if len(sessions) == 0 {
				t.Fatalf("no session read; problems: %v", problems)
			}
			if diff := cmp.Diff(tt.want, userTexts(sessions)); diff != "" {
				t.Errorf("UserText per turn (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompactSummaryTurn: the turn a compaction's summary opens is marked
// compacted and continued (no user's message), the others are not.
func TestCompactSummaryTurn(t *testing.T) {
	text := `[{"role":"user","content":"read src/a.go"},{"role":"assistant","content":"ok"},` +
		`{"role":"user","content":"  This session is being continued from a previous conversation that ran out of context. Summary: src/a.go"},{"role":"assistant","content":"ok"},` +
		`{"role":"user","content":"This session is being continued, said the user"}]`
	sessions, problems := readString("develop-1.json", text)
	if len(sessions) != 1 || len(problems) != 0 {
		t.Fatalf("%d sessions, problems %v", len(sessions), problems)
	}
	type flags struct{ Compacted, Continued bool }
	var got []flags
	for _, tr := range sessions[0].Turns {
		got = append(got, flags{tr.CompactedBefore, tr.Continued})
	}
	want := []flags{{false, false}, {true, true}, {false, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turns' flags (-want +got):\n%s", diff)
	}
}

// TestUserTextFixtures checks the user texts read from the repository's
// own fixtures, one format a row.
func TestUserTextFixtures(t *testing.T) {
	root := ".." // paths below are from the repository's root
	tests := []struct {
		format, path string
		want         []string
	}{
		{"aider", "fixtures/ingest/aider/calc/.aider.chat.history.md", []string{"make add() return a + b\n\nand add sub()", "", "/ask why did it fail?", "fix the readme"}},
		{"cline-ui", "fixtures/ingest/cline-ui/tasks/1772000000000/ui_messages.json", []string{"Make add() in calc.py return a + b", ""}},
		{"cline (Roo Code)", "fixtures/ingest/cline/roo-tasks/0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b/api_conversation_history.json", []string{"\nrename getUser to fetchUser\n", "go on\n"}},
		{"converted-text", "fixtures/ingest/converted-text/2026-01-05-101500-fix-the-build.jsonl", []string{"fix the build", "thanks"}},
		{"gemini-stream-json", "fixtures/ingest/gemini-stream-json/headless-run.jsonl", []string{"Fix the failing test in calc.py", "Run the tests"}},
		{"kimi-cli", "fixtures/ingest/kimi-cli/sessions/5d41402abc4b2a76b9719d911017c592/3c9e1a7b-2f4d-4b8e-9a1c-6d5e4f3a2b1c/context.jsonl", []string{"count the Go files in this repo", "and the test files?"}},
		{"kimi-code", "fixtures/ingest/kimi-code/sessions/7f3a/5e0c2b1a-0000-4000-8000-00000000c0de/agents/main/wire.jsonl", []string{"list the files", "/review"}},
		{"nanobot (runtime context cut)", "fixtures/ingest/nanobot/edge_cases/markers/Y2xpOm1hcmtlcnM.jsonl", []string{"Write the long release notes for 2.4.", "What does this screenshot show?\n[image: /home/u/shots/error.png]", "[Scheduled Task] Timer finished.\n\nTask 'digest' has been triggered.\nScheduled instruction: post the daily digest"}},
		{"opencode-storage", "fixtures/ingest/opencode/storage/session/4b825dc642cb6eb9a060e54bf8d69288fbee4904/ses_5b2c3d4e5ffeLegacyAbCdEf1.json", []string{"what port does the server use?\n"}},
		{"openhands", "fixtures/ingest/openhands/trajectory.json", []string{"Fix the failing test in orchard.py", "Just tell me what is wrong."}},
		{"pi", "fixtures/ingest/pi/--home-dev-app--/2026-03-14T10-00-00-000Z_0c9d7a10-5b1e-4a7e-9f8e-2d1c3b4a5e6f.jsonl", []string{"fix the failing test in src/app.test.ts", "run only the unit tests, and fix the assertion", "commit it", ""}},
		{"qwen-code", "fixtures/ingest/qwen-code/projects/-home-u-calc/chats/6f1e2d3c-0000-4000-8000-00000000q001.jsonl", []string{"read calc.py twice", "now fix it"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			sessions, _ := readAll(t, filepath.Join(root, filepath.FromSlash(tt.path)), Options{})
			got := userTexts(sessions)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UserText per turn (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClineUserText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"task", "<task>\nhi\n</task>\n<environment_details>\nsrc/x\n</environment_details>", "\nhi\n"},
		{"feedback and answer", "[attempt_completion] Result:\n<feedback>\nredo a.go\n</feedback>\n<answer>\nyes\n</answer>", "\nredo a.go\n\n\nyes\n"},
		{"task_progress is not task", "<task_progress>\n- [ ] x\n</task_progress>\nplain", "<task_progress>\n- [ ] x\n</task_progress>\nplain"},
		{"no element: environment_details cut", "note\n<environment_details>\nsrc/x\n</environment_details>\nend", "note\n\nend"},
		{"mention in the task: path kept, text cut", `<task>see 'a/b.md' (see below)

<file_content path="a/b.md">
c/d.go
</file_content>
</task>`, "see 'a/b.md' (see below)\n\na/b.md\n\na/b.md"},
		{"element left open", "<task>\nunfinished", "\nunfinished"},
		{"a resumed task names nothing it changed", "[TASK RESUMPTION] This task was interrupted 3 days ago.\n<user_message>\ngo on\n</user_message>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clineUserText(tt.in); got != tt.want {
				t.Errorf("clineUserText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestGeminiUserText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no reference", "read a.go", "read a.go"},
		{"reference cut", "read @a.go\n--- Content from referenced files ---\nContent from @a.go:\nb.go\n--- End of content ---\nthen stop", "read @a.go\n\nthen stop"},
		{"unclosed: cut to the end", "read @a.go\n--- Content from referenced files ---\nb.go", "read @a.go\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := geminiUserText(tt.in); got != tt.want {
				t.Errorf("geminiUserText(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.Contains(geminiUserText(tt.in), "b.go") {
				t.Errorf("a referenced file's text is kept: %q", geminiUserText(tt.in))
			}
		})
	}
}
