package analyze

import (
	"fmt"
	"testing"
)

func TestParseShard(t *testing.T) {
	cases := []struct {
		in   string
		want Shard
		err  bool
	}{
		{"1/4", Shard{1, 4}, false},
		{"4/4", Shard{4, 4}, false},
		{" 2/3 ", Shard{2, 3}, false},
		{"1/1", Shard{1, 1}, false},
		{"0/4", Shard{}, true}, // numbered from 1
		{"5/4", Shard{}, true},
		{"1/0", Shard{}, true},
		{"-1/4", Shard{}, true},
		{"1", Shard{}, true},
		{"a/b", Shard{}, true},
		{"", Shard{}, true},
	}
	for _, tc := range cases {
		got, err := ParseShard(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil && got.String() != fmt.Sprintf("%d/%d", tc.want.K, tc.want.N) {
			t.Errorf("String() = %q", got.String())
		}
	}
}

// TestShardFilesPartition: the shards of any N are disjoint, cover every
// file, keep the files' order with their one-run index, and depend only on
// each file's path under its root (a corpus mounted elsewhere splits the
// same way).
func TestShardFilesPartition(t *testing.T) {
	var files, moved []string
	for i := 0; i < 200; i++ {
		files = append(files, fmt.Sprintf("/data/a/s%03d.jsonl", i))
		moved = append(moved, fmt.Sprintf("/mnt/elsewhere/s%03d.jsonl", i))
	}
	files = append(files, "/single.jsonl")
	moved = append(moved, "/other/single.jsonl")
	for _, n := range []int{1, 2, 3, 8} {
		owner := map[string]int{}
		for k := 1; k <= n; k++ {
			kept, index := ShardFiles(files, []string{"/data/a/", "/single.jsonl"}, Shard{k, n})
			keptMoved, _ := ShardFiles(moved, []string{"/mnt/elsewhere", "/other/single.jsonl"}, Shard{k, n})
			if len(kept) != len(keptMoved) {
				t.Errorf("n=%d k=%d: %d files here, %d when mounted elsewhere", n, k, len(kept), len(keptMoved))
			}
			if n > 1 && len(kept) == 0 {
				t.Errorf("n=%d: shard %d is empty", n, k)
			}
			for j, f := range kept {
				if files[index[j]] != f || (j > 0 && index[j] <= index[j-1]) {
					t.Fatalf("n=%d k=%d: index %v does not place %s in order", n, k, index[j], f)
				}
				if prev, dup := owner[f]; dup {
					t.Errorf("n=%d: %s in shards %d and %d", n, f, prev, k)
				}
				owner[f] = k
			}
		}
		if len(owner) != len(files) {
			t.Errorf("n=%d: the shards cover %d of %d files", n, len(owner), len(files))
		}
	}
}
