package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// famLine is one Claude Code transcript line of agent at second sec.
func famLine(agent string, sec int, typ, content string) string {
	side := agent != "main"
	id := ""
	if side {
		id = fmt.Sprintf(`"agentId":%q,`, agent)
	}
	ts := time.Date(2026, 3, 1, 10, 0, sec, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
	role := "user"
	if typ == "assistant" {
		role = "assistant"
	}
	return fmt.Sprintf(`{"type":%q,"uuid":"%s-%d","isSidechain":%v,%s"sessionId":"f00d-1","timestamp":%q,"message":{"role":%q,"content":%s}}`,
		typ, agent, sec, side, id, ts, role, content)
}

func ccUse(id, tool, input string) string {
	return fmt.Sprintf(`[{"type":"tool_use","id":%q,"name":%q,"input":%s}]`, id, tool, input)
}

func ccResult(id, text string) string {
	return fmt.Sprintf(`[{"type":"tool_result","tool_use_id":%q,"content":%q}]`, id, text)
}

// writeFamily writes a Claude Code session's main transcript and its
// subagents' transcripts (name -> lines) under dir, as Claude Code lays
// them out, and returns the subagents' paths by name.
func writeFamily(t testing.TB, dir string, main []string, subagents map[string][]string) map[string]string {
	t.Helper()
	sub := filepath.Join(dir, "f00d-1", "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if main != nil {
		if err := os.WriteFile(filepath.Join(dir, "f00d-1.jsonl"), []byte(strings.Join(main, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := map[string]string{}
	for name, lines := range subagents {
		p := filepath.Join(sub, "agent-"+name+".jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// TestClaudeCodeOthers: a subagent's session holds the calls its sibling
// subagents and the main agent made while it ran (Session.Others), with
// when each ended; only a session with a repeated call reads them, and only
// the calls that overlap its own are kept.
func TestClaudeCodeOthers(t *testing.T) {
	ls := `{"command":"ls /w/out"}`
	lister := []string{
		famLine("a1", 0, "user", `"List the output."`),
		famLine("a1", 1, "assistant", ccUse("ta1", "Bash", ls)),
		famLine("a1", 2, "user", ccResult("ta1", "")),
		famLine("a1", 20, "assistant", ccUse("ta2", "Bash", ls)),
		famLine("a1", 21, "user", ccResult("ta2", "x.txt")),
	}
	writer := []string{
		famLine("b2", 0, "user", `"Write the output."`),
		famLine("b2", 5, "assistant", ccUse("tb1", "Write", `{"file_path":"/w/out/x.txt","content":"x"}`)),
		famLine("b2", 6, "user", ccResult("tb1", "File created")),
		// After the lister's last call: changes nothing it saw again.
		famLine("b2", 30, "assistant", ccUse("tb2", "Write", `{"file_path":"/w/out/y.txt","content":"y"}`)),
		famLine("b2", 31, "user", ccResult("tb2", "File created")),
	}
	main := []string{
		famLine("main", 0, "user", `"Do it."`),
		// Ended before the lister's first call.
		famLine("main", 0, "assistant", ccUse("tm0", "Write", `{"file_path":"/w/plan.md","content":"p"}`)),
		famLine("main", 0, "user", ccResult("tm0", "ok")),
		// A background command the main agent started, never answered.
		famLine("main", 10, "assistant", ccUse("tm1", "Bash", `{"command":"make gen","run_in_background":true}`)),
	}
	dir := t.TempDir()
	paths := writeFamily(t, dir, main, map[string][]string{"a1": lister, "b2": writer})

	sessions, problems := readAll(t, paths["a1"], Options{})
	if len(problems) > 0 || len(sessions) != 1 {
		t.Fatalf("%d sessions, problems %v", len(sessions), problems)
	}
	at := func(sec int) time.Time { return time.Date(2026, 3, 1, 10, 0, sec, 0, time.UTC) }
	want := []OtherCall{
		{Agent: "b2", Tool: "Write", ArgsRaw: `{"file_path":"/w/out/x.txt","content":"x"}`, Start: at(5), End: at(6)},
		{Agent: "main", Tool: "Bash", ArgsRaw: `{"command":"make gen","run_in_background":true}`, Start: at(10)},
	}
	if got := sessions[0].Others; !slices.Equal(got, want) {
		t.Errorf("Others:\n got %+v\nwant %+v", got, want)
	}

	// The writer has no repeated call: it reads no other file.
	sessions, _ = readAll(t, paths["b2"], Options{})
	if len(sessions) != 1 || sessions[0].Others != nil {
		t.Errorf("the writer's session: Others %+v, want none", sessions[0].Others)
	}

	// Every companion of the lister: its siblings, the main transcript and
	// its own metadata file (which need not exist).
	wantFiles := []string{filepath.Join(dir, "f00d-1.jsonl"), paths["b2"], filepath.Join(dir, "f00d-1", "subagents", "agent-a1.meta.json")}
	if got := Companions(paths["a1"]); !slices.Equal(got, wantFiles) {
		t.Errorf("Companions(lister):\n got %v\nwant %v", got, wantFiles)
	}
	if got := Companions(filepath.Join(dir, "f00d-1.jsonl")); !slices.Equal(got, []string{paths["a1"], paths["b2"]}) {
		t.Errorf("Companions(main) = %v, want the subagents' transcripts", got)
	}
	// A path given as written, not cleaned: the file is not its own sibling.
	if got := Companions(dir + "/./f00d-1/subagents/agent-a1.jsonl"); !slices.Equal(got, wantFiles) {
		t.Errorf("Companions(lister, uncleaned):\n got %v\nwant %v", got, wantFiles)
	}
	if got := Companions(filepath.Join(dir, "elsewhere.json")); got != nil {
		t.Errorf("Companions of a file of another shape = %v, want none", got)
	}
}

// TestKeptOtherArgs: another agent's call keeps its arguments whole when
// short; a long one keeps its short members (a path), not a file's content.
func TestKeptOtherArgs(t *testing.T) {
	long := strings.Repeat("x", otherArgsMax)
	cases := []struct{ in, want string }{
		{`{"file_path":"/w/a.txt","content":"x"}`, `{"file_path":"/w/a.txt","content":"x"}`},
		{`{"file_path":"/w/a.txt","content":"` + long + `"}`, `{"file_path":"/w/a.txt"}`},
		{`{"command":"` + long + `","description":"gen"}`, `{"description":"gen"}`},
		{`"` + long + `"`, ``},
	}
	for _, tc := range cases {
		if got := keptOtherArgs([]byte(tc.in)); got != tc.want {
			t.Errorf("keptOtherArgs(%.40s...) = %.60q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestClaudeCodeOthersMain: the main agent's session reads its subagents'
// calls only when it worked while one ran (a subagent started in the
// background); a subagent reads a sibling's only when their times meet.
func TestClaudeCodeOthersMain(t *testing.T) {
	ls := `{"command":"ls /w/out"}`
	sub := []string{
		famLine("b2", 2, "user", `"Write the output."`),
		famLine("b2", 5, "assistant", ccUse("tb1", "Write", `{"file_path":"/w/out/x.txt","content":"x"}`)),
		famLine("b2", 6, "user", ccResult("tb1", "File created")),
	}
	cases := []struct {
		name   string
		task   string // the Task call's input
		result int    // when its result came
		others int
	}{
		{"the main agent waits on its subagent", `{"prompt":"write it","subagent_type":"general-purpose"}`, 10, 0},
		{"the main agent works beside it", `{"prompt":"write it","subagent_type":"general-purpose","run_in_background":true}`, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			main := []string{
				famLine("main", 0, "user", `"Do it."`),
				famLine("main", 0, "assistant", ccUse("tm0", "Bash", ls)),
				famLine("main", 0, "user", ccResult("tm0", "")),
				famLine("main", 1, "assistant", ccUse("tm1", "Task", tc.task)),
			}
			main = append(main, famLine("main", tc.result, "user", ccResult("tm1", "done")),
				famLine("main", 20, "assistant", ccUse("tm2", "Bash", ls)), famLine("main", 20, "user", ccResult("tm2", "x.txt")))
			dir := t.TempDir()
			writeFamily(t, dir, main, map[string][]string{"b2": sub})
			sessions, problems := readAll(t, filepath.Join(dir, "f00d-1.jsonl"), Options{})
			if len(sessions) != 1 {
				t.Fatalf("%d sessions, problems %v", len(sessions), problems)
			}
			if got := len(sessions[0].Others); got != tc.others {
				t.Errorf("the main session has %d other calls, want %d: %+v", got, tc.others, sessions[0].Others)
			}
		})
	}

	// Two subagents one after the other: the later one's repeated
	// listing reads nothing of the earlier, whose lines end before it began.
	dir := t.TempDir()
	later := []string{
		famLine("c3", 40, "user", `"List it."`),
		famLine("c3", 41, "assistant", ccUse("tc1", "Bash", ls)),
		famLine("c3", 42, "user", ccResult("tc1", "x.txt")),
		famLine("c3", 43, "assistant", ccUse("tc2", "Bash", ls)),
		famLine("c3", 44, "user", ccResult("tc2", "x.txt")),
	}
	paths := writeFamily(t, dir, nil, map[string][]string{"b2": sub, "c3": later})
	sessions, _ := readAll(t, paths["c3"], Options{})
	if len(sessions) != 1 || sessions[0].Others != nil {
		t.Errorf("a subagent after its sibling ended: Others %+v, want none", sessions[0].Others)
	}
}

// TestClaudeCodeOthersOlderLayout: CLI 2.0 kept subagents' transcripts
// beside the sessions (agent-<id>.jsonl), each naming its session only by
// the sessionId of its lines: a sibling is an agent file of the same
// session, and another session's agent files are none of its family.
func TestClaudeCodeOthersOlderLayout(t *testing.T) {
	ls := `{"command":"ls /w/out"}`
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lister := write("agent-a1.jsonl",
		famLine("a1", 0, "user", `"List the output."`),
		famLine("a1", 1, "assistant", ccUse("ta1", "Bash", ls)),
		famLine("a1", 2, "user", ccResult("ta1", "")),
		famLine("a1", 20, "assistant", ccUse("ta2", "Bash", ls)),
		famLine("a1", 21, "user", ccResult("ta2", "x.txt")))
	write("agent-b2.jsonl",
		famLine("b2", 0, "user", `"Write the output."`),
		famLine("b2", 5, "assistant", ccUse("tb1", "Write", `{"file_path":"/w/out/x.txt","content":"x"}`)),
		famLine("b2", 6, "user", ccResult("tb1", "File created")))
	// Another session's subagent, at the same time.
	other := []string{
		famLine("z9", 0, "user", `"Write elsewhere."`),
		famLine("z9", 7, "assistant", ccUse("tz1", "Write", `{"file_path":"/w/out/z.txt","content":"z"}`)),
		famLine("z9", 8, "user", ccResult("tz1", "File created")),
	}
	for i := range other {
		other[i] = strings.ReplaceAll(other[i], `"sessionId":"f00d-1"`, `"sessionId":"beef-2"`)
	}
	write("agent-z9.jsonl", other...)
	main := write("f00d-1.jsonl", famLine("main", 0, "user", `"Do it."`))

	sessions, problems := readAll(t, lister, Options{})
	if len(sessions) != 1 {
		t.Fatalf("%d sessions, problems %v", len(sessions), problems)
	}
	if got := sessions[0].Others; len(got) != 1 || got[0].Agent != "b2" {
		t.Errorf("Others: %+v, want the sibling b2's write alone", got)
	}
	if got := Companions(main); !slices.Equal(got, []string{lister, filepath.Join(dir, "agent-b2.jsonl")}) {
		t.Errorf("Companions(main) = %v, want its session's two subagents", got)
	}
}

// FuzzClaudeCodeOthers: a Claude Code session whose subagent's transcript
// holds any bytes reads without a panic, from either file, and the main
// session hears only the calls of its own session's agents. Run by
// `bash .ci/fuzz.sh`.
func FuzzClaudeCodeOthers(f *testing.F) {
	ls := `{"command":"ls /w/out"}`
	f.Add([]byte(famLine("b2", 5, "assistant", ccUse("tb1", "Write", `{"file_path":"/w/out/x.txt","content":"x"}`)) + "\n" +
		famLine("b2", 6, "user", ccResult("tb1", "File created")) + "\n"))
	f.Add([]byte(famLine("b2", 5, "assistant", `[{"type":"tool_use","id":"x","name":"Bash","input":"not an object"}]`) + "\n" + `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x"}]},"timestamp":7}` + "\n"))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	// The session's files are written once; each input is a sibling's
	// transcript of a name of its own, removed after the run.
	dir := f.TempDir()
	main := []string{
		famLine("main", 0, "user", `"Do it."`),
		famLine("main", 1, "assistant", ccUse("tm1", "Task", `{"prompt":"p","run_in_background":true}`)),
		famLine("main", 1, "user", ccResult("tm1", "launched")),
		famLine("main", 2, "assistant", ccUse("tm2", "Bash", ls)),
		famLine("main", 3, "user", ccResult("tm2", "")),
		famLine("main", 20, "assistant", ccUse("tm3", "Bash", ls)),
		famLine("main", 21, "user", ccResult("tm3", "x.txt")),
	}
	paths := writeFamily(f, dir, main, map[string][]string{"a1": {famLine("a1", 0, "user", `"x"`)}})
	n := 0
	f.Fuzz(func(t *testing.T, sibling []byte) {
		n++
		sub := filepath.Join(filepath.Dir(paths["a1"]), fmt.Sprintf("agent-b%d.jsonl", n))
		if err := os.WriteFile(sub, sibling, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(sub)
		var sessions []*Session
		ReadFile(filepath.Join(dir, "f00d-1.jsonl"), Options{}, &Sink{OnSession: func(s *Session) { sessions = append(sessions, s) }})
		ReadFile(sub, Options{}, &Sink{})
		for _, s := range sessions {
			for _, o := range s.Others {
				if o.Agent != "a1" && o.Agent != fmt.Sprintf("b%d", n) {
					t.Errorf("session %s heard a call of agent %q, not of its session", s.Agent, o.Agent)
				}
			}
		}
	})
}
