package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/decisionlog"
	"github.com/loopgate/loopgate/rules"
)

func testConfig(t *testing.T, agent, preset string) Config {
	t.Helper()
	r, err := rules.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return Config{Protocol: Lookup(agent), Rules: r, RulesName: preset, StateDir: filepath.Join(dir, "state"), Log: filepath.Join(dir, "decisions.jsonl")}
}

func claudeEvent(name, session, extra string) []byte {
	return []byte(`{"hook_event_name":"` + name + `","session_id":"` + session + `","cwd":"/"` + extra + `}`)
}

func preRead(session, id, path string) []byte {
	return claudeEvent("PreToolUse", session, `,"tool_name":"Read","tool_input":{"file_path":"`+path+`"},"tool_use_id":"`+id+`"`)
}

func postRead(session, id, path, result string) []byte {
	return claudeEvent("PostToolUse", session, `,"tool_name":"Read","tool_input":{"file_path":"`+path+`"},"tool_use_id":"`+id+`","tool_response":"`+result+`"`)
}

// TestClaudeCodeAnswers checks the answers of the Claude Code protocol to
// nanobot's local-call guard (budget 2: the 3rd identical read is blocked)
// as Claude Code's hooks documentation gives them: "permissionDecision":
// "deny" with "permissionDecisionReason" in hookSpecificOutput.
func TestClaudeCodeAnswers(t *testing.T) {
	cfg := testConfig(t, "claude-code", "nanobot")
	// nanobot names read_file; Claude Code's Read is of the same class.
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("t%d", i)
		pre := Handle(cfg, preRead("s1", id, "/a"))
		if pre.Stderr != "" {
			t.Fatalf("call %d: stderr %q", i, pre.Stderr)
		}
		var out struct {
			HSO struct {
				Event    string `json:"hookEventName"`
				Decision string `json:"permissionDecision"`
				Reason   string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if len(pre.Stdout) > 0 {
			if err := json.Unmarshal(pre.Stdout, &out); err != nil {
				t.Fatalf("call %d: %v: %s", i, err, pre.Stdout)
			}
		}
		if i < 3 {
			if len(pre.Stdout) != 0 {
				t.Errorf("call %d: want no answer (allow), got %s", i, pre.Stdout)
			}
			Handle(cfg, postRead("s1", id, "/a", "same text"))
			continue
		}
		if out.HSO.Event != "PreToolUse" || out.HSO.Decision != "deny" || out.HSO.Reason == "" {
			t.Errorf("3rd identical read: want a deny with a reason, got %s", pre.Stdout)
		}
	}
	// Another session is not affected.
	if pre := Handle(cfg, preRead("s2", "t1", "/a")); len(pre.Stdout) != 0 {
		t.Errorf("other session: %s", pre.Stdout)
	}
	// A new user prompt is a new turn: nanobot's budget is per turn.
	Handle(cfg, claudeEvent("UserPromptSubmit", "s1", `,"prompt":"next"`))
	if pre := Handle(cfg, preRead("s1", "t4", "/a")); len(pre.Stdout) != 0 {
		t.Errorf("after a new prompt: %s", pre.Stdout)
	}
}

// TestShadowNeverStops: under --shadow the same calls are answered with
// nothing, and the decision log says what the guard would have done, with
// the real result of the call that ran anyway.
func TestShadowNeverStops(t *testing.T) {
	cfg := testConfig(t, "claude-code", "nanobot")
	cfg.Shadow = true
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("t%d", i)
		if pre := Handle(cfg, preRead("s1", id, "/a")); len(pre.Stdout) != 0 || pre.Stderr != "" {
			t.Fatalf("shadow call %d answered %q %q", i, pre.Stdout, pre.Stderr)
		}
		Handle(cfg, postRead("s1", id, "/a", "text "+id))
	}
	lines := readLines(t, cfg.Log)
	var blocked, results int
	for _, l := range lines {
		if l.Event == "call" && l.Call == 3 && l.Action == "block" && l.Shadow {
			blocked++
		}
		if l.Event == "result" && l.Call == 3 && l.Result != nil && *l.Result == "text t3" {
			results++
		}
	}
	if blocked != 1 || results != 1 {
		t.Errorf("want the 3rd call logged as blocked and its real result logged; got %d, %d in\n%v", blocked, results, lines)
	}
}

func readLines(t *testing.T, path string) []decisionlog.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []decisionlog.Record
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var l decisionlog.Record
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if l.Loopgate != decisionlog.Tag {
			t.Errorf("line without the tag: %s", line)
		}
		out = append(out, l)
	}
	return out
}

// TestFailOpen: nothing that goes wrong stops the agent. Each case must
// allow (no answer, exit 0), say why on stderr, and log a problem.
func TestFailOpen(t *testing.T) {
	cases := []struct {
		name  string
		setup func(cfg *Config)
		input []byte
		want  string
	}{
		{"malformed event", nil, []byte(`{"hook_event_name": "PreToolUse", `), "not a JSON object"},
		{"not an object", nil, []byte(`[1,2]`), "not a JSON object"},
		{"no session id", nil, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Read"}`), "no session id"},
		{"no tool name", nil, claudeEvent("PreToolUse", "s", ""), "no tool name"},
		{"no rules", func(cfg *Config) { cfg.Rules = nil }, preRead("s", "t1", "/a"), "not configured"},
		{"state directory is a file", func(cfg *Config) {
			os.MkdirAll(filepath.Dir(cfg.StateDir), 0o700)
			os.WriteFile(cfg.StateDir, []byte("x"), 0o600)
		}, preRead("s", "t1", "/a"), "state directory"},
		{"state log unreadable", func(cfg *Config) {
			ensureDir(cfg.StateDir)
			// A directory where the log should be: reading it fails.
			os.Mkdir(filesOf(cfg.StateDir, "s").log("main"), 0o700)
		}, preRead("s", "t1", "/a"), "session state"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "claude-code", "nanobot")
			if tc.setup != nil {
				tc.setup(&cfg)
			}
			r := Handle(cfg, tc.input)
			if len(r.Stdout) != 0 || r.Exit != 0 {
				t.Errorf("want allow, got exit %d %q", r.Exit, r.Stdout)
			}
			if !strings.Contains(r.Stderr, tc.want) || !strings.Contains(r.Stderr, "fails open") {
				t.Errorf("stderr %q, want %q", r.Stderr, tc.want)
			}
			lines := readLines(t, cfg.Log)
			if len(lines) == 0 || lines[len(lines)-1].Event != "problem" || !strings.Contains(lines[len(lines)-1].Problem, tc.want) {
				t.Errorf("no problem logged: %v", lines)
			}
		})
	}
}

// TestCorruptLogLine: a log line cut short (a crash) is skipped and named;
// the calls before it still count.
func TestCorruptLogLine(t *testing.T) {
	cfg := testConfig(t, "claude-code", "nanobot")
	for i := 1; i <= 2; i++ {
		id := fmt.Sprintf("t%d", i)
		Handle(cfg, preRead("s", id, "/a"))
		Handle(cfg, postRead("s", id, "/a", "x"))
	}
	f, _ := os.OpenFile(filesOf(cfg.StateDir, "s").log("main"), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString("B\tt9\t12")
	f.Close()
	r := Handle(cfg, preRead("s", "t3", "/a"))
	if !strings.Contains(r.Stderr, "cut short") {
		t.Errorf("stderr %q, want the cut line named", r.Stderr)
	}
	if !bytes.Contains(r.Stdout, []byte(`"deny"`)) {
		t.Errorf("the two earlier reads were lost: %s", r.Stdout)
	}
}

// TestConcurrentHooks fires the hooks of one session's parallel calls at
// once: every call must be in the state (none lost to a race), so the
// guard counts them all.
func TestConcurrentHooks(t *testing.T) {
	cfg := testConfig(t, "claude-code", "nanobot")
	const n = 24
	var wg sync.WaitGroup
	replies := make([]Reply, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("p%d", i)
			replies[i] = Handle(cfg, preRead("par", id, "/same"))
			if !bytes.Contains(replies[i].Stdout, []byte("deny")) {
				Handle(cfg, postRead("par", id, "/same", "same"))
			}
		}(i)
	}
	wg.Wait()
	s := newSession(cfg.Rules, "claude-code", "")
	if _, err := readLog(filesOf(cfg.StateDir, "par").log("main"), s); err != nil {
		t.Fatal(err)
	}
	if s.index != n {
		t.Errorf("%d calls in the state, want %d", s.index, n)
	}
	denied := 0
	for _, r := range replies {
		if r.Stderr != "" {
			t.Errorf("stderr: %s", r.Stderr)
		}
		if bytes.Contains(r.Stdout, []byte("deny")) {
			denied++
		}
	}
	// nanobot's budget is 2: every identical call after the 2nd is denied,
	// whatever order the hooks ran in.
	if denied != n-2 {
		t.Errorf("%d calls denied, want %d", denied, n-2)
	}
	if got := len(readLines(t, cfg.Log)); got < n {
		t.Errorf("%d decision log lines, want at least %d", got, n)
	}
}

// TestHostileSessionIDs: a session id is only ever part of a file name
// inside the state directory, whatever it holds.
func TestHostileSessionIDs(t *testing.T) {
	cfg := testConfig(t, "claude-code", "nanobot")
	cfg.Log = ""
	ids := []string{"../../etc/passwd", "/abs/path", "..", ".", "a/b\\c", "x\x00y", strings.Repeat("z", 5000), "€ünï", ""}
	for _, id := range ids {
		q, _ := json.Marshal(id)
		ev := []byte(`{"hook_event_name":"PreToolUse","session_id":` + string(q) + `,"tool_name":"Read","tool_input":{"file_path":"../../x"},"tool_use_id":"../../t"}`)
		Handle(cfg, ev)
	}
	entries, err := os.ReadDir(cfg.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), statePrefix) && e.Name() != ".expired" {
			t.Errorf("unexpected file %q", e.Name())
		}
		if len(e.Name()) > 120 {
			t.Errorf("file name of %d bytes", len(e.Name()))
		}
	}
	// Nothing was written outside the state directory.
	parent, _ := os.ReadDir(filepath.Dir(cfg.StateDir))
	for _, e := range parent {
		if e.Name() != "state" {
			t.Errorf("file %q outside the state directory", e.Name())
		}
	}
	if fileKey("a/b") == fileKey("a_b") || fileKey("ab") == fileKey("a/b") {
		t.Error("distinct ids share a file name")
	}
	if fi, err := os.Stat(cfg.StateDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state directory mode %v, want 0700", fi.Mode().Perm())
	}
}

// TestRoundTripRecords: every record kind reads back as written, with
// tabs, newlines and backslashes in its fields.
func TestRoundTripRecords(t *testing.T) {
	recs := []record{
		{kind: 'P'}, {kind: 'C'},
		{kind: 'B', id: "a\tb", time: 1700000000123456789, request: "m:r", tool: "Bash", argsOK: true, args: `{"command":"echo \\t\n"}`},
		{kind: 'B', id: "x", tool: "T", args: "not json\\"},
		{kind: 'A', id: "a\tb", hash: 0xdeadbeefcafe, failed: true, blank: true, result: "line1\nline2\r\\"},
		{kind: 'A', id: "big", hash: 7, isError: true, size: 123456},
		{kind: 'A', id: "none", hash: 9, failed: true, blank: true, isError: true, exit1: true, size: 10},
		{kind: 'E', id: "x"},
		{kind: 'P', id: "turn-2"},
		{kind: 'P', id: "turn-3", known: true, paths: "src/a.go\nb\tc.md"},
		{kind: 'P', known: true},
		{kind: 'O', tool: "Write", argsOK: true, args: `{"file_path":"/w/a\tb.txt","content":"x\n"}`},
		{kind: 'O', tool: "T", args: "not json\\"},
	}
	for _, r := range recs {
		line := string(r.encode(nil))
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Fatalf("%q is not one line", line)
		}
		got, err := decodeRecord(strings.TrimSuffix(line, "\n"))
		if err != nil || got != r {
			t.Errorf("%q read back as %+v, %v; want %+v", line, got, err, r)
		}
	}
	for _, bad := range []string{"", "Q", "B\tonly", "A\tx\tzz\t\t", "PP", "A\tx\t7\tc\t", "A\tx\t7\tc-1\t"} {
		if _, err := decodeRecord(bad); err == nil {
			t.Errorf("%q read without error", bad)
		}
	}
}

// TestExpire: sessions untouched longer than the TTL are removed, others
// and files that are not the hook's stay.
func TestExpire(t *testing.T) {
	cfg := testConfig(t, "claude-code", "nanobot")
	Handle(cfg, preRead("old", "t1", "/a"))
	Handle(cfg, preRead("new", "t1", "/a"))
	os.WriteFile(filepath.Join(cfg.StateDir, "keep.txt"), nil, 0o600)
	old := filesOf(cfg.StateDir, "old")
	past := time.Now().Add(-30 * 24 * time.Hour)
	for _, f := range []string{old.lock, old.log("main")} {
		os.Chtimes(f, past, past)
	}
	expire(cfg.StateDir, 7*24*time.Hour, time.Now())
	if _, err := os.Stat(old.log("main")); !os.IsNotExist(err) {
		t.Error("old session kept")
	}
	for _, f := range []string{filesOf(cfg.StateDir, "new").log("main"), filepath.Join(cfg.StateDir, "keep.txt")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed", f)
		}
	}
}

// TestLogNumbers: the log's number readers agree with strconv on what they
// take and what they refuse.
func TestLogNumbers(t *testing.T) {
	for _, s := range []string{"0", "7", "1700000000123456789", "999999999999999999", "9223372036854775807",
		"9223372036854775808", "-5", "+5", "", "12a", " 1", "00012"} {
		got, err := parseDecimal(s)
		want, werr := strconv.ParseInt(s, 10, 64)
		if got != want || (err == nil) != (werr == nil) {
			t.Errorf("parseDecimal(%q) = %d, %v; strconv: %d, %v", s, got, err, want, werr)
		}
	}
	for _, s := range []string{"0", "deadbeefcafe", "DEADBEEF", "ffffffffffffffff", "1ffffffffffffffff",
		"", "g1", "-1", "0x1f", "0000000000000001"} {
		got, err := parseHex(s)
		want, werr := strconv.ParseUint(s, 16, 64)
		if got != want || (err == nil) != (werr == nil) {
			t.Errorf("parseHex(%q) = %d, %v; strconv: %d, %v", s, got, err, want, werr)
		}
	}
}
