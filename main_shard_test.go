package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

// shardCorpus writes a generated corpus of every format with planted
// loops, once per test binary run.
func shardCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := corpusgen.Generate(dir, corpusgen.Config{Seed: 11, TotalBytes: 3 << 20, MaxFileBytes: 256 << 10, MaxResultBytes: 32 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeShards runs args with --shard k/n for every k and writes each
// report to a file, returning the files.
func writeShards(t *testing.T, n int, args ...string) []string {
	t.Helper()
	var files []string
	for k := 1; k <= n; k++ {
		out, errs, code := loopgate(t, append(args, "--shard", strconv.Itoa(k)+"/"+strconv.Itoa(n))...)
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d: %s", k, n, code, errs)
		}
		f := filepath.Join(t.TempDir(), "part"+strconv.Itoa(k))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestShardMergeEqualsOneRun is the scale-out contract (docs/scale.md): a
// corpus split into 4 shards, each replayed alone, merges into exactly the
// report one run over all the files gives (summary, per-tool table and
// per-session rows, byte for byte), for replay in every report format and
// for compare and sweep.
func TestShardMergeEqualsOneRun(t *testing.T) {
	t.Parallel()
	corpus := shardCorpus(t)
	cases := []struct {
		name    string
		run     []string // the one run, and each shard's run (with --shard)
		partial []string // the format each shard writes
		formats []string // the formats the merge is compared in
	}{
		{"replay", []string{"replay", corpus, "--tokenizer", "chars4"}, []string{"--format", "jsonl"}, []string{"json", "jsonl", "table", "markdown"}},
		{"replay json partials", []string{"replay", corpus, "--tokenizer", "chars4"}, []string{"--format", "json"}, []string{"json", "table"}},
		{"replay nanobot", []string{"replay", corpus, "--preset", "nanobot", "--tokenizer", "chars4"}, []string{"--format", "jsonl"}, []string{"json"}},
		{"compare", []string{"compare", corpus, "--tokenizer", "chars4"}, []string{"--format", "json"}, []string{"json", "csv", "table"}},
		{"sweep", []string{"sweep", corpus, "--vary", "detectors.repeat.block_at=2..5", "--tokenizer", "chars4"}, []string{"--format", "json"}, []string{"json", "csv"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parts := writeShards(t, 4, append(tc.run, tc.partial...)...)
			sessions := 0
			for _, p := range parts {
				b, _ := os.ReadFile(p)
				if !strings.Contains(string(b), `"partial"`) {
					t.Fatalf("%s carries no partial member", p)
				}
				sessions += strings.Count(string(b), "\n{\"file\"")
			}
			formats := tc.formats
			if testing.Short() {
				formats = formats[:1] // -short: the merge in one format
			}
			for _, format := range formats {
				want, errs, code := loopgate(t, append(tc.run, "--format", format)...)
				if code != 0 {
					t.Fatalf("one run: exit %d: %s", code, errs)
				}
				got, errs, code := loopgate(t, append([]string{"merge", "--format", format}, parts...)...)
				if code != 0 {
					t.Fatalf("merge: exit %d: %s", code, errs)
				}
				if got != want {
					t.Errorf("%s: merged report differs from one run's\n%s", format, firstDiff(want, got))
				}
			}
		})
	}
}

// TestShardsPartition: every file is in exactly one shard, and no shard of
// a corpus of dozens of files is empty (the hash spreads them).
func TestShardsPartition(t *testing.T) {
	t.Parallel()
	corpus := shardCorpus(t)
	all, _, code := loopgate(t, "inspect", corpus, "--format", "json")
	if code != 0 {
		t.Fatal("inspect failed")
	}
	count := func(s string) int { return strings.Count(s, `"file":`) }
	total := 0
	for k := 1; k <= 3; k++ {
		out, errs, code := loopgate(t, "inspect", corpus, "--format", "json", "--shard", strconv.Itoa(k)+"/3")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if count(out) == 0 {
			t.Errorf("shard %d/3 is empty", k)
		}
		total += count(out)
	}
	if total != count(all) {
		t.Errorf("the shards hold %d sessions, one run %d", total, count(all))
	}
}

// TestMergeRefuses: reports that are not shards of one run are refused
// with a message saying why, and a missing shard is named.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	corpus := shardCorpus(t)
	base := []string{"replay", corpus, "--tokenizer", "chars4", "--format", "jsonl"}
	parts := writeShards(t, 3, base...)
	other := writeShards(t, 3, "replay", corpus, "--tokenizer", "chars4", "--format", "jsonl", "--preset", "nanobot")
	otherTok := writeShards(t, 3, "replay", corpus, "--tokenizer", "o200k_base", "--format", "jsonl")
	unsharded, _, _ := loopgate(t, base...)
	plain := filepath.Join(t.TempDir(), "plain.jsonl")
	os.WriteFile(plain, []byte(unsharded), 0o644)
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"other rules", []string{parts[0], other[1], parts[2]}, "other rules", 2},
		{"other tokenizer", []string{parts[0], otherTok[1], parts[2]}, "tokenizer", 2},
		{"same shard twice", []string{parts[0], parts[0], parts[1], parts[2]}, "shard 1/3 is given twice", 2},
		{"missing shard", []string{parts[0], parts[2]}, "shard(s) 2/3 of 3 missing", 2},
		{"missing shard allowed", []string{"--allow-missing", parts[0], parts[2]}, "2/3 missing", 0},
		{"not a partial", []string{plain}, "no \"partial\" member", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := loopgate(t, append([]string{"merge", "--format", "json"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tc.code, tc.want)
			}
		})
	}
}

// firstDiff shows where two reports first differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + itoa(i+1) + ":\n  one run: " + la[i] + "\n  merged:  " + lb[i]
		}
	}
	return "lengths differ: " + itoa(len(la)) + " and " + itoa(len(lb)) + " lines"
}

func itoa(n int) string { return strconv.Itoa(n) }
