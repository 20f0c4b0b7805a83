package tokens

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"
)

// BenchmarkLoad makes an o200k_base counter from nothing, building its
// tables from the library (no cache), and counts one text: run it alone
// with -benchtime=1x for a cold process's figures (the library's
// vocabulary map, built once per process, is in the first iteration only).
// new-ms is the time until the counter was returned, first-count-ms until
// the first count; live-MB is the heap left live afterwards.
func BenchmarkLoad(b *testing.B) { benchmarkLoad(b, true) }

// BenchmarkLoadCached is BenchmarkLoad with a cache hit: the cache file is
// written by a process of its own first, so that this one never builds
// the library's vocabulary.
func BenchmarkLoadCached(b *testing.B) {
	dir := b.TempDir()
	writer := exec.Command(os.Args[0], "-test.run=^TestWriteCacheForBenchmark$")
	writer.Env = append(os.Environ(), benchCacheEnv+"="+dir)
	if out, err := writer.CombinedOutput(); err != nil {
		b.Fatalf("writing the cache: %v\n%s", err, out)
	}
	b.Setenv(CacheDirEnv, dir)
	setLibraryVersion(b, testLibrary, true)
	benchmarkLoad(b, false)
}

const benchCacheEnv = "LOOPGATE_TEST_BENCH_CACHE"

// TestWriteCacheForBenchmark writes o200k_base's cache for
// BenchmarkLoadCached, which runs it in a process of its own.
func TestWriteCacheForBenchmark(t *testing.T) {
	dir := os.Getenv(benchCacheEnv)
	if dir == "" {
		t.Skip("run by BenchmarkLoadCached only")
	}
	t.Setenv(CacheDirEnv, dir)
	setLibraryVersion(t, testLibrary, true)
	if !freshCounter(t, O200kBase).fromLibrary {
		t.Fatal("a cache was there already")
	}
}

func benchmarkLoad(b *testing.B, fromLibrary bool) {
	var kept []*bpe
	for b.Loop() {
		c := &bpe{name: O200kBase, enc: tokenizer.O200kBase}
		start := time.Now()
		c.start()
		returned := time.Since(start)
		if n := c.Count("hello world"); n != 2 {
			b.Fatalf("Count = %d, want 2", n)
		}
		if c.fromLibrary != fromLibrary {
			b.Fatalf("tables built from the library: %v, want %v", c.fromLibrary, fromLibrary)
		}
		b.ReportMetric(float64(returned.Microseconds())/1000, "new-ms")
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "first-count-ms")
		kept = append(kept, c)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "live-MB")
	runtime.KeepAlive(kept)
}
