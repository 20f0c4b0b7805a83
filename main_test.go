package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fatih/color"

	"github.com/loopgate/loopgate/cli"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The exit codes the tests expect.
const (
	exitOK       = cli.ExitOK
	exitFindings = cli.ExitFindings
	exitUsage    = cli.ExitUsage
)

// loopgate runs the CLI in-process and returns stdout, stderr and the exit code.
func loopgate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	quietTerminal(t)
	var out, errb bytes.Buffer
	code := run(append([]string{"loopgate"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// quietTerminal makes sure the CLI sees no terminal width (the reports
// take their default width and no line is wrapped) and NO_COLOR. TestMain
// sets both for the whole run; a test that changed them with t.Setenv
// gets them back for its own time. Only a sequential test can have
// changed them (Go forbids t.Setenv in a parallel one, and runs the
// parallel tests after the sequential ones), so a parallel test never
// reaches the t.Setenv here.
func quietTerminal(t *testing.T) {
	t.Helper()
	if v, ok := os.LookupEnv("COLUMNS"); !ok || v != "" {
		t.Setenv("COLUMNS", "")
	}
	if os.Getenv("NO_COLOR") != "1" {
		t.Setenv("NO_COLOR", "1")
	}
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
	// usage-log.jsonl: one session counted from its recorded usage, one
	// whose usage is too little to use (TestRecordedUsage has the numbers).
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
			// the same call, so by the definition of docs/cli.md ("What the numbers mean") it is not harmful
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
			// The test log (written by a test run elsewhere) reads failed
			// twice, then passed. Redundant: call 2 (the same read, the
			// same result, nothing acting between). nanobot guards no shell
			// calls: nothing stopped, precision n/a, recall 0/1.
			name: "retry that worked", file: "retry-succeeded.json", preset: "nanobot",
			want: summary{Calls: 3, Redundant: 1, Recall: ptr(0)},
		},
		{
			// The same reads under hermes-breaker (PR #14059): the last 3
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
	fakeHome(t) // no agent session folder
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
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
		{"no path and no agent folder", []string{"replay"}, exitUsage},
		{"no path, no agent folder, allow-empty", []string{"replay", "--allow-empty", "--format", "json"}, exitOK},
		{"missing path", []string{"replay", "--format", "json", "no/such/file.jsonl"}, exitUsage},
		{"strict with a problem", []string{"replay", "--strict", "--format", "json", bad}, exitUsage},
		{"problem without strict", []string{"replay", "--format", "json", bad}, exitOK},
		{"empty directory", []string{"replay", "--format", "json", empty}, exitUsage},
		{"empty directory, allow-empty", []string{"replay", "--allow-empty", "--format", "json", empty}, exitOK},
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

// TestJobsDeterminism: the report is byte-identical for any --jobs, and so
// is inspect's listing (files read in parallel, shown in order).
func TestJobsDeterminism(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"replay", []string{"replay", "--preset", "pi-loopguard", "--format", "json", "--tokenizer", "chars4"}},
		{"inspect json", []string{"inspect", "--format", "json", "--calls"}},
		{"inspect table", []string{"inspect", "--color", "never"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first string
			for _, jobs := range []string{"1", "2", "7"} {
				out, _, code := loopgate(t, append(tt.args, "--jobs", jobs, "fixtures")...)
				if code != 0 {
					t.Fatalf("jobs %s: exit %d", jobs, code)
				}
				if first == "" {
					first = out
				} else if out != first {
					t.Errorf("--jobs %s output differs from --jobs 1", jobs)
				}
			}
			if strings.Count(first, "\n") < 20 {
				t.Errorf("%d lines of output: too few to compare", strings.Count(first, "\n"))
			}
		})
	}
}

// TestSamplesAgainstOrigin replays the real and synthetic samples under the
// nanobot and pi-loopguard presets and checks every intervention against
// the facts in ../shared/samples/*/ORIGIN.md:
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

// TestFailOn: each --fail-on level trips (exit 1) on a fixture where it
// should and not where it should not. Under the hermes preset (warnings,
// hard stop off) changed-file.json is steered twice and blocked never; under
// nanobot it has one harmful block (TestReplayHandComputed).
func TestFailOn(t *testing.T) {
	fixture := func(name string) string { return filepath.Join("fixtures", "replay", name+".json") }
	cases := []struct {
		failOn, preset, file string
		want                 int
	}{
		{"steer", "hermes", "changed-file", exitFindings}, // steered only
		{"steer", "nanobot", "read-loop", exitFindings},   // blocks are "steered or worse"
		{"steer", "hermes", "healthy", exitOK},
		{"steer", "attractor", "read-loop", exitOK}, // a 5-call repeat is no cycle in a window of 10
		{"block", "nanobot", "read-loop", exitFindings},
		{"block", "hermes", "changed-file", exitOK}, // steers do not trip block
		{"block", "nanobot", "healthy", exitOK},
		{"harmful", "nanobot", "changed-file", exitFindings},
		{"harmful", "hermes-breaker", "retry-succeeded", exitFindings},
		{"harmful", "nanobot", "read-loop", exitOK}, // blocked, all right
		{"harmful", "hermes", "changed-file", exitOK},
		{"never", "nanobot", "changed-file", exitOK},
	}
	for _, tc := range cases {
		t.Run(tc.failOn+"/"+tc.preset+"/"+tc.file, func(t *testing.T) {
			_, stderr, code := loopgate(t, "replay", "--preset", tc.preset, "--fail-on", tc.failOn, "--format", "json", fixture(tc.file))
			if code != tc.want {
				t.Errorf("exit %d, want %d (stderr: %s)", code, tc.want, stderr)
			}
			if code == exitFindings && !strings.Contains(stderr, "--fail-on "+tc.failOn+" tripped") {
				t.Errorf("stderr does not say what tripped: %q", stderr)
			}
		})
	}
}

// TestRecordedUsage: fixtures/replay/usage-log.jsonl is an OpenAI chat log
// with usage. Session deploy-calibrated reads a 600-byte log four times;
// each prompt is the one before plus its completion (20) plus 200 tokens,
// so its usage calibrates it to 2,400 bytes / 800 tokens = 3 bytes per
// token. nanobot blocks reads 3 and 4: the result counts 600/3 = 200
// tokens, the 150-byte block message 50, so each block saves 150 (chars4
// would say 150-38 = 112): 300 direct; read 3's result would have been
// re-sent with requests 4 and 5, read 4's with request 5: 450 with context.
// Session door-sparse records usage too, but its one prompt delta (2
// tokens, 6 bytes) is too little to calibrate from: the tokenizer counts it,
// and the reports say so.
func TestRecordedUsage(t *testing.T) {
	file := filepath.Join("fixtures", "replay", "usage-log.jsonl")
	out, stderr, code := loopgate(t, "replay", "--preset", "nanobot", "--tokenizer", "chars4", "--format", "json", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Tokens struct {
			Tokenizer           string `json:"tokenizer"`
			SessionsWithUsage   int    `json:"sessions_with_usage"`
			SessionsCalibrated  int    `json:"sessions_calibrated"`
			SessionsUsageUnused int    `json:"sessions_usage_unused"`
		} `json:"tokens"`
		Sessions []struct {
			ID                 string  `json:"id"`
			HasUsage           bool    `json:"has_usage"`
			TokensFrom         string  `json:"tokens_from"`
			BytesPerToken      float64 `json:"bytes_per_token"`
			UsageUnused        *string `json:"usage_unused"`
			TokensSaved        int64   `json:"tokens_saved"`
			ContextTokensSaved int64   `json:"context_tokens_saved"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if tk := rep.Tokens; tk.Tokenizer != "chars4" || tk.SessionsWithUsage != 2 || tk.SessionsCalibrated != 1 || tk.SessionsUsageUnused != 1 {
		t.Errorf("tokens = %+v; want chars4, 2 with usage, 1 calibrated, 1 usage unused", tk)
	}
	if len(rep.Sessions) != 2 {
		t.Fatalf("%d sessions, want 2", len(rep.Sessions))
	}
	cal, sparse := rep.Sessions[0], rep.Sessions[1]
	if cal.ID != "deploy-calibrated" || !cal.HasUsage || cal.TokensFrom != "usage" || cal.BytesPerToken != 3 || cal.UsageUnused != nil {
		t.Errorf("calibrated session: %+v; want tokens_from usage at 3 bytes per token, no usage_unused", cal)
	}
	if cal.TokensSaved != 300 || cal.ContextTokensSaved != 450 {
		t.Errorf("calibrated session saves %d / %d, want 300 / 450 (counted at 3 bytes per token)", cal.TokensSaved, cal.ContextTokensSaved)
	}
	if sparse.ID != "door-sparse" || !sparse.HasUsage || sparse.TokensFrom != "chars4" || sparse.BytesPerToken != 0 ||
		sparse.UsageUnused == nil || !strings.Contains(*sparse.UsageUnused, "too little evidence") {
		t.Errorf("sparse session: %+v; want tokens_from chars4 and a usage_unused reason", sparse)
	}
	// jsonl: each session line and the summary line say the same.
	out, _, _ = loopgate(t, "replay", "--preset", "nanobot", "--tokenizer", "chars4", "--format", "jsonl", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"tokens_from":"usage"`) || !strings.Contains(lines[1], `"usage_unused":"too little evidence`) ||
		!strings.Contains(lines[2], `"sessions_usage_unused":1`) {
		t.Errorf("jsonl does not say where tokens came from:\n%s", out)
	}
	// The people's formats say it in words.
	for format, want := range map[string][]string{
		"table":    {"1 session counted with a bytes-per-token ratio calibrated from it", "usage of 1 session not used (too little or implausible evidence"},
		"markdown": {"1 of 2 sessions with recorded usage counted with a ratio calibrated from it", "usage not used for 1 session"},
	} {
		out, _, _ := loopgate(t, "replay", "--preset", "nanobot", "--tokenizer", "chars4", "--format", format, file)
		out = strings.Join(strings.Fields(out), " ") // the table wraps long summary lines
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, out)
			}
		}
	}
}

// TestProgressOffWithoutTerminal: replay and compare print no progress
// when standard error is not a terminal under auto, nor for a short run
// when forced.
func TestProgressOffWithoutTerminal(t *testing.T) {
	// The CLI: standard error is a buffer here, not a terminal.
	_, stderr, code := loopgate(t, "replay", "--progress", "auto", "--format", "json", "fixtures/replay")
	if code != 0 || stderr != "" {
		t.Errorf("replay with stderr not a terminal: exit %d, stderr %q; want nothing on stderr", code, stderr)
	}
	_, stderr, _ = loopgate(t, "compare", "--preset", "nanobot", "--progress", "always", "--format", "json", "fixtures/replay")
	if stderr != "" {
		t.Errorf("a short compare printed progress: %q", stderr)
	}
}

// TestColor: color comes from fatih/color, only on a terminal or when
// forced, never with --color never or NO_COLOR under auto.
func TestColor(t *testing.T) {
	file := filepath.Join("fixtures", "replay", "changed-file.json")
	colored := func(attrs ...color.Attribute) func(string) string {
		c := color.New(attrs...)
		c.EnableColor()
		return func(s string) string { return c.Sprint(s) }
	}
	out, _, code := loopgate(t, "replay", "--preset", "nanobot", "--format", "table", "--color", "always", file)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		colored(color.Bold)("Summary"),
		colored(color.FgRed)("B"),
		colored(color.FgHiMagenta)("!"),
		colored(color.FgHiBlack)("r"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--color always table lacks %q", want)
		}
	}
	// Standard output is not a terminal here: auto means no color, with or
	// without NO_COLOR (loopgate() sets it; unset it too).
	for _, noColor := range []string{"1", ""} {
		var o, e bytes.Buffer
		t.Setenv("NO_COLOR", noColor)
		run([]string{"loopgate", "replay", "--preset", "nanobot", "--format", "table", file}, &o, &e)
		if strings.Contains(o.String(), "\x1b[") {
			t.Errorf("auto color with NO_COLOR=%q on a non-terminal wrote ANSI codes", noColor)
		}
	}
	out, _, _ = loopgate(t, "replay", "--preset", "nanobot", "--format", "table", "--color", "never", file)
	if strings.Contains(out, "\x1b[") {
		t.Error("--color never wrote ANSI codes")
	}
}

// TestDefaultFormat: when standard output is not a terminal (a pipe, a
// file, a buffer here), replay writes JSON unless --format says otherwise.
func TestDefaultFormat(t *testing.T) {
	out, _, code := loopgate(t, "replay", filepath.Join("fixtures", "replay", "healthy.json"))
	if code != 0 || !json.Valid([]byte(out)) {
		t.Errorf("replay to a non-terminal: exit %d, not JSON:\n%.200s", code, out)
	}
}

// TestCompareCorpus: compare's JSON "corpus" holds the facts that no rules
// change, the same whatever the last configuration compared was.
func TestCompareCorpus(t *testing.T) {
	var want map[string]any
	for _, presets := range []string{"nanobot,hermes-breaker", "hermes-breaker,nanobot", "attractor"} {
		out, stderr, code := loopgate(t, "compare", "--preset", presets, "--tokenizer", "chars4", "--format", "json", "fixtures/replay")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var doc struct {
			Corpus map[string]any `json:"corpus"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range doc.Corpus {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if got := strings.Join(keys, ","); got != "calls,files,problems,redundant,requests,sessions,turns" {
			t.Errorf("%s: corpus keys %s; want only the facts no rules change", presets, got)
		}
		if want == nil {
			want = doc.Corpus
		} else if fmt.Sprint(doc.Corpus) != fmt.Sprint(want) {
			t.Errorf("%s: corpus %v, want %v", presets, doc.Corpus, want)
		}
	}
	// The same facts as a replay's summary.
	rep := replaySummary(t, "--preset", "nanobot", "fixtures/replay")
	if want["calls"] != float64(rep.Calls) || want["redundant"] != float64(rep.Redundant) {
		t.Errorf("compare corpus %v disagrees with replay (calls %d, redundant %d)", want, rep.Calls, rep.Redundant)
	}
	// sweep's corpus is the same object.
	out, _, code := loopgate(t, "sweep", "--preset", "nanobot", "--vary", "tools.class:read.block_at=2,3", "--tokenizer", "chars4", "--format", "json", "fixtures/replay")
	var sw struct {
		Corpus map[string]any `json:"corpus"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &sw) != nil || fmt.Sprint(sw.Corpus) != fmt.Sprint(want) {
		t.Errorf("sweep corpus %v (exit %d), want %v", sw.Corpus, code, want)
	}
}

// TestCompareSources: a rules file named like a preset is told apart from
// the preset in the table and markdown; without a collision, names alone.
func TestCompareSources(t *testing.T) {
	yaml, _, code := loopgate(t, "rules", "print", "--preset", "nanobot")
	if code != 0 {
		t.Fatal("rules print failed")
	}
	file := filepath.Join(t.TempDir(), "nanobot.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "markdown"} {
		out, stderr, code := loopgate(t, "compare", "--preset", "nanobot", "--rules", file, "--format", format, "fixtures/replay")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{"nanobot (preset)", "nanobot (" + file + ")"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s compare lacks %q:\n%s", format, want, out)
			}
		}
		out, _, _ = loopgate(t, "compare", "--preset", "nanobot,attractor", "--format", format, "fixtures/replay")
		if strings.Contains(out, "(preset)") {
			t.Errorf("%s compare shows sources without a name collision:\n%s", format, out)
		}
	}
}

// TestPathNamedLikeHelp: urfave/cli gives every command a "help" command,
// alias "h"; a path named h or help must be read, not taken for it.
func TestPathNamedLikeHelp(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("fixtures", "replay", "read-loop.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"h", "help"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "loop.json"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, args := range [][]string{
		{"replay", "--format", "json", "h"},
		{"replay", "h", "--format", "json"},
		{"replay", "--format", "json", "help"},
		{"compare", "--preset", "nanobot", "--format", "json", "h"},
		{"sweep", "--preset", "nanobot", "--vary", "tools.class:read.block_at=2,3", "--format", "json", "h"},
		{"inspect", "--format", "json", "h"},
	} {
		out, stderr, code := loopgate(t, args...)
		read := strings.Contains(out, "loop.json") || strings.Contains(out, `"files": 1,`)
		if code != 0 || !read || strings.Contains(out, "USAGE") {
			t.Errorf("%v: exit %d, stderr %q; want the path h read:\n%.300s", args, code, stderr, out)
		}
	}
	// Help is still there as a flag.
	out, _, code := loopgate(t, "replay", "--help")
	if code != 0 || !strings.Contains(out, "USAGE") {
		t.Errorf("replay --help: exit %d\n%.200s", code, out)
	}
	out, _, code = loopgate(t, "rules", "check", "-h")
	if code != 0 || !strings.Contains(out, "USAGE") {
		t.Errorf("rules check -h: exit %d\n%.200s", code, out)
	}
}

// TestNoArgsCommands: commands that take no arguments refuse them.
func TestNoArgsCommands(t *testing.T) {
	for _, args := range [][]string{{"formats", "extra"}, {"rules", "print", "--preset", "nanobot", "extra"}} {
		out, stderr, code := loopgate(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "takes no arguments") || !strings.Contains(stderr, `"extra"`) || out != "" {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want exit 2 and a sentence naming the argument", args, code, out, stderr)
		}
	}
	if out, _, code := loopgate(t, "formats"); code != 0 || !strings.Contains(out, "nanobot") {
		t.Errorf("formats: exit %d", code)
	}
	// An unknown command or subcommand is a usage error (exit 2), not
	// urfave/cli's "No help topic" with exit code 3; "h" is no rules
	// subcommand either. Help without arguments, or as "help [COMMAND]" at
	// the top level (no path can be there), still works.
	for _, args := range [][]string{{"nope"}, {"rules", "h"}, {"rules", "nope"}} {
		if _, stderr, code := loopgate(t, args...); code != exitUsage || !strings.Contains(stderr, "unknown command") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, unknown command", args, code, stderr)
		}
	}
	for _, args := range [][]string{{}, {"help"}, {"h"}, {"help", "replay"}, {"rules"}} {
		if out, stderr, code := loopgate(t, args...); code != 0 || !strings.Contains(out, "USAGE") {
			t.Errorf("%v: exit %d, stderr %q; want help", args, code, stderr)
		}
	}
	if out, _, _ := loopgate(t, "help", "replay"); !strings.Contains(out, "loopgate replay -") {
		t.Errorf("help replay does not show replay's help:\n%.200s", out)
	}
}

// TestFlagWithoutValue: a value-taking flag given last, or given empty,
// is a usage error naming the flag, not "--" taken as its value.
func TestFlagWithoutValue(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "fixtures/demo", "--format"}, "--format needs a value"},
		{[]string{"replay", "fixtures/demo", "--preset"}, "--preset needs a value"},
		{[]string{"replay", "--input-format"}, "--input-format needs a value"},
		{[]string{"compare", "fixtures/demo", "--preset", "--", "x"}, "--preset needs a value"},
		{[]string{"replay", "--preset=", "fixtures/demo"}, "--preset= has an empty value"},
		{[]string{"sweep", "--format=", "fixtures/demo"}, "--format= has an empty value"},
	} {
		out, stderr, code := loopgate(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want exit 2 and %q", tc.args, code, out, stderr, tc.want)
		}
	}
	// A flag after the paths still works.
	if _, stderr, code := loopgate(t, "replay", "fixtures/demo", "--format", "json"); code != exitOK {
		t.Errorf("flag after the path: exit %d, %s", code, stderr)
	}
}

// TestReadmeDemo: README.md shows what `go run . replay fixtures/demo`
// prints on a 100-column terminal; the block must stay what the command
// really prints (up to its closing "..."). After a change to the demo's
// numbers, paste the new output (go run . replay --format table
// fixtures/demo with COLUMNS=100).
func TestReadmeDemo(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "On a terminal it prints a table")
	if !ok {
		t.Fatal("README.md has no demo output section")
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	shown, ok := strings.CutSuffix(block, "...\n")
	if !ok || !strings.HasPrefix(shown, "Summary\n") {
		t.Fatalf("README demo block is not the table's beginning followed by ...:\n%s", block)
	}
	out, stderr, code := loopgate(t, "replay", "--format", "table", filepath.Join("fixtures", "demo"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(out, shown) {
		t.Errorf("README.md demo differs from what replay prints; it prints:\n%s", out)
	}
}
