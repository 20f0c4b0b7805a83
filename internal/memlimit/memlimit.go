// Package memlimit tunes the Go collector for the commands that stream a
// corpus (replay, inspect, gate): a soft memory limit that follows the
// live heap, a higher GC percentage, and on Linux the advice that their
// heap be backed by transparent huge pages. It imports only the standard
// library and internal/periodic.
package memlimit

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/loopgate/loopgate/internal/periodic"
)

// streamingLimit is the soft heap limit of the commands that stream a
// corpus: they hold one session per worker, so the Go collector's default
// headroom (the heap may double before it runs) is what sets their peak
// memory. On the 1 GiB benchmark corpus the limit cut peak RSS by about
// a third, wall time within the run-to-run noise (docs/performance.md,
// "The soft limit and GOGC"). It is soft: a session that needs
// more gets more (the collector then runs more often). GOMEMLIMIT, when
// set, wins. compare and sweep hold the whole corpus and keep Go's
// default.
//
// Why 104 MiB: once long Claude Code results were cut while decoded, a
// replay of the Claude Code benchmark corpus kept its live heap near
// 55 MB, and 104 MiB cost it no CPU time measurably for a peak RSS 0.85
// of 128 MiB's; 96 MiB cost it a tenth more CPU time. A corpus whose
// live heap is over 56 MiB (minHeadroom takes over from there) pays a
// few percent of CPU time: the generated corpus of all formats, whose
// results are not cut (docs/performance.md, "Goal 1 this round").
const streamingLimit = 104 << 20

// streamingGCPercent is the GOGC of the same commands. Their live heap is
// small (one session per worker) while they allocate about nine bytes per
// byte read, so with Go's default of 100 the collector runs very often on
// a small heap; under the soft limit above, a larger percentage only
// spaces the collections out, and the limit still bounds the peak: on the
// 1 GiB benchmark corpus it cut CPU time by about a fifth at the same
// peak RSS (docs/performance.md). GOGC, when set, wins.
const streamingGCPercent = 400

// minHeadroom is the least room the soft limit leaves above the live heap
// (followLiveHeap).
const minHeadroom = 48 << 20

// ForStreaming sets the limit and the GC percentage and returns what
// restores the ones before (tests run many commands in one process). The
// first call in a process also advises huge pages for the heap
// (adviseHugePages), which stays.
func ForStreaming() (restore func()) {
	adviseOnce.Do(adviseHugePages)
	var undo []func()
	if os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(streamingLimit)
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
// the live heap, and at least minHeadroom above it, once that is over the
// fixed limit of streamingLimit, following it down as well as up, and
// returns what stops it. A heap held at a fixed limit by data that is alive has
// the collector run back to back: a single session of 400 MB holds more
// than 104 MiB, and so can a report of a million small sessions.
//
// Why one and a quarter, both ways: on the generated corpus of eleven
// formats, twice the live heap and only upwards let two large sessions in
// flight for a moment set the limit for the rest of the run; one and a
// quarter, following the heap down too, kept the peak far lower. The
// price is paid by a single session of hundreds of MB, which has the
// collector run more often (docs/performance.md, "The soft limit and
// GOGC").
//
// Why minHeadroom: with a live heap a little under the fixed limit, the
// limit left the collector little to fill, and it ran far more often than
// with a small heap; a corpus of many formats lives there (the benchmark's
// loop-heavy corpus, the default tokenizer's vocabulary making the
// difference). Keeping the limit at least minHeadroom above the live heap
// cut that replay's CPU time for a little more peak memory
// (docs/performance.md, "The soft limit and GOGC"). With the fixed limit
// at 104 MiB the headroom takes over from a live heap of 56 MiB, and a
// corpus whose live heap stays under that (a Claude Code corpus) keeps the
// fixed limit.
func followLiveHeap() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return periodic.Every(100*time.Millisecond, func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return false
		}
		live := int64(sample[0].Value.Uint64())
		debug.SetMemoryLimit(max(streamingLimit, live+live/4, live+minHeadroom))
		return true
	})
}
