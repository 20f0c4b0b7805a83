package pipeline

import "sync"

// DefaultBudget is the memory budget a Plan gets when it names none: the
// transcript bytes that the files being read, other than the oldest one,
// may hold in sessions not yet replayed.
//
// Why: a session is replayed once it is whole, so a file of one long
// session holds all of it (a JSON document, all of it at once). With two
// jobs, two such files read at once held two: on the generated corpus of
// eleven formats (Claude Code sessions of 40 MB, hermes snapshots of
// 23-26 MB) the replay's peak RSS went over the 200 MB that issue 7 asks
// for, and grew with --jobs. 8 MiB kept it under on that corpus, with the
// same replay time as 16 and 24 MiB (docs/performance.md).
const DefaultBudget int64 = 8 << 20

// memoryBudget bounds the bytes that files being read hold in what they
// have read and not yet made into items (counted as the reader takes them
// in: File.Read, and given back once what they made is let go:
// File.Release).
//
// The file that was started first among those in flight never waits: it
// is read as if the budget were not there, and once it is done the next
// oldest takes its place, so every wait ends. The others wait while what
// they hold together is over the budget. A log of many short sessions
// gives its bytes back session by session and never waits; two files of
// one long session each are read one after the other once the second has
// read past the budget, the other core idle meanwhile (a cost paid only
// when sessions that large meet).
type memoryBudget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	budget int64
	next   int64           // the start number of the next file
	flight map[int64]int64 // start number -> bytes held, per file in flight
	oldest int64           // the lowest start number in flight
	others int64           // bytes held by the files in flight but the oldest
}

func newMemoryBudget(budget int64) *memoryBudget {
	b := &memoryBudget{budget: budget, flight: map[int64]int64{}}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// start registers a file as in flight and returns its ticket.
func (b *memoryBudget) start() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.next
	b.next++
	if len(b.flight) == 0 {
		b.oldest = t
	}
	b.flight[t] = 0
	return t
}

// hold counts n more bytes for file t, waiting first while t is not the
// oldest file in flight and the others hold more than the budget.
func (b *memoryBudget) hold(t int64, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for t != b.oldest && b.others > b.budget {
		b.cond.Wait()
	}
	b.flight[t] += int64(n)
	if t != b.oldest {
		b.others += int64(n)
	}
}

// release gives back n bytes of file t.
func (b *memoryBudget) release(t int64, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flight[t] -= n
	if t != b.oldest {
		b.others -= n
	}
	b.cond.Broadcast()
}

// done says file t is done: what it still holds is given back, and if it
// was the oldest the next oldest stops counting among the others.
func (b *memoryBudget) done(t int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t != b.oldest {
		b.others -= b.flight[t]
	}
	delete(b.flight, t)
	if t == b.oldest && len(b.flight) > 0 {
		b.oldest = b.next
		for k := range b.flight {
			b.oldest = min(b.oldest, k)
		}
		b.others -= b.flight[b.oldest]
	}
	b.cond.Broadcast()
}
