package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
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
			ID, Agent, Selector string
			Steered, Blocked    int
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
		got = append(got, s.Selector+" "+strconv.Itoa(s.Steered)+"s"+strconv.Itoa(s.Blocked)+"b")
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
	all := "7c1d-2e9a 0s0b|7c1d-2e9a/sidechain-s1 4s0b|7c1d-2e9a/a7f3 0s3b"
	for _, tc := range []struct{ session, want string }{
		{"", all},
		{"7c1d", all},      // a prefix of the id keeps every scope
		{"7c1d-2e9a", all}, // as the id itself does in a replay
		{"7c1d-2e9a/main", "7c1d-2e9a 0s0b"},
		{"7c1d-2e9a/a7f3", "7c1d-2e9a/a7f3 0s3b"},
		{"7c1d-2e9a/sidechain", "7c1d-2e9a/sidechain-s1 4s0b"},
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
		{"7c1d-2e9a/a7f3", "session 7c1d-2e9a/a7f3,|: Grep {\"pattern\":\"frob\",\"path\":\"/w\"} -> block"},
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
