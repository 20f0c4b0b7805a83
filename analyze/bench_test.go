package analyze

// Benchmarks of the replay's hot paths (docs/performance.md):
// result hashing, truth signatures, Prepare and Run per session over a
// corpus written by the seeded generator, per format, per preset and per
// tokenizer. BenchmarkGuard (engine_test.go) measures the guard alone on a
// synthetic call stream. Run with
//
//	go test ./analyze -run '^$' -bench 'Hash|Signature|Prepare|Run' -benchmem

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// benchFormat is the sessions ingested from one generated format.
type benchFormat struct {
	format   string
	sessions []*ingest.Session
	bytes    int64 // file bytes the sessions came from
	calls    int
}

var (
	benchCorpusOnce sync.Once
	benchFormats    []*benchFormat
	benchCorpusErr  error
)

// loadBenchSessions generates (once per process) about 2 MiB per format
// into a temporary directory and ingests it; the sessions stay in memory.
func loadBenchSessions(b *testing.B) []*benchFormat {
	b.Helper()
	benchCorpusOnce.Do(func() {
		files, err := corpusgen.GenerateInMemory(2<<20, 512<<10)
		if err != nil {
			benchCorpusErr = err
			return
		}
		byFormat := map[string]*benchFormat{}
		for _, f := range files {
			bf := byFormat[f.Format]
			if bf == nil {
				bf = &benchFormat{format: f.Format}
				byFormat[f.Format] = bf
				benchFormats = append(benchFormats, bf)
			}
			var problems []string
			ingest.Read(bytes.NewReader(f.Data), f.Path, ingest.Options{}, &ingest.Sink{
				OnSession: func(s *ingest.Session) { bf.sessions = append(bf.sessions, s) },
				OnProblem: func(p Problem) { problems = append(problems, p.Message) },
			})
			if len(problems) > 0 {
				benchCorpusErr = fmt.Errorf("generated file %s: %s", f.Path, strings.Join(problems, "; "))
				return
			}
			bf.bytes += f.Bytes
			bf.calls += f.Calls
		}
		sort.Slice(benchFormats, func(i, j int) bool { return benchFormats[i].format < benchFormats[j].format })
	})
	if benchCorpusErr != nil {
		b.Fatal(benchCorpusErr)
	}
	return benchFormats
}

// benchAll merges every format into one mixed corpus.
func benchAll(b *testing.B) *benchFormat {
	all := &benchFormat{format: "all"}
	for _, f := range loadBenchSessions(b) {
		all.sessions = append(all.sessions, f.sessions...)
		all.bytes += f.bytes
		all.calls += f.calls
	}
	return all
}

func benchCounter(b *testing.B, name string) tokens.Counter {
	c, err := tokens.New(name)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func benchPreset(b *testing.B, name string) *rules.Rules {
	r, err := rules.Preset(name)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkHashString measures result hashing at typical result sizes.
func BenchmarkHashString(b *testing.B) {
	const line = "line 42: func main() { fmt.Println(x) }\n"
	for _, size := range []int{64, 4 << 10, 256 << 10} {
		s := strings.Repeat(line, size/len(line)+1)[:size]
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			var sink uint64
			for b.Loop() {
				sink ^= guard.HashString(s)
			}
			_ = sink
		})
	}
}

// BenchmarkSignature measures the truth signature (tool plus arguments
// with keys sorted) on argument shapes the generator writes, as Prepare
// builds it: in a reused buffer, then digested.
func BenchmarkSignature(b *testing.B) {
	cases := []struct{ name, tool, raw string }{
		{"read", "read_file", `{"path":"/src/app/server.go","offset":120,"limit":200}`},
		{"shell", "terminal", `{"command":"go test ./... -run TestServer -count=1","timeout":120,"workdir":"/src/app"}`},
		{"edit", "edit_file", `{"path":"/src/app/server.go","edits":[{"oldText":"return nil","newText":"return err"},{"oldText":"x := 1","newText":"x := 2"}]}`},
		{"not-json", "bash", `ls -la /src/app && git status`},
	}
	for _, c := range cases {
		call := ingest.Call{Tool: c.tool}
		call.SetArgs(c.raw)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				buf = appendSignature(buf[:0], &call)
				_ = sigDigest(buf)
			}
		})
	}
}

// BenchmarkPrepare measures the rules-independent pass over a session
// (hashes, signatures, redundancy), per generated format; bytes are the
// transcript bytes the sessions came from.
func BenchmarkPrepare(b *testing.B) {
	for _, f := range loadBenchSessions(b) {
		b.Run(f.format, func(b *testing.B) {
			b.SetBytes(f.bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range f.sessions {
					_ = Prepare(s)
				}
			}
		})
	}
}

// BenchmarkPrepareRun is what replay does per session after parsing:
// Prepare and one Run under the loopgate preset with a fresh token cache,
// per generated format (chars4) and on the mixed corpus per tokenizer.
func BenchmarkPrepareRun(b *testing.B) {
	r := benchPreset(b, "loopgate")
	type bench struct {
		name, tokenizer string
		f               *benchFormat
	}
	var benches []bench
	for _, f := range loadBenchSessions(b) {
		benches = append(benches, bench{f.format + "/chars4", "chars4", f})
	}
	all := benchAll(b)
	for _, tok := range []string{"chars4", "o200k_base"} {
		benches = append(benches, bench{"all/" + tok, tok, all})
	}
	for _, bb := range benches {
		counter := benchCounter(b, bb.tokenizer)
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(bb.f.bytes)
			b.ReportAllocs()
			for b.Loop() {
				tc := NewTokenCache(counter)
				for _, s := range bb.f.sessions {
					Run(Prepare(s), r, tc)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(bb.f.calls), "ns/call")
		})
	}
}

// BenchmarkRun replays prepared sessions under each preset: what every
// configuration of a sweep pays per session (the corpus is prepared once
// and result token counts are kept after the first run, as in a sweep).
// ns/call is the engine plus the truth judgement per call of a real call
// stream; BenchmarkGuard measures the guard alone.
func BenchmarkRun(b *testing.B) {
	all := benchAll(b)
	prepared := make([]*PreparedSession, len(all.sessions))
	for i, s := range all.sessions {
		prepared[i] = Prepare(s)
	}
	tc := NewTokenCache(benchCounter(b, "chars4"))
	for _, name := range rules.PresetNames() {
		r := benchPreset(b, name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(all.bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range prepared {
					Run(p, r, tc)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(all.calls), "ns/call")
		})
	}
}

// BenchmarkCorpusRun is one sweep configuration over an in-memory corpus
// with one job: Run per session plus the aggregation into a report.
func BenchmarkCorpusRun(b *testing.B) {
	all := benchAll(b)
	c := &Corpus{Files: 1}
	for _, s := range all.sessions {
		c.Sessions = append(c.Sessions, Prepare(s))
	}
	r := benchPreset(b, "loopgate")
	counter := benchCounter(b, "chars4")
	b.SetBytes(all.bytes)
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Run(r, counter, 1)
	}
}

// BenchmarkSweep50 is the in-memory part of the benchmark's 50-configuration
// sweep (scripts/bench.sh): the corpus prepared once, then the loopgate
// preset under detectors.no_progress.block_at=1..5 ×
// tools.class:shell.no_progress.block_at=1..10, one job. Parsing is not
// included (BenchmarkRead in ingest measures it); compare its ns/op with
// 50 × BenchmarkCorpusRun to see what the shared key memo saves.
func BenchmarkSweep50(b *testing.B) {
	all := benchAll(b)
	c := &Corpus{Files: 1}
	for _, s := range all.sessions {
		c.Sessions = append(c.Sessions, Prepare(s))
	}
	varies := []Vary{
		{Key: "detectors.no_progress.block_at", Values: []string{"1", "2", "3", "4", "5"}},
		{Key: "tools.class:shell.no_progress.block_at", Values: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
	}
	base := benchPreset(b, "loopgate")
	counter := benchCounter(b, "chars4")
	cfgs, settings, err := Configs(base, varies)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(all.bytes)
	b.ReportAllocs()
	for b.Loop() {
		if rows := SweepRows(settings, c.RunAll(cfgs, counter, 1, false, nil)); len(rows) != 50 {
			b.Fatalf("sweep: %d rows", len(rows))
		}
	}
}

// BenchmarkNativeIntervention looks for the agent's own guard notes in a
// 64 KiB result with none (the common case: both 4 KiB windows scanned for
// every marker).
func BenchmarkNativeIntervention(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 64<<10 {
		sb.WriteString(`{"path": "src/main.go", "line": 42, "text": "\tif err != nil { return fmt.Errorf(\"read %s: %w\", name, err) }"},` + "\n")
	}
	result := sb.String()
	b.SetBytes(2 * noteWindow)
	b.ReportAllocs()
	for b.Loop() {
		if name, _ := NativeIntervention(result); name != "" {
			b.Fatal(name)
		}
	}
}

// BenchmarkNativeInterventionShort: results of one window or less (most
// tool results), scanned whole.
func BenchmarkNativeInterventionShort(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < noteWindow {
		sb.WriteString(`{"path": "src/main.go", "line": 42, "text": "\tif err != nil { return fmt.Errorf(\"read %s: %w\", name, err) }"},` + "\n")
	}
	for _, n := range []int{100, 1000, noteWindow} {
		result := sb.String()[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if name, _ := NativeIntervention(result); name != "" {
					b.Fatal(name)
				}
			}
		})
	}
}

// BenchmarkResultTruth measures the per-result passes of Prepare over the
// results of the generated corpus: the guard notes removed and the failure
// shape read (guard.ResultFacts), and the agent's own guard notes looked for
// (NativeIntervention).
func BenchmarkResultTruth(b *testing.B) {
	all := benchAll(b)
	var results []string
	var size int64
	for _, s := range all.sessions {
		for _, t := range s.Turns {
			for _, r := range t.Requests {
				for _, c := range r.Calls {
					results = append(results, c.Result)
					size += int64(len(c.Result))
				}
			}
		}
	}
	b.Run("normalize-failed", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range results {
				_, _ = guard.ResultFacts(r, false)
			}
		}
	})
	b.Run("native", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range results {
				_, _ = NativeIntervention(r)
			}
		}
	})
}

// BenchmarkReplayShortSessions replays a request log of 20 000 one-request
// conversations (the shape of bench.sh --memory's short-session logs) from
// its file, as replay --format jsonl does (each result passed on, none
// kept): reading, the handoff to the replay stage, Prepare, Run and the
// tallies, per session. Its sessions/s is the figure to watch for logs
// whose sessions, not bytes, are many.
func BenchmarkReplayShortSessions(b *testing.B) { benchShortSessions(b, "loopgate") }

// BenchmarkReplayShortSessionsText is the same replay under the openhands
// preset, whose monologue detector reads the model's text: the readers keep
// each response's text, and the replay feeds it to the guard.
func BenchmarkReplayShortSessionsText(b *testing.B) { benchShortSessions(b, "openhands") }

func benchShortSessions(b *testing.B, preset string) {
	const n = 20000
	var log bytes.Buffer
	for i := range n {
		fmt.Fprintf(&log, `{"metadata":{"session_id":"s%d"},"messages":[{"role":"user","content":"read it %d"}`, i, i)
		for c := 0; c <= i%4; c++ {
			fmt.Fprintf(&log, `,{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f%d\"}"}}]}`, c, i%5)
			fmt.Fprintf(&log, `,{"role":"tool","tool_call_id":"c%d","content":"same text %d"}`, c, i%5)
		}
		log.WriteString(`,{"role":"assistant","content":"done"}]}` + "\n")
	}
	path := filepath.Join(b.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	opt := Options{Rules: benchPreset(b, preset), Tokens: benchCounter(b, "chars4"), Jobs: 1,
		DropSessions: true, OnSession: func(*SessionResult) {}}
	b.SetBytes(int64(log.Len()))
	b.ReportAllocs()
	for b.Loop() {
		rep := Replay([]string{path}, opt)
		if rep.Summary.Sessions != n {
			b.Fatalf("%d sessions replayed, want %d", rep.Summary.Sessions, n)
		}
		rep.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "sessions/s")
}
