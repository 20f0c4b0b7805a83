// Command genpartials writes the partial reports of N replay shards
// (`replay --shard K/N --format jsonl`) of a made-up fleet of many
// sessions, without replaying anything: input for measuring `loopgate
// merge` at a scale no test corpus reaches (docs/performance.md, "Merging
// at fleet scale").
//
//	go run ./cmd/genpartials -out /tmp/parts -shards 8 -sessions 10000000
//	/usr/bin/time -v loopgate merge /tmp/parts/part-*.jsonl --format json >/dev/null
//
// Every session line is written by the report package's own JSON lines
// writer, and each shard's summary line carries the partial member a
// sharded run writes, so the merge reads them as it reads real shards'.
// Files are shared out round-robin; each holds -per-file sessions, and
// one session in -decision-every has a decision.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/report"
	"github.com/loopgate/loopgate/rules"
)

func main() {
	out := flag.String("out", "", "folder for part-K.jsonl (required)")
	shards := flag.Int("shards", 8, "N: shards written")
	sessions := flag.Int("sessions", 1_000_000, "sessions in all")
	perFile := flag.Int("per-file", 1, "sessions per file")
	every := flag.Int("decision-every", 20, "one session in this many has a decision (0: none)")
	flag.Parse()
	if *out == "" || *shards < 1 || *sessions < 1 || *perFile < 1 {
		fmt.Fprintln(os.Stderr, "genpartials: -out, and -shards, -sessions and -per-file of 1 or more, are required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	r, err := rules.Preset("loopgate")
	if err != nil {
		fail(err)
	}
	files := (*sessions + *perFile - 1) / *perFile
	for k := 1; k <= *shards; k++ {
		if err := writeShard(filepath.Join(*out, "part-"+strconv.Itoa(k)+".jsonl"), r, k, *shards, files, *sessions, *perFile, *every); err != nil {
			fail(err)
		}
	}
}

// writeShard writes shard k of n: files i with i%n == k-1.
func writeShard(path string, r *rules.Rules, k, n, files, sessions, perFile, every int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	p := &analyze.Partial{
		Version:     "devel-genpartials",
		RulesHashes: []string{analyze.RulesHash(r)},
		Tokenizer:   "chars4",
		Shard:       strconv.Itoa(k) + "/" + strconv.Itoa(n),
		TotalFiles:  files,
		Files:       []string{},
		FileIndex:   []int{},
	}
	jl := report.NewJSONL(w, report.Options{Partial: p})
	agg := analyze.NewAggregator(r, "chars4")
	for i := k - 1; i < files; i += n {
		file := fmt.Sprintf("/home/dev%03d/.claude/projects/-home-dev%03d-src-service%04d/%08x-4e1f-4b2a-9c3d-%012x.jsonl", i%500, i%500, i%7919, i, i*2654435761)
		p.Files = append(p.Files, file)
		p.FileIndex = append(p.FileIndex, i)
		for j := 0; j < perFile && i*perFile+j < sessions; j++ {
			s := session(file, i*perFile+j, every)
			if err := jl.Session(&s); err != nil {
				return err
			}
			agg.AddSession(s, []analyze.ToolStat{{Tool: "Read", Class: "read", Calls: s.Calls, Redundant: s.Redundant, Blocked: s.Blocked}}, false)
		}
	}
	rep := agg.Finish()
	rep.Summary.Files = len(p.Files)
	if err := jl.Finish(rep); err != nil {
		return err
	}
	return w.Flush()
}

// session is the made-up session number i.
func session(file string, i, every int) analyze.SessionResult {
	id := fmt.Sprintf("%08x-4e1f-4b2a-9c3d-%012x", i, i*40503)
	s := analyze.SessionResult{
		File: file, ID: id, Format: "claude-code", Agent: "main", Selector: id,
		Model: "claude-sonnet-4-5", ToolNames: "classes",
		StartedAt: "2026-11-01T10:00:00Z", EndedAt: "2026-11-01T10:20:00Z",
		Turns: 1 + i%7, Requests: 5 + i%40, Calls: 4 + i%35, Redundant: i % 3,
		TokensFrom: "chars4", Timeline: "",
		Decisions: []analyze.Decision{},
	}
	if every > 0 && i%every == 0 {
		s.Blocked, s.RedundantStopped, s.TokensSaved = 1, 1, 420
		s.Decisions = append(s.Decisions, analyze.Decision{
			Turn: 1, Call: 3, Line: 17, CallID: "toolu_" + strconv.Itoa(i), Tool: "Read", Class: "read",
			Args: `{"file_path":"/src/main.go"}`, Action: guard.Block, Detector: "repeat", Count: 3,
			Message: "You already read this file twice with the same arguments.", Redundant: true, TokensSaved: 420,
		})
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genpartials:", err)
	os.Exit(1)
}
