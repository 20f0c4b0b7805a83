package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// This file checks, on the real transcripts of the samples folder, that calls
// acting on the world are never redundant and that a guard stopping one
// reports a stopped action (docs/cli.md, "What the numbers mean";
// docs/rules.md, "Tool effects: observe or act").

// effectsReport is what these tests read of a replay's JSON.
type effectsReport struct {
	Summary struct {
		Blocked        int      `json:"blocked"`
		Deduped        int      `json:"deduped"`
		Redundant      int      `json:"redundant"`
		Harmful        int      `json:"harmful"`
		StoppedActions *int     `json:"stopped_actions"`
		Precision      *float64 `json:"precision"`
	} `json:"summary"`
	Sessions []struct {
		File           string `json:"file"`
		StoppedActions *int   `json:"stopped_actions"`
		Decisions      []struct {
			Call          int    `json:"call"`
			Tool          string `json:"tool"`
			Class         string `json:"class"`
			Action        string `json:"action"`
			Redundant     bool   `json:"redundant"`
			Harmful       bool   `json:"harmful"`
			StoppedAction *bool  `json:"stopped_action"`
		} `json:"decisions"`
	} `json:"sessions"`
}

func effectsReplay(t *testing.T, args ...string) effectsReport {
	t.Helper()
	out, stderr, code := loopgate(t, append([]string{"replay", "--format", "json", "--tokenizer", "chars4"}, args...)...)
	if code != 0 {
		t.Fatalf("replay %v: exit %d: %s", args, code, stderr)
	}
	var rep effectsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func sampleOrSkip(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "shared", "samples", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is absent (a user's checkout has no shared/): skipping", p)
	}
	return p
}

// observeRules writes a rules file that moves the given classes to
// observe: the truth as it was before effects, to show that the sample
// does repeat these calls with equal results.
func observeRules(t *testing.T, classes string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "observe.yaml")
	if err := os.WriteFile(p, []byte("extends: loopgate\neffects:\n  observe: ["+classes+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// redundantByTool counts the redundant decisions of the tools that match.
func redundantByTool(rep effectsReport, match func(tool string) bool) int {
	n := 0
	for _, s := range rep.Sessions {
		for _, d := range s.Decisions {
			if d.Redundant && match(d.Tool) {
				n++
			}
		}
	}
	return n
}

// TestActionsNeverRedundant: calls that act return the same
// acknowledgement when repeated, and are still not redundant.
//   - In the hermes gateway session the agent navigated to a new site, typed
//     into a field, pressed Enter and scrolled; each returned
//     {"success": true, ...} as an earlier identical call had.
//   - nanobot's cron session sends the same scheduled reminder with
//     message, several times.
//
// Read as observations (a rules file moving the class to observe), the
// same calls are redundant: the samples still hold what the test is about.
func TestActionsNeverRedundant(t *testing.T) {
	for _, c := range []struct {
		sample, class string
		tool          func(string) bool
		repeats       int // redundant when read as observations, at least
	}{
		{"third-party/hermes/OcarCampos-hermes-backup/sessions/20260524_153210_e6e08e06.jsonl", "browser",
			func(tool string) bool { return strings.HasPrefix(tool, "browser_") }, 4},
		{"nanobot", "message", func(tool string) bool { return tool == "message" }, 2},
	} {
		t.Run(c.class, func(t *testing.T) {
			path := sampleOrSkip(t, c.sample)
			if n := redundantByTool(effectsReplay(t, path), c.tool); n != 0 {
				t.Errorf("%s: %d %s calls are redundant, want none", c.sample, n, c.class)
			}
			observed := effectsReplay(t, "--rules", observeRules(t, c.class), path)
			if n := redundantByTool(observed, c.tool); n < c.repeats {
				t.Errorf("%s: with %s read as an observation, %d calls are redundant; the sample should repeat at least %d",
					c.sample, c.class, n, c.repeats)
			}
		})
	}
}

// TestStoppedSendsCounted: hermes-breaker blocks one of the repeated sends
// in the nanobot samples. That stop is a stopped action: counted in
// summary.stopped_actions and left out of precision, which covers the
// stopped observations only.
func TestStoppedSendsCounted(t *testing.T) {
	dir := sampleOrSkip(t, "nanobot")
	rep := effectsReplay(t, "--preset", "hermes-breaker", dir)
	s := rep.Summary
	if s.StoppedActions == nil {
		t.Fatal("summary.stopped_actions is missing")
	}
	sends, listed, sessionSum := 0, 0, 0
	for _, ss := range rep.Sessions {
		if ss.StoppedActions == nil {
			t.Fatalf("%s: sessions[].stopped_actions is missing", ss.File)
		}
		sessionSum += *ss.StoppedActions
		for _, d := range ss.Decisions {
			if d.StoppedAction == nil {
				t.Fatalf("%s call %d: decisions[].stopped_action is missing", ss.File, d.Call)
			}
			stopped := d.Action == "block" || d.Action == "dedup"
			if d.Tool == "message" && stopped {
				sends++
				if !*d.StoppedAction || d.Harmful || d.Redundant {
					t.Errorf("%s call %d: a stopped send reads stopped_action %v, harmful %v, redundant %v; want true, false, false",
						ss.File, d.Call, *d.StoppedAction, d.Harmful, d.Redundant)
				}
			}
			if *d.StoppedAction {
				listed++
				if !stopped || d.Class != "message" {
					t.Errorf("%s call %d: %s %s (class %s) is marked a stopped action", ss.File, d.Call, d.Action, d.Tool, d.Class)
				}
			}
		}
	}
	if sends == 0 {
		t.Fatal("hermes-breaker stops no message call in the nanobot samples; the test needs one")
	}
	if *s.StoppedActions != sends || listed != sends || sessionSum != sends {
		t.Errorf("stopped actions: summary %d, sessions %d, decisions %d; want the %d stopped sends", *s.StoppedActions, sessionSum, listed, sends)
	}
	// Precision over the stopped observations only.
	observed := s.Blocked + s.Deduped - *s.StoppedActions
	if observed == 0 {
		if s.Precision != nil {
			t.Errorf("precision %v with no stopped observation, want null", *s.Precision)
		}
	} else if want := float64(observed-s.Harmful) / float64(observed); s.Precision == nil || *s.Precision != want {
		t.Errorf("precision %v, want (%d-%d)/%d over the stopped observations", s.Precision, observed, s.Harmful, observed)
	}

	// The table, markdown and compare reports show the count beside
	// precision.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--preset", "hermes-breaker", "--format", "table", dir}, "; 1 stopped action\n"},
		{[]string{"replay", "--preset", "hermes-breaker", "--format", "markdown", dir}, "| Stopped actions | 1 |"},
		{[]string{"compare", "--preset", "hermes-breaker", "--format", "csv", dir}, ",stopped_actions,"},
		{[]string{"compare", "--preset", "hermes-breaker", "--format", "markdown", dir}, "| Precision | Stopped actions |"},
	} {
		if sends != 1 {
			break // the wanted texts are written for the one stopped send
		}
		out, stderr, code := loopgate(t, append(c.args, "--tokenizer", "chars4")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%v: output lacks %q:\n%s", c.args, c.want, out)
		}
	}
	out, _, _ := loopgate(t, "compare", "--preset", "hermes-breaker", "--format", "csv", "--tokenizer", "chars4", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 2 {
		head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
		for i, h := range head {
			if h == "stopped_actions" && (i >= len(row) || row[i] != "1") {
				t.Errorf("compare csv: stopped_actions column reads %q, want 1", row[min(i, len(row)-1)])
			}
		}
	} else {
		t.Errorf("compare csv: %d lines, want a header and one row:\n%s", len(lines), out)
	}
}
