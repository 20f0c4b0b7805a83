package cli

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// streamingMemoryLimit is the soft heap limit of the commands that stream a
// corpus (replay, inspect): they hold one session per worker, so the Go
// collector's default headroom (the heap may double before it runs) is
// what sets their peak memory. Measured on the 1 GiB benchmark corpus
// (docs/performance.md): peak RSS 208 -> 152 MB with chars4 and 231 -> 157
// MB with o200k_base, wall time within the run-to-run noise. It is soft: a
// session that needs more gets more (the collector then runs more often).
// GOMEMLIMIT, when set, wins. compare and sweep hold the whole corpus and
// keep Go's default.
const streamingMemoryLimit = 150 << 20

// streamingGCPercent is the GOGC of the same commands. Their live heap is
// small (one session per worker) while they allocate about nine bytes per
// byte read, so with Go's default of 100 the collector runs very often on
// a small heap; under the soft limit above, a larger percentage only
// spaces the collections out, and the limit still bounds the peak. On the
// 1 GiB benchmark corpus it cut CPU time by about a fifth (17.8 -> 13.8 s
// user+system) at the same peak RSS (docs/performance.md). GOGC, when
// set, wins.
const streamingGCPercent = 400

// limitStreamingMemory sets the limit and the GC percentage and returns
// what restores the ones before (tests run many commands in one process).
func limitStreamingMemory() (restore func()) {
	var undo []func()
	if os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(streamingMemoryLimit)
		stop := followLiveHeap()
		undo = append(undo, func() { stop(); debug.SetMemoryLimit(prev) })
	}
	if os.Getenv("GOGC") == "" {
		prev := debug.SetGCPercent(streamingGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

// followLiveHeap keeps the soft memory limit at one and a quarter times
// the live heap once that is over 120 MiB (below, the fixed limit of
// streamingMemoryLimit stands), following it down as well as up, and
// returns what stops it. A heap held at a fixed limit by data that is
// alive has the collector run back to back: a single session of 400 MB
// holds more than 150 MiB, and so, before the session spill, did the
// report of a million small sessions (a 254 MB log of 2 M one-request
// sessions: 90 s with the fixed limit, 55 s following the live heap).
//
// Twice the live heap, and only upwards, was the rule until 2026-11-24.
// On the generated corpus of eleven formats (hermes snapshots, Claude
// Code and Codex sessions of 23-43 MB) two such sessions in flight took
// the live heap past 120 MiB for a moment; the limit went to twice that
// and stayed, and the peak RSS was 255-357 MB. Measured on that corpus
// with analyze's memory gate at 8 MiB: one and a half times, both ways,
// 183-205 MB; one and a quarter, 173-182 MB. The price is paid by a
// session of hundreds of MB, which has the collector run more often: the
// 397 MB single session replays in 3.74 s at a peak of 609 MB, against
// 2.98 s and 730 MB at one and a half times (5.61 s and 911 MB with the
// old rule and no gate, measured the same hour).
func followLiveHeap() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return every(100*time.Millisecond, func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return false
		}
		live := int64(sample[0].Value.Uint64())
		debug.SetMemoryLimit(max(streamingMemoryLimit, live+live/4))
		return true
	})
}

// every calls f on a goroutine of its own every interval until f returns
// false or stop is called; stop returns once f has run for the last time.
func every(interval time.Duration, f func() bool) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if !f() {
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
