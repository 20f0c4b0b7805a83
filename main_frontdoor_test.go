package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeHome points HOME at an empty directory and unsets the variables that
// move the agents' homes, so that discovery sees only what a test puts
// there. It returns the home.
func fakeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "HERMES_HOME"} {
		t.Setenv(v, "")
	}
	return home
}

// copyFixture copies a fixture of the repository to dst (made with its
// parent folders).
func copyFixture(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentHome lays out a fake home with Claude Code, Codex (active and
// archived) and hermes session folders, each holding fixtures of its
// format, plus a hermes-agent clone whose JSON must not be read.
func agentHome(t *testing.T) string {
	home := fakeHome(t)
	copyFixture(t, filepath.Join("fixtures", "ingest", "claude-code", "session.jsonl"),
		filepath.Join(home, ".claude", "projects", "-home-u-app", "5e55-c0de.jsonl"))
	codex := filepath.Join("fixtures", "ingest", "codex", "2026", "02", "03")
	copyFixture(t, filepath.Join(codex, "rollout-2026-02-03T10-00-00-0a0a0a0a-0000-4000-8000-00000000abcd.jsonl"),
		filepath.Join(home, ".codex", "sessions", "2026", "02", "03", "rollout-2026-02-03T10-00-00-0a0a0a0a-0000-4000-8000-00000000abcd.jsonl"))
	copyFixture(t, filepath.Join(codex, "rollout-2026-02-03T10-20-00-0b0b0b0b-0000-4000-8000-00000000beef.jsonl"),
		filepath.Join(home, ".codex", "archived_sessions", "rollout-2026-02-03T10-20-00-0b0b0b0b-0000-4000-8000-00000000beef.jsonl"))
	copyFixture(t, filepath.Join("fixtures", "ingest", "hermes", "gateway", "20260413_083748_5a617929.jsonl"),
		filepath.Join(home, ".hermes", "sessions", "20260413_083748_5a617929.jsonl"))
	// Not a session folder: ~/.hermes/hermes-agent is the installer's clone.
	if err := os.MkdirAll(filepath.Join(home, ".hermes", "hermes-agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".hermes", "hermes-agent", "package.json"), []byte(`{"name":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestDiscoveryFakeHome(t *testing.T) {
	home := agentHome(t)
	out, stderr, code := loopgate(t, "replay", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"reading claude-code sessions in " + filepath.Join(home, ".claude", "projects") + ": 1 file",
		"reading codex sessions in " + filepath.Join(home, ".codex", "sessions") + ": 1 file",
		"reading codex sessions in " + filepath.Join(home, ".codex", "archived_sessions") + ": 1 file",
		"reading hermes sessions in " + filepath.Join(home, ".hermes", "sessions") + ": 1 file",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var rep struct {
		Summary  struct{ Files, Problems int }
		Sessions []struct {
			File, Format string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// The fixtures hold problems of their own on purpose; none is the
	// clone's package.json, which is not read.
	if rep.Summary.Files != 4 || strings.Contains(stderr, "hermes-agent") {
		t.Errorf("files %d; want 4 files (the clone's package.json not read)\n%s", rep.Summary.Files, stderr)
	}
	formats := map[string]bool{}
	for _, s := range rep.Sessions {
		formats[s.Format] = true
	}
	for _, f := range []string{"claude-code", "codex"} {
		if !formats[f] {
			t.Errorf("no %s session read: %v", f, formats)
		}
	}

	// --agent restricts the search.
	_, stderr, code = loopgate(t, "inspect", "--agent", "codex")
	if code != exitOK || strings.Contains(stderr, "claude-code") || !strings.Contains(stderr, "archived_sessions") {
		t.Errorf("--agent codex: exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = loopgate(t, "inspect", "--agent", "nope")
	if code != exitUsage || !strings.Contains(stderr, `unknown --agent "nope"`) {
		t.Errorf("--agent nope: exit %d, stderr %q", code, stderr)
	}

	// The variables that move a home win over the default.
	moved := t.TempDir()
	copyFixture(t, filepath.Join("fixtures", "ingest", "claude-code", "session.jsonl"), filepath.Join(moved, "projects", "p", "s.jsonl"))
	t.Setenv("CLAUDE_CONFIG_DIR", moved)
	_, stderr, _ = loopgate(t, "inspect", "--agent", "claude-code")
	if !strings.Contains(stderr, filepath.Join(moved, "projects")) || strings.Contains(stderr, filepath.Join(home, ".claude")) {
		t.Errorf("CLAUDE_CONFIG_DIR not followed:\n%s", stderr)
	}
}

func TestWhere(t *testing.T) {
	home := agentHome(t)
	// A location that names its files (Kimi's context.jsonl among other
	// files), and one that names a file (hermes' state.db).
	// Cline CLI's session folder holds its messages and its metadata.
	for _, f := range []string{".kimi/sessions/w1/s1/context.jsonl", ".kimi/sessions/w1/s1/other.jsonl", ".hermes/state.db",
		".cline/data/sessions/s1/s1.messages.json", ".cline/data/sessions/s1/s1.json"} {
		copyFixture(t, filepath.Join("fixtures", "replay", "healthy.json"), filepath.Join(home, filepath.FromSlash(f)))
	}
	out, stderr, code := loopgate(t, "where")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"claude-code", filepath.Join(home, ".claude", "projects"), "codex", "archived_sessions", "hermes", "nanobot", "openhands",
		filepath.Join(home, ".cline", "data", "sessions"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("where lacks %q:\n%s", want, out)
		}
	}
	// Each line says whether the folder exists.
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, filepath.Join(".codex", "sessions")) && !strings.Contains(line, "1 file"):
			t.Errorf("codex sessions line does not count its file: %q", line)
		case strings.Contains(line, filepath.Join(".nanobot", "workspace", "sessions")) && !strings.Contains(line, "absent"):
			t.Errorf("nanobot line does not say absent: %q", line)
		case strings.Contains(line, filepath.Join(".kimi", "sessions")) && !strings.Contains(line, "1 file"):
			t.Errorf("kimi line does not count its one context.jsonl: %q", line)
		case strings.Contains(line, filepath.Join(".hermes", "state.db")) && !strings.Contains(line, "1 file"):
			t.Errorf("hermes state.db line does not count it: %q", line)
		case strings.Contains(line, filepath.Join(".cline", "data", "sessions")) && !strings.Contains(line, "1 file"):
			t.Errorf("Cline CLI line does not count its one messages.json: %q", line)
		}
	}
}

func TestHonestExits(t *testing.T) {
	fakeHome(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad") // 30 files of no known format
	for i := range 30 {
		copyFixture(t, filepath.Join("fixtures", "replay", "healthy.json"), filepath.Join(bad, fmt.Sprintf("ok%02d.json", i)))
		if err := os.WriteFile(filepath.Join(bad, fmt.Sprintf("bad%02d.jsonl", i)), []byte("not json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "typo.jsonl")
	for _, cmd := range []string{"replay", "compare", "inspect"} {
		_, stderr, code := loopgate(t, cmd, missing)
		if code != exitUsage || !strings.Contains(stderr, missing) {
			t.Errorf("%s of a missing path: exit %d, stderr %q; want 2 naming it", cmd, code, stderr)
		}
		_, stderr, code = loopgate(t, cmd, bad)
		if code != exitOK {
			t.Errorf("%s of a bad file: exit %d: %s", cmd, code, stderr)
		}
		// The first 20 problems and the count of the rest.
		if n := strings.Count(stderr, ".jsonl:"); n != 20 || !strings.Contains(stderr, "30 problems") || !strings.Contains(stderr, "…and 10 more") {
			t.Errorf("%s: %d problems on stderr, want 20 then the count of 10 more:\n%s", cmd, n, stderr)
		}
	}
	out, _, _ := loopgate(t, "compare", "--format", "json", "--preset", "nanobot", bad)
	var cmp struct {
		Problems []struct{ File, Message string }
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || len(cmp.Problems) != 30 {
		t.Errorf("compare json lists %d problems (%v), want 30", len(cmp.Problems), err)
	}
	out, _, _ = loopgate(t, "sweep", "--format", "json", "--vary", "detectors.repeat.block_at=3,4", bad)
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || len(cmp.Problems) != 30 {
		t.Errorf("sweep json lists %d problems (%v), want 30", len(cmp.Problems), err)
	}
	for _, args := range [][]string{
		{"replay", "--progress", "sometimes", bad},
		{"replay", "--max-decisions", "-1", bad},
		{"replay", "--top", "-2", bad},
		{"replay", "--by", "week", bad},
		{"replay", "--since", "yesterday", bad},
		{"replay", "--agent", "codex", bad},
	} {
		if _, stderr, code := loopgate(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
	}
}

// TestCIDocGateSetupRuns: docs/ci.md's gate file, put where its workflow's
// command looks for it, must be a gate that runs (exit 0 or 1, not 2): its
// transcript paths were relative to the wrong folder.
func TestCIDocGateSetupRuns(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(doc), "## The gate file")
	_, block, ok := strings.Cut(after, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.Contains(block, "cases:") {
		t.Fatalf("no gate file example in docs/ci.md")
	}
	const command = "loopgate gate golden/loopgate.gate.yaml"
	if !strings.Contains(string(doc), command) {
		t.Fatalf("docs/ci.md no longer runs %q", command)
	}
	root := t.TempDir()
	copyFixture(t, filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"), filepath.Join(root, "golden", "loops", "read-loop.jsonl"))
	for _, f := range []string{"refactor.jsonl", "research.jsonl"} {
		copyFixture(t, filepath.Join("fixtures", "golden", "healthy", f), filepath.Join(root, "golden", "healthy", f))
	}
	if err := os.WriteFile(filepath.Join(root, "golden", "loopgate.gate.yaml"), []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	out, stderr, code := loopgate(t, strings.Fields(command)[1:]...)
	if code == exitUsage || strings.Contains(stderr, "matches no file") {
		t.Errorf("the documented setup does not run: exit %d\n%s%s", code, out, stderr)
	}
}

// TestSessionNotesReachReports: a reader's notes (Codex web_search_call
// items, which no guard replays) are in replay's JSON and JSONL and in the
// table, not only in inspect.
func TestSessionNotesReachReports(t *testing.T) {
	file := filepath.Join("fixtures", "ingest", "codex", "2026", "02", "03", "rollout-2026-02-03T10-00-00-0a0a0a0a-0000-4000-8000-00000000abcd.jsonl")
	for _, format := range []string{"json", "jsonl", "table", "markdown"} {
		out, stderr, code := loopgate(t, "replay", "--format", format, "--tokenizer", "chars4", file)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		if format == "markdown" {
			continue // a pull-request comment keeps to the guard's findings
		}
		if !strings.Contains(out, "web_search_call item(s) not replayed") {
			t.Errorf("%s: the web_search_call note is missing:\n%s", format, out)
		}
	}
}

// TestTimesAndFilters: sessions carry started_at and ended_at, and
// --since, --until, --session and --tool choose among them.
func TestTimesAndFilters(t *testing.T) {
	dir := filepath.Join("fixtures", "ingest", "codex", "2026")
	sessions := func(args ...string) []string {
		t.Helper()
		out, stderr, code := loopgate(t, append([]string{"replay", "--format", "json", "--tokenizer", "chars4", "--allow-empty", dir}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var rep struct {
			Sessions []struct {
				ID        string `json:"id"`
				StartedAt string `json:"started_at"`
				EndedAt   string `json:"ended_at"`
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range rep.Sessions {
			if s.StartedAt == "" || s.EndedAt == "" || s.EndedAt < s.StartedAt {
				t.Errorf("session %s: started_at %q, ended_at %q", s.ID, s.StartedAt, s.EndedAt)
			}
			ids = append(ids, s.ID+"@"+s.StartedAt[:10])
		}
		return ids
	}
	all := sessions()
	if len(all) < 3 {
		t.Fatalf("the codex fixtures hold %d sessions, want 3 or more: %v", len(all), all)
	}
	for _, c := range []struct {
		args []string
		keep func(id string) bool
	}{
		{[]string{"--since", "2026-02-04"}, func(id string) bool { return strings.HasSuffix(id, "2026-02-04") }},
		{[]string{"--until", "2026-02-03"}, func(id string) bool { return strings.HasSuffix(id, "2026-02-03") }},
		{[]string{"--since", "2026-02-04T00:00:00Z", "--until", "2026-02-04T23:59:59Z"}, func(id string) bool { return strings.HasSuffix(id, "2026-02-04") }},
		{[]string{"--since", "100000d"}, func(string) bool { return true }},
		{[]string{"--since", "1h"}, func(string) bool { return false }},
		{[]string{"--session", strings.Split(all[0], "@")[0][:8]}, func(id string) bool { return strings.HasPrefix(id, strings.Split(all[0], "@")[0][:8]) }},
	} {
		got := sessions(c.args...)
		var want []string
		for _, id := range all {
			if c.keep(id) {
				want = append(want, id)
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%v: sessions %v, want %v", c.args, got, want)
		}
	}
	// What the filters left out is said on standard error, sessions
	// without a time included.
	_, stderr, _ := loopgate(t, "replay", "--format", "json", "--tokenizer", "chars4", "--since", "2026-02-04", dir, filepath.Join("fixtures", "replay", "healthy.json"))
	if !strings.Contains(stderr, "the filters kept 1 of 4 sessions; 1 session recorded no time") {
		t.Errorf("no word of what the filters left out:\n%s", stderr)
	}
	// --tool keeps the sessions that call the tool.
	if got := sessions("--tool", "no_such_tool"); len(got) != 0 {
		t.Errorf("--tool no_such_tool kept %v", got)
	}
	if got := sessions("--tool", "exec_command"); len(got) == 0 {
		t.Errorf("--tool exec_command kept nothing")
	}
}

// TestExplain: every decision names the call it counted against, and
// explain prints that chain: each earlier call with the same guard key,
// its line, what the guard did and the first line of its result.
func TestExplain(t *testing.T) {
	loop := filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl")
	out, _, code := loopgate(t, "replay", "--preset", "nanobot", "--format", "json", loop)
	if code != exitOK {
		t.Fatalf("replay exit %d", code)
	}
	var rep struct {
		Sessions []struct {
			Decisions []struct {
				Call, Line, Repeats int
				RepeatsLine         int `json:"repeats_line"`
				Action              string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	lines := map[int]int{}
	for _, d := range rep.Sessions[0].Decisions {
		lines[d.Call] = d.Line
	}
	for _, d := range rep.Sessions[0].Decisions {
		// The fixture reads one file six times in one turn, call k on
		// line 2k+1: each call counts against the most recent earlier
		// one ("the most recent earlier call with the same guard key",
		// docs/cli.md, "What the numbers mean": repeats).
		if want := d.Call - 1; d.Repeats != want || d.RepeatsLine != 2*want+1 || d.Line != 2*d.Call+1 {
			t.Errorf("call %d: repeats %d (line %d), want call %d (line %d)", d.Call, d.Repeats, d.RepeatsLine, want, 2*want+1)
		}
	}

	out, stderr, code := loopgate(t, "explain", "--preset", "nanobot", "--call", "4", loop)
	if code != exitOK {
		t.Fatalf("explain exit %d: %s", code, stderr)
	}
	for _, want := range []string{"call 4 (turn 1, line 9): read_file", "-> block", "by the repeat detector at count 4",
		"counted against call 3 (line 7)", "INFO scheduler starting"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	// The chain: calls 1-4, each marked counted, with its line and action.
	chain := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == "*" {
			chain++
			if f[1] != fmt.Sprint(chain) {
				t.Errorf("chain link %d is call %s", chain, f[1])
			}
		}
	}
	if chain != 4 {
		t.Errorf("chain of %d calls, want 4:\n%s", chain, out)
	}
	out, _, code = loopgate(t, "explain", "--preset", "nanobot", "--call", "4", "--format", "json", loop)
	var ex struct {
		Chain []struct {
			Call    int
			Counted bool
			Action  string
		}
		Why string
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil || code != exitOK || len(ex.Chain) != 4 || ex.Chain[3].Action != "block" {
		t.Errorf("explain json: exit %d, %v, %+v", code, err, ex)
	}
	for _, args := range [][]string{
		{"explain", loop},                                     // no --call
		{"explain", "--call", "99", loop},                     // no such call
		{"explain", "--call", "1", "--session", "nope", loop}, // no such session
		{"explain", "--call", "1", filepath.Join(t.TempDir(), "missing.jsonl")},
	} {
		if _, stderr, code := loopgate(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

// TestGateInit: gate init writes a gate file with one case per transcript
// whose expectations hold on the replay they came from, and the gate runs.
func TestGateInit(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"read-loop.jsonl", "fetch-loop.jsonl"} {
		copyFixture(t, filepath.Join("fixtures", "golden", "loops", f), filepath.Join(dir, "golden", f))
	}
	file := filepath.Join(dir, "ci", "loopgate.gate.yaml")
	out, stderr, code := loopgate(t, "gate", "init", "--preset", "nanobot", "--output", file, filepath.Join(dir, "golden"))
	if code != exitOK || !strings.Contains(out, "2 cases") || !strings.Contains(out, "loopgate gate --update "+file) {
		t.Fatalf("gate init: exit %d\n%s%s", code, out, stderr)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"preset: nanobot", "snapshots: true", `transcript: "../golden/read-loop.jsonl"`, "blocked: 4", "harmful: 0"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("gate file lacks %q:\n%s", want, text)
		}
	}
	out, stderr, code = loopgate(t, "gate", file)
	if code != exitOK || !strings.Contains(out, "2 case(s): 2 passed") {
		t.Errorf("the written gate does not pass: exit %d\n%s%s", code, out, stderr)
	}
	// It does not overwrite a gate file unless told.
	if _, stderr, code := loopgate(t, "gate", "init", "--output", file, filepath.Join(dir, "golden")); code != exitUsage || !strings.Contains(stderr, "exists") {
		t.Errorf("overwrite: exit %d, %q", code, stderr)
	}
	if _, _, code := loopgate(t, "gate", "init", "--force", "--output", file, filepath.Join(dir, "golden")); code != exitOK {
		t.Errorf("--force: exit %d", code)
	}
}

// TestInspectShowsTimesAndNotes: inspect's JSON carries each session's
// times and notes, and its table lists the notes.
func TestInspectShowsTimesAndNotes(t *testing.T) {
	file := filepath.Join("fixtures", "ingest", "codex", "2026", "02", "03", "rollout-2026-02-03T10-00-00-0a0a0a0a-0000-4000-8000-00000000abcd.jsonl")
	out, _, code := loopgate(t, "inspect", "--format", "json", file)
	if code != exitOK || !strings.Contains(out, `"started_at": "2026-02-03T10:00:01Z"`) || !strings.Contains(out, "web_search_call item(s) not replayed") {
		t.Errorf("inspect json: exit %d\n%s", code, out)
	}
	out, _, _ = loopgate(t, "inspect", file)
	if !strings.Contains(out, "Notes\n#1 ") {
		t.Errorf("inspect table lists no notes:\n%s", out)
	}
}

// TestMergedTuningListsProblems: compare's JSON lists the input problems,
// and the merge of its shards lists them as one run does.
func TestMergedTuningListsProblems(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"healthy.json", "read-loop.json", "changed-file.json"} {
		copyFixture(t, filepath.Join("fixtures", "replay", f), filepath.Join(dir, f))
	}
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bad%d.jsonl", i)), []byte("not json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"compare", "--preset", "nanobot,loopgate", "--format", "json", "--tokenizer", "chars4", dir}
	one, _, code := loopgate(t, args...)
	if code != exitOK || strings.Count(one, `"message"`) != 3 {
		t.Fatalf("one run: exit %d, %d problems listed:\n%s", code, strings.Count(one, `"message"`), one)
	}
	var parts []string
	for k := 1; k <= 2; k++ {
		out, stderr, code := loopgate(t, append(args, "--shard", fmt.Sprintf("%d/2", k))...)
		if code != exitOK {
			t.Fatalf("shard %d: exit %d: %s", k, code, stderr)
		}
		p := filepath.Join(t.TempDir(), "part.json")
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	merged, stderr, code := loopgate(t, append([]string{"merge", "--format", "json"}, parts...)...)
	if code != exitOK || merged != one {
		t.Errorf("merged compare differs from one run (exit %d, %s):\n%s\n---\n%s", code, stderr, merged, one)
	}
}
