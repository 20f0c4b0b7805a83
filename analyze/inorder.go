package analyze

import (
	"runtime"
	"sync"

	"github.com/loopgate/loopgate/ingest"
)

// What ReadInOrder lets wait for the caller. Variables so that tests can
// make them small.
var (
	// inOrderLimit is how many converted sessions of the file whose turn
	// it is may wait for the caller before its worker waits: that file
	// streams, whatever its number of sessions.
	inOrderLimit = 1024
	// inOrderAhead bounds what files read ahead of their turn hold, all
	// together, in sessions plus calls: a session with --calls holds one
	// row per call. An inspect row, session or call, is 150–250 bytes
	// with its strings: 1<<16 of them is 10–16 MB.
	inOrderAhead = 1 << 16
	// inOrderWindow is how many files may be started and not yet
	// emitted. Files read ahead keep the other cores busy while a large
	// file is read: the 1 GiB generated corpus has files of 60 MB among
	// a thousand small ones.
	inOrderWindow = 512
)

// ReadInOrder reads files on jobs workers (0: one per core) and hands what
// they hold to the caller in the files' order, as one reader going through
// them one by one would: for each file, emit gets convert of each of its
// sessions, in order, then fileDone the file's problems, listed as a
// report lists them (FileProblems, closed). convert runs on the worker,
// in parallel, and the session it gets is not used after it returns;
// emit and fileDone run on the caller's goroutine, one call at a time.
//
// It is inspect's reader: a replay does more per file (configurations,
// spilling to disk) and has forEachFile. Here nothing is spilled; memory
// is bounded by waiting instead. The worker of the file whose turn it is
// waits when inOrderLimit of its sessions wait for the caller; a worker of
// a file read ahead waits while the files read ahead hold inOrderAhead
// sessions and calls; and a worker waits at the memory gate (memgate.go)
// while the sessions being read in other files than the oldest hold more
// than aheadSessionBytes. Files are handed to the workers in order, so the
// file whose turn it is has always been started, is the oldest in flight
// (every file before it is done), and its worker never waits on the
// others: every wait ends.
func ReadInOrder[T any](files []string, jobs int, in ingest.Options, convert func(*ingest.Session) T, emit func(T), fileDone func(i int, p *FileProblems)) {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	type slot struct {
		items    []T
		weight   int // of items, while the file is read ahead
		done     bool
		problems FileProblems // the worker's until done
	}
	slots := make([]*slot, len(files))
	for i := range slots {
		slots[i] = &slot{}
	}
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu) // items taken or added, a file done, the turn passed on
		current int                 // the file whose turn it is
		ahead   int                 // the weight of the items of the files after current
	)

	window := make(chan struct{}, inOrderWindow)
	next := make(chan int)
	go func() {
		for i := range files {
			window <- struct{}{}
			next <- i
		}
		close(next)
	}()
	// The memory gate bounds what sessions being read hold across the
	// workers, as in a replay (memgate.go): a session is converted, and
	// let go, once it is whole.
	gate := newMemGate(aheadSessionBytes)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := slots[i]
				gf, fileIn := gate.file(in)
				ingest.ReadFile(files[i], fileIn, &ingest.Sink{
					OnSession: func(x *ingest.Session) {
						w := 1 + x.NumCalls()
						t := convert(x)
						gf.release(gf.taken())
						mu.Lock()
						for !(i == current && len(s.items) < inOrderLimit ||
							i != current && ahead < inOrderAhead) {
							cond.Wait()
						}
						s.items = append(s.items, t)
						if i != current {
							s.weight += w
							ahead += w
						}
						cond.Broadcast()
						mu.Unlock()
					},
					OnProblem: s.problems.Add,
				})
				gf.done()
				s.problems.Close(files[i])
				mu.Lock()
				s.done = true
				cond.Broadcast()
				mu.Unlock()
			}
		}()
	}

	var spare []T
	for i, s := range slots {
		mu.Lock()
		current = i
		ahead -= s.weight
		s.weight = 0
		cond.Broadcast() // the turn, and room ahead
		mu.Unlock()
		for {
			mu.Lock()
			for len(s.items) == 0 && !s.done {
				cond.Wait()
			}
			// Everything the worker added before it said done is in
			// items: once done is seen, this is the last batch.
			items, done := s.items, s.done
			s.items = spare[:0]
			cond.Broadcast() // room for the worker
			mu.Unlock()
			for _, t := range items {
				emit(t)
			}
			clear(items) // let what was emitted go
			spare = items
			if done {
				break
			}
		}
		fileDone(i, &s.problems)
		slots[i] = nil
		<-window
	}
	wg.Wait()
}
