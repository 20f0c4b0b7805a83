package pipeline

import "sync"

// DefaultBudget is the memory budget a Plan gets when it names none: the
// transcript bytes that the files being read, other than the oldest one,
// may hold in sessions not yet replayed.
//
// Why: a session is replayed once it is whole, so a file of one long
// session holds all of it (a JSON document, all of it at once). With two
// jobs, two such files read at once held two: on the generated corpus of
// eleven formats (Claude Code sessions and hermes snapshots of tens of
// MB) the replay's peak RSS went over its 200 MB goal
// (docs/performance.md), and grew with --jobs. 8 MiB kept it under on that corpus, and a larger
// budget gave no faster replay (docs/performance.md, "The memory budget").
const DefaultBudget int64 = 8 << 20

// memoryBudget bounds the bytes that files being read hold in what they
// have read and not yet made into items (counted as the reader takes them
// in: File.Read, and given back once what they made is let go:
// File.Release).
//
// The file that was started first among those in flight and still being
// read (the oldest) never waits: it is read as if the budget were not
// there, and once it is done, or its reader is (readDone), the next
// oldest takes its place, so every wait ends. The others wait while what
// they hold together is over the budget. A log of many short sessions
// gives its bytes back session by session and never waits; two files of
// one long session each are read one after the other once the second has
// read past the budget, the other core idle meanwhile.
//
// Why the oldest's place passes on when its reader is done: its session
// is then replayed on one goroutine, and the second file waited all that
// time with the other core idle (on the Claude Code benchmark corpus,
// whose files are one long session each). Letting the second file read on
// meanwhile cut that replay's wall time for a little more peak memory
// (docs/performance.md, "The handover"). The handover bounds
// it: past it (a replayed session holding more than 64 MiB, replay's
// setting) the second file waits as before, for with two such sessions
// at once the collector ran against the soft limit and the replay of a
// corpus holding a session of hundreds of MB took more time and memory.
type memoryBudget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	budget int64
	// handover bounds the bytes that files whose reader is done may hold
	// for a file after them to read as the oldest (readDone).
	handover int64
	next     int64               // the start number of the next file
	flight   map[int64]*inFlight // start number -> the file, per file in flight
}

// inFlight is a file in flight: the bytes it holds, and whether its
// reader is done (readDone).
type inFlight struct {
	held     int64
	readDone bool
}

func newMemoryBudget(budget, handover int64) *memoryBudget {
	b := &memoryBudget{budget: budget, handover: handover, flight: map[int64]*inFlight{}}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// start registers a file as in flight and returns its ticket.
func (b *memoryBudget) start() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.next
	b.next++
	b.flight[t] = &inFlight{}
	return t
}

// hold counts n more bytes for file t, waiting first while t is not the
// oldest file in flight and the others hold more than the budget, or
// while t is the oldest and files started before it, whose readers are
// done, hold more than the handover.
func (b *memoryBudget) hold(t int64, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.mustWait(t) {
		b.cond.Wait()
	}
	b.flight[t].held += int64(n)
}

// release gives back n bytes of file t.
func (b *memoryBudget) release(t int64, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flight[t].held -= n
	b.cond.Broadcast()
}

// readDone says file t's reader is done: it holds no more than it does
// now, and gives that back as its sessions are replayed. If it was the
// oldest, the next oldest file still reading takes its place, and t's
// bytes count among the others.
func (b *memoryBudget) readDone(t int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flight[t].readDone = true
	b.cond.Broadcast()
}

// done says file t is done: what it still holds is given back.
func (b *memoryBudget) done(t int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.flight, t)
	b.cond.Broadcast()
}

// The oldest and what the others hold are worked out from the files in
// flight whenever a read asks, not kept up to date beside them: few files
// are in flight at once (one per job, and the next one started).

// oldest is the lowest start number of a file in flight that is still
// reading; -1 when none is.
func (b *memoryBudget) oldest() int64 {
	oldest := int64(-1)
	for k, f := range b.flight {
		if !f.readDone && (oldest < 0 || k < oldest) {
			oldest = k
		}
	}
	return oldest
}

// others is what the files in flight but the oldest hold.
func (b *memoryBudget) others() int64 {
	oldest, n := b.oldest(), int64(0)
	for k, f := range b.flight {
		if k != oldest {
			n += f.held
		}
	}
	return n
}

// mustWait says whether file t waits before it holds more (hold).
func (b *memoryBudget) mustWait(t int64) bool {
	if t != b.oldest() {
		return b.others() > b.budget
	}
	// What the files started before t whose readers are done hold: their
	// sessions are being replayed.
	var replaying int64
	for k, f := range b.flight {
		if k < t && f.readDone {
			replaying += f.held
		}
	}
	return replaying > b.handover
}
