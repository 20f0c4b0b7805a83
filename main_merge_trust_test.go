package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tamperSummary rewrites the partial member (and summary) of a replay
// shard's report (its last line) with edit, into a new file.
func tamperSummary(t *testing.T, part string, edit func(summary, partial map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	edit(last["summary"].(map[string]any), last["partial"].(map[string]any))
	b, _ := json.Marshal(last)
	lines[len(lines)-1] = string(b)
	out := filepath.Join(t.TempDir(), filepath.Base(part)+".tampered")
	os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	return out
}

// TestMergeDistrustsPartials: a partial report is input like any other:
// an absurd shard count, negative counts, file indexes out of range,
// given by two shards or out of their order, and a total of files the shards do not add up to
// are refused naming the file and the member; a line over --max-record
// is refused naming its line; many missing shards are counted, not
// listed one by one.
func TestMergeDistrustsPartials(t *testing.T) {
	t.Parallel()
	corpus := shardCorpus(t)
	parts := writeShards(t, 3, "replay", corpus, "--tokenizer", "chars4", "--format", "jsonl")
	set := func(member string, v any) func(s, p map[string]any) {
		return func(s, p map[string]any) { p[member] = v }
	}
	fileIndex := func(part string) []any {
		var idx []any
		tamperSummary(t, part, func(_, p map[string]any) { idx = p["file_index"].([]any) })
		return idx
	}
	first := fileIndex(parts[0])
	cases := []struct {
		name  string
		args  []string
		want  []string
		short bool // stderr stays short (no list of a million shards)
	}{
		{"absurd shard count", []string{tamperSummary(t, parts[0], set("shard", "1/2000000"))}, []string{"2000000", "at most"}, true},
		{"absurd shard count, missing allowed", []string{"--allow-missing", tamperSummary(t, parts[0], set("shard", "1/2000000"))}, []string{"at most"}, true},
		{"shard count past int64", []string{tamperSummary(t, parts[0], set("shard", "1/9000000000000000000"))}, []string{"at most"}, true},
		{"many missing shards", []string{tamperSummary(t, parts[0], set("shard", "1/1000"))}, []string{"999 of 1000 shards missing", "2/1000, 3/1000"}, true},
		{"negative count", []string{tamperSummary(t, parts[0], func(s, _ map[string]any) { s["calls"] = -5 }), parts[1], parts[2]}, []string{".tampered", "summary.calls", "-5"}, true},
		{"negative early problems", []string{tamperSummary(t, parts[0], set("early_problems", -1)), parts[1], parts[2]}, []string{".tampered", "early_problems"}, true},
		{"file index -1", []string{tamperSummary(t, parts[0], func(_, p map[string]any) { p["file_index"].([]any)[0] = -1 }), parts[1], parts[2]}, []string{".tampered", "file_index[0]", "-1"}, true},
		{"file index out of range", []string{tamperSummary(t, parts[0], func(_, p map[string]any) { p["file_index"].([]any)[0] = p["total_files"] }), parts[1], parts[2]}, []string{".tampered", "file_index[0]"}, true},
		{"file index in two shards", []string{parts[0], tamperSummary(t, parts[1], func(_, p map[string]any) { p["file_index"].([]any)[0] = first[0] }), parts[2]}, []string{".tampered", "file_index[0]", "also"}, true},
		{"files out of the order of one run", []string{tamperSummary(t, parts[0], func(_, p map[string]any) {
			idx := p["file_index"].([]any)
			idx[0], idx[1] = idx[1], idx[0]
		}), parts[1], parts[2]}, []string{".tampered", "file_index[1]", "in the order of one run"}, true},
		{"total files not the shards' files", []string{
			tamperSummary(t, parts[0], set("total_files", 2_000_000_000)),
			tamperSummary(t, parts[1], set("total_files", 2_000_000_000)),
			tamperSummary(t, parts[2], set("total_files", 2_000_000_000))}, []string{"total_files", "2000000000"}, true},
		{"a line over --max-record", []string{"--max-record", "256B", parts[0], parts[1], parts[2]}, []string{"part1:1:", "over the --max-record limit of 256 bytes"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := loopgate(t, append([]string{"merge", "--format", "json"}, tc.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %.600q\nwant %q", errs, w)
				}
			}
			if tc.short && len(errs) > 2000 {
				t.Errorf("stderr of %d bytes", len(errs))
			}
		})
	}
	// The untampered shards still merge.
	if _, errs, code := loopgate(t, "merge", "--format", "json", parts[0], parts[1], parts[2]); code != 0 {
		t.Errorf("exit %d: %s", code, errs)
	}
}
