package pipeline

import (
	"runtime"
	"sync"
)

// Plan says how Run works through the files.
type Plan[T any] struct {
	// Jobs is the number of files read at once (0: one per core).
	Jobs int
	// Window is how many files may be started and not yet emitted (at
	// least 2). Files read ahead keep the other cores busy while a large
	// file is read.
	Window int
	// TurnLimit is how many items of the file whose turn it is may wait
	// for the caller before its worker waits: that file streams, whatever
	// its number of items (0: no limit).
	TurnLimit int
	// AheadLimit bounds the weight of the items that files read ahead of
	// their turn hold, all together, before their workers wait. Not used
	// with Spill.
	AheadLimit int
	// Spill, when set, keeps the items of a file read ahead of its turn
	// on disk, a chunk at a time (SpillFile), instead of letting its
	// worker wait: the worker of a file read ahead never waits for the
	// caller then, which lets Run start the files largest first (see
	// Run).
	Spill *Codec[T]
	// Budget is the memory budget in bytes (0: DefaultBudget): see
	// File.Read.
	Budget int64
	// Handover bounds the bytes that files whose readers are done (their
	// items still being made: File.ReadDone) may hold for the next file
	// to read on past the budget, as the oldest (0: none, the next file
	// waits until they are done).
	Handover int64
}

// End is what Run tells the caller of a file once all its items were
// emitted.
type End struct {
	// SpillErr is why items read ahead could not wait on disk (they
	// waited in memory: nothing is lost).
	SpillErr error
	// Lost is why items that waited on disk could not be read back: the
	// items before the error were emitted, the rest are lost.
	Lost error
}

// File is one file's passage through Run, for the worker that reads it.
type File[T any] struct {
	run    *runState[T]
	index  int
	items  []T
	weight int           // of items, while the file is read ahead (no Spill)
	spill  *SpillFile[T] // items older than items, until the file's turn
	closed bool

	ticket         int64
	read, reported int64
}

// runState is what the workers and the emitter share, under mu.
type runState[T any] struct {
	plan    *Plan[T]
	mu      sync.Mutex
	turn    *sync.Cond // on mu: the emitter waits for the file in turn
	room    *sync.Cond // on mu: workers wait for room
	waiting int        // workers waiting on room
	current int        // the file whose turn it is
	ahead   int        // the weight of the items of the files after current (no Spill)
	budget  *memoryBudget
}

// Push hands an item to the caller, in order; weight is what the item
// holds (the caller's unit, that of AheadLimit and Codec.Weight). It waits
// while the file in turn has TurnLimit items waiting, and, without Spill,
// while the files read ahead hold AheadLimit.
func (f *File[T]) Push(item T, weight int) {
	r := f.run
	p := r.plan
	r.mu.Lock()
	for f.index == r.current && p.TurnLimit > 0 && len(f.items) >= p.TurnLimit ||
		f.index != r.current && p.Spill == nil && p.AheadLimit > 0 && r.ahead >= p.AheadLimit {
		r.waiting++
		r.room.Wait()
		r.waiting--
	}
	f.items = append(f.items, item)
	switch {
	case f.index == r.current:
		if len(f.items) == 1 {
			r.turn.Signal()
		}
	case p.Spill != nil:
		// Not the file's turn yet: the emitter does not touch its items
		// until the turn comes, which takes the lock first.
		if f.spill == nil {
			f.spill = NewSpillFile(p.Spill)
		}
		if f.spill.Due(weight, len(f.items)) {
			f.items = f.spill.Flush(f.items)
		}
	default:
		f.weight += weight
		r.ahead += weight
	}
	r.mu.Unlock()
}

// Read counts n bytes the file's reader took in (ingest.Options.OnRead):
// it waits while the file is not the oldest in flight and the others
// hold more than the budget. Bytes count until Release gives them back.
func (f *File[T]) Read(n int) {
	f.run.budget.hold(f.ticket, n)
	f.read += int64(n)
}

// Taken returns the bytes read since the last call (on the reading
// goroutine), for the items made since.
func (f *File[T]) Taken() int64 {
	n := f.read - f.reported
	f.reported = f.read
	return n
}

// ReadDone says the file's reader is done: the file holds no more bytes
// than it does now. If it was the oldest file in flight, the next oldest
// still reading takes its place at the budget, so that a file whose
// sessions are being replayed does not keep the next one waiting.
func (f *File[T]) ReadDone() { f.run.budget.readDone(f.ticket) }

// Release gives back n bytes once what they made is let go (from any
// goroutine).
func (f *File[T]) Release(n int64) { f.run.budget.release(f.ticket, n) }

// Run runs work for every file on Jobs workers, and hands the items work
// pushes to emit, then calls done, file by file in the files' order:
// parallel reading, deterministic output. work runs on the workers; emit
// and done run on the caller's goroutine, one call at a time. The items
// of the file whose turn it is reach emit while its worker is still
// reading it, so that a file of a million sessions is not held whole.
//
// Without Spill, files are started in order, so the file whose turn it is
// has always been started, and its worker never waits on the others:
// every wait ends. With Spill only the file in turn may wait for the
// caller (TurnLimit), which is draining it, and files are started largest
// first within runs of Window/2 files in the given order (largestFirst),
// so that one big file does not start last and leave the other cores idle
// at the end. Sorting within runs is what keeps the window safe: the
// emitter waits for the earliest file not emitted, and the run holding it
// is always fully started before the window can fill; sorting all the
// files by size hung any run of more files than the window whose first
// file was not among the largest.
func Run[T any](files []string, plan Plan[T], work func(i int, f *File[T]), emit func(i int, item *T), done func(i int, end End)) {
	jobs := plan.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	window := max(plan.Window, 2)
	budget := plan.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	r := &runState[T]{plan: &plan, budget: newMemoryBudget(budget, plan.Handover)}
	r.turn = sync.NewCond(&r.mu)
	r.room = sync.NewCond(&r.mu)
	slots := make([]*File[T], len(files))
	for i := range slots {
		slots[i] = &File[T]{run: r, index: i}
	}
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	if plan.Spill != nil {
		order = largestFirst(files, window/2)
	}
	started := make(chan struct{}, window)
	next := make(chan int)
	go func() {
		for _, i := range order {
			started <- struct{}{}
			// The ticket is taken here, in the order files are
			// started, not by the worker: without Spill the oldest
			// file in flight is then the one whose turn it is, which
			// must never wait at the budget.
			slots[i].ticket = r.budget.start()
			next <- i
		}
		close(next)
	}()
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := slots[i]
				work(i, f)
				r.budget.done(f.ticket)
				r.mu.Lock()
				f.closed = true
				if i == r.current {
					r.turn.Signal()
				}
				r.mu.Unlock()
			}
		}()
	}
	var spare []T
	for i, f := range slots {
		r.mu.Lock()
		r.current = i
		r.ahead -= f.weight
		f.weight = 0
		spilled := f.spill
		f.spill = nil
		if r.waiting > 0 {
			r.room.Broadcast() // the turn, and room ahead
		}
		r.mu.Unlock()
		var end End
		if spilled != nil {
			end.SpillErr = spilled.Err()
			end.Lost = spilled.Each(func(item *T) error {
				emit(i, item)
				return nil
			})
			_ = spilled.Close() // read back already: closing it loses nothing
		}
		for {
			r.mu.Lock()
			for len(f.items) == 0 && !f.closed {
				r.turn.Wait()
			}
			// Everything the worker pushed before it closed the file is
			// in items: once closed is seen, this is the last batch.
			items, closed := f.items, f.closed
			f.items = spare[:0]
			if r.waiting > 0 {
				r.room.Broadcast() // room for the worker
			}
			r.mu.Unlock()
			for j := range items {
				emit(i, &items[j])
			}
			clear(items) // let what was emitted go
			spare = items
			if closed {
				break
			}
		}
		f.items = nil
		done(i, end)
		slots[i] = nil
		<-started
	}
	wg.Wait()
}
