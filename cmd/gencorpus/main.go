// Command gencorpus writes a deterministic corpus of made-up agent
// transcripts with planted tool-call loops, and its .manifest.json (ground
// truth), for loopgate's benchmark and threshold tuning. See
// docs/generator.md.
//
//	go run ./cmd/gencorpus -out /tmp/corpus -seed 1 -size 1GiB -formats all -loops
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	out := fs.String("out", "", "directory to write the corpus into (required)")
	seed := fs.Int64("seed", 1, "seed: the same seed and flags give byte-identical files")
	size := fs.String("size", "10MB", "corpus size, e.g. 500KB, 10MB, 1GiB")
	formats := fs.String("formats", "all", "comma-separated formats, or all: "+strings.Join(corpusgen.Formats, ","))
	maxFile := fs.String("max-file", "64MiB", "largest file")
	large := fs.Int("large", 3, "files over 50 MB to write when -size and -max-file allow")
	maxResult := fs.String("max-result", "2MiB", "largest tool result")
	loops := fs.Bool("loops", false, "plant loops (ground truth in .manifest.json)")
	loopRate := fs.Int("loop-rate", 0, "with -loops, plant a further loop in place of this percent of the ordinary steps (a loop-heavy corpus)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0))
	}
	cfg := corpusgen.Config{Seed: *seed, LargeFiles: *large, Loops: *loops, LoopRate: *loopRate}
	var err error
	if cfg.TotalBytes, err = parseSize(*size); err != nil {
		return fmt.Errorf("-size: %w", err)
	}
	if cfg.MaxFileBytes, err = parseSize(*maxFile); err != nil {
		return fmt.Errorf("-max-file: %w", err)
	}
	mr, err := parseSize(*maxResult)
	if err != nil {
		return fmt.Errorf("-max-result: %w", err)
	}
	cfg.MaxResultBytes = int(mr)
	if *formats != "all" {
		for _, f := range strings.Split(*formats, ",") {
			if f = strings.TrimSpace(f); f != "" {
				cfg.Formats = append(cfg.Formats, f)
			}
		}
	}
	start := time.Now()
	m, err := corpusgen.Generate(*out, cfg)
	if err != nil {
		return err
	}
	t := m.Totals
	fmt.Printf("%d files (%d over 50 MB), %d bytes, %d sessions (%d subagent, %d healthy), %d calls, %d redundant, %d planted loops in %s\n",
		t.Files, t.LargeFiles, t.Bytes, t.Sessions, t.Subagents, t.HealthySessions, t.Calls, t.Redundant, t.Loops, time.Since(start).Round(time.Millisecond))
	return nil
}

// parseSize reads 1500, 10KB, 10MB, 1GB (powers of 1000) and 10KiB, 10MiB,
// 1GiB (powers of 1024).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("not a size: %q (examples: 10MB, 1GiB)", s)
	}
	return int64(f * float64(mult)), nil
}
