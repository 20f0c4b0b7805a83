package ingest

// Benchmarks of reading (docs/performance.md): detection and
// parsing per format over an in-memory corpus written by the seeded
// generator, and the line splitter alone. Run with
//
//	go test ./ingest -run '^$' -bench . -benchmem

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

// benchFile is one generated transcript held in memory.
type benchFile struct {
	name string
	data []byte
}

// benchGroup is the files of one generated format and file kind (JSONL
// lines or a whole JSON document), with the format id loopgate detects.
type benchGroup struct {
	name     string // e.g. "openai-chat.jsonl"
	formatID string // the id ingest detects, used to force the format
	files    []benchFile
	bytes    int64
}

var (
	benchOnce   sync.Once
	benchGroups []*benchGroup
	benchErr    error
)

// benchCorpusBytesPerFormat keeps one operation in the tens of
// milliseconds while giving every format several sessions and files.
const benchCorpusBytesPerFormat = 2 << 20

// loadBenchCorpus generates (once per process) a small corpus per format
// into a temporary directory and reads it into memory.
func loadBenchCorpus(b *testing.B) []*benchGroup {
	b.Helper()
	benchOnce.Do(func() {
		files, err := corpusgen.GenerateInMemory(benchCorpusBytesPerFormat, 512<<10)
		if err != nil {
			benchErr = err
			return
		}
		byName := map[string]*benchGroup{}
		for _, f := range files {
			name := f.Format + filepath.Ext(f.Path)
			g := byName[name]
			if g == nil {
				g = &benchGroup{name: name}
				byName[name] = g
				benchGroups = append(benchGroups, g)
			}
			g.files = append(g.files, benchFile{name: f.Path, data: f.Data})
			g.bytes += int64(len(f.Data))
		}
		sort.Slice(benchGroups, func(i, j int) bool { return benchGroups[i].name < benchGroups[j].name })
		// The detected format id lets a sub-benchmark force the format
		// and so measure parsing without detection.
		for _, g := range benchGroups {
			f := g.files[0]
			Read(bytes.NewReader(f.data), f.name, Options{}, &Sink{OnSession: func(s *Session) { g.formatID = s.Format }})
			if g.formatID == "" {
				benchErr = &benchError{"no session read from generated file " + f.name}
				return
			}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchGroups
}

type benchError struct{ msg string }

func (e *benchError) Error() string { return e.msg }

// readGroup reads every file of g once and returns the sessions and
// problems seen.
func readGroup(g *benchGroup, opt Options) (sessions, problems int) {
	sink := &Sink{
		OnSession: func(*Session) { sessions++ },
		OnProblem: func(Problem) { problems++ },
	}
	for _, f := range g.files {
		Read(bytes.NewReader(f.data), f.name, opt, sink)
	}
	return sessions, problems
}

// BenchmarkRead measures ingest.Read per generated format: "detect" sniffs
// the format as a replay does, "forced" names it (--input-format), so the
// difference is the cost of detection.
func BenchmarkRead(b *testing.B) {
	for _, g := range loadBenchCorpus(b) {
		for _, mode := range []string{"detect", "forced"} {
			opt := Options{}
			if mode == "forced" {
				opt.Format = g.formatID
			}
			b.Run(g.name+"/"+mode, func(b *testing.B) {
				b.SetBytes(g.bytes)
				b.ReportAllocs()
				sessions, problems := 0, 0
				for b.Loop() {
					sessions, problems = readGroup(g, opt)
				}
				if problems > 0 {
					b.Fatalf("%d problems reading the generated %s files", problems, g.name)
				}
				b.ReportMetric(float64(sessions), "sessions/op")
			})
		}
	}
}

// BenchmarkLineReader measures splitting lines alone (no JSON), the floor
// under every JSONL parser.
func BenchmarkLineReader(b *testing.B) {
	var all []byte
	for _, g := range loadBenchCorpus(b) {
		if strings.HasSuffix(g.name, ".jsonl") {
			for _, f := range g.files {
				all = append(all, f.data...)
			}
		}
	}
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	for b.Loop() {
		lr := NewLineReader(bytes.NewReader(all))
		for {
			if _, _, ok := lr.Next(); !ok {
				break
			}
		}
	}
}

// BenchmarkReadReplayingLog reads the generated OpenAI JSONL logs turned
// into request logs that replay the conversation so far on every line
// (replayingLog), bare and in a proxy's request/response wrapper
// (asProxyLog), with lineReuse on and off.
func BenchmarkReadReplayingLog(b *testing.B) {
	for _, g := range loadBenchCorpus(b) {
		if !strings.HasPrefix(g.name, "openai-") || !strings.HasSuffix(g.name, ".jsonl") {
			continue
		}
		for _, proxy := range []bool{false, true} {
			rg := &benchGroup{name: g.name, formatID: g.formatID}
			if proxy {
				rg.name = strings.TrimSuffix(g.name, ".jsonl") + ".proxy.jsonl"
			}
			for _, f := range g.files {
				data := f.data
				if proxy {
					data = asProxyLog(data)
				}
				data = replayingLog(data)
				rg.files = append(rg.files, benchFile{name: f.name, data: data})
				rg.bytes += int64(len(data))
			}
			for _, reuse := range []bool{true, false} {
				name := rg.name + "/reuse"
				if !reuse {
					name = rg.name + "/plain"
				}
				b.Run(name, func(b *testing.B) {
					b.SetBytes(rg.bytes)
					b.ReportAllocs()
					problems := 0
					for b.Loop() {
						_, problems = readGroup(rg, Options{Format: rg.formatID, noLineReuse: !reuse})
					}
					if problems > 0 {
						b.Fatalf("%d problems reading the replaying %s logs", problems, rg.name)
					}
				})
			}
		}
	}
}

// BenchmarkDecodeClaudeCodeLines measures the one-pass decoding of the
// generated Claude Code lines alone, on one goroutine: the part of a
// Claude Code replay the read-ahead workers do (ccDecodeLine), without
// the order in which the records are applied.
func BenchmarkDecodeClaudeCodeLines(b *testing.B) {
	lines, size := claudeCodeBenchLines(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var l ccLine
	var read ccMessageRead
	var blocks []ccBlock
	for b.Loop() {
		for _, line := range lines {
			if !ccDecodeLine(line, &l, &read, blocks) {
				b.Fatalf("the one-pass decoding declined a generated line: %.200s", line)
			}
			blocks = read.blocks
		}
	}
}

// BenchmarkDecodeClaudeCodeRecords measures all that the read-ahead
// workers do with a Claude Code line (ccDecodeRecord): the decoding, then
// an assistant line's usage and arguments, and the time.
func BenchmarkDecodeClaudeCodeRecords(b *testing.B) {
	lines, size := claudeCodeBenchLines(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var rec ccRecord
	for b.Loop() {
		for _, line := range lines {
			ccDecodeRecord(nil, line, 0, &rec)
			if rec.err != nil {
				b.Fatalf("a generated line was not read: %v: %.200s", rec.err, line)
			}
		}
	}
}

// claudeCodeBenchLines returns the generated Claude Code lines and their
// size.
func claudeCodeBenchLines(b *testing.B) (lines [][]byte, size int64) {
	for _, g := range loadBenchCorpus(b) {
		if g.formatID != "claude-code" {
			continue
		}
		for _, f := range g.files {
			for line := range bytes.SplitSeq(f.data, []byte{'\n'}) {
				if len(bytes.TrimSpace(line)) > 0 {
					lines = append(lines, line)
					size += int64(len(line)) + 1
				}
			}
		}
	}
	if len(lines) == 0 {
		b.Fatal("no Claude Code lines generated")
	}
	return lines, size
}
