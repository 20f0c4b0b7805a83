package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFollowLiveHeap: with more than liveHeapFollowed alive, the soft limit
// rises to about twice the live heap; stopping restores nothing by itself
// (limitStreamingMemory's restore does), and a small live heap leaves the
// fixed limit alone.
func TestFollowLiveHeap(t *testing.T) {
	prev := debug.SetMemoryLimit(streamingMemoryLimit)
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
	if limit := waitLimit(func(int64) bool { return false }); limit != streamingMemoryLimit {
		stop()
		t.Fatalf("small live heap: limit %d, want the fixed %d", limit, streamingMemoryLimit)
	}
	alive := make([][]byte, 0, 160)
	for range 160 { // 160 MiB, in pieces the collector cannot free
		alive = append(alive, make([]byte, 1<<20))
	}
	limit := waitLimit(func(l int64) bool { return l >= 2*160<<20 })
	stop()
	runtime.KeepAlive(alive)
	if limit < 2*160<<20 {
		t.Errorf("160 MiB alive: limit %d MiB, want at least %d", limit>>20, 2*160)
	}
}
