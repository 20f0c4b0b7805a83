package main

// Hostile input at the command line: a directory mixing every
// fixture format with junk, truncations, binary files, link loops and
// planted secrets, generated in a t.TempDir() (never committed). The run
// must complete, report every good session, report every bad spot as one
// problem with its file and line, turn problems into exit 2 under --strict,
// never show a secret, and give byte-identical reports for any --jobs.
// File-by-file checks of the same inputs are in ingest/hostile_test.go.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
)

// hostileSecrets are made-up secrets of every kind docs/reliability.md lists, planted in
// arguments, results and bad lines of the hostile corpus. Each value is the
// part that must never appear in a report.
var hostileSecrets = map[string]string{
	"openai":     "sk-proj-H0stile9Qw3Lm9Tb2Vn7Rk4Hs6Jd1Fp",
	"anthropic":  "sk-ant-api03-H0stileKq8Zx3Lm9Tb2Vn7Rk4Hs6Jd1Fp5Gc0Ya",
	"github":     "ghp_H0stile4Xb7Nq2Lm9Tb2Vn7Rk4Hs6Jd1Fp5Gc",
	"aws":        "AKIAH0STILE4XB7NQ2LM",
	"slack":      "xoxb-1234567890-H0stileSlackTok",
	"bearer":     "eyJhbGciOiJIUzI1NiJ9.aG9zdGlsZQ.c2lnbmF0dXJlSDBzdGlsZQ",
	"url":        "Hunter2H0stilePw",
	"privatekey": "MIIEH0stileKeyMaterialQwErTy",
	"api_key":    "rk_live_H0stile7Zq9Xw2",
	"secret":     "H0stileDbSecret42x",
}

// hostileSecretTexts are the secrets as they appear in a transcript.
func hostileSecretTexts() []string {
	s := hostileSecrets
	return []string{
		"OPENAI key " + s["openai"],
		"export ANTHROPIC_KEY_VALUE=" + s["anthropic"],
		"git clone https://x:" + s["github"] + "@github.com/a/b",
		"aws id " + s["aws"],
		"slack " + s["slack"],
		"curl -H 'Authorization: Bearer " + s["bearer"] + "' https://api.example.com",
		"git clone https://deploy:" + s["url"] + "@git.example.com/repo.git",
		"-----BEGIN RSA PRIVATE KEY-----\n" + s["privatekey"] + "\n-----END RSA PRIVATE KEY-----",
		"STRIPE_API_KEY=" + s["api_key"],
		"DB_SECRET=" + s["secret"],
	}
}

const hostileMeta = `{"_type": "metadata", "key": "cli:hostile", "created_at": "2026-10-14T09:00:00", "updated_at": "2026-10-14T09:30:00", "metadata": {}, "last_consolidated": 0}`

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// nanobotCalls writes a nanobot session: a user message, then each
// (tool, args, result) as a call and its result.
func nanobotCalls(calls [][3]string) []string {
	lines := []string{hostileMeta, `{"role": "user", "content": "Check the deploy.", "timestamp": "2026-10-14T09:00:01"}`}
	for i, c := range calls {
		id := fmt.Sprintf("call_%d", i+1)
		tc := fmt.Sprintf(`[{"id": %q, "type": "function", "function": {"name": %q, "arguments": %s}}]`, id, c[0], jsonString(c[1]))
		lines = append(lines,
			fmt.Sprintf(`{"role": "assistant", "content": "", "tool_calls": %s, "timestamp": "2026-10-14T10:%02d:%02d"}`, tc, i/60, i%60),
			fmt.Sprintf(`{"role": "tool", "tool_call_id": %q, "name": %q, "content": %s, "timestamp": "2026-10-14T10:%02d:%02d"}`, id, c[0], jsonString(c[2]), i/60, i%60))
	}
	return append(lines, `{"role": "assistant", "content": "Done.", "timestamp": "2026-10-14T11:00:00"}`)
}

func linesOf(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// badFile is a generated file and what a replay of it must report.
type badFile struct {
	name     string
	data     []byte
	sessions int
	// problems: the line of each problem and a word of its message.
	problems []wantProblem
}

type wantProblem struct {
	line int
	word string
}

// hostileFiles returns the generated hostile inputs, the 64 MiB one only
// withHuge (and not under -short).
func hostileFiles(t *testing.T, withHuge bool) []badFile {
	secrets := hostileSecretTexts()
	// A session whose calls repeat with secrets in their arguments and
	// results: repeats become decisions, whose arguments reports show.
	var loop [][3]string
	for round := 0; round < 3; round++ {
		for _, s := range secrets {
			// A here-document printed: a command that only prints
			// observes, so its repeats are redundant (one that runs a
			// program acts).
			loop = append(loop, [3]string{"exec", `{"command": ` + jsonString("cat <<'EOF'\n"+s+"\nEOF") + `}`, "output mentions " + s})
		}
	}
	good := nanobotCalls([][3]string{{"read_file", `{"path": "a.txt"}`, "alpha"}, {"read_file", `{"path": "a.txt"}`, "alpha"}})
	n := len(good) // 7 lines
	withLine := func(at int, bad string) []string {
		out := append([]string{}, good[:at-1]...)
		out = append(out, bad)
		return append(out, good[at-1:]...)
	}
	rng := rand.New(rand.NewSource(8))
	binary := make([]byte, 8192)
	rng.Read(binary)
	binary[0] = 0x7f
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	var many [][3]string
	for i := 0; i < 300; i++ {
		many = append(many, [3]string{"read_file", fmt.Sprintf(`{"path": "f%d"}`, i), "x"})
	}
	zw.Write(linesOf(nanobotCalls(many)...))
	zw.Close()
	files := []badFile{
		{name: "secrets-loop.jsonl", data: linesOf(nanobotCalls(loop)...), sessions: 1},
		{name: "truncated.jsonl", data: []byte(strings.Join(good, "\n") + "\n" + `{"role": "user", "content": "my key is ` + secrets[1]),
			sessions: 1, problems: []wantProblem{{n + 1, "cut short"}}},
		{name: "nul.jsonl", data: linesOf(withLine(4, "\x00\x00\x00")...), sessions: 1, problems: []wantProblem{{4, "not valid JSON"}}},
		// Invalid UTF-8 in the last line: replaced with U+FFFD, the record
		// read, and exactly one problem naming the line.
		{name: "bad-utf8.jsonl", data: linesOf(append(good[:n-1:n-1], "{\"role\": \"assistant\", \"content\": \"caf\xe9 \xff\"}")...), sessions: 1, problems: []wantProblem{{n, "invalid UTF-8"}}},
		{name: "deep.jsonl", data: linesOf(withLine(3, strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000))...), sessions: 1, problems: []wantProblem{{3, "JSON"}}},
		{name: "deep.json", data: []byte(strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000)), problems: []wantProblem{{1, "no known format"}}},
		{name: "binary.jsonl", data: binary, problems: []wantProblem{{1, "no known format"}}},
		{name: "empty.jsonl", problems: []wantProblem{{0, "empty"}}},
		{name: "junk.json", data: []byte("hello, this is not JSON\n"), problems: []wantProblem{{1, "no known format"}}},
		{name: "duplicate-ids.jsonl", data: linesOf(hostileMeta,
			`{"role": "user", "content": "read both"}`,
			`{"role": "assistant", "content": "", "tool_calls": [{"id": "dup", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}, {"id": "dup", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"b\"}"}}]}`,
			`{"role": "tool", "tool_call_id": "dup", "name": "read_file", "content": "A"}`,
			`{"role": "tool", "tool_call_id": "dup", "name": "read_file", "content": "B"}`,
			`{"role": "tool", "tool_call_id": "dup", "name": "read_file", "content": "C"}`),
			sessions: 1, problems: []wantProblem{{3, "reuses the id"}, {6, "extra tool result"}}},
		{name: "result-first.jsonl", data: linesOf(hostileMeta,
			`{"role": "user", "content": "go"}`,
			// A result before any call, its id a GitHub token: the
			// problem message names the id and must be redacted.
			`{"role": "tool", "tool_call_id": "`+hostileSecrets["github"]+`", "name": "read_file", "content": "early"}`,
			`{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}]}`,
			`{"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "on time"}`),
			sessions: 1, problems: []wantProblem{{3, "has no call"}}},
		// gzip cut in the middle of the session: the session read so far
		// is kept; the call whose result was cut off and the cut itself
		// are the two problems (where the cut falls depends on the
		// compressor; today it leaves a call without its result).
		{name: "cut.jsonl.gz", data: gz.Bytes()[:gz.Len()/2], sessions: 1, problems: []wantProblem{{-1, "has no result"}, {-1, "gzip data ends early"}}},
	}
	if withHuge && !testing.Short() {
		files = append(files, badFile{name: "huge-line.jsonl", sessions: 1, data: hugeLineFile(64 << 20)})
	}
	return files
}

// hugeLineFile is linesOf(nanobotCalls(...)) of two reads of big.log whose
// results are size bytes of "y" each, written straight into one buffer:
// built through jsonString, Sprintf and Join, each result was copied
// several times over, a large part of the tests' CPU (docs/performance.md,
// "The test suite"). A result of "y"s is its own JSON text between quotes,
// so the bytes are those nanobotCalls writes (TestHugeLineFileAsWritten).
func hugeLineFile(size int) []byte {
	const mark = "HUGE-RESULT"
	small := string(linesOf(nanobotCalls([][3]string{{"read_file", `{"path": "big.log"}`, mark}, {"read_file", `{"path": "big.log"}`, mark}})...))
	parts := strings.Split(small, mark)
	out := make([]byte, 0, len(small)+(len(parts)-1)*size)
	for i, p := range parts {
		if i > 0 {
			out = append(out, bytes.Repeat([]byte("y"), size)...)
		}
		out = append(out, p...)
	}
	return out
}

// TestHugeLineFileAsWritten: hugeLineFile writes the bytes nanobotCalls
// and linesOf write for the same session, at sizes small enough to build
// both ways.
func TestHugeLineFileAsWritten(t *testing.T) {
	for _, size := range []int{0, 1, 1000, 70_000} {
		big := strings.Repeat("y", size)
		want := linesOf(nanobotCalls([][3]string{{"read_file", `{"path": "big.log"}`, big}, {"read_file", `{"path": "big.log"}`, big}})...)
		if got := hugeLineFile(size); !bytes.Equal(got, want) {
			t.Errorf("size %d: hugeLineFile differs from nanobotCalls:\n%.300q\nwant\n%.300q", size, got, want)
		}
	}
}

// hostileCorpus writes the corpus: every fixture transcript (copied under
// good/, read file by file in-process for the sessions and problems each
// must give) and the hostile files under bad/, plus a link loop. It returns
// the directory, the sessions expected per file and the problems expected
// per file (nil when a file's problems are not checked line by line).
func hostileCorpus(t *testing.T, withHuge bool) (string, map[string]int, map[string][]wantProblem) {
	t.Helper()
	dir := t.TempDir()
	sessions := map[string]int{}
	problems := map[string][]wantProblem{}
	err := filepath.WalkDir("fixtures", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !ingest.IsTranscriptName(d.Name()) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, "good", p)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		// What the file gives when read alone: the mixed run must give
		// the same.
		n := 0
		var ps []wantProblem
		ingest.ReadFile(dst, ingest.Options{}, &ingest.Sink{
			OnSession: func(*ingest.Session) { n++ },
			OnProblem: func(p ingest.Problem) { ps = append(ps, wantProblem{p.Line, p.Message}) },
		})
		if ingest.ReadWithAnother(dst) {
			// A walk leaves it to the file that reads it (an OpenCode
			// message or part file): in the mixed run it gives nothing.
			n, ps = 0, nil
		}
		sessions[dst] = n
		problems[dst] = ps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) < 20 {
		t.Fatalf("only %d fixture transcripts found; run from the repository root", len(sessions))
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range hostileFiles(t, withHuge) {
		p := filepath.Join(bad, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		sessions[p] = f.sessions
		problems[p] = f.problems
	}
	// A directory link back to its parent (never followed), and two file
	// links pointing at each other.
	loopA, loopB := filepath.Join(bad, "loop-a.jsonl"), filepath.Join(bad, "loop-b.jsonl")
	for _, l := range [][2]string{{bad, filepath.Join(bad, "back")}, {loopB, loopA}, {loopA, loopB}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatalf("symlink: %v", err)
		}
	}
	problems[loopA] = []wantProblem{{0, "cannot follow link"}}
	problems[loopB] = []wantProblem{{0, "cannot follow link"}}
	return dir, sessions, problems
}

type jsonReport struct {
	Summary struct {
		Sessions int `json:"sessions"`
		Problems int `json:"problems"`
	} `json:"summary"`
	Sessions []struct {
		File string `json:"file"`
	} `json:"sessions"`
	Problems []ingest.Problem `json:"problems"`
}

// runWithin runs the CLI and fails the test if it takes longer than limit.
func runWithin(t *testing.T, limit time.Duration, args ...string) (string, string, int) {
	t.Helper()
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(append([]string{"loopgate"}, args...), &out, &errb)
		done <- result{out.String(), errb.String(), code}
	}()
	select {
	case r := <-done:
		return r.out, r.errs, r.code
	case <-time.After(limit):
		t.Fatalf("loopgate %s did not finish in %v", strings.Join(args, " "), limit)
		return "", "", 0
	}
}

// TestHostileCorpus replays the mixed directory and checks, file by file,
// the sessions reported and the problem lines.
func TestHostileCorpus(t *testing.T) {
	t.Parallel()
	quietTerminal(t)
	dir, wantSessions, wantProblems := hostileCorpus(t, true)
	out, stderr, code := runWithin(t, 2*time.Minute, "replay", "--format", "json", "--tokenizer", "chars4", dir)
	if code != exitOK {
		t.Fatalf("exit %d (want 0 without --strict): %s", code, stderr)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	gotSessions := map[string]int{}
	for _, s := range rep.Sessions {
		gotSessions[s.File]++
	}
	total := 0
	for file, want := range wantSessions {
		if want >= 0 && gotSessions[file] != want {
			t.Errorf("%s: %d sessions reported, want %d", file, gotSessions[file], want)
		}
		total += max(want, 0)
	}
	if len(rep.Sessions) < total || rep.Summary.Sessions != len(rep.Sessions) {
		t.Errorf("%d sessions reported (summary %d), want at least %d", len(rep.Sessions), rep.Summary.Sessions, total)
	}
	gotProblems := map[string][]ingest.Problem{}
	for _, p := range rep.Problems {
		if p.File == "" || strings.TrimSpace(p.Message) == "" {
			t.Errorf("problem without a file or a message: %+v", p)
		}
		if strings.Contains(p.Message, "internal error") {
			t.Errorf("a parser panicked: %+v", p)
		}
		gotProblems[p.File] = append(gotProblems[p.File], p)
	}
	for file, got := range gotProblems {
		if _, known := wantProblems[file]; !known {
			t.Errorf("unexpected problems for %s: %+v", file, got)
		}
	}
	for file, want := range wantProblems {
		got := gotProblems[file]
		if len(got) != len(want) {
			t.Errorf("%s: %d problems, want %d: %+v", file, len(got), len(want), got)
			continue
		}
		for i, w := range want {
			if (w.line >= 0 && got[i].Line != w.line) || !strings.Contains(got[i].Message, w.word) {
				t.Errorf("%s: problem %d is line %d %q, want line %d with %q", file, i+1, got[i].Line, got[i].Message, w.line, w.word)
			}
		}
	}
	if rep.Summary.Problems != len(rep.Problems) {
		t.Errorf("summary counts %d problems, the list has %d", rep.Summary.Problems, len(rep.Problems))
	}

	_, stderr, code = runWithin(t, 2*time.Minute, "replay", "--format", "json", "--tokenizer", "chars4", "--strict", dir)
	if code != exitUsage || !strings.Contains(stderr, "--strict") {
		t.Errorf("--strict over problems: exit %d, stderr %q; want 2 naming --strict", code, stderr)
	}
	_, _, code = runWithin(t, 2*time.Minute, "inspect", "--format", "json", "--strict", filepath.Join(dir, "bad"))
	if code != exitUsage {
		t.Errorf("inspect --strict over problems: exit %d, want 2", code)
	}
	_, _, code = runWithin(t, time.Minute, "replay", "--format", "json", "--strict", filepath.Join(dir, "bad", "secrets-loop.jsonl"))
	if code != exitOK {
		t.Errorf("--strict over a clean file: exit %d, want 0", code)
	}
}

// TestHostileUnreadableFile: a file that cannot be opened is one problem,
// and the run goes on. Root reads through chmod 000; there the test reads
// /proc/self/mem instead, a file that opens but whose first read fails.
func TestHostileUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked.jsonl")
	if err := os.WriteFile(locked, linesOf(nanobotCalls(nil)...), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(locked); err == nil {
		const mem = "/proc/self/mem"
		if _, err := os.Stat(mem); err != nil {
			t.Skip("chmod 000 does not stop this user from reading (running as root?) and there is no /proc/self/mem: no unreadable file can be made here")
		}
		ok := filepath.Join(dir, "ok.jsonl")
		if err := os.WriteFile(ok, linesOf(nanobotCalls(nil)...), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, code := runWithin(t, time.Minute, "replay", "--format", "json", mem, ok)
		var rep jsonReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
			t.Fatalf("exit %d, report error %v", code, err)
		}
		if len(rep.Sessions) != 1 || len(rep.Problems) != 1 || rep.Problems[0].File != mem || !strings.Contains(rep.Problems[0].Message, "input/output error") {
			t.Errorf("want the readable session and one read-error problem for %s; got %d sessions, problems %+v", mem, len(rep.Sessions), rep.Problems)
		}
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.jsonl"), linesOf(nanobotCalls(nil)...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runWithin(t, time.Minute, "replay", "--format", "json", dir)
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d, report error %v", code, err)
	}
	if len(rep.Sessions) != 1 || len(rep.Problems) != 1 || rep.Problems[0].File != locked || !strings.Contains(rep.Problems[0].Message, "cannot open") {
		t.Errorf("want the readable session and one 'cannot open' problem for %s; got %d sessions, problems %+v", locked, len(rep.Sessions), rep.Problems)
	}
}

// TestHostileDeterminism: the same input gives byte-identical reports in
// every format with one job and with eight, over the hostile corpus (the
// 64 MiB file left out: it is checked above) and over the fixtures.
func TestHostileDeterminism(t *testing.T) {
	t.Parallel()
	dir, _, _ := hostileCorpus(t, false)
	replayFormats, inspectFormats, jobsRuns := []string{"table", "json", "jsonl", "markdown"}, []string{"table", "json"}, []string{"1", "8", "1"}
	if testing.Short() {
		// -short: JSON, one job against eight.
		replayFormats, inspectFormats, jobsRuns = []string{"json"}, []string{"json"}, jobsRuns[:2]
	}
	var runs [][]string
	for _, format := range replayFormats {
		runs = append(runs, []string{"replay", "--format", format, "--tokenizer", "chars4"})
	}
	// inspect reads files in parallel too, and lists them in order.
	for _, format := range inspectFormats {
		runs = append(runs, []string{"inspect", "--format", format, "--calls"})
	}
	for _, run := range runs {
		name := strings.Join(run, " ")
		var first string
		for _, jobs := range jobsRuns {
			out, stderr, code := runWithin(t, 2*time.Minute, append(run, "--color", "never", "--jobs", jobs, dir, "fixtures")...)
			if code != exitOK {
				t.Fatalf("%s --jobs %s: exit %d: %s", name, jobs, code, stderr)
			}
			if first == "" {
				first = out
			} else if out != first {
				t.Errorf("%s with --jobs %s differs from --jobs 1", name, jobs)
			}
		}
	}
}

// TestHostileSecretsNeverShown: no planted secret appears in any report
// format, in inspect (table and json, with every call), or in a problem
// message; --no-redact shows them (so the check can fail).
func TestHostileSecretsNeverShown(t *testing.T) {
	t.Parallel()
	dir, _, _ := hostileCorpus(t, false)
	bad := filepath.Join(dir, "bad")
	var runs [][]string
	presets := []string{"loopgate", "nanobot", "hermes-dedup"}
	for i, format := range []string{"table", "json", "jsonl", "markdown"} {
		for j, preset := range presets {
			if testing.Short() && j != i%len(presets) {
				continue // -short: every format once and every preset at least once
			}
			runs = append(runs, []string{"replay", "--format", format, "--preset", preset, "--max-decisions", "0", "--tokenizer", "chars4", bad})
		}
	}
	runs = append(runs,
		[]string{"inspect", "--format", "json", "--calls", bad},
		[]string{"inspect", "--format", "table", "--calls", bad})
	names := make([]string, 0, len(hostileSecrets))
	for k := range hostileSecrets {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, args := range runs {
		out, errs, _ := runWithin(t, time.Minute, args...)
		for _, kind := range names {
			if s := hostileSecrets[kind]; strings.Contains(out, s) || strings.Contains(errs, s) {
				t.Errorf("loopgate %s shows the %s secret %q", strings.Join(args[:3], " "), kind, s)
			}
		}
	}
	// The check can fail: without redaction the secrets are there.
	out, _, _ := runWithin(t, time.Minute, "replay", "--format", "json", "--no-redact", "--max-decisions", "0", "--tokenizer", "chars4", bad)
	for _, kind := range []string{"github", "aws", "url"} {
		if !strings.Contains(out, hostileSecrets[kind]) {
			t.Errorf("--no-redact does not show the %s secret: the corpus no longer plants it where reports look", kind)
		}
	}
}

// TestHostileConfigFiles: hostile rules and gate files at the command line
// are exit 2 with FILE:LINE on standard error, in bounded time. (The
// packages test each attack in detail: rules TestHostileRulesYAML, analyze
// TestHostileGateYAML.)
func TestHostileConfigFiles(t *testing.T) {
	dir := t.TempDir()
	laughs := "lol0: &l0 [a, a, a, a, a, a, a, a, a]\n"
	for i := 1; i <= 9; i++ {
		laughs += fmt.Sprintf("lol%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	files := map[string]string{
		"laughs.yaml":      laughs,
		"empty.yaml":       "",
		"huge.yaml":        "name: x\ndetectors:\n  repeat:\n    block_at: 1e400\n",
		"wrong-type.yaml":  "name: x\nscope: [1, 2]\n",
		"laughs.gate.yaml": laughs + "cases: [*l9]\n",
		"empty.gate.yaml":  "",
		"huge.gate.yaml":   "cases:\n  - transcript: x.jsonl\n    calls: [{call: 1e400}]\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"rules", "check", p}
		if strings.HasSuffix(name, ".gate.yaml") {
			args = []string{"gate", p}
		}
		_, stderr, code := runWithin(t, 30*time.Second, args...)
		if code != exitUsage || !strings.Contains(stderr, p+":") {
			t.Errorf("loopgate %s %s: exit %d, stderr %.200q; want exit 2 naming %s:LINE", args[0], name, code, stderr, p)
		}
	}
}
