package ingest

// Unit tests of the nanobot ingester's decisions (turn boundaries, session
// ids, runtime-context stripping, error reading, version labels) and of its
// robustness. Whole files are covered by the golden fixtures under
// fixtures/ingest/nanobot and by conformance_nanobot_test.go.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNanobotClassifyUser(t *testing.T) {
	f3 := "what now?\n\n[Runtime Context]\nCurrent Time: 2026-02-24 11:20 (Tuesday) (CST)\nChannel: cli\nChat ID: direct"
	tests := []struct {
		name string
		user nbUserFacts
		prev nbPrevious
		want nbUserKind
	}{
		{"first user record", nbUserFacts{Text: "hi"}, nbPrevious{}, nbTurnStart},
		{"after an answer", nbUserFacts{Text: "hi"}, nbPrevious{Role: "assistant"}, nbTurnStart},
		{"consecutive user records", nbUserFacts{Text: "hello?"}, nbPrevious{Role: "user"}, nbTurnStart},
		{"right after a tool record: injection", nbUserFacts{Text: "only touch util.py"}, nbPrevious{Role: "tool"}, nbInjection},
		{"second of a drained batch", nbUserFacts{Text: "and keep tests"}, nbPrevious{Role: "user", Continued: true}, nbInjection},
		{"after the interrupted-tool result: new run", nbUserFacts{Text: "try again"}, nbPrevious{Role: "tool", ToolInterrupted: true}, nbTurnStart},
		{"F3 record after a tool record: new run", nbUserFacts{Text: f3}, nbPrevious{Role: "tool"}, nbTurnStart},
		{"subagent result (F1-F3) after a tool record: own run", nbUserFacts{Text: "[System: subagent] [Subagent 'x' completed successfully]\n\nTask: t"}, nbPrevious{Role: "tool"}, nbTurnStart},
		{"slash command", nbUserFacts{Text: "/status", Command: true}, nbPrevious{Role: "tool"}, nbCommand},
		{"hidden history", nbUserFacts{Text: "[Subagent 'x' completed]", Injected: true}, nbPrevious{Role: "assistant"}, nbInjectedEvent},
		{"automation turn after a tool record", nbUserFacts{Text: "[Scheduled Task] Timer finished.", Automation: true}, nbPrevious{Role: "tool"}, nbTurnStart},
		{"length recovery up to v0.3.0", nbUserFacts{Text: "Output limit reached. Continue exactly where you left off — no recap, no apology."}, nbPrevious{Role: "assistant"}, nbLengthRecovery},
		{"length recovery on main", nbUserFacts{Text: "The previous assistant response was cut off. Continue the same response from its exact endpoint."}, nbPrevious{Role: "assistant"}, nbLengthRecovery},
		{"goal continuation", nbUserFacts{Text: "You have an active sustained goal. Please continue working toward the objective using your tools"}, nbPrevious{Role: "assistant"}, nbGoalContinue},
		{"goal continuation, objective form", nbUserFacts{Text: "You have an active sustained goal:\n\nship it"}, nbPrevious{Role: "assistant"}, nbGoalContinue},
		{"text that only mentions the prompt", nbUserFacts{Text: "why did it say Output limit reached?"}, nbPrevious{Role: "assistant"}, nbTurnStart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nbClassifyUser(tt.user, tt.prev); got != tt.want {
				t.Errorf("nbClassifyUser = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNanobotSessionID(t *testing.T) {
	tests := []struct {
		key, file string
		wantID    string
		wantHow   string
	}{
		{"cli:direct", "cli_direct.jsonl", "cli:direct", "key"},
		{"telegram:1", "Y2xpOmRpcmVjdA.jsonl", "telegram:1", "key"}, // the key wins over the name
		{"", "Y2xpOmRpcmVjdA.jsonl", "cli:direct", "base64"},
		{"", "dGVsZWdyYW06MTIzNDU2Nzg5.jsonl", "telegram:123456789", "base64"},
		{"", "d2Vic29ja2V0OjNmMmI5YzFl.jsonl.gz", "websocket:3f2b9c1e", "base64"},
		{"", "aGVhcnRiZWF0.jsonl", "heartbeat", "base64"},
		{"", "cli_direct.jsonl", "cli_direct", "safe_key"},
		{"", "telegram_123456789.jsonl", "telegram_123456789", "safe_key"},
		{"", "qq_9CADBF1CF67CA54E3BC924EE0D4C9408.jsonl", "qq_9CADBF1CF67CA54E3BC924EE0D4C9408", "safe_key"},
		{"", "Y2xpOmRpcmVjdA=.jsonl", "Y2xpOmRpcmVjdA=", "safe_key"}, // padded: nanobot never writes it
		{"", "heartbeat.jsonl", "heartbeat", "safe_key"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			name := strings.TrimSuffix(tt.file, ".gz")
			id, how := nbSessionID(tt.key, name)
			if id != tt.wantID || how != tt.wantHow {
				t.Errorf("nbSessionID(%q, %q) = %q, %q; want %q, %q", tt.key, name, id, how, tt.wantID, tt.wantHow)
			}
		})
	}
}

func TestNanobotWorkspaceDir(t *testing.T) {
	for dir, want := range map[string]bool{
		"0f3c9b2d41e84a7fa1b2c3d4e5f60718":  true,
		"0F3C9B2D41E84A7FA1B2C3D4E5F60718":  false, // nanobot writes lower case
		"0f3c9b2d41e84a7fa1b2c3d4e5f6071":   false,
		"sessions":                          false,
		"0f3c9b2d41e84a7fa1b2c3d4e5f607189": false,
	} {
		if got := nbIsWorkspaceIDDir(dir); got != want {
			t.Errorf("nbIsWorkspaceIDDir(%q) = %v, want %v", dir, got, want)
		}
	}
}

func TestNanobotStripRuntimeContext(t *testing.T) {
	tagged := "[Runtime Context — metadata only, not instructions]\nCurrent Time: now\n[/Runtime Context]"
	tests := []struct {
		name, text, suffix string
		want               string
		wantF3             bool
	}{
		{"plain", "hello", "", "hello", false},
		{"F3 suffix", "hello\n\n[Runtime Context]\nCurrent Time: 2026-02-24 11:20 (Tuesday) (CST)\nChannel: cli\nChat ID: direct", "", "hello", true},
		{"marker suffix", "hello\n\n" + tagged, tagged, "hello", false},
		{"marker suffix is all the content", tagged, tagged, "", false},
		{"tagged block without marker", "hello\n\n" + tagged, "", "hello", false},
		{"marker that does not match keeps the text", "hello", "other", "hello", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, f3 := nbStripRuntimeContext(tt.text, tt.suffix)
			if got != tt.want || f3 != tt.wantF3 {
				t.Errorf("got %q, %v; want %q, %v", got, f3, tt.want, tt.wantF3)
			}
		})
	}
}

func TestNanobotIsErrorResult(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Error: File not found: a.txt", true},
		{"Error: File not found: a.txt\n\n[Analyze the error above and try a different approach.]", true},
		{"Error executing exec: boom", true},
		{"Error: repeated external lookup blocked. Use the results you already have to answer, or try a meaningfully different source.", true},
		{"STDERR:\nnot found\n\nExit code: 1\n\n[Analyze the error above and try a different approach.]", true},
		{"STDERR:\nwarning only\n\nExit code: 0", false},
		{"No errors found", false},
		{"", false},
		{"[File unchanged since last read: a.txt]", false},
	}
	for _, tt := range tests {
		if got := nbIsErrorResult(tt.text); got != tt.want {
			t.Errorf("nbIsErrorResult(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestNanobotVersion(t *testing.T) {
	tests := []struct {
		name string
		f    nbFeatures
		want string
	}{
		{"F1", nbFeatures{}, "nanobot F1 "},
		{"F2 early", nbFeatures{ToolsUsed: true}, "nanobot F2 "},
		{"F2 late", nbFeatures{ToolsUsed: true, HasKey: true, HasLastConsolidated: true}, "nanobot F2 "},
		{"F3", nbFeatures{HasKey: true, HasLastConsolidated: true, ToolCalls: true, RuntimeSuffix: true}, "nanobot F3 "},
		{"F4 early", nbFeatures{HasKey: true, HasLastConsolidated: true, ToolCalls: true, Cut500: true}, "nanobot F4 (full tool history, v0.1.4.post3–post4)"},
		{"F4 v0.2", nbFeatures{HasKey: true, HasLastConsolidated: true, ToolCalls: true, Latency: true}, "nanobot F4 (full tool history, v0.2.0–v0.2.2)"},
		{"F4 text only", nbFeatures{HasKey: true, HasLastConsolidated: true}, "nanobot F4 or later"},
		{"F5 by name", nbFeatures{HasKey: true, HasLastConsolidated: true, Base64Name: true}, "nanobot F5 "},
		{"F5 by marker", nbFeatures{HasKey: true, HasLastConsolidated: true, RuntimeMarker: true}, "nanobot F5 "},
		{"F6 by folder", nbFeatures{HasKey: true, Base64Name: true, WorkspaceDir: true}, "nanobot F6 "},
		{"F6 by provider_state", nbFeatures{HasKey: true, Base64Name: true, ProviderState: true}, "nanobot F6 "},
		{"F6 by _last_usage", nbFeatures{HasKey: true, LastUsage: true}, "nanobot F6 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nbVersion(tt.f); !strings.HasPrefix(got, "format: "+tt.want) {
				t.Errorf("nbVersion = %q, want it to start with %q", got, "format: "+tt.want)
			}
		})
	}
}

func TestNanobotSniff(t *testing.T) {
	tests := []struct {
		name, first string
		want        bool
	}{
		{"F1 metadata", `{"_type": "metadata", "created_at": "2026-02-03T09:12:01.511203", "updated_at": "2026-02-03T09:14:40.118902", "metadata": {}}`, true},
		{"F6 metadata", `{"_type": "metadata", "key": "cli:direct", "created_at": "x", "updated_at": "y", "metadata": {"pending_user_turn": true}, "last_consolidated": 0}`, true},
		{"OpenAI message", `{"role": "user", "content": "hi"}`, false},
		{"hermes-like session header", `{"session_id": "s1", "model": "m", "messages": []}`, false},
		{"other tool's metadata record", `{"_type": "metadata", "version": 2}`, false},
		{"metadata member not an object", `{"_type": "metadata", "created_at": "x", "updated_at": "y", "metadata": "none"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Head{}
			describe(h, []byte(tt.first))
			if got := nbSniff(h); got != tt.want {
				t.Errorf("nbSniff = %v, want %v", got, tt.want)
			}
		})
	}
}

// readString runs a whole nanobot file held in a string through detection.
func readString(name, text string) ([]*Session, []Problem) {
	var sessions []*Session
	var problems []Problem
	Read(strings.NewReader(text), name, Options{}, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	return sessions, problems
}

func TestNanobotArguments(t *testing.T) {
	meta := `{"_type": "metadata", "key": "cli:direct", "created_at": "x", "updated_at": "y", "metadata": {}, "last_consolidated": 0}` + "\n"
	tests := []struct {
		name, args string
		wantRaw    string
		wantOK     bool
	}{
		{"JSON string, key order kept", `"{\"path\": \"b\", \"offset\": 1}"`, `{"path": "b", "offset": 1}`, true},
		{"malformed JSON string kept raw", `"{\"path\": \"b\""`, `{"path": "b"`, false},
		{"object accepted", `{"path": "b", "offset": 1}`, `{"path":"b","offset":1}`, true},
		{"empty string", `""`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := meta +
				`{"role": "user", "content": "go", "timestamp": "2026-01-01T00:00:00"}` + "\n" +
				`{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ` + tt.args + `}}], "timestamp": "2026-01-01T00:00:01"}` + "\n" +
				`{"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "ok", "timestamp": "2026-01-01T00:00:02"}` + "\n"
			sessions, _ := readString("cli_direct.jsonl", text)
			if len(sessions) != 1 || sessions[0].NumCalls() != 1 {
				t.Fatalf("want 1 session with 1 call, got %d sessions", len(sessions))
			}
			c := sessions[0].Turns[0].Requests[0].Calls[0]
			if c.ArgsRaw != tt.wantRaw || c.ArgsOK != tt.wantOK {
				t.Errorf("args = %q (ok %v), want %q (ok %v)", c.ArgsRaw, c.ArgsOK, tt.wantRaw, tt.wantOK)
			}
			if !c.HasResult || c.Result != "ok" || c.ResultLine != 4 || c.Line != 3 {
				t.Errorf("call = %+v, want result \"ok\" from line 4 for the call on line 3", c)
			}
		})
	}
}

// TestNanobotNoPanicOnCutFiles cuts every fixture at many points (a crash
// while writing, a partial copy) and checks that reading never panics (Read
// would turn a panic into an "internal error" problem) and still yields the
// session.
func TestNanobotNoPanicOnCutFiles(t *testing.T) {
	var files []string
	filepath.WalkDir(filepath.Join("..", "fixtures", "ingest", "nanobot"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no nanobot fixtures found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		step := len(data)/40 + 1
		for cut := 1; cut <= len(data); cut += step {
			sessions, problems := readString(filepath.Base(f), string(data[:cut]))
			if len(sessions) != 1 && len(problems) == 0 {
				t.Errorf("%s cut at %d bytes: %d sessions and no problem", f, cut, len(sessions))
			}
			for _, p := range problems {
				if strings.Contains(p.Message, "internal error") {
					t.Fatalf("%s cut at %d bytes: %s", f, cut, p.Message)
				}
			}
		}
	}
}

// nbEdgeFile is a nanobot file for the direct readings: repeated members,
// null after a value, members of other types, entries of other shapes.
var nbEdgeFile = strings.Join([]string{
	`{"_type": "metadata", "key": "cli:direct", "created_at": "2026-03-04T09:51:50", "updated_at": "2026-03-04T10:11:00", "metadata": {"runtime_checkpoint": {"phase": "tools", "assistant_message": {"role": "assistant", "content": "cp", "tool_calls": [{"id": "k1", "function": {"name": "exec", "arguments": "{}"}}]}, "completed_tool_results": [{"role": "tool", "tool_call_id": "k1", "content": "done", "timestamp": 5}]}}, "last_consolidated": 2}`,
	`{"role": "user", "content": "first", "content": null, "timestamp": "2026-03-04T09:52:07.222241"}`,
	`{"role": "user", "content": null, "content": "second", "timestamp": "2026-03-04T09:52:07Z"}`,
	`{"role": "user", "content": [{"type": "text", "text": "parts"}, "s", 5], "timestamp": 12}`,
	`{"role": "user", "content": 12, "timestamp": ""}`,
	`{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "exec", "arguments": "{\"command\": \"ls\"}"}}, {"id": "c2", "function": {"name": "read_file", "arguments": {"path": "a"}}}], "timestamp": "2026-03-04T09:52:09.731785"}`,
	`{"role": "tool", "tool_call_id": "c1", "name": "exec", "content": "Error: boom"}`,
	`{"role": "tool", "tool_call_id": 5, "name": "read_file", "content": "x"}`,
	`{"role": "assistant", "tool_calls": [{"id": "c3", "function": {"name": "exec", "arguments": "a", "arguments": null}}, null, {"id": "c4", "function": {"name": "x"}, "function": {"arguments": "{}"}}]}`,
	`{"role": "assistant", "tool_calls": [{"id": "c5", "function": "not an object"}, {"id": "c6", "function": {"name": "y", "arguments": "{}"}}]}`,
	`{"role": "assistant", "tool_calls": "not a list", "reasoning_content": ["r"], "thinking_blocks": [{"thinking": "t"}]}`,
	`{"role": "assistant", "content": "x", "reasoning_content": null, "reasoning_content": "rc", "tools_used": ["a", "a"], "latency_ms": 5}`,
	`{"ROLE": "user", "Content": "folded keys", "_runtime_context": {"suffix": "s"}}`,
	"{\"role\": \"user\", \"content\": \"bad \xff utf8 \\ud800 lone\"}",
	`{"role": "user", "content": "stamps", "timestamp": "2024-02-29 23:59:59.5"}`,
	`{"role": "assistant", "content": "", "tool_calls": [{"id": "d1", "type": "function", "function": {"name": "exec", "arguments": "{}", "extra": [1]}}, {"id": null, "function": {"name": "exec"}}], "timestamp": "2023-02-29T10:00:00"}`,
	`{"role": "tool", "tool_call_id": "d1", "content": "ok", "timestamp": "2026-03-04T09:52:07."}`,
	`{"role": "tool", "content": "no id", "timestamp": "2026-03-04T24:00:00"}`,
	`{"role": "assistant", "tool_calls": [{"id": "d2", "function": null}, {"id": "d3", "function": {"name": "x", "Arguments": "{}"}}], "timestamp": "2026-03-04T09:52:07,5"}`,
	`{"role": "assistant", "tool_calls": [{"id": "d4", "function": {"name": "x", "arguments": "{}"}}, {"id": "d5", "function": {"name": "y", "arguments": 5}}], "latency_ms": null}`,
	`{"role": "assistant", "tool_calls": [], "content": "done", "timestamp": "2026-13-04T09:52:07.1234567891"}`,
	`{"role": "assistant", "tool_calls": [{"i\u0064": "d6", "function": {"name": "x"}}], "content": null, "timestamp": null}`,
	`{"_type": "provider_state", "state": {"model": "m"}}`,
	`{"_type": 5}`,
	`[1]`,
	`{"role": "tool", "tool_call_id": "c9", "content": "late"`,
}, "\n")

func FuzzNanobotEdge(f *testing.F) {
	f.Add([]byte(nbEdgeFile))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEdgeRead(t, data, "cli_direct.jsonl", "nanobot")
	})
}

// TestNanobotNaiveTime: what nbNaiveTime reads, it reads as time.Parse
// with the nbTimeLayouts of the text does.
func TestNanobotNaiveTime(t *testing.T) {
	for _, s := range []string{"2026-03-04T09:52:07.222241", "2026-03-04T09:52:07", "2026-03-04 09:52:07.5", "2026-03-04T09:52:07.123456789",
		"2026-03-04T09:52:07.1234567891", "2026-03-04T09:52:07.", "2026-03-04T09:52:07,5", "2024-02-29T00:00:00", "2023-02-29T00:00:00",
		"2100-02-29T00:00:00", "2000-02-29T00:00:00", "2026-04-31T00:00:00", "2026-12-31T23:59:59.999999", "2026-00-10T00:00:00",
		"2026-13-10T00:00:00", "2026-03-00T00:00:00", "2026-03-04T24:00:00", "2026-03-04T23:60:00", "2026-03-04T23:00:60",
		"0000-01-01T00:00:00", "2026-03-04T9:52:07", "2026-03-04T09:52:07Z", "2026-03-04T09:52:07+02:00", "2026-03-04t09:52:07",
		"2026-03-04T09:52:0x", "-026-03-04T09:52:07", "2026-03-04T09:52:07.12a", "2026/03/04T09:52:07", "2026-03-04T09:52:07 "} {
		got, ok := nbNaiveTime(s)
		var want time.Time
		var wantOK bool
		for _, layout := range nbTimeLayouts(s) {
			if tm, err := time.Parse(layout, s); err == nil {
				want, wantOK = tm, true
				break
			}
		}
		if ok && (!wantOK || !got.Equal(want) || got.Location() != want.Location()) {
			t.Errorf("%q: nbNaiveTime = %v, time.Parse = %v %v", s, got, want, wantOK)
		}
		if isNanobotWritten := len(s) == 19 || len(s) == 26; wantOK && !ok && isNanobotWritten && s[10] == 'T' {
			t.Errorf("%q: nbNaiveTime declines what nanobot writes", s)
		}
	}
}

func TestNanobotTimeLayouts(t *testing.T) {
	for _, s := range []string{"2026-03-04T09:52:07.222241", "2026-03-04 09:52:07", "2026-03-04T09:52:07Z", "2026-03-04T09:52:07+02:00",
		"2026-03-04T09:52:07-05:00", "2026-03-04T9:52:07Z", "2026-03-04", "yesterday", "", "2026-03-04T09:52:07z", "2026-03-04T09:52:07.5 "} {
		var want, got time.Time
		var wantOK, gotOK bool
		for _, layout := range isoTimeLayouts {
			if tm, err := time.Parse(layout, s); err == nil {
				want, wantOK = tm, true
				break
			}
		}
		for _, layout := range nbTimeLayouts(s) {
			if tm, err := time.Parse(layout, s); err == nil {
				got, gotOK = tm, true
				break
			}
		}
		if !got.Equal(want) || gotOK != wantOK || got.Location().String() != want.Location().String() {
			t.Errorf("%q: got %v %v, want %v %v", s, got, gotOK, want, wantOK)
		}
	}
	if n := len(nbTimeLayouts("2026-03-04T09:52:07.222241")); n != 2 {
		t.Errorf("a naive time tries %d layouts, want 2 (no RFC 3339)", n)
	}
}

// String names a user record's kind in test failures.
func (k nbUserKind) String() string {
	return [...]string{"turn start", "mid-run injection", "length recovery", "goal continuation", "injected event", "command"}[k]
}
