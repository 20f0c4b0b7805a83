package analyze

import (
	"sync"

	"github.com/loopgate/loopgate/ingest"
)

// aheadSessionBytes is memGate's budget: the transcript bytes that the
// files being read, other than the oldest one, may hold in sessions not
// yet replayed. A variable so that tests can make it small.
//
// Why: a session is replayed once it is whole, so a file of one long
// session holds all of it (a JSON document, all of it at once). With two
// jobs, two such files read at once held two: on the generated corpus of
// eleven formats (Claude Code sessions of 40 MB, hermes snapshots of
// 23-26 MB) the replay's peak RSS was 255-357 MB, over the 200 MB that
// issue 7 asks for, and it grew with --jobs (525 MB at 8). 8 MiB, measured
// against 16 and 24 (with main's follower of the live heap at one and a
// half times, before it was made one and a quarter): 193-197 MB on that
// corpus in three runs, where 16 MiB gave 189-217 MB, and the same replay
// time on it and on the six-format corpus.
var aheadSessionBytes int64 = 8 << 20

// memGate bounds the bytes that files being read hold in sessions not yet
// replayed (counted as the reader takes them in: ingest.Options.OnRead,
// and given back once their session is replayed).
//
// The file that was started first among those in flight never waits: it
// is read and replayed as if the gate were not there, and once it is done
// the next oldest takes its place, so every wait ends. The others wait
// while what they hold together is over the budget. A log of many short
// sessions gives its bytes back session by session and never waits; two
// files of one long session each are read one after the other once the
// second has read past the budget, the other core idle meanwhile (a cost
// paid only when sessions that large meet).
type memGate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	budget int64
	next   int64           // the start number of the next file
	flight map[int64]int64 // start number -> bytes held, per file in flight
	oldest int64           // the lowest start number in flight
	others int64           // bytes held by the files in flight but the oldest
}

func newMemGate(budget int64) *memGate {
	g := &memGate{budget: budget, flight: map[int64]int64{}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// start registers a file as in flight and returns its ticket.
func (g *memGate) start() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.next
	g.next++
	if len(g.flight) == 0 {
		g.oldest = t
	}
	g.flight[t] = 0
	return t
}

// hold counts n more bytes for file t, waiting first while t is not the
// oldest file in flight and the others hold more than the budget.
func (g *memGate) hold(t int64, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for t != g.oldest && g.others > g.budget {
		g.cond.Wait()
	}
	g.flight[t] += int64(n)
	if t != g.oldest {
		g.others += int64(n)
	}
}

// release gives back n bytes of file t (its session was replayed).
func (g *memGate) release(t int64, n int64) {
	if n == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.flight[t] -= n
	if t != g.oldest {
		g.others -= n
	}
	g.cond.Broadcast()
}

// done says file t is done: what it still holds is given back, and if it
// was the oldest the next oldest stops counting among the others.
func (g *memGate) done(t int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t != g.oldest {
		g.others -= g.flight[t]
	}
	delete(g.flight, t)
	if t == g.oldest && len(g.flight) > 0 {
		g.oldest = g.next
		for k := range g.flight {
			g.oldest = min(g.oldest, k)
		}
		g.others -= g.flight[g.oldest]
	}
	g.cond.Broadcast()
}

// gatedFile is one file's passage through the gate, for the goroutine that
// reads it: its reads are held, and taken says how many bytes were read
// since the last call, for the sessions handed on since.
type gatedFile struct {
	g              *memGate
	ticket         int64
	read, reported int64
}

// file starts a file at the gate and returns it with in, its reads held.
func (g *memGate) file(in ingest.Options) (*gatedFile, ingest.Options) {
	f := &gatedFile{g: g, ticket: g.start()}
	in.OnRead = func(n int) {
		g.hold(f.ticket, n)
		f.read += int64(n)
	}
	return f, in
}

// taken returns the bytes read since the last call (on the reading
// goroutine).
func (f *gatedFile) taken() int64 {
	n := f.read - f.reported
	f.reported = f.read
	return n
}

// release gives back n bytes, once the sessions they made are let go (from
// any goroutine).
func (f *gatedFile) release(n int64) { f.g.release(f.ticket, n) }

// done gives back what the file still holds and lets the next file be the
// oldest.
func (f *gatedFile) done() { f.g.done(f.ticket) }
