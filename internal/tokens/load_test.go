package tokens

import (
	"runtime"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"
)

// BenchmarkLoad makes an o200k_base counter from nothing and counts one
// text: run it alone with -benchtime=1x for a cold process's figures (the
// library's vocabulary map, built once per process, is in the first
// iteration only). new-ms is the time until the counter was returned,
// first-count-ms until the first count; live-MB is the heap left live
// afterwards.
func BenchmarkLoad(b *testing.B) {
	var kept []*bpe
	for b.Loop() {
		c := &bpe{name: O200kBase, enc: tokenizer.O200kBase}
		start := time.Now()
		c.start()
		returned := time.Since(start)
		if n := c.Count("hello world"); n != 2 {
			b.Fatalf("Count = %d, want 2", n)
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
