package ingest

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
)

// readString reads an in-memory file through detection, as ReadFile would.
func hermesReadString(t *testing.T, name, data string) ([]*Session, []Problem) {
	t.Helper()
	var sessions []*Session
	var problems []Problem
	Read(strings.NewReader(data), name, Options{}, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	return sessions, problems
}

func hermesAllCalls(s *Session) []Call {
	var calls []Call
	for _, t := range s.Turns {
		for _, r := range t.Requests {
			calls = append(calls, r.Calls...)
		}
	}
	return calls
}

func TestHermesBlocks(t *testing.T) {
	tests := []struct {
		name, in   string
		bodies     []string
		rest       string
		unclosed   bool
		tag        string
		wantBodies bool
	}{
		{name: "none", in: "just text", rest: "just text"},
		{name: "one", in: "a<tool_call>\n{\"name\": \"x\"}\n</tool_call>b", bodies: []string{`{"name": "x"}`}, rest: "ab"},
		{name: "two adjacent", in: "<tool_call>1</tool_call>\n<tool_call>2</tool_call>", bodies: []string{"1", "2"}, rest: "\n"},
		{name: "unclosed last", in: "x<tool_call>1</tool_call><tool_call>{\"name\"", bodies: []string{"1", `{"name"`}, rest: "x", unclosed: true},
		{name: "close without open", in: "a</tool_call>b", rest: "a</tool_call>b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bodies, rest, unclosed := hermesBlocks(tt.in, "tool_call")
			if !reflect.DeepEqual(bodies, tt.bodies) || rest != tt.rest || unclosed != tt.unclosed {
				t.Errorf("hermesBlocks(%q) = %q, %q, %v; want %q, %q, %v", tt.in, bodies, rest, unclosed, tt.bodies, tt.rest, tt.unclosed)
			}
		})
	}
}

func TestHermesSplitGPT(t *testing.T) {
	tests := []struct {
		name, in        string
		reasoning, text string
		calls           []string
	}{
		{name: "no tools", in: "<think>\n</think>\nIt has 2 lines.", text: "It has 2 lines."},
		{name: "reasoning and call", in: "<think>\nRead it.\n</think>\nReading.\n<tool_call>\n{\"name\": \"read_file\"}\n</tool_call>", reasoning: "Read it.", text: "Reading.", calls: []string{`{"name": "read_file"}`}},
		{name: "tag inside reasoning is not a call", in: "<think>\nI might emit <tool_call> later\n</think>\nNo call.", reasoning: "I might emit <tool_call> later", text: "No call."},
		{name: "no think block", in: "<tool_call>{}</tool_call>", calls: []string{"{}"}},
		{name: "think never closed", in: "<think>\nthinking <tool_call>{}</tool_call>", text: "<think>\nthinking", calls: []string{"{}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, text, calls, _ := hermesSplitGPT(tt.in)
			if r != tt.reasoning || text != tt.text || !reflect.DeepEqual(calls, tt.calls) {
				t.Errorf("hermesSplitGPT(%q) = %q, %q, %q; want %q, %q, %q", tt.in, r, text, calls, tt.reasoning, tt.text, tt.calls)
			}
		})
	}
}

func TestHermesParseToolCall(t *testing.T) {
	tests := []struct {
		name, in string
		tool     string
		args     string // compact args, "" when absent
		err      bool
	}{
		{name: "object args keep order", in: `{"name": "read_file", "arguments": {"path": "a", "limit": 5}}`, tool: "read_file", args: `{"path":"a","limit":5}`},
		{name: "string args", in: `{"name": "terminal", "arguments": "{\"command\": \"ls\"}"}`, tool: "terminal", args: `"{\"command\": \"ls\"}"`},
		{name: "no args", in: `{"name": "todo"}`, tool: "todo"},
		{name: "broken", in: `{"name": "patch", "arguments": {`, err: true},
		{name: "not an object", in: `["read_file"]`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := hermesParseToolCall(tt.in)
			if (c.Err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", c.Err, tt.err)
			}
			args := ""
			if c.HasArgs {
				args = c.Args.String()
			}
			if c.Name != tt.tool || args != tt.args {
				t.Errorf("got %q %q, want %q %q", c.Name, args, tt.tool, tt.args)
			}
		})
	}
}

func TestHermesParseToolResponse(t *testing.T) {
	tests := []struct {
		name, in     string
		id, tool     string
		result       string
		isError, err bool
	}{
		{name: "object content as compact JSON", in: `{"tool_call_id": "c1", "name": "read_file", "content": {"content": "1|a", "total_lines": 1}}`, id: "c1", tool: "read_file", result: `{"content":"1|a","total_lines":1}`},
		{name: "string content as is", in: `{"tool_call_id": "c2", "name": "terminal", "content": "plain output\n"}`, id: "c2", tool: "terminal", result: "plain output\n"},
		{name: "error object", in: `{"tool_call_id": "c3", "name": "patch", "content": {"error": "old_string not found"}}`, id: "c3", tool: "patch", result: `{"error":"old_string not found"}`, isError: true},
		{name: "error in string JSON", in: `{"tool_call_id": "c4", "name": "x", "content": "{\"error\": \"boom\"}"}`, id: "c4", tool: "x", result: `{"error": "boom"}`, isError: true},
		{name: "null error is success", in: `{"tool_call_id": "c5", "name": "terminal", "content": {"output": "", "exit_code": 1, "error": null}}`, id: "c5", tool: "terminal", result: `{"output":"","exit_code":1,"error":null}`},
		{name: "not JSON keeps text", in: `oops {`, result: `oops {`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := hermesParseToolResponse(tt.in)
			if (r.Err != nil) != tt.err || r.ID != tt.id || r.Name != tt.tool || r.Result != tt.result || r.IsError != tt.isError {
				t.Errorf("got %+v, want id %q tool %q result %q error %v parse error %v", r, tt.id, tt.tool, tt.result, tt.isError, tt.err)
			}
		})
	}
}

// trajectoryLine builds one trajectory JSONL line from (from, value) pairs.
func hermesTrajectoryLine(entries ...string) string {
	var b strings.Builder
	b.WriteString(`{"conversations": [`)
	for i := 0; i+1 < len(entries); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"from": ` + jsonx.Quote(entries[i]) + `, "value": ` + jsonx.Quote(entries[i+1]) + `}`)
	}
	b.WriteString(`], "model": "m", "completed": true}`)
	return b.String()
}

func hermesCallBlock(name, args string) string {
	return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
}

func hermesRespBlock(id, name, content string) string {
	return "<tool_response>\n{\"tool_call_id\": \"" + id + "\", \"name\": \"" + name + "\", \"content\": " + content + "}\n</tool_response>"
}

// TestHermesTrajectoryPairing checks positional pairing of calls and
// responses: which call gets which result, and what is reported.
func TestHermesTrajectoryPairing(t *testing.T) {
	type pair struct{ tool, id, result string }
	tests := []struct {
		name     string
		line     string
		turns    int
		pairs    []pair // "" id and "-" result: no result
		problems []string
	}{
		{
			name:  "parallel calls, merged responses",
			line:  hermesTrajectoryLine("human", "q", "gpt", hermesCallBlock("a", `{"x": 1}`)+"\n"+hermesCallBlock("b", `{}`), "tool", hermesRespBlock("c1", "a", `"ra"`)+"\n"+hermesRespBlock("c2", "b", `{"k": 2}`)),
			turns: 1,
			pairs: []pair{{"a", "c1", "ra"}, {"b", "c2", `{"k":2}`}},
		},
		{
			name:     "fewer responses than calls",
			line:     hermesTrajectoryLine("human", "q", "gpt", hermesCallBlock("a", `{}`)+hermesCallBlock("b", `{}`), "tool", hermesRespBlock("c1", "a", `"ra"`), "gpt", "done"),
			turns:    1,
			pairs:    []pair{{"a", "c1", "ra"}, {"b", "", "-"}},
			problems: []string{"call 2 (b) has no <tool_response>"},
		},
		{
			name:     "more responses than calls",
			line:     hermesTrajectoryLine("human", "q", "gpt", hermesCallBlock("a", `{}`), "tool", hermesRespBlock("c1", "a", `"ra"`)+hermesRespBlock("c9", "z", `"rz"`)),
			turns:    1,
			pairs:    []pair{{"a", "c1", "ra"}},
			problems: []string{`<tool_response> 2 (tool_call_id "c9", z) has no <tool_call> before it`},
		},
		{
			name:     "consecutive gpt entries: the earlier call gets no result",
			line:     hermesTrajectoryLine("human", "q", "gpt", hermesCallBlock("a", `{}`), "gpt", hermesCallBlock("b", `{}`), "tool", hermesRespBlock("c1", "b", `"rb"`)),
			turns:    1,
			pairs:    []pair{{"a", "", "-"}, {"b", "c1", "rb"}},
			problems: []string{"conversations[1] call 1 (a) has no <tool_response>"},
		},
		{
			name:     "response naming another tool is still paired by position",
			line:     hermesTrajectoryLine("human", "q", "gpt", hermesCallBlock("a", `{}`), "tool", hermesRespBlock("c1", "b", `"r"`)),
			turns:    1,
			pairs:    []pair{{"a", "c1", "r"}},
			problems: []string{`names "b" but the call in that position is "a"`},
		},
		{
			name:  "calls before the first human go in turn 1; each human opens a turn",
			line:  hermesTrajectoryLine("system", "tools", "gpt", hermesCallBlock("a", `{}`), "tool", hermesRespBlock("c1", "a", `"r"`), "human", "q1", "human", "q2"),
			turns: 3,
			pairs: []pair{{"a", "c1", "r"}},
		},
		{
			name:     "unparsable call takes its name from the response",
			line:     hermesTrajectoryLine("human", "q", "gpt", "<tool_call>\n{\"name\": \"patch\", \"arguments\": {\n</tool_call>", "tool", hermesRespBlock("c1", "patch", `"ok"`)),
			turns:    1,
			pairs:    []pair{{"patch", "c1", "ok"}},
			problems: []string{"<tool_call> 1 is not valid JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := hermesReadString(t, "trajectory_samples.jsonl", tt.line+"\n")
			if len(sessions) != 1 {
				t.Fatalf("sessions = %d, problems %v", len(sessions), problems)
			}
			s := sessions[0]
			if s.Format != "hermes-trajectory" || len(s.Turns) != tt.turns {
				t.Errorf("format %q turns %d, want hermes-trajectory, %d", s.Format, len(s.Turns), tt.turns)
			}
			var got []pair
			for _, c := range hermesAllCalls(s) {
				r := c.Result
				if !c.HasResult {
					r = "-"
				}
				got = append(got, pair{c.Tool, c.ID, r})
			}
			if !reflect.DeepEqual(got, tt.pairs) {
				t.Errorf("pairs = %v, want %v", got, tt.pairs)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems = %v, want %d", problems, len(tt.problems))
			}
			for i, p := range problems {
				if !strings.Contains(p.Message, tt.problems[i]) || p.Line != 1 {
					t.Errorf("problem %d = line %d %q, want line 1 and %q", i, p.Line, p.Message, tt.problems[i])
				}
			}
		})
	}
}

// TestHermesMessagePairing checks pairing by tool_call_id in the message
// formats: names from the assistant call, repeated ids answered in order,
// results without an id, results without a call.
func TestHermesMessagePairing(t *testing.T) {
	assistant := func(calls ...string) string {
		return `{"role": "assistant", "content": "", "tool_calls": [` + strings.Join(calls, ", ") + `]}`
	}
	tc := func(id, name string) string {
		return `{"id": "` + id + `", "type": "function", "function": {"name": "` + name + `", "arguments": "{}"}}`
	}
	tool := func(id, content string) string {
		return `{"role": "tool", "tool_call_id": "` + id + `", "content": ` + jsonx.Quote(content) + `}`
	}
	meta := `{"role": "session_meta", "model": "m", "platform": "cli"}`
	user := `{"role": "user", "content": "go"}`
	tests := []struct {
		name     string
		lines    []string
		want     []string // tool=result per call, "-" for no result
		problems []string
	}{
		{
			name:  "name from the call when the tool row has none",
			lines: []string{meta, user, assistant(tc("a", "search")), tool("a", "r1")},
			want:  []string{"search=r1"},
		},
		{
			// Both calls are kept, the reuse is a problem at the
			// second call's line, and results are joined oldest first.
			name:     "an id reused while its call waits is a problem, answered in order",
			lines:    []string{meta, user, assistant(tc("x", "read_file")), assistant(tc("x", "terminal")), tool("x", "first"), tool("x", "second")},
			want:     []string{"read_file=first", "terminal=second"},
			problems: []string{`line 4: call id "x" is used again while an earlier call with that id (line 3) has no result yet`},
		},
		{
			name:     "two calls with one id in one message",
			lines:    []string{meta, user, assistant(tc("x", "read_file"), tc("x", "search")), tool("x", "first"), tool("x", "second")},
			want:     []string{"read_file=first", "search=second"},
			problems: []string{`line 3: call id "x" is used again`},
		},
		{
			name:  "an id reused after its call was answered is no problem",
			lines: []string{meta, user, assistant(tc("qwen_tc_0", "read_file")), tool("qwen_tc_0", "first"), assistant(tc("qwen_tc_0", "terminal")), tool("qwen_tc_0", "second")},
			want:  []string{"read_file=first", "terminal=second"},
		},
		{
			name:  "a result before its call is not joined to it",
			lines: []string{meta, user, tool("e", "early"), assistant(tc("e", "read_file"))},
			want:  []string{"read_file=-"},
			problems: []string{`line 3: tool result for unknown tool_call_id "e"`,
				`line 4: call "e" (read_file) has no result (a result with its id came before the call, at line 3, and was not joined to it)`},
		},
		{
			name:  "a result without an id takes the oldest waiting call",
			lines: []string{meta, user, assistant(tc("a", "one"), tc("b", "two")), tool("", "r1"), tool("b", "r2")},
			want:  []string{"one=r1", "two=r2"},
		},
		{
			name:     "result without a call and call without a result",
			lines:    []string{meta, user, assistant(tc("a", "one")), tool("zz", "lost")},
			want:     []string{"one=-"},
			problems: []string{`line 4: tool result for unknown tool_call_id "zz"`, `line 3: call "a" (one) has no result`},
		},
		{
			name:     "tool_calls of the wrong shape",
			lines:    []string{meta, user, `{"role": "assistant", "tool_calls": {"id": "a"}}`},
			problems: []string{"line 3: assistant tool_calls of an unexpected shape"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := hermesReadString(t, "20260101_000000_abcdef01.jsonl", strings.Join(tt.lines, "\n")+"\n")
			if len(sessions) != 1 || sessions[0].Format != "hermes-gateway" {
				t.Fatalf("sessions %v problems %v", sessions, problems)
			}
			var got []string
			for _, c := range hermesAllCalls(sessions[0]) {
				r := c.Result
				if !c.HasResult {
					r = "-"
				}
				got = append(got, c.Tool+"="+r)
			}
			if !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("calls = %v, want %v", got, tt.want)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems = %v, want %v", problems, tt.problems)
			}
			// A file's problems come in line order.
			want := slices.Clone(tt.problems)
			slices.SortStableFunc(want, func(a, b string) int { return cmp.Compare(leadingInt(a), leadingInt(b)) })
			for i, p := range problems {
				line, msg, _ := strings.Cut(want[i], ": ")
				if "line "+strconv.Itoa(p.Line) != line || !strings.Contains(p.Message, msg) {
					t.Errorf("problem %d = line %d %q, want %s %q", i, p.Line, p.Message, line, msg)
				}
			}
		})
	}
}

// TestHermesDetection checks which format each first record selects, and
// that hermes does not claim other families' files.
func TestHermesDetection(t *testing.T) {
	tests := []struct {
		name, file, data string
		want             string // "" when no hermes format may claim it
	}{
		{"export line", "backup.jsonl", `{"id": "s1", "source": "cli", "model": "m", "started_at": 1.5, "parent_session_id": null, "messages": []}` + "\n" + `{"id": "s2", "source": "cli", "started_at": 2.5, "messages": []}`, "hermes-export"},
		{"gateway with session_meta", "anything.jsonl", `{"role": "session_meta", "model": "m"}` + "\n" + `{"role": "user", "content": "hi"}`, "hermes-gateway"},
		{"gateway without session_meta, named by id", "20260421_055527_49457147.jsonl", `{"role": "user", "content": "hi"}` + "\n" + `{"role": "assistant", "content": "yo"}`, "hermes-gateway"},
		{"snapshot", "session_x.json", "{\n  \"session_id\": \"x\",\n  \"session_start\": \"2026-03-05T14:22:33\",\n  \"messages\": []\n}\n", "hermes-snapshot"},
		{"trajectory", "t.jsonl", hermesTrajectoryLine("human", "q") + "\n" + hermesTrajectoryLine("human", "r"), "hermes-trajectory"},
		{"batch", "batch_1.jsonl", `{"prompt_index": 3, "conversations": [{"from": "human", "value": "q"}]}` + "\n" + `{"prompt_index": 4, "conversations": []}`, "hermes-batch"},
		{"role lines in a file not named like a hermes session", "chat.jsonl", `{"role": "user", "content": "hi"}` + "\n" + `{"role": "assistant", "content": "yo"}`, ""},
		{"nanobot metadata record", "telegram_123.jsonl", `{"_type": "metadata", "key": "telegram:123", "role": "user"}` + "\n" + `{"role": "user", "content": "hi"}`, ""},
		{"OpenAI chat log with messages only", "chat.json", "{\n  \"model\": \"gpt-4o\",\n  \"messages\": []\n}\n", ""},
		{"other ShareGPT data", "data.jsonl", `{"conversations": [{"role": "user", "content": "q"}]}` + "\n" + `{"conversations": []}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every file ends with a newline: detect.go's Read loses the
			// first line when reading the second one refills its buffer
			// (reported to the lead), which a last line without newline
			// triggers in small files.
			sessions, problems := hermesReadString(t, tt.file, tt.data+"\n")
			got := ""
			if len(sessions) > 0 {
				got = sessions[0].Format
			}
			if tt.want == "" {
				if strings.HasPrefix(got, "hermes-") {
					t.Errorf("claimed by %s, want no hermes format", got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("format = %q, want %q (problems %v)", got, tt.want, problems)
			}
		})
	}
}

func TestHermesSubagentExport(t *testing.T) {
	line := `{"id": "20260302_101530_d4e5f6", "source": "cli", "model": "m", "model_config": "{\"_delegate_from\": \"parent_1\"}", "parent_session_id": null, "started_at": 1.0, "messages": [{"role": "user", "content": "task"}]}`
	sessions, problems := hermesReadString(t, "e.jsonl", line+"\n"+line+"\n")
	if len(sessions) != 2 || len(problems) != 0 {
		t.Fatalf("sessions %d problems %v", len(sessions), problems)
	}
	if s := sessions[0]; s.Agent != "20260302_101530_d4e5f6" || s.Parent != "parent_1" || len(s.Turns) != 1 {
		t.Errorf("agent %q parent %q turns %d; want the session id, parent_1 (from _delegate_from), 1", s.Agent, s.Parent, len(s.Turns))
	}
}

func TestHermesHelpers(t *testing.T) {
	texts := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`null`, ""},
		{`[{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": "b"}]`, "a\nb"},
		{`"\u0000json:[{\"type\": \"text\", \"text\": \"from db\"}]"`, "from db"},
		{`{"k": 1}`, `{"k":1}`},
	}
	for _, tt := range texts {
		if got := hermesText(jsonx.RawMessage(tt.in)); got != tt.want {
			t.Errorf("hermesText(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	times := []struct {
		in   string
		want time.Time
	}{
		{`1771560403.5`, time.Unix(1771560403, 500000000).UTC()},
		{`"2026-04-13T08:40:24.033329"`, time.Date(2026, 4, 13, 8, 40, 24, 33329000, time.UTC)},
		{`"2026-04-13T08:40:24+02:00"`, time.Date(2026, 4, 13, 6, 40, 24, 0, time.UTC)},
		{`"yesterday"`, time.Time{}},
		{`null`, time.Time{}},
	}
	for _, tt := range times {
		if got := hermesTime(jsonx.RawMessage(tt.in)); !got.Equal(tt.want) {
			t.Errorf("hermesTime(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
	compaction := map[string]bool{
		"[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted": true,
		"[CONTEXT COMPACTION] Earlier turns in this conversation":            true,
		"[CONTEXT SUMMARY]: the user asked":                                  true,
		"[IMPORTANT: MCP servers have been reloaded.]":                       false,
		"please summarise [CONTEXT SUMMARY]":                                 false,
	}
	for in, want := range compaction {
		if got := isHermesCompaction(in); got != want {
			t.Errorf("isHermesCompaction(%q) = %v, want %v", in, got, want)
		}
	}
	if got := hermesIDFromName("session_20260305_142233_9f8e7d.json"); got != "20260305_142233_9f8e7d" {
		t.Errorf("hermesIDFromName = %q", got)
	}
	if got := hermesDecodeError(errors.New("json: cannot unmarshal string into Go struct field hermesExportRecord.messages of type []json.RawMessage")); got != "its member `messages` is a JSON string, not an array" {
		t.Errorf("hermesDecodeError = %q", got)
	}
}

// TestHermesNoPanicOnCutFiles reads every hermes fixture cut short at many
// points, under each hermes format: whatever the damage, the parsers report
// problems and never panic (Read would turn a panic into an "internal
// error" problem, which this test rejects).
func TestHermesNoPanicOnCutFiles(t *testing.T) {
	root := filepath.Join("..", "fixtures", "ingest", "hermes")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && IsTranscriptName(d.Name()) && !strings.HasSuffix(p, ".golden") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 5 {
		t.Fatalf("found %d hermes fixtures, want at least 5", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"", "hermes-export", "hermes-gateway", "hermes-snapshot", "hermes-trajectory", "hermes-batch"} {
			for cut := 1; cut < len(data); cut += 1 + len(data)/37 {
				var problems []Problem
				Read(strings.NewReader(string(data[:cut])), filepath.Base(f), Options{Format: format}, &Sink{
					OnProblem: func(p Problem) { problems = append(problems, p) },
				})
				for _, p := range problems {
					if strings.Contains(p.Message, "internal error") {
						t.Errorf("%s cut at %d as %q: %s", f, cut, format, p.Message)
					}
				}
			}
		}
	}
}

// hermesCompactCases are JSON texts for the in-place readers: escapes of
// every kind, invalid UTF-8, duplicate and escaped keys, nesting, white space.
var hermesCompactCases = []string{
	`{}`, `[]`, `"s"`, `12.5e-3`, `true`, `null`, ` { "a" : [ 1 , 2 , { } ] , "b" : "x" } `,
	`{"output": "line\nnext\ttab \"q\" back\\slash", "exit_code": 0, "error": null}`,
	`{"s": "\/ slash \u00e9 \u4e2d \ud83d\ude00 \ud83d lone \u001b \u001B \u000a \u007f"}`,
	"{\"raw\": \"\xff bad \xed\xa0\x80 é\", \"k\xfe\": 1}",
	`{"a": 1, "a": 2, "\u0061": 3, "err\"or": "x", "error": "", "error": "second"}`,
	`{"error": "  "}`, `{"error": " boom "}`, `{"error": {"nested": "x"}}`, `[{"error": "x"}]`,
	`{"n": [-0.5, 1E+9, 0, -12], "t": [true, false, null], "deep": [[[{"x": [{}]}]]]}`,
	`{"b": "\b\f\r\u0000\u001f\u0008\u000c"}`, `{"e": "ends with \\"}`, `{"q": "\\\"\\"}`,
	`{"s": "a\/b"}`, `{"s": "\u001B"}`, `{"s": "\u000a"}`, `{"s": "\u0041"}`, "{\"s\": \"\xff\"}", `{"s": "é"}`,
}

// checkToolResponse: hermesParseToolResponse reads the body in as the tree
// does, and the members it noted of an object content are those
// TopLevelFields reads in the result text (for the replay, and for its
// own IsError). It reports whether members were noted.
func checkToolResponse(t *testing.T, in string) bool {
	t.Helper()
	got, want := hermesParseToolResponse(in), hermesParseToolResponseTree(in)
	members := got.Members
	got.Members = nil
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%q:\n got %+v\nwant %+v", in, got, want)
	}
	if members == nil {
		return false
	}
	if wantMembers := jsonx.TopLevelFields(got.Result, resultmembers.Keys[:]...); !slices.Equal(members[:], wantMembers) {
		t.Errorf("%q: members %q, the result's are %q", in, members, wantMembers)
	}
	return true
}

// TestHermesParseToolResponseMatchesTree: the in-place reading of a
// <tool_response> body gives what the parsed value gives.
func TestHermesParseToolResponseMatchesTree(t *testing.T) {
	var bodies []string
	for _, c := range hermesCompactCases {
		bodies = append(bodies, c,
			`{"tool_call_id": "c1", "name": "t", "content": `+c+`}`,
			`{"content": `+c+`, "content": "second", "tool_call_id": 5, "tool_call_id": "late", "nam\u0065": "esc"}`)
	}
	bodies = append(bodies, `{"tool_call_id": null, "content": null}`, `oops {`, `{"a": }`, `"str"`, ``, ` `, `{"content": "x"} trailing`)
	members := 0
	for _, in := range bodies {
		if checkToolResponse(t, in) {
			members++
		}
	}
	if members == 0 {
		t.Error("no body's members were noted")
	}
	// The one-pass reading takes every plain body whose content is a
	// string, an object, a list or null, and leaves numbers and booleans
	// to the tree.
	for _, c := range hermesCompactCases {
		in := `{"tool_call_id": "c1", "name": "t", "content": ` + c + `}`
		_, took := hermesReadToolResponse([]byte(in))
		if want := c != `12.5e-3` && c != `true`; took != want {
			t.Errorf("%s: the one-pass reading took it: %v, want %v", in, took, want)
		}
	}
}

// TestHermesResultIsErrorSearch: the text search that spares most
// results the walk (hermesHasErrorString) changes no answer.
func TestHermesResultIsErrorSearch(t *testing.T) {
	texts := []string{
		`{"error": "boom"}`, `{"error" :` + "\n\t" + ` "boom"}`, `{"error":"  "}`, `{"error": null}`, `{"error": 5}`,
		`{"out": "\"error\": \"x\"", "error": null}`, `{"a": {"error": "inner"}}`, `{"a": "x", "error": "late"}`,
		`{"err\u006fr": "escaped"}`, `{"error": "first", "error": "second"}`, `{"error"error": "x"}`, `{"x": 1, "error": "cut`,
		`"error": "x"`, ` {"error": "padded"} `, `{}`, ``,
	}
	texts = append(texts, hermesCompactCases...)
	for _, text := range texts {
		if direct, plain := resultIsErrorBoth(text); direct != plain {
			t.Errorf("%s: %v with the search, %v without", text, direct, plain)
		}
	}
}

// resultIsErrorBoth is hermesResultIsError, which searches the text for an
// "error" string member before reading the top-level one, and the answer
// of reading the top-level member of every object.
func resultIsErrorBoth(text string) (direct, plain bool) {
	t := strings.TrimSpace(text)
	plain = strings.HasPrefix(t, "{") && (hermesErrorMemberIsError(jsonx.TopLevelFields(t, "error")[0]) || hermesSearchTimedOut(t))
	return hermesResultIsError(text), plain
}

func FuzzHermesParseToolResponse(f *testing.F) {
	for _, c := range hermesCompactCases {
		f.Add(`{"tool_call_id": "c1", "name": "t", "content": ` + c + `}`)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkToolResponse(t, in)
		if direct, plain := resultIsErrorBoth(in); direct != plain {
			t.Errorf("hermesResultIsError(%q) = %v with the search, %v without", in, direct, plain)
		}
	})
}

// hermesEdgeRecords are hermes lines that the direct readings must give up
// on, or read exactly as the plain ones: repeated, case-folded and escaped
// members, members of other types, null after a value.
var hermesEdgeRecords = []string{
	`{"id": "s1", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "a"}], "messages": [{"role": "assistant", "content": "b", "tool_calls": [{"id": "c", "function": {"name": "t", "arguments": "{}"}}]}]}`,
	`{"id": "s2", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "a"}], "Messages": [{"role": "user", "content": "folded"}]}`,
	`{"id": "s3", "source": "cli", "started_at": 1, "m\u0065ssages": [{"role": "user", "content": "escaped"}], "messages": []}`,
	"{\"id\": \"s4\", \"source\": \"cli\", \"started_at\": 1, \"messages\": [], \"me\u017f\u017fages\": [{\"role\": \"user\", \"content\": \"long s\"}]}",
	`{"id": "s5", "source": "cli", "started_at": 1, "messages": null}`,
	`{"id": "s6", "source": "cli", "started_at": 1, "messages": "not a list"}`,
	`{"id": "s7", "source": "cli", "started_at": 1}`,
	`{"id": 7, "source": "cli", "started_at": 1, "messages": []}`,
	`{"id": "s8", "source": "cli", "started_at": 1, "messages": [null, 5, "x", [], {"role": "user", "content": [{"type": "text", "text": "parts"}]}, {"role": "user", "content": 12}, {"role": "user", "content": {"k": 1}}]}`,
	`{"id": "s9", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "first", "content": null}, {"role": "user", "content": null, "content": "second"}, {"role": "user", "content": "x", "content": ["y"]}]}`,
	`{"id": "s10", "source": "cli", "started_at": 1, "messages": [{"role": "assistant", "content": "", "tool_calls": "[{\"id\": \"c1\", \"function\": {\"name\": \"t\", \"arguments\": \"{\\\"a\\\": 1}\"}}]"}, {"role": "tool", "tool_call_id": "c1", "content": "\u0000json:{\"error\": \"boom\"}"}]}`,
	`{"id": "s11", "source": "cli", "started_at": 1, "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": {"a": 1}}}, {"id": "c2", "function": {"name": "u", "arguments": "x", "arguments": null}}]}]}`,
	`{"id": "s12", "source": "cli", "started_at": 1, "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": "{}"}, "function": {"name": "u"}}, {"call_id": "c2", "name": "v", "arguments": 5}]}]}`,
	`{"id": "s13", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "reasoning": ["r"], "content": "x"}, {"role": "assistant", "reasoning": " ", "reasoning_content": "rc", "content": "y", "tool_calls": [{"id": 5}]}]}`,
	`{"id": "s14", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "a", "active": 0}, {"role": "user", "content": "b", "active": false, "compacted": 1}, {"role": "user", "content": "[CONTEXT COMPACTION] x"}, {"role": "user", "content": "c", "_compressed_summary": true}]}`,
	"{\"id\": \"s15\", \"source\": \"cli\", \"started_at\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"bad \xff utf8 \\ud800 lone\"}, {\"ROLE\": \"user\", \"Content\": \"folded keys\"}]}",
	`{"role": "session_meta", "model": "m", "platform": "p"}`,
	`{"role": "assistant", "content": "x", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}], "timestamp": "2026-03-05T01:16:49.796662"}`,
	`{"role": "tool", "content": {"output": "x"}, "tool_call_id": "c1", "timestamp": 1772655874.303743}`,
	`{"role": "tool", "content": "ok", "tool_call_id": "c1", "content": 5}`,
	`{"role": 5}`,
	`[1, 2]`,
	`{"role": "user", "content": "x", "timestamp": "2026-03-05T01:16:49Z"}`,
	`{"conversations": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "<tool_call>\n{\"name\": \"t\", \"arguments\": {\"a\": 1}}\n</tool_call>"}, {"from": "tool", "value": "<tool_response>\n{\"tool_call_id\": \"x\", \"name\": \"t\", \"content\": {\"error\": \"e\", \"b\": [1, \"\\u00e9\"]}}\n</tool_response>"}]}`,
	// The one-pass readings (hermesReadExportRecord, hermesReadToolCalls,
	// hermesReadTrajectoryRecord) and the error check's text search.
	`{"id": "s16", "source": "cli", "started_at": 1, "input_tokens": "12", "messages": [{"role": "user", "content": "a"}]}`,
	`{"id": "s17", "source": "cli", "started_at": 1, "input_tokens": null, "output_tokens": 1.5e3, "api_call_count": -0, "model_config": {"_branched_from": "p"}, "parent_session_id": "p", "messages": [{"role": "user", "content": "a"}]}`,
	`{"id": "s18", "source": "cli", "started_at": 1, "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "name": "outer", "arguments": "{\"x\": 1}", "function": null}, {"id": "c2", "function": {}}, {"call_id": "c3", "function": {"name": "t", "arguments": null, "extra": [1]}}, {"id": "c4", "function": {"name": "u"}, "arguments": "ignored"}]}, {"role": "user", "tool_calls": [{"id": "u1", "function": 5}], "content": "b"}]}`,
	`{"id": "s19", "source": "cli", "started_at": 1, "messages": [{"role": "assistant", "tool_calls": [null]}, {"role": "assistant", "tool_calls": []}, {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "t", "Arguments": "{}"}}]}, {"role": "assistant", "Tool_calls": [{"id": "c2"}]}, {"role": "assistant", "tool_calls": [{"id": "c3", "function": {"name": "t"}, "function": null}]}]}`,
	`{"id": "s20", "source": "cli", "started_at": 1, "messages": [{"role": "assistant", "tool_calls": " [{\"id\": \"c1\", \"function\": {\"name\": \"t\", \"arguments\": \"{}\"}}] "}, {"role": "tool", "tool_call_id": "c1", "content": "{\"error\" :\n \"boom\"}"}, 5, {"role": "user", "content": "x", "timestamp": "2026-03-05T01:16:49"}]}`,
	`{"id": "s21", "source": "cli", "started_at": 1, "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"out\": \"\\\"error\\\": \\\"x\\\"\", \"error\": null}"}, {"role": "tool", "tool_call_id": "c9", "content": "{\"a\": {\"error\": \"inner\"}, \"error\": \"  \"}"}], "messages2": [[[[[]]]]]}`,
	`{"id": "s22", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"} , ] }`,
	`{"id": "s23", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "a", "x": [1, 2}]}`,
	`{"role": "assistant", "content": "x", "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": {"a": 1}}}]} trailing`,
	`{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": "{}"}}, {"id": "c2", "function": {"name": "t", "arguments": 7}}]}`,
	`{"role": "tool", "tool_call_id": "c1", "content": "{\"error\": \"e\"}", "tool_calls": [{"id": "x"}]}`,
	`{"role": "user", "content": "x", "tool_calls": [{"id": "c1"`,
	`{"conversations": [{"from": "human", "value": null}, {"from": null, "value": "v"}, {"from": "gpt", "value": 5}, {"from": "human", "value": "\u0000json:[\"a\", {\"text\": \"b\"}]"}], "model": "m", "metadata": {"model": "mm", "timestamp": "t"}, "prompt_index": 3, "completed": true, "partial": true, "api_calls": 4, "compression_metrics": {"was_compressed": true}}`,
	`{"conversations": [{"from": "human", "value": "q"}, 7, {"from": "gpt", "value": "a"}], "timestamp": null, "metadata": {"timestamp": "mt"}}`,
	`{"conversations": [{"from": "human", "value": "q", "value": "r"}], "conversations": []}`,
	`{"Conversations": [], "conversations": [{"from": "human", "value": "q"}], "Model": "folded"}`,
	`{"conversations": [{"from": "human", "value": "q"}], "prompt_index": null, "model": 5}`,
	`{"conversations": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "<tool_call>{\"name\": \"t\", \"arguments\": {}}</tool_call>"}, {"from": "tool", "value": "<tool_response>{\"name\": \"t\", \"content\": \"{\\\"error\\\":\\\"x\\\"}\"}</tool_response>"}], "x": [[[{}]]]} `,
	`{"conversations": [{"from": "human", "value": "q"}]`,
	`{"conversations": null}`,
	// Blocks that are not JSON: their text is kept, as the arguments and
	// as the result.
	`{"conversations": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "<tool_call>\nnot json {\n</tool_call>\n<tool_call>[\"t\"]</tool_call>"}, {"from": "tool", "value": "<tool_response>\nplain text result\n</tool_response><tool_response>[1, 2]</tool_response>"}, {"from": "gpt", "value": "<tool_call>{\"name\": \"u\"}</tool_call>"}, {"from": "tool", "value": "no blocks at all"}]}`,
}

// hermesEdgeSnapshots are snapshot documents, pretty-printed as hermes
// writes them, that the direct ShareGPT reading (decodeHermesShareGPT)
// must give up on or read exactly as the plain one: both forms at once,
// a null messages, repeated, folded and escaped members, members of other
// types, an entry that is not an object, a platform.
var hermesEdgeSnapshots = []string{
	"{\n  \"session_id\": \"e1\",\n  \"messages\": [{\"role\": \"user\", \"content\": \"m\"}],\n  \"conversations\": [\n    {\"from\": \"human\", \"value\": \"c\"}\n  ]\n}\n",
	"{\n  \"session_id\": \"e2\",\n  \"messages\": null,\n  \"session_start\": \"2026-01-01T00:00:00\",\n  \"conversations\": [\n    {\"from\": \"human\", \"value\": \"c\"},\n    {\"from\": \"gpt\", \"value\": \"<tool_call>\\n{\\\"name\\\": \\\"t\\\", \\\"arguments\\\": {}}\\n</tool_call>\"},\n    {\"from\": \"tool\", \"value\": \"<tool_response>\\n{\\\"name\\\": \\\"t\\\", \\\"content\\\": \\\"r\\\"}\\n</tool_response>\"}\n  ]\n}\n",
	"{\n  \"session_id\": 7,\n  \"last_updated\": \"x\",\n  \"conversations\": [{\"from\": \"human\", \"value\": \"c\"}]\n}\n",
	"{\n  \"Session_Id\": \"folded\",\n  \"last_updated\": \"x\",\n  \"conversations\": [{\"from\": \"human\", \"value\": \"c\"}]\n}\n",
	"{\n  \"session_id\": \"e5\",\n  \"last_updated\": \"x\",\n  \"conversations\": [{\"from\": \"human\", \"value\": \"c\"}, \"not an object\", {\"from\": \"gpt\", \"value\": [1]}]\n}\n",
	"{\n  \"session_id\": \"e6\",\n  \"platform\": \"telegram\",\n  \"model\": \"m\",\n  \"last_updated\": \"x\",\n  \"conversations\": [],\n  \"conversations\": [{\"from\": \"human\", \"value\": \"c\"}]\n}\n",
	"{\n  \"session_id\": \"e7\",\n  \"platform\": \"discord\",\n  \"model\": \"m\",\n  \"last_updated\": \"x\",\n  \"conversations\": [{\"from\": \"human\", \"value\": \"c\"}, {\"from\": \"gpt\", \"value\": null}]\n}\n",
	"{\n  \"s\\u0065ssion_id\": \"escaped\",\n  \"last_updated\": \"x\",\n  \"conversations\": [{\"from\": \"human\", \"value\": \"c\"}]\n}\n",
}

// TestHermesResultMembers: the calls whose results' members were noted,
// read from the fixtures, the samples, a generated corpus and the edge
// cases above under every hermes format, hold the members the results do.
func TestHermesResultMembers(t *testing.T) {
	t.Parallel() // a reader's pure function of its inputs: beside the package's other long tests
	extra := map[string][]byte{}
	for i, rec := range hermesEdgeRecords {
		extra[fmt.Sprintf("edge/20260413_083748_5a617929_%d.jsonl", i)] = []byte(rec + "\n")
	}
	for i, doc := range hermesEdgeSnapshots {
		extra[fmt.Sprintf("edge/session_20260413_083748_%06d.json", i)] = []byte(doc)
	}
	inputs := directInputs(t, extra)
	formats := []string{""}
	for _, id := range FormatIDs() {
		if strings.HasPrefix(id, "hermes") {
			formats = append(formats, id)
		}
	}
	noted := 0
	for p, data := range inputs {
		for _, format := range formats {
			sessions, _ := readBytes(data, filepath.Base(p), format)
			noted += checkResultMembers(t, p, sessions)
		}
	}
	if noted == 0 {
		t.Error("no call had its result's members noted")
	}
}

// checkResultMembers: every call whose result's members were noted has
// the members TopLevelFields reads in the result. It returns how many
// calls had them.
func checkResultMembers(t *testing.T, name string, sessions []*Session) int {
	t.Helper()
	n := 0
	for _, s := range sessions {
		for _, turn := range s.Turns {
			for _, r := range turn.Requests {
				for _, c := range r.Calls {
					if c.ResultMembers == nil {
						continue
					}
					n++
					if want := jsonx.TopLevelFields(c.Result, resultmembers.Keys[:]...); !slices.Equal(c.ResultMembers[:], want) {
						t.Errorf("%s: call %s: members %q, the result's are %q", name, c.ID, c.ResultMembers, want)
					}
				}
			}
		}
	}
	return n
}

func FuzzHermesEdge(f *testing.F) {
	for _, rec := range hermesEdgeRecords {
		f.Add([]byte(rec), uint8(0))
	}
	for _, doc := range hermesEdgeSnapshots {
		f.Add([]byte(doc), uint8(2)) // read as hermes-snapshot
	}
	f.Fuzz(func(t *testing.T, data []byte, fb uint8) {
		formats := []string{"hermes-export", "hermes-gateway", "hermes-snapshot", "hermes-trajectory"}
		format := formats[int(fb)%len(formats)]
		checkEdgeRead(t, data, "20260413_083748_5a617929.jsonl", format)
	})
}

// TestHermesSnapshotLetsDocumentGo: once a ShareGPT snapshot's entries
// are decoded, the document is not held while its session is made and
// sent: the collector may take it. Holding it put a long snapshot's
// document in memory beside the entries' texts and the session
// (docs/performance.md, the peak RSS of the 1 GiB replay). The cleanup attached to the
// document's bytes runs only when nothing reaches them, so the test fails
// if the snapshot reader keeps the document while it makes and sends the
// session. (That its callers, dispatch and Read, do not keep it either is
// what the peak memory measured in docs/performance.md shows.)
func TestHermesSnapshotLetsDocumentGo(t *testing.T) {
	collected := make(chan struct{})
	var sessions int
	out := &Sink{OnSession: func(s *Session) {
		sessions++
		if n := len(s.Turns); n == 0 {
			t.Errorf("session has no turns")
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			runtime.GC()
			select {
			case <-collected:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		t.Error("the snapshot's document was still reachable when its session was sent")
	}}
	parseHermesSnapshot(hermesSnapshotToLetGo(collected), &Head{Name: "session_x.json", Doc: true}, out)
	if sessions != 1 {
		t.Fatalf("got %d sessions, want 1", sessions)
	}
}

// hermesSnapshotToLetGo returns a ShareGPT snapshot document whose bytes
// close collected once the collector takes them. It is a function of its
// own so that no variable of the test holds the document.
func hermesSnapshotToLetGo(collected chan struct{}) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"session_id\": \"letgo\",\n  \"conversations\": [\n    {\"from\": \"human\", \"value\": \"go\"}")
	for i := range 50 {
		fmt.Fprintf(&b, ",\n    {\"from\": \"gpt\", \"value\": \"<tool_call>\\n{\\\"name\\\": \\\"read_file\\\", \\\"arguments\\\": {\\\"path\\\": \\\"f%d\\\"}}\\n</tool_call>\"}", i)
		fmt.Fprintf(&b, ",\n    {\"from\": \"tool\", \"value\": \"<tool_response>\\n{\\\"name\\\": \\\"read_file\\\", \\\"content\\\": \\\"%s\\\"}\\n</tool_response>\"}", strings.Repeat("line\\\\n", 200))
	}
	b.WriteString("\n  ]\n}\n")
	doc := []byte(b.String())
	runtime.AddCleanup(&doc[0], func(ch chan struct{}) { close(ch) }, collected)
	return doc
}

// TestHermesDeliveryMirror: a delivery mirror ("mirror": true, written by
// hermes' gateway/mirror.py into the target chat's transcript) is neither a
// request nor a turn, wherever it lies; a note counts the mirrors.
func TestHermesDeliveryMirror(t *testing.T) {
	meta := `{"role": "session_meta", "model": "m", "platform": "discord"}`
	mirror := `{"role": "assistant", "content": "Test delivery", "timestamp": "2026-05-10T22:18:25.462789", "mirror": true, "mirror_source": "discord"}`
	user := `{"role": "user", "content": "did it arrive?", "timestamp": "2026-05-10T22:19:00"}`
	call := `{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "cronjob", "arguments": "{\"action\": \"list\"}"}}]}`
	result := `{"role": "tool", "tool_call_id": "c1", "content": "{\"success\": true}"}`
	answer := `{"role": "assistant", "content": "It did."}`
	notMirror := `{"role": "assistant", "content": "Still here.", "mirror": false}`
	tests := []struct {
		name     string
		lines    []string
		turns    []int // requests per turn
		calls    int
		mirrored int
	}{
		{"a mirror before session_meta opens no turn", []string{mirror, meta, user, call, result, answer}, []int{2}, 1, 1},
		{"a mirror between turns is no request", []string{meta, user, answer, mirror, user, answer}, []int{1, 1}, 0, 1},
		{"mirror false is an ordinary message", []string{meta, user, notMirror}, []int{1}, 0, 0},
		{"a file of mirrors only has no turn", []string{mirror, mirror}, nil, 0, 2},
		// Snapshots, the export and state.db drop the mark.
		{"an unmarked reply before the first user message", []string{meta, answer, user, call, result, answer}, []int{2}, 1, 1},
		{"a leading call is kept in turn 1", []string{meta, call, result, answer, user, answer}, []int{2, 1}, 1, 0},
		{"a reply after a compaction summary is kept", []string{meta, `{"role": "user", "content": "[CONTEXT COMPACTION] earlier turns"}`, answer, user, answer}, []int{1, 1}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions, problems := hermesReadString(t, "20260510_221742_153c1741.jsonl", strings.Join(tt.lines, "\n")+"\n")
			if len(problems) != 0 || len(sessions) != 1 {
				t.Fatalf("sessions %d, problems %v", len(sessions), problems)
			}
			s := sessions[0]
			var turns []int
			for _, tr := range s.Turns {
				turns = append(turns, len(tr.Requests))
			}
			if !slices.Equal(turns, tt.turns) {
				t.Errorf("requests per turn = %v, want %v", turns, tt.turns)
			}
			if got := len(hermesAllCalls(s)); got != tt.calls {
				t.Errorf("calls = %d, want %d", got, tt.calls)
			}
			note := fmt.Sprintf("%d delivery mirror(s)", tt.mirrored)
			has := slices.ContainsFunc(s.Notes, func(n string) bool { return strings.HasPrefix(n, note) })
			if has != (tt.mirrored > 0) {
				t.Errorf("notes %q: want a note %q: %v", s.Notes, note, tt.mirrored > 0)
			}
		})
	}
}

// TestHermesSessionIndexProblem: hermes' session index read where a walk
// does not leave it out (a copy outside a sessions folder, or the file
// named alone) is one problem saying what it is, not "of no known format".
func TestHermesSessionIndexProblem(t *testing.T) {
	data := []byte(`{
  "agent:main:telegram:dm:42": {
    "session_key": "agent:main:telegram:dm:42",
    "session_id": "20260423_013905_ea0715d1",
    "platform": "telegram",
    "input_tokens": 0
  },
  "agent:main:discord:group:7:8": {"session_key": "agent:main:discord:group:7:8", "session_id": "20260603_004119_d0507748"}
}
`)
	sessions, problems := readBytes(data, "sessions.json", "")
	if len(sessions) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Message, "hermes' session index") {
		t.Fatalf("%d sessions, problems %v; want none and one naming hermes' session index", len(sessions), problems)
	}
	// An object keyed by session keys whose entries name no session is
	// something else.
	_, problems = readBytes([]byte(`{"agent:main": {"name": "x"}}`+"\n"), "sessions.json", "")
	if len(problems) != 1 || strings.Contains(problems[0].Message, "session index") {
		t.Errorf("problems %v; want one of no known format", problems)
	}
}

// TestHermesSearchTimedOut: a search_files result whose last "file" is the
// shell's timeout marker is a failure; the marker anywhere else is not.
func TestHermesSearchTimedOut(t *testing.T) {
	tests := []struct {
		name, result string
		want         bool
	}{
		{"the marker alone", `{"total_count": 1, "files": ["[Command timed out after 60s]"]}`, true},
		{"after partial results", `{"total_count": 3, "files": ["./a", "./b", "[Command timed out after 5s]"]}`, true},
		{"compact", `{"files":["[Command timed out after 60s]"],"total_count":1}`, true},
		{"a complete list", `{"total_count": 2, "files": ["./a", "./b"]}`, false},
		{"the marker not last", `{"total_count": 2, "files": ["[Command timed out after 60s]", "./b"]}`, false},
		{"inside a file name", `{"total_count": 1, "files": ["./notes/[Command timed out after 60s].txt"]}`, false},
		{"in another member", `{"output": "[Command timed out after 60s]", "exit_code": 124, "error": null}`, false},
		{"in a nested files list", `{"result": {"files": ["[Command timed out after 60s]"]}}`, false},
		{"later builds: limit_reason, no marker", `{"total_count": 1, "files": ["./a"], "truncated": true, "limit_reason": "search_timeout"}`, false},
		{"the error convention still holds", `{"error": "Path not found: x", "files": []}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hermesResultIsError(tt.result); got != tt.want {
				t.Errorf("hermesResultIsError(%s) = %v, want %v", tt.result, got, tt.want)
			}
			if direct, plain := resultIsErrorBoth(tt.result); direct != plain {
				t.Errorf("%v with the search, %v without", direct, plain)
			}
		})
	}
	// Through the reader: the timed-out search is an error result, its
	// retry's complete list is not.
	search := func(id string) string {
		return `{"role": "assistant", "content": "", "tool_calls": [{"id": "` + id + `", "type": "function", "function": {"name": "search_files", "arguments": "{\"pattern\": \"*\", \"target\": \"files\"}"}}]}`
	}
	lines := []string{
		`{"role": "session_meta", "model": "m", "platform": "discord"}`,
		`{"role": "user", "content": "what is in my home?"}`,
		search("c1"),
		`{"role": "tool", "tool_call_id": "c1", "content": "{\"total_count\": 1, \"files\": [\"[Command timed out after 60s]\"]}"}`,
		search("c2"),
		`{"role": "tool", "tool_call_id": "c2", "content": "{\"total_count\": 1, \"files\": [\"./notes.md\"]}"}`,
	}
	sessions, problems := hermesReadString(t, "20260612_002458_9f06680c.jsonl", strings.Join(lines, "\n")+"\n")
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("sessions %d, problems %v", len(sessions), problems)
	}
	calls := hermesAllCalls(sessions[0])
	if len(calls) != 2 || !calls[0].IsError || calls[1].IsError {
		t.Fatalf("calls %d, is_error %v", len(calls), func() []bool {
			var e []bool
			for _, c := range calls {
				e = append(e, c.IsError)
			}
			return e
		}())
	}
}
