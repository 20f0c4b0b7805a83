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
// memory. On the 1 GiB benchmark corpus the limit cut peak RSS from
// 208 to 152 MB with chars4 and from 231 to 157 MB with o200k_base, wall
// time within the run-to-run noise. It is soft: a session that needs
// more gets more (the collector then runs more often). GOMEMLIMIT, when
// set, wins. compare and sweep hold the whole corpus and keep Go's
// default.
//
// Why 128 MiB rather than the 150 of before: once a replay of the Claude
// Code benchmark corpus allocated a quarter less and the tokenizer's
// tables shrank, 128 MiB cost it no CPU time (5 paired runs: 1.02, range
// 0.87-1.02) for a peak RSS of 138-141 MB instead of 156-163; 120 MiB
// cost 10% (issue 28's memory goal, docs/performance.md).
const streamingLimit = 128 << 20

// streamingGCPercent is the GOGC of the same commands. Their live heap is
// small (one session per worker) while they allocate about nine bytes per
// byte read, so with Go's default of 100 the collector runs very often on
// a small heap; under the soft limit above, a larger percentage only
// spaces the collections out, and the limit still bounds the peak: on the
// 1 GiB benchmark corpus it cut CPU time by about a fifth (17.8 -> 13.8 s
// user+system) at the same peak RSS. GOGC, when set, wins.
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
// than 128 MiB, and so can a report of a million small sessions.
//
// Why one and a quarter, both ways: on the generated corpus of eleven
// formats, twice the live heap and only upwards let two large sessions in
// flight for a moment set the limit for the rest of the run (peak RSS
// 255-357 MB); one and a quarter, following the heap down too, kept it at
// 173-182 MB. The price is paid by a single session of hundreds of MB,
// which has the collector run more often (a 397 MB session: 3.74 s at a
// peak of 609 MB, against 2.98 s and 730 MB at one and a half times).
//
// Why minHeadroom: between a live heap of about 100 MiB and 120 MiB the
// fixed limit left the collector 30-50 MiB to fill, and it ran two to
// three times as often as with a small heap; a corpus of many formats
// lives there (issue 28's loop-heavy corpus: 104-121 MiB live on average,
// the default tokenizer's vocabulary making the difference, 156
// collections against 117). At least 48 MiB above the live heap cut that
// replay's CPU time by a fifth for 3-4% more peak memory (paired runs,
// docs/performance.md). That was with a fixed limit of 150 MiB; with 128,
// the headroom takes over from a live heap of 80 MiB, and a corpus whose
// live heap stays under that (a Claude Code corpus: 72 MiB at most) keeps
// the fixed limit.
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
