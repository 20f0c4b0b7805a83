package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestGenuineClaudePrompt(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Fix the test", true},
		{"  <command-name>/clear</command-name>", false},
		{"<command-message>init</command-message>", false},
		{"<local-command-stdout>ok</local-command-stdout>", false},
		{"[Request interrupted by user for tool use]", false},
		{"[Request interrupted by user]", false},
		{"   ", false},
		{"Why did you write <command-name>?", true},
		{"<task-notification>\n<task-id>b0be39e</task-id>\n<status>completed</status>\n</task-notification>\nRead the output file to retrieve the result: /tmp/t.output", false},
		{"What is a <task-notification>?", true},
		{"<bash-input> ls -la</bash-input>", false},
		{"<bash-stdout></bash-stdout><bash-stderr>ls: cannot access</bash-stderr>", false},
		{"Why did <bash-input> fail?", true},
	}
	for _, tc := range tests {
		if got := genuineClaudePrompt(tc.text); got != tc.want {
			t.Errorf("genuineClaudePrompt(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// cc builds one Claude Code line.
func cc(fields string) string {
	return `{"sessionId":"S",` + fields + `}`
}

func TestClaudeCodeReading(t *testing.T) {
	use := func(id, name string) string {
		return `{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{"p":"` + id + `"}}`
	}
	res := func(id, text string, isErr bool) string {
		e := ""
		if isErr {
			e = `,"is_error":true`
		}
		return `{"type":"tool_result","tool_use_id":"` + id + `","content":"` + text + `"` + e + `}`
	}
	asst := func(uuid, parent, msgID, req, blocks string, extra string) string {
		return cc(`"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `"` + extra + `,"requestId":"` + req + `","message":{"id":"` + msgID + `","role":"assistant","model":"m","content":[` + blocks + `],"usage":{"input_tokens":1,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":5}}`)
	}
	user := func(uuid, parent, content, extra string) string {
		return cc(`"type":"user","uuid":"` + uuid + `","parentUuid":"` + parent + `"` + extra + `,"message":{"role":"user","content":` + content + `}`)
	}
	tests := []struct {
		name     string
		lines    []string
		sessions string // per session: agent, turns, requests, calls; joined by " | "
		usage    int    // requests with usage, over all sessions
		problems int
	}{
		{
			name: "split message with a result between its lines is one request, usage once",
			lines: []string{
				user("u1", "", `"go"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Read"), ""),
				user("r1", "a1", "["+res("t1", "x", false)+"]", ""),
				asst("a2", "r1", "m1", "r1", use("t2", "Read"), ""),
				user("r2", "a2", "["+res("t2", "y", true)+"]", ""),
			},
			sessions: "main 1t 1r t1/Read=x t2/Read=y",
			usage:    1,
		},
		{
			name: "a response continued after another response's line is still its request",
			lines: []string{
				user("u1", "", `"go"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Read"), ""),
				asst("a2", "a1", "m2", "r2", use("t2", "Grep"), ""),
				asst("a3", "a2", "m1", "r1", use("t3", "Bash"), ""),
				asst("a4", "a3", "m1", "r1", use("t4", "Read"), ""),
				user("r1", "a4", "["+res("t1", "x", false)+","+res("t2", "y", false)+","+res("t3", "z", false)+","+res("t4", "w", false)+"]", ""),
			},
			sessions: "main 1t 2r t1/Read=x t3/Bash=z t4/Read=w t2/Grep=y",
			usage:    2,
		},
		{
			name: "same message id with another request id is another request",
			lines: []string{
				user("u1", "", `"go"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Read"), ""),
				user("r1", "a1", "["+res("t1", "x", false)+"]", ""),
				asst("a2", "r1", "m1", "r2", use("t2", "Read"), ""),
				user("r2", "a2", "["+res("t2", "y", false)+"]", ""),
			},
			sessions: "main 1t 2r t1/Read=x t2/Read=y",
			usage:    2,
		},
		{
			name: "meta, command and tool-result lines are not turns",
			lines: []string{
				user("u0", "", `"<command-name>/model</command-name>"`, ""),
				user("u1", "u0", `"caveat"`, `,"isMeta":true`),
				user("u2", "u1", `[{"type":"text","text":"real"}]`, ""),
				asst("a1", "u2", "m1", "r1", use("t1", "Bash"), ""),
				user("r1", "a1", "["+res("t1", "ok", false)+"]", ""),
			},
			sessions: "main 1t 1r t1/Bash=ok",
			usage:    1,
		},
		{
			// Claude Code (2.1.39 and later in real files): the CLI's notice that a
			// background command ended, a user line nobody typed.
			name: "a background task's notification is not a turn",
			lines: []string{
				user("u1", "", `"run the tests"`, `,"origin":{"kind":"human"}`),
				asst("a1", "u1", "m1", "r1", use("t1", "Bash"), ""),
				user("r1", "a1", "["+res("t1", "started b1", false)+"]", ""),
				user("n1", "r1", `"<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>\nRead the output file to retrieve the result: /tmp/b1.output"`, `,"origin":{"kind":"task-notification"}`),
				asst("a2", "n1", "m2", "r2", use("t2", "Read"), ""),
				user("r2", "a2", "["+res("t2", "ok", false)+"]", ""),
				user("u2", "r2", `"thanks, push it"`, ""),
			},
			sessions: "main 2t 2r t1/Bash=started b1 t2/Read=ok",
			usage:    2,
		},
		{
			// Real files of CLI 1.0.98 to 2.1.92: a prompt command's wrapper,
			// then its expanded prompt (isMeta), then the model's answer;
			// a local command answered by <local-command-stdout> only.
			name: "a slash command the model answers is a turn; one the CLI answers is not",
			lines: []string{
				user("u1", "", `"set up the plugin"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Bash"), ""),
				user("r1", "a1", "["+res("t1", "ok", false)+"]", ""),
				user("c1", "r1", `"<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>"`, ""),
				user("c2", "c1", `"<local-command-stdout>Set model to opus</local-command-stdout>"`, ""),
				user("c3", "c2", `"<command-message>codex:review</command-message>\n<command-name>/codex:review</command-name>\n<command-args>src/</command-args>"`, ""),
				user("c4", "c3", `[{"type":"text","text":"Run a review of src/"}]`, `,"isMeta":true`),
				asst("a2", "c4", "m2", "r2", use("t2", "Bash"), ""),
				user("r2", "a2", "["+res("t2", "reviewed", false)+"]", ""),
				user("c5", "r2", `"<command-name>/init</command-name>"`, ""),
				user("c6", "c5", `"[Request interrupted by user]"`, ""),
				user("u2", "c6", `"never mind, commit"`, ""),
				asst("a3", "u2", "m3", "r3", use("t3", "Bash"), ""),
				user("r3", "a3", "["+res("t3", "done", false)+"]", ""),
			},
			sessions: "main 3t 3r t1/Bash=ok t2/Bash=reviewed t3/Bash=done",
			usage:    3,
		},
		{
			// Claude Code 2.1.81 and 2.1.97 in real files: "!" runs a
			// command in bash mode; the CLI writes it and its output as
			// user lines and the model answers only the next prompt.
			name: "a bash-mode command and its output are not turns",
			lines: []string{
				user("u1", "", `"install it"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Bash"), ""),
				user("r1", "a1", "["+res("t1", "needs sudo", true)+"]", ""),
				user("b1", "r1", `"<bash-input> sudo pacman -S ventoy</bash-input>"`, ""),
				user("b2", "b1", `"<bash-stdout></bash-stdout><bash-stderr>error: target not found</bash-stderr>"`, ""),
				user("u2", "b2", `"it is in the AUR"`, ""),
				asst("a2", "u2", "m2", "r2", use("t2", "Bash"), ""),
				user("r2", "a2", "["+res("t2", "ok", false)+"]", ""),
			},
			sessions: "main 2t 2r t1/Bash=needs sudo t2/Bash=ok",
			usage:    2,
		},
		{
			// CLI 2.1.207 to 2.1.223 in real files: no caveat comes
			// before the bash-mode lines, and the model answers them
			// ("I see you listed the plan files. What would you like me
			// to do?"): the command opens a turn, as a slash command the
			// model answers does.
			name: "a bash-mode command the model answers opens a turn",
			lines: []string{
				user("u1", "", `"install it"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Bash"), ""),
				user("r1", "a1", "["+res("t1", "needs sudo", true)+"]", ""),
				user("b1", "r1", `"<bash-input>ls ~/*.md</bash-input>"`, ""),
				user("b2", "b1", `"<bash-stdout>/w/plan.md</bash-stdout><bash-stderr></bash-stderr>"`, ""),
				asst("a2", "b2", "m2", "r2", use("t2", "Read"), ""),
				user("r2", "a2", "["+res("t2", "ok", false)+"]", ""),
			},
			sessions: "main 2t 2r t1/Bash=needs sudo t2/Read=ok",
			usage:    2,
		},
		{
			name: "sidechain lines without agentId follow their parent's scope",
			lines: []string{
				user("u1", "", `"go"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Task"), ""),
				user("s1", "", `"sub prompt"`, `,"isSidechain":true,"agentId":"ag"`),
				asst("s2", "s1", "m2", "r2", use("g1", "Grep"), `,"isSidechain":true`),
				user("s3", "s2", "["+res("g1", "none", false)+"]", `,"isSidechain":true`),
				user("r1", "a1", "["+res("t1", "report", false)+"]", `,"agentId":"ag"`),
			},
			sessions: "main 1t 1r t1/Task=report | ag 1t 1r g1/Grep=none",
			usage:    2,
		},
		{
			// Canonical uuids are remembered by their bytes (uuidScopes):
			// the upper-case text of a main line's uuid is another uuid.
			name: "sidechain lines with canonical uuids and no agentId join their parent's scope, main included",
			lines: []string{
				user("11111111-2222-4333-8444-555555555555", "", `"go"`, ""),
				asst("aaaaaaaa-2222-4333-8444-555555555555", "11111111-2222-4333-8444-555555555555", "m1", "r1", use("t1", "Task"), ""),
				asst("bbbbbbbb-2222-4333-8444-555555555555", "aaaaaaaa-2222-4333-8444-555555555555", "m2", "r2", use("g1", "Grep"), `,"isSidechain":true`),
				user("bbbbbbbb-0000-4333-8444-555555555555", "bbbbbbbb-2222-4333-8444-555555555555", "["+res("g1", "none", false)+"]", `,"isSidechain":true`),
				user("cccccccc-2222-4333-8444-555555555555", "", `"side prompt"`, `,"isSidechain":true`),
				asst("dddddddd-2222-4333-8444-555555555555", "AAAAAAAA-2222-4333-8444-555555555555", "m3", "r3", use("h1", "Glob"), `,"isSidechain":true`),
				asst("eeeeeeee-2222-4333-8444-555555555555", "cccccccc-2222-4333-8444-555555555555", "m4", "r4", use("k1", "Read"), `,"isSidechain":true`),
				user("ffffffff-2222-4333-8444-555555555555", "aaaaaaaa-2222-4333-8444-555555555555", "["+res("t1", "report", false)+"]", ""),
			},
			sessions: "main 1t 2r t1/Task=report g1/Grep=none | sidechain-cccccccc 1t 1r k1/Read=! | sidechain-dddddddd 1t 1r h1/Glob=!",
			usage:    4,
			problems: 2,
		},
		{
			// The line and its tool_result vanished without a word.
			name: "a user line whose content key is misspelt is a problem, and its call has no result",
			lines: []string{
				user("u1", "", `"go"`, ""),
				asst("a1", "u1", "m1", "r1", use("t1", "Write"), ""),
				cc(`"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","contenst":[` + res("t1", "done", false) + `]}`),
			},
			sessions: "main 1t 1r t1/Write=!", // "!": no result
			usage:    1,
			problems: 2,
		},
		{
			name: "a user line whose content is null is a problem",
			lines: []string{
				user("u1", "", `"go"`, ""),
				user("u2", "u1", `null`, ""),
			},
			sessions: "main 1t 0r ",
			problems: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readText(t, "s.jsonl", strings.Join(tc.lines, "\n")+"\n")
			var got []string
			usage := 0
			for _, s := range sessions {
				if s.Format != formatClaudeCode {
					t.Fatalf("format = %s", s.Format)
				}
				got = append(got, s.Agent+" "+itoaTest(len(s.Turns))+"t "+itoaTest(s.NumRequests())+"r "+callSummary(s))
				for _, tr := range s.Turns {
					for _, r := range tr.Requests {
						if r.Usage != nil {
							usage++
							if r.Usage.Input != 111 || r.Usage.CacheRead != 100 || r.Usage.CacheWrite != 10 {
								t.Errorf("usage not normalized: %+v", *r.Usage)
							}
						}
					}
				}
			}
			if g := strings.Join(got, " | "); g != tc.sessions {
				t.Errorf("sessions = %q, want %q", g, tc.sessions)
			}
			if usage != tc.usage {
				t.Errorf("requests with usage = %d, want %d", usage, tc.usage)
			}
			if len(problems) != tc.problems {
				t.Errorf("problems = %q, want %d", problemSummary(problems), tc.problems)
			}
		})
	}
}

func itoaTest(n int) string { return strconv.Itoa(n) }

// TestClaudeCodeCommandTurn: a prompt command's turn starts at its wrapper
// line, carries the wrapper as the user's text (its arguments are what the
// user typed) and holds the calls the model made for it.
func TestClaudeCodeCommandTurn(t *testing.T) {
	text := strings.Join([]string{
		cc(`"type":"user","uuid":"u1","message":{"role":"user","content":"fix the tests"}`),
		cc(`"type":"assistant","uuid":"a1","parentUuid":"u1","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test"}}]}`),
		cc(`"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`),
		cc(`"type":"user","uuid":"c1","parentUuid":"r1","message":{"role":"user","content":"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src/a.go</command-args>"}`),
		cc(`"type":"user","uuid":"c2","parentUuid":"c1","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Review the file."}]}`),
		cc(`"type":"assistant","uuid":"a2","parentUuid":"c2","requestId":"r2","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"src/a.go"}}]}`),
		cc(`"type":"user","uuid":"r2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"package a"}]}`),
	}, "\n") + "\n"
	sessions, problems := readText(t, "s.jsonl", text)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %q", len(sessions), problemSummary(problems))
	}
	turns := sessions[0].Turns
	if len(turns) != 2 {
		t.Fatalf("turns = %d, want 2", len(turns))
	}
	tr := turns[1]
	if tr.Line != 4 || !strings.Contains(tr.UserText, "<command-args>src/a.go</command-args>") {
		t.Errorf("turn 2: line %d, user text %q; want line 4 and the command's wrapper", tr.Line, tr.UserText)
	}
	if len(tr.Requests) != 1 || len(tr.Requests[0].Calls) != 1 || tr.Requests[0].Calls[0].Tool != "Read" {
		t.Errorf("turn 2 should hold the Read call: %+v", tr.Requests)
	}
}

// TestClaudeCodeNotices: a background task's notification and a bash-mode
// command open no turn but are kept as the turn's notices, each before the
// request that came after it (a guard hears them there); one before any
// turn is dropped.
func TestClaudeCodeNotices(t *testing.T) {
	text := strings.Join([]string{
		cc(`"type":"user","uuid":"b0","message":{"role":"user","content":"<bash-input>git pull</bash-input>"}`),
		cc(`"type":"user","uuid":"u1","parentUuid":"b0","message":{"role":"user","content":"run the tests in the background"}`),
		cc(`"type":"assistant","uuid":"a1","parentUuid":"u1","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test","run_in_background":true}}]}`),
		cc(`"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1"}]}`),
		cc(`"type":"user","uuid":"n1","parentUuid":"r1","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>b1</task-id>\n<output-file>/tmp/b1.output</output-file>\n</task-notification>"}`),
		cc(`"type":"assistant","uuid":"a2","parentUuid":"n1","requestId":"r2","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/tmp/b1.output"}}]}`),
		cc(`"type":"user","uuid":"r2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}`),
		cc(`"type":"user","uuid":"b1","parentUuid":"r2","message":{"role":"user","content":"<bash-stdout>done</bash-stdout><bash-stderr></bash-stderr>"}`),
	}, "\n") + "\n"
	sessions, problems := readText(t, "s.jsonl", text)
	if len(problems) != 0 || len(sessions) != 1 || len(sessions[0].Turns) != 1 {
		t.Fatalf("want one session of one turn: %d sessions, problems %q", len(sessions), problemSummary(problems))
	}
	var got []string
	for _, n := range sessions[0].Turns[0].Notices {
		got = append(got, itoaTest(n.Request)+"@"+itoaTest(n.Line)+":"+strings.SplitN(n.Text, ">", 2)[0])
	}
	if g, want := strings.Join(got, " "), "1@5:<task-notification 2@8:<bash-stdout"; g != want {
		t.Errorf("notices = %q, want %q", g, want)
	}
}

// TestClaudeCodeCompactionInTurn: Claude Code compacts the context
// automatically when it fills, often in the middle of a task: a
// compact_boundary line and the summary between two responses of one
// turn (real file of CLI 2.1.33). The compaction is noted where it stands
// (a Notice with Compaction set, before the request after it), and the
// next turn is marked compacted as before; one before any request of its
// turn is that turn's only.
func TestClaudeCodeCompactionInTurn(t *testing.T) {
	text := strings.Join([]string{
		cc(`"type":"user","uuid":"u1","message":{"role":"user","content":"restyle the pages"}`),
		cc(`"type":"assistant","uuid":"a1","parentUuid":"u1","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"login.tsx"}}]}`),
		cc(`"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"light"}]}`),
		cc(`"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"content":"Conversation compacted"`),
		cc(`"type":"user","uuid":"s1","parentUuid":"c1","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context."}`),
		cc(`"type":"assistant","uuid":"a2","parentUuid":"s1","requestId":"r2","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"login.tsx"}}]}`),
		cc(`"type":"user","uuid":"r2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"dark"}]}`),
		cc(`"type":"user","uuid":"u2","parentUuid":"r2","message":{"role":"user","content":"thanks"}`),
		cc(`"type":"system","subtype":"compact_boundary","uuid":"c2","parentUuid":null,"content":"Conversation compacted"`),
		cc(`"type":"assistant","uuid":"a3","parentUuid":"c2","requestId":"r3","message":{"id":"m3","role":"assistant","model":"m","content":[{"type":"text","text":"done"}]}`),
	}, "\n") + "\n"
	sessions, problems := readText(t, "s.jsonl", text)
	if len(problems) != 0 || len(sessions) != 1 || len(sessions[0].Turns) != 2 {
		t.Fatalf("want one session of two turns: %d sessions, problems %q", len(sessions), problemSummary(problems))
	}
	var got []string
	for ti, tr := range sessions[0].Turns {
		for _, n := range tr.Notices {
			got = append(got, itoaTest(ti)+":"+itoaTest(n.Request)+"@"+itoaTest(n.Line)+fmt.Sprint(n.Compaction))
		}
		got = append(got, fmt.Sprint(tr.CompactedBefore))
	}
	if g, want := strings.Join(got, " "), "0:1@4true false true"; g != want {
		t.Errorf("notices and CompactedBefore by turn = %q, want %q", g, want)
	}
}

// TestClaudeCodeImagePrompt: a prompt of an image alone (dropped or
// pasted with no words; real 2.1.63 file, imagePasteIds) is a line with
// an image block and no text: the model answers it, a turn the reader did
// not open. An image pasted with words is written as a line of its own
// just before the words' line (real 2.1.19 file): one prompt.
func TestClaudeCodeImagePrompt(t *testing.T) {
	const image = `{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-02-28T14:43:40Z","imagePasteIds":[1],"message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]}}
`
	const first = `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-02-28T14:40:00Z","message":{"role":"user","content":"look at the capture"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-02-28T14:40:05Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":"send it"}]}}
`
	const answer = `{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s1","timestamp":"2026-02-28T14:43:50Z","requestId":"r2","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"c.png"}}]}}
{"type":"user","uuid":"u3","parentUuid":"a2","sessionId":"s1","timestamp":"2026-02-28T14:43:51Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"image"}]}}
`
	const words = `{"type":"user","uuid":"u4","parentUuid":"u2","sessionId":"s1","timestamp":"2026-02-28T14:43:40Z","message":{"role":"user","content":[{"type":"text","text":"what is wrong here?"}]}}
`
	runConformance(t, "claude-code", []conformanceCase{
		{name: "image alone, answered", file: "s1.jsonl", text: first + image + answer,
			sessions: "s1 main 2t 2r t1/Read=image"},
		{name: "image, then its words", file: "s1.jsonl", text: first + image + words + answer,
			sessions: "s1 main 2t 2r t1/Read=image"},
	})
}
