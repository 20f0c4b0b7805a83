package ingest

// Hostile inputs, file by file: each case is generated here (never
// committed), read through ReadFile, and must give exactly the sessions and
// problem lines it says. The CLI-level test over a directory mixing all of
// them is TestHostileCorpus in main_hostile_test.go.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// nbMeta is a nanobot metadata record: it makes a file a nanobot session.
const nbMeta = `{"_type": "metadata", "key": "cli:hostile", "created_at": "2026-10-14T09:00:00", "updated_at": "2026-10-14T09:30:00", "metadata": {}, "last_consolidated": 0}`

// hostileNanobot builds a small, clean nanobot session: a user message, then n
// read_file calls each with its result, then a final answer.
func hostileNanobot(n int) []string {
	lines := []string{nbMeta, `{"role": "user", "content": "Why does the job fail?", "timestamp": "2026-10-14T09:00:01"}`}
	for i := 1; i <= n; i++ {
		lines = append(lines,
			fmt.Sprintf(`{"role": "assistant", "content": "", "tool_calls": [{"id": "call_%d", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"job.log\"}"}}], "timestamp": "2026-10-14T09:00:0%d"}`, i, i+1),
			fmt.Sprintf(`{"role": "tool", "tool_call_id": "call_%d", "name": "read_file", "content": "ERROR: cron step is zero", "timestamp": "2026-10-14T09:00:0%d"}`, i, i+1))
	}
	return append(lines, `{"role": "assistant", "content": "The cron step is zero.", "timestamp": "2026-10-14T09:00:09"}`)
}

func joinLines(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func gzipped(data []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// hostileProblem is an expected problem: its line and a word of its message.
type hostileProblem struct {
	line int
	word string
}

type hostileCase struct {
	name     string // file name (its ending matters to detection)
	data     []byte
	sessions int
	calls    int // calls over all sessions, -1: not checked
	problems []hostileProblem
}

// hostileCases returns the generated inputs with what each must read as.
func hostileCases() []hostileCase {
	good := hostileNanobot(3) // 9 lines: meta, user, 3 x (call, result), answer
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	deepObj := strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000)
	rng := rand.New(rand.NewSource(8))
	binary := make([]byte, 4096)
	rng.Read(binary)
	binary[0] = 0x7f // not the gzip magic
	withNUL := append(append([]string{}, good[:4]...), "\x00\x00\x00\x00")
	withNUL = append(withNUL, good[4:]...)
	nulInString := append([]string{}, good...)
	nulInString[len(nulInString)-1] = "{\"role\": \"assistant\", \"content\": \"a\x00b\"}"
	badUTF8 := append([]string{}, good...)
	badUTF8[3] = strings.Replace(badUTF8[3], "cron step", "cron \xff\xfe step", 1)
	exportLines := []string{
		`{"id": "s1", "source": "cli", "model": "m", "started_at": 1771560000.5, "messages": [{"id": 1, "role": "user", "content": "hi", "timestamp": 1772446210.0}, {"id": 2, "role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls\"}"}}], "timestamp": 1772446211.0}, {"id": 3, "role": "tool", "tool_call_id": "c1", "content": "a b", "timestamp": 1772446212.0}]}`,
		`{"id": "s2", "source": "cli", "model": "m", "started_at": 1771560001.5, "messages": [{"id": 1, "role": "user", "content": "ho", "timestamp": 1772446220.0}]}`,
	}
	oneLine := gzipped([]byte(exportLines[1]))
	zipped := gzipped(joinLines(strings.Repeat(exportLines[0]+"\n", 400) + exportLines[1]))
	return []hostileCase{
		{name: "clean.jsonl", data: joinLines(good...), sessions: 1, calls: 3},
		{
			// A crash while writing: the last line has no newline and is
			// cut in the middle of a JSON string.
			name: "truncated.jsonl", data: []byte(strings.Join(good, "\n") + "\n" + `{"role": "user", "content": "and n`),
			sessions: 1, calls: 3, problems: []hostileProblem{{10, "cut short"}},
		},
		{name: "nul-line.jsonl", data: joinLines(withNUL...), sessions: 1, calls: 3, problems: []hostileProblem{{5, "not valid JSON"}}},
		{name: "nul-in-string.jsonl", data: joinLines(nulInString...), sessions: 1, calls: 3, problems: []hostileProblem{{9, "not valid JSON"}}},
		{name: "bad-utf8.jsonl", data: joinLines(badUTF8...), sessions: 1, calls: 3, problems: []hostileProblem{{4, "invalid UTF-8"}}},
		{name: "deep-line.jsonl", data: joinLines(append(append([]string{}, good[:4]...), append([]string{deep}, good[4:]...)...)...), sessions: 1, calls: 3, problems: []hostileProblem{{5, ""}}},
		{name: "deep-array.json", data: []byte(deep), problems: []hostileProblem{{1, "no known format"}}},
		{name: "deep-object.json", data: []byte(deepObj), problems: []hostileProblem{{1, "no known format"}}},
		// The same, pretty-printed over many lines.
		{name: "deep-pretty.json", data: []byte("[\n" + deep[1:]), problems: []hostileProblem{{1, "not valid JSON"}}},
		{name: "binary.jsonl", data: binary, problems: []hostileProblem{{1, "no known format"}}},
		{name: "empty.jsonl", data: nil, problems: []hostileProblem{{0, "empty"}}},
		{name: "blank.jsonl", data: []byte("\n\n  \r\n"), problems: []hostileProblem{{0, "empty"}}},
		{
			// Two calls share an id: both kept, the reuse is a problem, and
			// their results are joined in order.
			name: "duplicate-ids.jsonl", data: joinLines(nbMeta,
				`{"role": "user", "content": "read both"}`,
				`{"role": "assistant", "content": "", "tool_calls": [{"id": "dup", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}, {"id": "dup", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"b\"}"}}]}`,
				`{"role": "tool", "tool_call_id": "dup", "name": "read_file", "content": "A"}`,
				`{"role": "tool", "tool_call_id": "dup", "name": "read_file", "content": "B"}`,
				`{"role": "tool", "tool_call_id": "dup", "name": "read_file", "content": "C"}`),
			sessions: 1, calls: 2, problems: []hostileProblem{{3, "reuses the id"}, {6, "extra tool result"}},
		},
		{
			// A result written before its call (a trimmed or reordered
			// file): it has no call to join.
			name: "result-first.jsonl", data: joinLines(nbMeta,
				`{"role": "user", "content": "go"}`,
				`{"role": "tool", "tool_call_id": "early", "name": "read_file", "content": "too soon"}`,
				`{"role": "assistant", "content": "", "tool_calls": [{"id": "early", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}]}`,
				`{"role": "tool", "tool_call_id": "early", "name": "read_file", "content": "on time"}`),
			sessions: 1, calls: 1, problems: []hostileProblem{{3, "has no call"}},
		},
		{
			// gzip cut short: the sessions read before the cut are kept,
			// the cut is one problem.
			name: "cut.jsonl.gz", data: zipped[:len(zipped)*2/3],
			sessions: -1, calls: -1, problems: []hostileProblem{{-1, "gzip data ends early"}},
		},
		{
			// gzip of a single-line document, cut in the middle.
			name: "cut-one-line.json.gz", data: oneLine[:len(oneLine)/2],
			sessions: 0, calls: 0, problems: []hostileProblem{{-1, "gzip data ends early"}},
		},
		{
			// The same with only the gzip trailer missing: the document
			// is whole and read, and the cut is still reported.
			name: "cut-trailer.json.gz", data: oneLine[:len(oneLine)-8],
			sessions: 1, calls: 0, problems: []hostileProblem{{1, "gzip data ends early"}},
		},
		{
			// A call without an id, then a result without an id (found by
			// FuzzRead: the hermes reader recursed forever on it, a stack
			// overflow that killed the whole run). The result joins the
			// call.
			name: "20260413_083748_5a617929.jsonl", data: joinLines(
				`{"role": "user", "content": "list"}`,
				`{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls\"}"}}]}`,
				`{"role": "tool", "content": "a b"}`,
				`{"role": "assistant", "content": "done"}`),
			sessions: 1, calls: 1, problems: []hostileProblem{{2, "has no id"}},
		},
		{name: "not-gzip.jsonl.gz", data: []byte{0x1f, 0x8b, 0x00, 0x01}, problems: []hostileProblem{{0, "gzip"}}},
	}
}

// TestHostileFiles reads each hostile input and checks its sessions and
// problems exactly: the run goes on, good sessions survive, and every bad
// spot is one problem naming its file and line.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var sessions []*Session
			var problems []Problem
			go func() {
				defer close(done)
				sessions, problems = readAll(t, path, Options{})
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("reading did not finish in 30s")
			}
			for _, p := range problems {
				if p.File != path || strings.Contains(p.Message, "internal error") {
					t.Errorf("problem %+v: want file %s and no internal error", p, path)
				}
			}
			if tc.sessions >= 0 && len(sessions) != tc.sessions {
				t.Errorf("%d sessions, want %d", len(sessions), tc.sessions)
			}
			calls := 0
			for _, s := range sessions {
				calls += s.NumCalls()
				for _, turn := range s.Turns {
					for _, r := range turn.Requests {
						for _, c := range r.Calls {
							if !utf8.ValidString(c.Result) || !utf8.ValidString(c.ArgsRaw) {
								t.Errorf("call %s holds invalid UTF-8", c.ID)
							}
						}
					}
				}
			}
			if tc.calls >= 0 && calls != tc.calls {
				t.Errorf("%d calls, want %d", calls, tc.calls)
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("%d problems, want %d: %+v", len(problems), len(tc.problems), problems)
			}
			for i, want := range tc.problems {
				got := problems[i]
				if (want.line >= 0 && got.Line != want.line) || !strings.Contains(got.Message, want.word) {
					t.Errorf("problem %d is line %d %q; want line %d with %q", i+1, got.Line, got.Message, want.line, want.word)
				}
				if len(got.Message) > 400 {
					t.Errorf("problem message is %d bytes long: it should not echo the input", len(got.Message))
				}
			}
		})
	}
}

// TestHostileDuplicateIDsJoinInOrder: two calls with one id get the results
// in the order they come, and a third result is a problem, not a silent drop.
func TestHostileDuplicateIDsJoinInOrder(t *testing.T) {
	for _, tc := range hostileCases() {
		if tc.name != "duplicate-ids.jsonl" {
			continue
		}
		sessions, _ := readBytes(tc.data, tc.name, "")
		if len(sessions) != 1 || sessions[0].NumCalls() != 2 {
			t.Fatalf("want one session with 2 calls, got %d sessions", len(sessions))
		}
		calls := sessions[0].Turns[0].Requests[0].Calls
		if calls[0].Result != "A" || calls[1].Result != "B" {
			t.Errorf("results %q, %q; want A, B (joined in order)", calls[0].Result, calls[1].Result)
		}
		return
	}
	t.Fatal("no duplicate-ids case")
}

// peakHeap runs f and returns the highest heap in use seen while it ran,
// above the heap in use before it started (sampled every 5ms).
func peakHeap(f func()) uint64 {
	// Collect often, so that the heap seen is close to what is live
	// rather than garbage the collector has not reached yet.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak {
				peak = m.HeapAlloc - base
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak
}

// junkLines returns n lines of size bytes that are not JSON.
func junkLines(n, size int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = strings.Repeat(string(rune('a'+i)), size)
	}
	return lines
}

// TestHostileHugeLine: a 64 MiB line, once as a valid tool result inside a
// session and once as junk. Both read (the result whole, the junk as one
// short problem) with the heap bounded to a small multiple of the line.
func TestHostileHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the 64 MiB inputs")
	}
	const size = 64 << 20
	big := strings.Repeat("x", size)
	good := hostileNanobot(1)
	valid := append([]string{}, good[:3]...)
	valid = append(valid, `{"role": "tool", "tool_call_id": "call_1", "name": "read_file", "content": "`+big+`"}`)
	valid = append(valid, good[4:]...)
	dir := t.TempDir()
	cases := []struct {
		name      string
		lines     []string
		sessions  int
		resultLen int
		problems  int
		format    string
	}{
		{"huge-result.jsonl", valid, 1, size, 0, ""},
		{"huge-junk.jsonl", append(append([]string{}, good[:2]...), big), 1, -1, 1, ""},
		// Junk lines at the top: detection looks at up to 64 lines for a
		// first record and keeps them for the parser; it used to keep all
		// of them however large (eight 64 MiB lines took over 1 GB). Now
		// it stops at 64 MiB, and such a file is of no known format.
		{"huge-junk-first.jsonl", append(junkLines(6, size/2), good...), 0, -1, 1, ""},
		// Named with --input-format, the file is read past the junk (each
		// junk line one problem) without holding it.
		{"huge-junk-first-forced.jsonl", append(junkLines(6, size/2), good...), 1, -1, 6, "nanobot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, joinLines(tc.lines...), 0o644); err != nil {
				t.Fatal(err)
			}
			var sessions []*Session
			var problems []Problem
			peak := peakHeap(func() { sessions, problems = readAll(t, path, Options{Format: tc.format}) })
			t.Logf("%s: peak heap %d MiB over a %d MiB line", tc.name, peak>>20, size>>20)
			// The line buffer (grown by doubling), the decoded result and
			// the session: a few copies of the line, not GBs. This guards
			// against the regression described above (memory growing with
			// the number of huge lines), not a memory target: HeapAlloc
			// sampled every 5ms includes garbage not yet swept, so it
			// varies with GC timing (4-6.3 times the line seen, in CI
			// too). Memory figures are measured by scripts/bench.sh
			// --memory and recorded in docs/performance.md.
			if peak > 12*size {
				t.Errorf("peak heap %d MiB for a %d MiB line", peak>>20, size>>20)
			}
			if len(sessions) != tc.sessions || len(problems) != tc.problems {
				t.Fatalf("%d sessions and %d problems (%+v), want %d and %d", len(sessions), len(problems), problems, tc.sessions, tc.problems)
			}
			for _, p := range problems {
				if len(p.Message) > 400 {
					t.Errorf("problem message is %d bytes: it echoes the line", len(p.Message))
				}
			}
			if tc.resultLen >= 0 {
				c := sessions[0].Turns[0].Requests[0].Calls[0]
				if len(c.Result) != tc.resultLen {
					t.Errorf("result is %d bytes, want %d", len(c.Result), tc.resultLen)
				}
			}
		})
	}
}
