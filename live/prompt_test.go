package live

import (
	"os"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// TestPromptText: each agent's prompt event gives the guard the user's
// text from the member the agent sends it in; an event without one gives
// none (the guard then takes the message to name anything).
func TestPromptText(t *testing.T) {
	const text = "look at src/a.go"
	cases := []struct {
		agent, event, want string
	}{
		{"claude-code", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"look at src/a.go"}`, text},
		{"claude-code", `{"hook_event_name":"UserPromptSubmit","session_id":"s"}`, ""},
		{"codex", `{"hook_event_name":"UserPromptSubmit","session_id":"s","turn_id":"t1","prompt":"look at src/a.go"}`, text},
		{"qwen-code", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"look at src/a.go"}`, text},
		// The simulation's hint: a prompt whose text its transcript did
		// not keep.
		{"qwen-code", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"(the user's message)","loopgate_prompt_unknown":true}`, ""},
		{"gemini-cli", `{"hook_event_name":"BeforeAgent","session_id":"s","prompt":"look at src/a.go"}`, text},
		{"hermes", `{"hook_event_name":"pre_llm_call","session_id":"s","extra":{"turn_id":"t1","user_message":"look at src/a.go","is_first_turn":true}}`, text},
		{"openhands", `{"event_type":"UserPromptSubmit","session_id":"s","message":"look at src/a.go"}`, text},
		{"cursor", `{"hook_event_name":"beforeSubmitPrompt","conversation_id":"s","prompt":"look at src/a.go","attachments":[]}`, text},
		{"cline", `{"hookName":"UserPromptSubmit","taskId":"s","userPromptSubmit":{"prompt":"look at src/a.go","attachments":[]}}`, text},
		{"cline", `{"hookName":"prompt_submit","taskId":"s","userPromptSubmit":{"prompt":"look at src/a.go","attachments":[]}}`, text},
		{"opencode", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"look at src/a.go"}`, text},
		{"pi", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"look at src/a.go"}`, text},
	}
	for _, tc := range cases {
		ev, err := Lookup(tc.agent).ParseEvent([]byte(tc.event))
		if err != nil || ev.Kind != KindPrompt || ev.Prompt != tc.want {
			t.Errorf("%s %s: kind %v prompt %q (%v); want a prompt %q", tc.agent, tc.event, ev.Kind, ev.Prompt, err, tc.want)
		}
	}
}

// mentionedRules is the loopgate preset under scope.reset: mentioned.
func mentionedRules(t *testing.T) *rules.Rules {
	t.Helper()
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	if r.Scope.Reset == "mentioned" {
		return r
	}
	y, err := r.YAML()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(y), "reset: turn", "reset: mentioned", 1)
	if text == string(y) {
		t.Fatal("the preset has no reset: turn")
	}
	if r, err = rules.Parse([]byte(text), "loopgate-mentioned.yaml"); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPromptMentioned: under scope.reset: mentioned a prompt clears the
// reads of the paths its text names, and only those; a prompt without
// text clears everything. Every event is a hook process of its own, which
// rebuilds the session from its log (or from its checkpoint): the log
// keeps the paths the prompt names, not its text.
func TestPromptMentioned(t *testing.T) {
	for _, checkpoint := range []bool{true, false} {
		cfg := testConfig(t, "claude-code", "loopgate")
		cfg.Rules, cfg.NoCheckpoint = mentionedRules(t), !checkpoint
		prompt := func(text string) {
			member := ""
			if text != "-" {
				member = `,"prompt":"` + text + `"`
			}
			Handle(cfg, claudeEvent("UserPromptSubmit", "s1", member))
		}
		n := 0
		read := func(path string) bool { // whether the read ran
			n++
			id := "t" + string(rune('a'+n))
			pre := Handle(cfg, preRead("s1", id, path))
			if len(pre.Stdout) != 0 {
				return false
			}
			Handle(cfg, postRead("s1", id, path, "the text of "+path))
			return true
		}
		prompt("fix the build")
		steps := []struct {
			prompt, path string // prompt "": none; "-": one without text
			runs         bool
		}{
			{"", "/src/a.go", true},
			{"", "/src/b.go", true},
			{"now the tests, please", "/src/a.go", false},
			{"I edited a.go myself.", "/src/a.go", true},
			{"", "/src/b.go", false},
			{"-", "/src/b.go", true},
		}
		for i, st := range steps {
			if st.prompt != "" {
				prompt(st.prompt)
			}
			if got := read(st.path); got != st.runs {
				t.Errorf("checkpoint %v, step %d (prompt %q, read %s): ran %v, want %v", checkpoint, i, st.prompt, st.path, got, st.runs)
			}
		}
		b, err := os.ReadFile(logOf(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		log := string(b)
		if strings.Contains(log, "please") || !strings.Contains(log, "P\t\ta.go\n") || !strings.Contains(log, "P\t\t\n") {
			t.Errorf("the log should keep each prompt's paths, not its text:\n%s", log)
		}
	}
}

// TestClineResumeClears: a resumed Cline task (the extension's TaskResume,
// the CLI's agent_resume), and the CLI's agent_start at each prompt, are
// messages of unknown text: under
// scope.reset: mentioned it clears every observation, where a prompt
// naming nothing keeps them; as Cline's readers read the resumption
// message, so replay decides the same.
func TestClineResumeClears(t *testing.T) {
	for _, resume := range []string{"TaskResume", "agent_resume", "agent_start"} {
		cfg := testConfig(t, "cline", "loopgate")
		cfg.Rules = mentionedRules(t)
		ev := func(name, member string) []byte {
			return []byte(`{"hookName":"` + name + `","taskId":"s1"` + member + `}`)
		}
		prompt := func(text string) {
			Handle(cfg, ev("UserPromptSubmit", `,"userPromptSubmit":{"prompt":"`+text+`","attachments":[]}`))
		}
		read := func() bool { // whether the read ran
			params := `{"toolName":"read_file","parameters":{"path":"/src/a.go"}`
			if out := Handle(cfg, ev("PreToolUse", `,"preToolUse":`+params+`}`)); strings.Contains(string(out.Stdout), `"cancel":true`) {
				return false
			}
			Handle(cfg, ev("PostToolUse", `,"postToolUse":`+params+`,"result":"package a","success":true}`))
			return true
		}
		steps := []struct {
			name string
			do   func()
			runs bool
		}{
			{"first read", func() { prompt("fix the build") }, true},
			{"a prompt naming nothing", func() { prompt("go on") }, false},
			{"a resumed task", func() {
				Handle(cfg, ev(resume, `,"taskResume":{"taskMetadata":{},"previousState":{}},"taskStart":{"taskMetadata":{}}`))
			}, true},
			{"a prompt naming nothing again", func() { prompt("go on") }, false},
		}
		for _, st := range steps {
			st.do()
			if got := read(); got != st.runs {
				t.Errorf("%s, after %s: the read ran %v, want %v", resume, st.name, got, st.runs)
			}
		}
	}
	// The extension's TaskStart starts a task, whose first prompt comes
	// as UserPromptSubmit; the CLI runs its TaskStart file (agent_start)
	// at every prompt, with no text and no UserPromptSubmit: a message of
	// unknown text.
	for _, c := range []struct {
		name string
		want Kind
	}{{"TaskStart", KindStart}, {"agent_start", KindPrompt}} {
		ev, err := Lookup("cline").ParseEvent([]byte(`{"hookName":"` + c.name + `","taskId":"s1","taskStart":{"taskMetadata":{}}}`))
		if err != nil || ev.Kind != c.want || ev.Prompt != "" {
			t.Errorf("%s: kind %v, prompt %q (%v), want kind %v and no text", c.name, ev.Kind, ev.Prompt, err, c.want)
		}
	}
}
