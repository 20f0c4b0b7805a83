package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// loopgate runs the CLI in-process and returns stdout, stderr and the exit code.
func loopgate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("COLUMNS", "100")
	t.Setenv("NO_COLOR", "1")
	var out, errb bytes.Buffer
	code := run(append([]string{"loopgate"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

func checkGolden(t *testing.T, path string, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run go test . -update): %v", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (rerun with -update and review the diff):\n--- got\n%s", path, got)
	}
}

// TestReplayGolden renders every report format over the replay fixtures
// (known loops, known harmful blocks, known savings) and compares them with
// golden files. The numbers in them are checked by hand in
// TestReplayHandComputed.
func TestReplayGolden(t *testing.T) {
	// nanobot: the read loop blocked with savings, and the re-read after
	// a write harmful (TestReplayHandComputed has the arithmetic).
	// hermes-breaker: the retry that worked (fixtures/replay/
	// retry-succeeded.json) blocked on its 3rd try, which passed: harmful.
	for _, preset := range []string{"nanobot", "hermes-breaker"} {
		for _, format := range []string{"table", "json", "jsonl", "markdown"} {
			t.Run(preset+"/"+format, func(t *testing.T) {
				out, stderr, code := loopgate(t, "replay", "--preset", preset, "--tokenizer", "chars4",
					"--color", "never", "--format", format, "--jobs", "2", "fixtures/replay")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				checkGolden(t, filepath.Join("fixtures", "golden-replay", preset+"."+format+".golden"), out)
			})
		}
	}
}

type summary struct {
	Calls              int      `json:"calls"`
	Steered            int      `json:"steered"`
	Blocked            int      `json:"blocked"`
	Deduped            int      `json:"deduped"`
	Redundant          int      `json:"redundant"`
	RedundantStopped   int      `json:"redundant_stopped"`
	Harmful            int      `json:"harmful"`
	Precision          *float64 `json:"precision"`
	Recall             *float64 `json:"recall"`
	TokensSaved        int64    `json:"tokens_saved"`
	ContextTokensSaved int64    `json:"context_tokens_saved"`
}

func replaySummary(t *testing.T, args ...string) summary {
	t.Helper()
	out, stderr, code := loopgate(t, append([]string{"replay", "--format", "json", "--tokenizer", "chars4"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Summary summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return doc.Summary
}

// TestReplayHandComputed checks replay numbers worked out by hand. Token
// counts use chars4: ceil(bytes / 4).
func TestReplayHandComputed(t *testing.T) {
	cases := []struct {
		name, file, preset string
		want               summary
	}{
		{
			// read_file logs/worker.log five times, identical results.
			// Redundant: calls 2-5 (4). nanobot's local-call guard (budget 2)
			// blocks calls 3, 4, 5: none harmful, precision 3/3, recall 3/4.
			// Result 172 bytes = 43 tokens; block message 150 bytes = 38
			// tokens; each block saves 43-38 = 5: tokens_saved 15.
			// 6 model requests (5 with a call, then the answer): call 3's
			// result would have been re-sent with requests 4, 5, 6 (3 times),
			// call 4's twice, call 5's once: context 5*(3+2+1) = 30.
			name: "read loop", file: "read-loop.json", preset: "nanobot",
			want: summary{Calls: 5, Blocked: 3, Redundant: 4, RedundantStopped: 3, Harmful: 0,
				Precision: ptr(1), Recall: ptr(0.75), TokensSaved: 15, ContextTokensSaved: 30},
		},
		{
			// read calc.py (v1), read (v1, redundant), write, read (v2, new
			// content), read (v2, redundant). nanobot counts reads per run
			// and knows nothing of writes: it blocks call 4 (3rd read) and
			// call 5 (4th). Call 4 hides the new v2 content: harmful (v2
			// differs from calls 1 and 2, the same key before it). Call 5's
			// result equals call 4's, an earlier call the guard treated as
			// the same call, so by DESIGN.md's definition it is not harmful
			// (the harm of hiding v2 is counted once, at call 4).
			// Precision (2-1)/2. Redundant: calls 2 and 5; stopped: call 5
			// only; recall 1/2.
			// Savings: v2 is 62 bytes = 16 tokens < 38-token message: 0.
			name: "re-read after a write", file: "changed-file.json", preset: "nanobot",
			want: summary{Calls: 5, Blocked: 2, Redundant: 2, RedundantStopped: 1, Harmful: 1,
				Precision: ptr(0.5), Recall: ptr(0.5), TokensSaved: 0, ContextTokensSaved: 0},
		},
		{
			// The same fetch four times with identical results. nanobot's
			// external-lookup guard blocks the 3rd and 4th. Result 113 bytes
			// = 29 tokens < 46-token block message: nothing saved.
			name: "repeated web fetch", file: "secrets.json", preset: "nanobot",
			want: summary{Calls: 4, Blocked: 2, Redundant: 3, RedundantStopped: 2,
				Precision: ptr(1), Recall: ptr(2.0 / 3), TokensSaved: 0, ContextTokensSaved: 0},
		},
		{
			// pytest fails twice, then passes. Redundant: call 2 (same
			// failure again). nanobot guards no shell calls: nothing stopped,
			// precision n/a, recall 0/1.
			name: "retry that worked", file: "retry-succeeded.json", preset: "nanobot",
			want: summary{Calls: 3, Redundant: 1, Recall: ptr(0)},
		},
		{
			// The same retry under hermes-breaker (PR #14059): the last 3
			// calls share a signature, so the 3rd is blocked, but its real
			// result ("12 passed") differs from the two failures before it:
			// harmful. Precision 0/1; the redundant call (2) is not stopped:
			// recall 0/1. The result (48 bytes = 12 tokens) is shorter than
			// the breaker's message (317 bytes), so nothing is saved.
			name: "retry that worked, breaker", file: "retry-succeeded.json", preset: "hermes-breaker",
			want: summary{Calls: 3, Blocked: 1, Redundant: 1, Harmful: 1, Precision: ptr(0), Recall: ptr(0)},
		},
		{
			name: "healthy", file: "healthy.json", preset: "nanobot",
			want: summary{Calls: 4},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := replaySummary(t, "--preset", tc.preset, filepath.Join("fixtures", "replay", tc.file))
			if !sameSummary(got, tc.want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(tc.want)
				t.Errorf("summary\n got  %s\n want %s", gj, wj)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }

func sameSummary(a, b summary) bool {
	eq := func(x, y *float64) bool {
		if x == nil || y == nil {
			return x == nil && y == nil
		}
		d := *x - *y
		return d < 1e-9 && d > -1e-9
	}
	pa, ra, pb, rb := a.Precision, a.Recall, b.Precision, b.Recall
	a.Precision, a.Recall, b.Precision, b.Recall = nil, nil, nil, nil
	return a == b && eq(pa, pb) && eq(ra, rb)
}

// TestSecretsNeverInReports plants an API key, a bearer token and a
// password in a URL in a fixture's arguments and results, and checks that
// no report format shows them, unless --no-redact.
func TestSecretsNeverInReports(t *testing.T) {
	secrets := []string{"sk-proj-Zx8Qw3Lm9Tb2Vn7Rk4Hs6Jd1Fp5Gc0Ya", "hunter2-Secret",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsb29wZ2F0ZSJ9.c2lnbmF0dXJlLXRlc3Q"}
	file := filepath.Join("fixtures", "replay", "secrets.json")
	for _, format := range []string{"table", "json", "jsonl", "markdown"} {
		out, _, code := loopgate(t, "replay", "--preset", "nanobot", "--format", format, file)
		if code != 0 {
			t.Fatalf("%s: exit %d", format, code)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s report shows secret %q", format, s)
			}
		}
	}
	out, _, _ := loopgate(t, "inspect", "--calls", "--format", "json", file)
	for _, s := range secrets[:2] {
		if strings.Contains(out, s) {
			t.Errorf("inspect shows secret %q", s)
		}
	}
	out, _, _ = loopgate(t, "replay", "--preset", "nanobot", "--format", "json", "--no-redact", file)
	if !strings.Contains(out, "hunter2-Secret") {
		t.Error("--no-redact did not show the URL password")
	}
}

// TestFlagsAfterPaths: urfave/cli v2 stops at the first path; loopgate must
// not drop flags given after it.
func TestFlagsAfterPaths(t *testing.T) {
	out, stderr, code := loopgate(t, "replay", filepath.Join("fixtures", "replay", "read-loop.json"), "--preset", "nanobot", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `"name": "nanobot"`) {
		t.Errorf("--preset after the path was not applied:\n%.300s", out)
	}
	_, stderr, code = loopgate(t, "replay", filepath.Join("fixtures", "replay", "read-loop.json"), "--no-such-flag")
	if code != exitUsage || !strings.Contains(stderr, "no-such-flag") {
		t.Errorf("unknown flag after a path: exit %d, stderr %q; want exit 2 naming the flag", code, stderr)
	}
}

func TestExitCodes(t *testing.T) {
	loop := filepath.Join("fixtures", "replay", "read-loop.json")
	healthy := filepath.Join("fixtures", "replay", "healthy.json")
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"clean replay", []string{"replay", "--format", "json", healthy}, exitOK},
		{"fail-on block tripped", []string{"replay", "--preset", "nanobot", "--fail-on", "block", "--format", "json", loop}, exitFindings},
		{"fail-on block not tripped", []string{"replay", "--preset", "nanobot", "--fail-on", "block", "--format", "json", healthy}, exitOK},
		{"fail-on harmful not tripped", []string{"replay", "--preset", "nanobot", "--fail-on", "harmful", "--format", "json", loop}, exitOK},
		{"unknown preset", []string{"replay", "--preset", "nope", loop}, exitUsage},
		{"rules and preset", []string{"replay", "--preset", "nanobot", "--rules", "x.yaml", loop}, exitUsage},
		{"bad fail-on", []string{"replay", "--fail-on", "sometimes", loop}, exitUsage},
		{"no path", []string{"replay"}, exitUsage},
		{"strict with a problem", []string{"replay", "--strict", "--format", "json", "no/such/file.jsonl"}, exitUsage},
		{"problem without strict", []string{"replay", "--format", "json", "no/such/file.jsonl"}, exitOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := loopgate(t, tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d (stderr: %s)", code, tc.want, stderr)
			}
		})
	}
}

// TestJobsDeterminism: the report is byte-identical for any --jobs.
func TestJobsDeterminism(t *testing.T) {
	var first string
	for _, jobs := range []string{"1", "2", "7"} {
		out, _, code := loopgate(t, "replay", "--preset", "pi-loopguard", "--format", "json", "--tokenizer", "chars4", "--jobs", jobs, "fixtures")
		if code != 0 {
			t.Fatalf("jobs %s: exit %d", jobs, code)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("--jobs %s output differs from --jobs 1", jobs)
		}
	}
}

// TestSamplesAgainstOrigin replays the real and synthetic samples under the
// nanobot and pi-loopguard presets and checks every intervention against
// the facts in shared/samples/*/ORIGIN.md:
//   - nanobot F4 v0.1.4.post4: read_file ×3 in one turn, so nanobot's
//     local-call guard (budget 2) blocks the 3rd; pi (read threshold 3)
//     does nothing until a 4th;
//   - nanobot F4 v0.2.0: the 3rd web_search (case/space variants of one
//     query) was already blocked by nanobot itself: our nanobot preset
//     blocks the same call, reported as native; pi keys on exact args;
//   - the dedup stubs of F4 v0.2.2 and F6 are nanobot's own (native);
//   - the real nanobot files have no repeat within a turn (cron repeats
//     across turns, which both guards reset), and the hermes export's one
//     repeat (read_file ×2 in a turn) and the trajectories' ×2/×3 repeats
//     stay within both budgets;
//   - the one problem is F6's interrupted turn (a pending web_fetch).
func TestSamplesAgainstOrigin(t *testing.T) {
	samples := filepath.Join("..", "shared", "samples")
	if _, err := os.Stat(samples); err != nil {
		t.Skip("../shared/samples is absent (a user's checkout has no shared/): skipping the sample replay")
	}
	type decision struct{ File, Tool, Action, Native string }
	want := map[string][]decision{
		"nanobot": {
			{"slack_C01ABCDEF.jsonl", "read_file", "block", ""},
			{"websocket_5f0c2a.jsonl", "web_search", "block", "nanobot-block"},
			{"telegram_42.jsonl", "read_file", "allow", "nanobot-dedup"},
			{"dGVsZWdyYW06MTIzNDU2Nzg5.jsonl", "read_file", "allow", "nanobot-dedup"},
		},
		"pi-loopguard": {
			{"websocket_5f0c2a.jsonl", "web_search", "allow", "nanobot-block"},
			{"telegram_42.jsonl", "read_file", "allow", "nanobot-dedup"},
			{"dGVsZWdyYW06MTIzNDU2Nzg5.jsonl", "read_file", "allow", "nanobot-dedup"},
		},
	}
	for preset, decisions := range want {
		out, stderr, code := loopgate(t, "replay", "--preset", preset, "--format", "json", "--tokenizer", "chars4",
			filepath.Join(samples, "nanobot"), filepath.Join(samples, "hermes"))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", preset, code, stderr)
		}
		var rep struct {
			Summary  summary `json:"summary"`
			Sessions []struct {
				File      string `json:"file"`
				Decisions []struct {
					Tool, Action, Native string
				} `json:"decisions"`
			} `json:"sessions"`
			Problems []struct{ Message string } `json:"problems"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var got []decision
		for _, s := range rep.Sessions {
			for _, d := range s.Decisions {
				if d.Action != "allow" || d.Native != "" {
					got = append(got, decision{filepath.Base(s.File), d.Tool, d.Action, d.Native})
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(decisions) {
			t.Errorf("%s: interventions\n got  %v\n want %v", preset, got, decisions)
		}
		if rep.Summary.Harmful != 0 || rep.Summary.Calls != 62+290 {
			t.Errorf("%s: harmful %d, calls %d; want 0 and 352 (62 nanobot + 290 hermes)", preset, rep.Summary.Harmful, rep.Summary.Calls)
		}
		if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "interrupted turn") {
			t.Errorf("%s: problems %v, want only F6's interrupted turn", preset, rep.Problems)
		}
	}
}
