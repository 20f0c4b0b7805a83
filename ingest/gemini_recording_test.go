package ingest

import (
	"strings"
	"testing"
	"testing/iotest"
)

// A Gemini CLI 0.61 chat recording as the agent lab's runs wrote it: each
// model message recorded twice under one id (first without, then with its
// toolCalls and their results), the results sent back in a user message
// of functionResponse parts, and shell results that end with the run's
// process group id (an envelope) and say a failed command's exit code.
func geminiRecording(calls ...[2]string) string {
	var b strings.Builder
	b.WriteString(`{"sessionId":"g1","projectHash":"p","startTime":"2026-12-02T00:56:38.429Z","lastUpdated":"2026-12-02T00:56:38.429Z","kind":"main"}` + "\n")
	b.WriteString(`{"id":"u0","timestamp":"2026-12-02T00:56:40.259Z","type":"user","content":[{"text":"print the word"}]}` + "\n")
	for i, c := range calls {
		id := "run_shell_command__run_shell_command_17961730_" + itoaTest(i)
		out := strings.ReplaceAll(c[1], "\n", `\n`)
		rec := `{"id":"m` + itoaTest(i) + `","timestamp":"2026-12-02T00:56:43.796Z","type":"gemini","content":"","tokens":{"input":100,"output":10,"cached":0,"thoughts":0,"tool":0,"total":110},"model":"gemini-2.5-pro"`
		b.WriteString(rec + "}\n")
		b.WriteString(`{"$set":{"lastUpdated":"2026-12-02T00:56:43.797Z"}}` + "\n")
		resp := `{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":{"output":"` + out + `"}}}`
		b.WriteString(rec + `,"toolCalls":[{"id":"` + id + `","name":"run_shell_command","args":{"command":"` + c[0] + `"},"result":[` + resp + `],"status":"success"}]}` + "\n")
		b.WriteString(`{"id":"r` + itoaTest(i) + `","timestamp":"2026-12-02T00:56:46.969Z","type":"user","content":[` + resp + `]}` + "\n")
	}
	return b.String()
}

func TestGeminiRecording(t *testing.T) {
	loop := geminiRecording(
		[2]string{"echo lab-loop", "<untrusted_context>\nOutput: lab-loop\nProcess Group PGID: 24310\n</untrusted_context>"},
		[2]string{"echo lab-loop", "<untrusted_context>\nOutput: lab-loop\nProcess Group PGID: 24388\n</untrusted_context>"},
	)
	failing := geminiRecording(
		[2]string{"cat missing.txt", "<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: 5000\n</untrusted_context>"},
		[2]string{"cat there.txt", "<untrusted_context>\nOutput: ok\nExit Code: 0\nProcess Group PGID: 5001\n</untrusted_context>"},
	)
	calls := func(ss []*Session) []Call {
		var out []Call
		for _, tu := range ss[0].Turns {
			for _, r := range tu.Requests {
				out = append(out, r.Calls...)
			}
		}
		return out
	}
	runConformance(t, formatGemini, []conformanceCase{
		{
			name:     "results sent back are not results for unknown calls; the process group id is envelope",
			file:     "session-2026-12-02T00-56-g1.jsonl",
			text:     loop,
			sessions: "g1 main 1t 2r run_shell_command__run_shell_command_17961730_0/run_shell_command=<untrusted_context>\nOutput: lab-loop\nProcess Group PGID: 24310\n</untrusted_context> run_shell_command__run_shell_command_17961730_1/run_shell_command=<untrusted_context>\nOutput: lab-loop\nProcess Group PGID: 24388\n</untrusted_context>",
			check: func(t *testing.T, ss []*Session) {
				cs := calls(ss)
				a, envA := SplitEnvelope(formatGemini, cs[0].Result)
				b, envB := SplitEnvelope(formatGemini, cs[1].Result)
				if a != b || a != "<untrusted_context>\nOutput: lab-loop\n</untrusted_context>" {
					t.Errorf("outputs without the envelope: %q and %q, want both the output alone", a, b)
				}
				if envA != "Process Group PGID: 24310" || envB != "Process Group PGID: 24388" {
					t.Errorf("envelopes %q and %q", envA, envB)
				}
			},
		},
		{
			name:     "a non-zero exit code is a failed call",
			file:     "session-2026-12-02T00-56-g1.jsonl",
			text:     failing,
			sessions: "g1 main 1t 2r run_shell_command__run_shell_command_17961730_0/run_shell_command=<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: 5000\n</untrusted_context> run_shell_command__run_shell_command_17961730_1/run_shell_command=<untrusted_context>\nOutput: ok\nExit Code: 0\nProcess Group PGID: 5001\n</untrusted_context>",
			check: func(t *testing.T, ss []*Session) {
				cs := calls(ss)
				if !cs[0].IsError || cs[1].IsError {
					t.Errorf("errors: %v %v, want true false", cs[0].IsError, cs[1].IsError)
				}
			},
		},
	})
}

// TestGeminiEnvelopeOnlyTrailing: only the process lines that end a
// result are envelope; the same text inside the output is the tool's.
func TestGeminiEnvelopeOnlyTrailing(t *testing.T) {
	for _, tc := range []struct{ in, out, env string }{
		{"Output: a\nProcess Group PGID: 7", "Output: a", "Process Group PGID: 7"},
		{"Output: a\nBackground PIDs: 8, 9\nProcess Group PGID: 7\n</untrusted_context>", "Output: a\n</untrusted_context>", "Background PIDs: 8, 9\nProcess Group PGID: 7"},
		{"Process Group PGID: 7\nOutput: a", "Process Group PGID: 7\nOutput: a", ""},
		{"plain text", "plain text", ""},
	} {
		out, env := geminiEnvelope(tc.in)
		if out != tc.out || env != tc.env {
			t.Errorf("geminiEnvelope(%q) = %q, %q; want %q, %q", tc.in, out, env, tc.out, tc.env)
		}
	}
}

// TestGeminiLongLines reads a recording with long lines delivered in small
// reads, so that the line reader moves the bytes in its buffer as a file
// read in parts does: the messages kept before a long line stay whole.
func TestGeminiLongLines(t *testing.T) {
	var seq strings.Builder
	for i := 1; i <= 5000; i++ {
		seq.WriteString(itoaTest(i) + "\n")
	}
	text := geminiRecording([2]string{"seq 1 5000", seq.String()})
	var sessions []*Session
	var problems []Problem
	Read(iotest.OneByteReader(strings.NewReader(text)), "session-2026-12-02T00-56-g1.jsonl", Options{}, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	if len(problems) > 0 || len(sessions) != 1 || len(sessions[0].Turns) != 1 {
		t.Fatalf("sessions %d, problems %v; want one session of one turn, no problem", len(sessions), problems)
	}
	r := sessions[0].Turns[0].Requests
	if len(r) == 0 || len(r[0].Calls) != 1 || r[0].Calls[0].Result != seq.String() {
		t.Errorf("the long result is not read whole")
	}
}

// TestGeminiHookContext: the context an AfterTool hook appended to a
// result is not the tool's output; text that only looks like it is.
func TestGeminiHookContext(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		ok      bool
	}{
		{"Output: a\nExit Code: 1\n\n<hook_context>loopgate: run_shell_command failed 2 times</hook_context>", "Output: a\nExit Code: 1", true},
		{"Output: a\n\n<hook_context>one</hook_context>\n\n<hook_context>two</hook_context>", "Output: a\n\n<hook_context>one</hook_context>", true},
		{"Output: <hook_context>x</hook_context>", "Output: <hook_context>x</hook_context>", false},
		{"plain", "plain", false},
	} {
		out, ok := geminiHookContext(tc.in)
		if out != tc.out || ok != tc.ok {
			t.Errorf("geminiHookContext(%q) = %q, %v; want %q, %v", tc.in, out, ok, tc.out, tc.ok)
		}
	}
}

// TestGeminiResumeStub: the file `gemini --resume` writes before going on
// in the resumed session's own file holds only Gemini CLI's session
// context: no session (a second, empty one before).
func TestGeminiResumeStub(t *testing.T) {
	stub := `{"sessionId":"g1","projectHash":"p","startTime":"2026-12-02T05:55:27.574Z","lastUpdated":"2026-12-02T05:55:27.574Z","kind":"main"}` + "\n" +
		`{"$set":{"messages":[{"id":"c0","timestamp":"2026-12-02T05:55:27.574Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}]}}` + "\n"
	sessions, problems := readText(t, "session-2026-12-02T05-55-g1.jsonl", stub)
	if len(sessions) != 0 || len(problems) != 0 {
		t.Errorf("sessions %d, problems %d; want none", len(sessions), len(problems))
	}
	// A recording with a prompt after the context is a session.
	sessions, _ = readText(t, "session-2026-12-02T05-55-g1.jsonl", stub+`{"id":"u1","timestamp":"2026-12-02T05:55:29.808Z","type":"user","content":[{"text":"Print it again."}]}`+"\n")
	if len(sessions) != 1 || len(sessions[0].Turns) != 1 {
		t.Errorf("with a prompt: sessions %d, want 1 of 1 turn", len(sessions))
	}
}

// TestGeminiResumedHistory: `gemini --resume` restates the history in a
// $set of messages, the model's function call and the function response
// under one id and the response sent again: one call, its result, no
// problem.
func TestGeminiResumedHistory(t *testing.T) {
	call := `{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"echo x"}}}`
	resp := `{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: x"}}}`
	text := `{"sessionId":"g1","projectHash":"p","startTime":"2026-12-02T07:12:33.000Z","lastUpdated":"2026-12-02T07:12:33.000Z","kind":"main"}` + "\n" +
		`{"$set":{"messages":[` +
		`{"id":"u1","timestamp":"2026-12-02T07:12:34.014Z","type":"user","content":[{"text":"print it"}]},` +
		`{"id":"m1","timestamp":"2026-12-02T07:12:35.001Z","type":"gemini","content":[` + call + `]},` +
		`{"id":"m1","timestamp":"2026-12-02T07:12:35.001Z","type":"user","content":[` + resp + `]},` +
		`{"id":"r1","timestamp":"2026-12-02T07:12:36.748Z","type":"user","content":[` + resp + `]},` +
		`{"id":"m2","timestamp":"2026-12-02T07:12:36.982Z","type":"gemini","content":[{"text":"Printed."}]}]}}` + "\n"
	sessions, problems := readText(t, "session-2026-12-02T07-12-g1.jsonl", text)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %v; want 1 and none", len(sessions), problems)
	}
	r := sessions[0].Turns[0].Requests
	if len(r) == 0 || len(r[0].Calls) != 1 || r[0].Calls[0].Result != "Output: x" {
		t.Errorf("want the one call with its result")
	}
}

// TestGeminiBatchedResults: a recording whose every call of a parallel
// batch holds, as its result, the function responses of the whole batch
// (as real recordings do). Each call is read with the response
// that names it, and the text parts after it; a result with no response
// naming the call is read whole.
func TestGeminiBatchedResults(t *testing.T) {
	resp := func(id, name, key, text string) string {
		return `{"functionResponse":{"id":"` + id + `","name":"` + name + `","response":{"` + key + `":"` + text + `"}}}`
	}
	batch := `[` + resp("t1", "update_topic", "output", "Current topic: setup") + `,` +
		resp("r1", "read_file", "output", "flask==3.1.3") + `,` +
		resp("s1", "run_shell_command", "error", `Output: boom\nExit Code: 1`) + `,` +
		`{"text":"--- extra part of s1 ---"}]`
	call := func(id, name, args string, result string) string {
		return `{"id":"` + id + `","name":"` + name + `","args":` + args + `,"result":` + result + `,"status":"success"}`
	}
	text := `{"sessionId":"g2","projectHash":"p","startTime":"2026-06-12T04:14:14.031Z","lastUpdated":"2026-06-12T04:17:54.266Z","kind":"main"}` + "\n" +
		`{"id":"u1","timestamp":"2026-06-12T04:16:58.419Z","type":"user","content":[{"text":"explain the error"}]}` + "\n" +
		`{"id":"m1","timestamp":"2026-06-12T04:17:09.308Z","type":"gemini","content":"","model":"gemini-3-flash-preview","toolCalls":[` +
		call("t1", "update_topic", `{"title":"setup"}`, batch) + `,` +
		call("r1", "read_file", `{"file_path":"requirements.txt"}`, batch) + `,` +
		call("s1", "run_shell_command", `{"command":"pip list"}`, batch) + `,` +
		call("x1", "read_file", `{"file_path":"other.txt"}`, `[`+resp("", "read_file", "output", "no id")+`]`) + `]}` + "\n"
	sessions, problems := readText(t, "session-2026-06-12T04-14-g2.jsonl", text)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %v; want 1 and none", len(sessions), problems)
	}
	r := sessions[0].Turns[0].Requests
	if len(r) != 1 || len(r[0].Calls) != 4 {
		t.Fatalf("want one request of 4 calls")
	}
	for i, want := range []struct {
		result string
		isErr  bool
	}{
		{"Current topic: setup", false},
		{"flask==3.1.3", false},
		{"Output: boom\nExit Code: 1\n--- extra part of s1 ---", true},
		{"no id", false},
	} {
		c := r[0].Calls[i]
		if c.Result != want.result || c.IsError != want.isErr {
			t.Errorf("call %s: result %q error %v, want %q %v", c.ID, c.Result, c.IsError, want.result, want.isErr)
		}
	}
	if !strings.Contains(strings.Join(sessions[0].Notes, "\n"), "3 tool result(s) recorded with the responses of the other calls") {
		t.Errorf("notes %q: want the 3 batched results counted", sessions[0].Notes)
	}
}

// TestGeminiCancelledCall: a call the user cancelled is a failed call,
// whether its result is the cancellation alone or the output printed
// before it with the cancellation beside it (status "cancelled", as real
// recordings of Gemini CLI 0.39 hold).
func TestGeminiCancelledCall(t *testing.T) {
	call := func(id, response string) string {
		return `{"id":"` + id + `","name":"run_shell_command","args":{"command":"git clone x"},"result":[{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":` + response + `}}],"status":"cancelled"}`
	}
	text := `{"sessionId":"g3","projectHash":"p","startTime":"2026-04-24T23:16:00.000Z","lastUpdated":"2026-04-24T23:20:00.000Z","kind":"main"}` + "\n" +
		`{"id":"u1","timestamp":"2026-04-24T23:16:01.000Z","type":"user","content":[{"text":"clone it"}]}` + "\n" +
		`{"id":"m1","timestamp":"2026-04-24T23:16:05.000Z","type":"gemini","content":"","model":"gemini-3-flash-preview","tokens":{"input":10,"output":1,"cached":0,"thoughts":0,"tool":0,"total":11},"toolCalls":[` +
		call("c1", `{"output":"Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nCloning into 'x'...","error":"[Operation Cancelled] User cancelled tool execution."}`) + `,` +
		call("c2", `{"error":"[Operation Cancelled] Reason: User cancelled."}`) + `,` +
		`{"id":"c3","name":"read_file","args":{"file_path":"a"},"result":[{"functionResponse":{"id":"c3","name":"read_file","response":{"output":"a"}}}],"status":"success"}]}` + "\n"
	sessions, problems := readText(t, "session-2026-04-24T23-16-g3.jsonl", text)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %v; want 1 and none", len(sessions), problems)
	}
	cs := sessions[0].Turns[0].Requests[0].Calls
	for i, want := range []struct {
		result string
		isErr  bool
	}{
		{"Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nCloning into 'x'...", true},
		{"[Operation Cancelled] Reason: User cancelled.", true},
		{"a", false},
	} {
		if cs[i].Result != want.result || cs[i].IsError != want.isErr {
			t.Errorf("call %s: result %q error %v, want %q %v", cs[i].ID, cs[i].Result, cs[i].IsError, want.result, want.isErr)
		}
	}
}

// TestGeminiSkillCommand: a skill's slash command is recorded as the
// CLI's own activate_skill call (a gemini message without tokens) before
// the prompt it submits; the call belongs to that prompt's turn, first in
// the session or not.
func TestGeminiSkillCommand(t *testing.T) {
	skill := func(id, ts string) string {
		return `{"id":"` + id + `","timestamp":"` + ts + `","type":"gemini","content":"","model":"gemini-3-flash-preview","toolCalls":[{"id":"activate_skill-` + id + `","name":"activate_skill","args":{"name":"brainstorming"},"result":[{"functionResponse":{"id":"activate_skill-` + id + `","name":"activate_skill","response":{"output":"<activated_skill name=\"brainstorming\"/>"}}}],"status":"success"}]}`
	}
	answer := func(id, ts, text string) string {
		return `{"id":"` + id + `","timestamp":"` + ts + `","type":"gemini","content":"` + text + `","model":"gemini-3-flash-preview","tokens":{"input":100,"output":5,"cached":0,"thoughts":0,"tool":0,"total":105}}`
	}
	prompt := func(id, ts, text string) string {
		return `{"id":"` + id + `","timestamp":"` + ts + `","type":"user","content":[{"text":"` + text + `"}],"displayContent":[{"text":"/superpowers:brainstorming ` + text + `"}]}`
	}
	doc := `{"sessionId":"g4","projectHash":"p","startTime":"2026-04-12T01:18:59.200Z","lastUpdated":"2026-04-12T03:18:32.818Z","kind":"main","messages":[` +
		skill("s1", "2026-04-12T01:22:33.065Z") + `,` +
		prompt("u1", "2026-04-12T01:22:35.386Z", "an expenses tracker") + `,` +
		answer("a1", "2026-04-12T01:22:41.224Z", "Questions first.") + `,` +
		`{"id":"u2","timestamp":"2026-04-12T01:30:00.000Z","type":"user","content":[{"text":"Telegram."}]}` + `,` +
		answer("a2", "2026-04-12T01:30:05.000Z", "Noted.") + `,` +
		skill("s2", "2026-04-12T01:40:00.000Z") + `,` +
		prompt("u3", "2026-04-12T01:40:01.000Z", "a budget view") + `,` +
		answer("a3", "2026-04-12T01:40:09.000Z", "Sketching.") + `]}`
	sessions, problems := readText(t, "session-2026-04-12T01-18-g4.json", doc)
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %v; want 1 and none", len(sessions), problems)
	}
	turns := sessions[0].Turns
	if len(turns) != 3 {
		t.Fatalf("turns %d, want 3 (the prompts typed)", len(turns))
	}
	for i, want := range []int{1, 0, 1} {
		n := 0
		for _, r := range turns[i].Requests {
			n += len(r.Calls)
		}
		if n != want {
			t.Errorf("turn %d: %d calls, want %d", i+1, n, want)
		}
	}
}

// TestGeminiQwenModelMessages: Qwen Code's whole-file recordings
// (~/.qwen/tmp/<hash>/chats/session-*.json, its fork of Gemini CLI's
// recording) name the model's message "qwen"; each is a request with its
// tokens, not a message of unknown type. A type neither writes is still
// one.
func TestGeminiQwenModelMessages(t *testing.T) {
	msg := func(id, typ, text string) string {
		m := `{"id":"` + id + `","timestamp":"2025-11-04T18:19:07.227Z","type":"` + typ + `","content":"` + text + `"`
		if typ != "user" {
			m += `,"thoughts":[],"tokens":{"input":33404,"output":212,"cached":0,"thoughts":0,"tool":0,"total":33616},"model":"coder-model"`
		}
		return m + `}`
	}
	doc := func(msgs ...string) string {
		return `{"sessionId":"q1","projectHash":"p","startTime":"2025-11-04T18:18:54.104Z","lastUpdated":"2025-11-04T18:20:00.000Z","messages":[` + strings.Join(msgs, ",") + `]}`
	}
	for _, tc := range []struct {
		name     string
		text     string
		turns    int
		requests int
		problems int
	}{
		{"qwen messages are requests", doc(msg("u1", "user", "describe the app"), msg("a1", "qwen", "I'll plan it."), msg("a2", "qwen", "Done."), msg("u2", "user", "thanks"), msg("a3", "qwen", "Welcome.")), 2, 3, 0},
		{"gemini messages still are", doc(msg("u1", "user", "hi"), msg("a1", "gemini", "Hello.")), 1, 1, 0},
		{"another type is skipped with a problem", doc(msg("u1", "user", "hi"), msg("a1", "claude", "Hello.")), 1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readText(t, "session-2025-11-04T18-17-q1.json", tc.text)
			if len(sessions) != 1 || len(problems) != tc.problems {
				t.Fatalf("sessions %d, problems %v; want 1 and %d", len(sessions), problems, tc.problems)
			}
			requests := 0
			for _, tu := range sessions[0].Turns {
				for _, r := range tu.Requests {
					requests++
					if r.Usage == nil || r.Usage.Input != 33404 {
						t.Errorf("request at line %d: usage %+v, want input 33404", r.Line, r.Usage)
					}
				}
			}
			if len(sessions[0].Turns) != tc.turns || requests != tc.requests {
				t.Errorf("turns %d requests %d, want %d and %d", len(sessions[0].Turns), requests, tc.turns, tc.requests)
			}
		})
	}
}
