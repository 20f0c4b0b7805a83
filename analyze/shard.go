package analyze

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"strings"
)

// Shard is one worker's share of the files found: shard K of N, numbered
// from 1 as the shard options of test runners (jest, playwright) are. The
// zero Shard is no sharding.
//
// A file belongs to the shard given by a hash of its path relative to the
// PATH argument it was found under, so N workers given the same inputs take
// disjoint shares that together cover every file without talking to each
// other, even where each mounts the corpus at a different place.
type Shard struct {
	K, N int
}

// MaxShards bounds N: a merge checks every shard's place, and a partial
// report naming an absurd N must not make it list millions of them.
const MaxShards = 1_000_000

// ParseShard reads "K/N" (1 <= K <= N <= MaxShards).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard must be K/N (shard K of N, K from 1 to N), not %q", s)
	}
	kk, err1 := strconv.Atoi(k)
	nn, err2 := strconv.Atoi(n)
	switch {
	case err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("--shard must be K/N with whole numbers, not %q", s)
	case nn < 1:
		return Shard{}, fmt.Errorf("--shard %q: N must be 1 or more", s)
	case nn > MaxShards:
		return Shard{}, fmt.Errorf("--shard %q: N is at most %d (more shards than any corpus has files to share out)", s, MaxShards)
	case kk < 1 || kk > nn:
		return Shard{}, fmt.Errorf("--shard %q: K runs from 1 to N (shards are numbered from 1; with a 0-based index such as Kubernetes' JOB_COMPLETION_INDEX, pass INDEX+1)", s)
	}
	return Shard{K: kk, N: nn}, nil
}

// String is "K/N", or "" for no sharding.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return strconv.Itoa(s.K) + "/" + strconv.Itoa(s.N)
}

// ShardFiles returns the files of shard s, in their order, with each one's
// index in files (the order one run over all of them would read them in).
// roots are the PATH arguments the files were found under; a file's key
// is its path relative to the longest root that holds it (its base name
// when it was given itself), with forward slashes.
func ShardFiles(files, roots []string, s Shard) (kept []string, index []int) {
	for i, f := range files {
		if s.N <= 1 || shardOf(shardKey(f, roots), s.N) == s.K {
			kept = append(kept, f)
			index = append(index, i)
		}
	}
	return kept, index
}

// shardKey is file's path relative to the root that holds it.
func shardKey(file string, roots []string) string {
	best := ""
	for _, r := range roots {
		if file == r {
			return filepath.Base(file)
		}
		pre := strings.TrimSuffix(r, string(filepath.Separator)) + string(filepath.Separator)
		if strings.HasPrefix(file, pre) && len(pre) > len(best) {
			best = pre
		}
	}
	return filepath.ToSlash(strings.TrimPrefix(file, best))
}

// shardOf is the 1-based shard of n that key falls in (FNV-1a, 64 bits:
// stable across platforms and releases, as a partition must be).
func shardOf(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(n)) + 1
}
