package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// subagentFile is a Claude Code session written for these tests: a main
// chain that starts two Task subagents in the same file, one an in-file
// sidechain with no agentId (it reads the same log five times), one with
// its agentId (it greps for the same symbol four times).
var subagentFile = filepath.Join("fixtures", "subagents", "7c1d-2e9a.jsonl")

// selectors replays args as JSON and returns each session's selector
// with its steered and blocked counts.
func selectors(t *testing.T, args ...string) []string {
	t.Helper()
	out, stderr, code := loopgate(t, append([]string{"replay", "-f", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("replay %v: exit %d: %s", args, code, stderr)
	}
	var rep struct {
		Sessions []struct {
			ID, Agent, Selector       string
			Steered, Blocked, Deduped int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Sessions {
		if !strings.HasPrefix(s.Selector, s.ID) {
			t.Errorf("selector %q does not begin with the id %q", s.Selector, s.ID)
		}
		got = append(got, s.Selector+" "+strconv.Itoa(s.Steered)+"s"+strconv.Itoa(s.Blocked)+"b"+strconv.Itoa(s.Deduped)+"d")
	}
	return got
}

// loopgateAt runs the CLI as loopgate does, on a terminal of cols columns.
func loopgateAt(t *testing.T, cols string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("NO_COLOR", "1")
	t.Setenv("COLUMNS", cols)
	var out, errb bytes.Buffer
	code := run(append([]string{"loopgate"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// TestSubagentSelectors: every session of a file with subagents has a
// selector of its own, which --session takes to pick it alone, in replay
// and in explain, and which the tables and explain's hint show.
func TestSubagentSelectors(t *testing.T) {
	all := "7c1d-2e9a 0s0b0d|7c1d-2e9a/sidechain-s1 4s0b0d|7c1d-2e9a/a7f3 0s0b3d"
	for _, tc := range []struct{ session, want string }{
		{"", all},
		{"7c1d", all},      // a prefix of the id keeps every scope
		{"7c1d-2e9a", all}, // as the id itself does in a replay
		{"7c1d-2e9a/main", "7c1d-2e9a 0s0b0d"},
		{"7c1d-2e9a/a7f3", "7c1d-2e9a/a7f3 0s0b3d"},
		{"7c1d-2e9a/sidechain", "7c1d-2e9a/sidechain-s1 4s0b0d"},
		{"7c1d-2e9a/nobody", ""},
	} {
		args := []string{subagentFile}
		if tc.session != "" {
			args = append(args, "--session", tc.session)
		}
		if got := strings.Join(selectors(t, args...), "|"); got != tc.want {
			t.Errorf("--session %q: got %q, want %q", tc.session, got, tc.want)
		}
	}

	// explain: with no --session the hint names every selector; each one
	// then picks its session, the id its main chain.
	_, stderr, code := loopgate(t, "explain", subagentFile, "--call", "2")
	if code != exitUsage || !strings.Contains(stderr, "3 sessions match; name one with --session: 7c1d-2e9a, 7c1d-2e9a/sidechain-s1, 7c1d-2e9a/a7f3") {
		t.Errorf("explain without --session: exit %d, %s", code, stderr)
	}
	for _, tc := range []struct{ session, want string }{
		{"7c1d-2e9a/a7f3", "session 7c1d-2e9a/a7f3,|: Grep {\"pattern\":\"frob\",\"path\":\"/w\"} -> dedup"},
		{"7c1d-2e9a/sidechain-s1", "session 7c1d-2e9a/sidechain-s1,|: Read {\"file_path\":\"/w/build.log\"} -> steer"},
		{"7c1d-2e9a/side", "session 7c1d-2e9a/sidechain-s1,"},
		{"7c1d-2e9a", "session 7c1d-2e9a,|: Task "},
		{"7c1d-2e9a/main", "session 7c1d-2e9a,|: Task "},
	} {
		out, stderr, code := loopgate(t, "explain", subagentFile, "--call", "2", "--session", tc.session)
		if code != exitOK {
			t.Errorf("explain --session %s: exit %d: %s", tc.session, code, stderr)
			continue
		}
		for _, w := range strings.Split(tc.want, "|") {
			if !strings.Contains(out, w) {
				t.Errorf("explain --session %s: no %q in\n%s", tc.session, w, out)
			}
		}
	}

	// The tables tell the sessions apart, at 80 columns too.
	for _, cols := range []string{"80", "140"} {
		out, _, _ := loopgateAt(t, cols, "replay", "-f", "table", subagentFile)
		for _, w := range []string{"7c1d-2e9a/a7f3", "7c1d-2e9a/sidechain-s1", "Decisions #1 7c1d-2e9a/a7f3 (3)"} {
			if !strings.Contains(out, w) {
				t.Errorf("COLUMNS=%s: the table has no %q:\n%s", cols, w, out)
			}
		}
	}
}

// TestUsageHints: a bad flag of a nested command names the command as it
// is typed and the flag as it is written; gate points to gate init.
func TestUsageHints(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gate", "init", "--foo", "x"}, "flag provided but not defined: --foo (see 'loopgate gate init --help')"},
		{[]string{"rules", "print", "--foo"}, "(see 'loopgate rules print --help')"},
		{[]string{"hook", "install", "--foo"}, "(see 'loopgate hook install --help')"},
		{[]string{"replay", "--jobs", "x", "fixtures/demo"}, `invalid value "x" for flag --jobs`},
		{[]string{"replay", "-z"}, "flag provided but not defined: -z (see 'loopgate replay --help')"},
		{[]string{"gate", "init", "fixtures/demo", "--output"}, "(try 'loopgate gate init --help')"},
		{[]string{"gate", dir}, filepath.Join(dir, "loopgate.gate.yaml") + ": cannot read the gate file: no such file or directory; write one from transcripts: loopgate gate init PATH... --output " + filepath.Join(dir, "loopgate.gate.yaml")},
		{[]string{"gate", filepath.Join(dir, "ci.yaml")}, "no such file or directory; write one from transcripts: loopgate gate init PATH... --output " + filepath.Join(dir, "ci.yaml")},
	} {
		_, stderr, code := loopgate(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// With no file, in a directory without one.
	t.Chdir(dir)
	if _, stderr, code := loopgate(t, "gate"); code != exitUsage || !strings.Contains(stderr, "name a gate file (loopgate gate FILE)") || !strings.Contains(stderr, "loopgate gate init PATH...") {
		t.Errorf("gate with no file: exit %d, %s", code, stderr)
	}
}

// TestGateInitNamesHarmfulCases: a case whose replay has a harmful stop is
// named at init with the line of its harmful: 0, and the gate's failure
// says to edit the expectation there (--update records snapshots only).
// A directory finds its loopgate.gate.yaml, and --rules is written as rules:.
func TestGateInitNamesHarmfulCases(t *testing.T) {
	dir := t.TempDir()
	gateFile := filepath.Join(dir, "loopgate.gate.yaml")
	corpus, _ := filepath.Abs(filepath.Join("fixtures", "replay"))
	_, stderr, code := loopgate(t, "gate", "init", corpus, "--preset", "nanobot", "--output", gateFile)
	if code != exitOK {
		t.Fatalf("gate init: exit %d: %s", code, stderr)
	}
	_, at, ok := strings.Cut(stderr, "edit the expectation at:\n  ")
	if !ok {
		t.Fatalf("gate init named no harmful case:\n%s", stderr)
	}
	at, _, _ = strings.Cut(at, " ")
	file, line, _ := strings.Cut(at, ":")
	n, _ := strconv.Atoi(line)
	b, _ := os.ReadFile(gateFile)
	lines := strings.Split(string(b), "\n")
	if file != gateFile || n < 1 || n > len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[n-1]), "harmful: 0") {
		t.Fatalf("gate init pointed at %s, which is not a harmful: 0 line of %s:\n%s", at, gateFile, b)
	}
	if !strings.Contains(stderr, "(changed-file.json: 1 harmful)") {
		t.Errorf("gate init did not name the case: %s", stderr)
	}
	out, _, code := loopgate(t, "gate", dir, "--update")
	if code != exitFindings || !strings.Contains(out, "edit the expectation at "+at) {
		t.Errorf("gate DIR --update: exit %d, want 1 and the line to edit (%s):\n%s", code, at, out)
	}

	rulesFile, _ := filepath.Abs(filepath.Join("fixtures", "rules", "good", "custom.yaml"))
	other := filepath.Join(dir, "sub", "rules.gate.yaml")
	if _, stderr, code := loopgate(t, "gate", "init", filepath.Join(corpus, "healthy.json"), "--rules", rulesFile, "--output", other); code != exitOK {
		t.Fatalf("gate init --rules: exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(other)
	rel, _ := filepath.Rel(filepath.Dir(other), rulesFile)
	if !strings.Contains(string(b), "\nrules: \""+filepath.ToSlash(rel)+"\"\n") || strings.Contains(string(b), "preset:") {
		t.Errorf("gate init --rules wrote:\n%s", b)
	}
	if out, stderr, code := loopgate(t, "gate", other); code != exitOK {
		t.Errorf("gate of init --rules: exit %d: %s%s", code, out, stderr)
	}
}

// TestOneAgentNameSet: replay, where and hook take the same names, the
// old spellings as aliases, and say so when an agent has no folder.
func TestOneAgentNameSet(t *testing.T) {
	fakeHome(t)
	whereOut := func(agent string) string {
		out, stderr, code := loopgate(t, "where", "--agent", agent)
		if code != exitOK {
			t.Fatalf("where --agent %s: exit %d: %s", agent, code, stderr)
		}
		return out
	}
	if a, b := whereOut("gemini"), whereOut("gemini-cli"); a != b || !strings.Contains(a, "gemini-cli") {
		t.Errorf("where --agent gemini and gemini-cli differ:\n%s\n%s", a, b)
	}
	if a, b := whereOut("kimi"), whereOut("kimi-cli"); a != b {
		t.Errorf("where --agent kimi and kimi-cli differ")
	}
	for _, agent := range []string{"gemini", "gemini-cli", "cursor", "claude-code"} {
		if out, stderr, code := loopgate(t, "hook", "install", "--agent", agent, "--dry-run", "--command", "/usr/local/bin/loopgate"); code != exitOK || !strings.Contains(out, "dry run") {
			t.Errorf("hook install --agent %s: exit %d: %s%s", agent, code, out, stderr)
		}
	}
	_, stderr, code := loopgate(t, "replay", "--agent", "cursor")
	if code != exitUsage || !strings.Contains(stderr, "--agent cursor: loopgate knows no default session folder of cursor") {
		t.Errorf("replay --agent cursor: exit %d: %s", code, stderr)
	}
	_, stderr, code = loopgate(t, "replay", "--agent", "nobody")
	if code != exitUsage || !strings.Contains(stderr, "gemini-cli") || !strings.Contains(stderr, "cursor") {
		t.Errorf("replay --agent nobody: exit %d: %s", code, stderr)
	}
	_, stderr, code = loopgate(t, "hook", "install", "--agent", "nobody")
	if code != exitUsage || !strings.Contains(stderr, "gemini-cli") || strings.Contains(stderr, "gemini,") {
		t.Errorf("hook install --agent nobody: exit %d: %s", code, stderr)
	}
}

// TestSweepBaseRow: a sweep's first row is the base rules as they are,
// and varying a key of a detector the base has off says it turns it on.
func TestSweepBaseRow(t *testing.T) {
	out, stderr, code := loopgate(t, "sweep", filepath.Join("fixtures", "demo"), "--vary", "detectors.repeat.block_at=2,4", "--tokenizer", "chars4", "-f", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "detectors.repeat is off in loopgate; varying detectors.repeat.block_at turns it on") {
		t.Errorf("no note of the detector turned on: %s", stderr)
	}
	var doc struct {
		Rows []struct {
			Settings []struct{ Key, Value string }
			Base     bool
			Summary  struct{ Blocked, Steered int }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 3 || !doc.Rows[0].Base || doc.Rows[1].Base || doc.Rows[0].Settings[0].Value != "off" || doc.Rows[1].Settings[0].Value != "2" {
		t.Fatalf("rows: %+v", doc.Rows)
	}
	// The base row is a replay under the base rules.
	one := replaySummary(t, filepath.Join("fixtures", "demo"))
	if b := doc.Rows[0].Summary; b.Blocked != one.Blocked || b.Steered != one.Steered {
		t.Errorf("base row %+v, replay %+v", b, one)
	}
	table, _, _ := loopgate(t, "sweep", filepath.Join("fixtures", "demo"), "--vary", "detectors.repeat.block_at=2,4", "-f", "table")
	if !strings.Contains(table, "\nbase") {
		t.Errorf("the table has no base row:\n%s", table)
	}
	// A detector the base has on: no note.
	if _, stderr, _ := loopgate(t, "sweep", filepath.Join("fixtures", "demo"), "--preset", "nanobot", "--vary", "detectors.repeat.block_at=2,4", "-f", "json"); strings.Contains(stderr, "turns it on") {
		t.Errorf("nanobot has repeat on, yet: %s", stderr)
	}
}

// TestUserReferencesResolve: what where --sources and rules print --source
// show cites files of the repository or public places, never a local
// reference folder, the product design, the lab's samples, an issue number
// or a path of a developer's machine (TestReferencesResolve checks the
// sources these come from).
func TestUserReferencesResolve(t *testing.T) {
	bad := regexp.MustCompile(`reference/[a-z-]+\.md|shared/|DESIGN\.md|\bissues? #?[0-9]+\b|§|(?:^|\s)/(?:work|home)/`)
	docRef := regexp.MustCompile(`(?:^|[\s(])(docs/[a-z/-]+\.md)`)
	outs := map[string]string{}
	out, _, _ := loopgate(t, "where", "--sources")
	outs["where --sources"] = out
	for _, p := range []string{"loopgate", "nanobot", "hermes", "hermes-strict", "hermes-2026-06", "hermes-strict-2026-06", "hermes-dedup", "hermes-breaker", "pi-loopguard"} {
		out, stderr, code := loopgate(t, "rules", "print", "--preset", p, "--source")
		if code != exitOK {
			t.Fatalf("rules print --preset %s --source: exit %d: %s", p, code, stderr)
		}
		outs["preset "+p] = out
	}
	for what, out := range outs {
		if m := bad.FindString(out); m != "" {
			t.Errorf("%s cites %q, which a user cannot look up", what, m)
		}
		for _, m := range docRef.FindAllStringSubmatch(out, -1) {
			if ref := m[1]; !fileExists(ref) {
				t.Errorf("%s cites %s, which is not in the repository", what, ref)
			}
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
