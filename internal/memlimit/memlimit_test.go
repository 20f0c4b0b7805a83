package memlimit

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFollowLiveHeap: a small live heap leaves the fixed limit alone; with
// 160 MiB alive the soft limit rises to about one and a quarter times that;
// once it is freed, the limit comes back down to the fixed one. Stopping
// restores nothing by itself (ForStreaming's restore does).
func TestFollowLiveHeap(t *testing.T) {
	prev := debug.SetMemoryLimit(streamingLimit)
	defer debug.SetMemoryLimit(prev)

	waitLimit := func(ok func(int64) bool) int64 {
		var limit int64
		for range 50 {
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
			if limit = debug.SetMemoryLimit(-1); ok(limit) {
				break
			}
		}
		return limit
	}

	stop := followLiveHeap()
	defer stop()
	if limit := waitLimit(func(int64) bool { return false }); limit != streamingLimit {
		t.Fatalf("small live heap: limit %d, want the fixed %d", limit, streamingLimit)
	}
	alive := make([][]byte, 0, 160)
	for range 160 { // 160 MiB, in pieces the collector cannot free
		alive = append(alive, make([]byte, 1<<20))
	}
	const want = 160 << 20 * 5 / 4
	limit := waitLimit(func(l int64) bool { return l >= want })
	runtime.KeepAlive(alive)
	if limit < want || limit > 3*160<<20/2 {
		t.Errorf("160 MiB alive: limit %d MiB, want %d to %d", limit>>20, want>>20, 3*160/2)
	}
	alive = nil
	if limit := waitLimit(func(l int64) bool { return l == streamingLimit }); limit != streamingLimit {
		t.Errorf("160 MiB freed: limit %d MiB, want the fixed %d back", limit>>20, streamingLimit>>20)
	}
}
