package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestForEachFileManyFiles: more files than forEachFile lets ahead of its
// emitter, the first ones the smallest (the order that hung every replay
// of more than 4096 files before runs were sorted separately), are all
// worked on and emitted in order, with at most 2*ahead started and not
// emitted at any time.
func TestForEachFileManyFiles(t *testing.T) {
	dir := t.TempDir()
	const n, ahead = 300, 8
	files := make([]string, n)
	for i := range files {
		files[i] = filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(files[i], []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, jobs := range []int{1, 2, 5} {
		var mu sync.Mutex
		started, emitted, most := 0, 0, 0
		var order []int
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			forEachFile(files, jobs, ahead, func(i int, r *fileResult) {
				mu.Lock()
				started++
				most = max(most, started-emitted)
				mu.Unlock()
			}, nil, func(i int, r *fileResult) {
				mu.Lock()
				emitted++
				order = append(order, i)
				mu.Unlock()
			})
		}()
		select {
		case <-finished:
		case <-time.After(20 * time.Second):
			t.Fatalf("jobs %d: forEachFile did not finish (%d started, %d emitted)", jobs, started, emitted)
		}
		for i, got := range order {
			if got != i {
				t.Fatalf("jobs %d: emitted file %d at position %d", jobs, got, i)
			}
		}
		if len(order) != n || most > 2*ahead {
			t.Errorf("jobs %d: %d files emitted, up to %d started ahead (bound %d)", jobs, len(order), most, 2*ahead)
		}
	}
}

// TestLargestFirst: runs of n in the given order, each largest first.
func TestLargestFirst(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{1, 5, 3, 9, 2, 8, 7}
	var files []string
	for i, size := range sizes {
		f := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(f, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	files = append(files, filepath.Join(dir, "missing"))
	got := largestFirst(files, 3)
	want := []int{1, 2, 0, 3, 5, 4, 6, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("largestFirst = %v, want %v", got, want)
		}
	}
}

// TestForEachFileStreamsTheFileInTurn: the results a worker pushes for the
// file whose turn it is reach stream before the worker is done with that
// file (a file of a million sessions is not held whole), in order, and
// those of a later file wait for their turn. The work for file 0 waits
// until stream has seen its first result: without streaming it never ends.
func TestForEachFileStreamsTheFileInTurn(t *testing.T) {
	dir := t.TempDir()
	files := make([]string, 3)
	for i := range files {
		files[i] = filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(files[i], []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func(n int) { spillChunk = n }(spillChunk)
	for _, run := range []struct{ jobs, chunk int }{{1, 8192}, {2, 8192}, {1, 2}, {2, 2}} {
		// With a chunk of 2, the results of a file read ahead of its
		// turn wait on disk.
		jobs := run.jobs
		spillChunk = run.chunk
		firstSeen := make(chan struct{})
		var got []string
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			forEachFile(files, jobs, 4, func(i int, r *fileResult) {
				for n := 0; n < 3; n++ {
					r.results.push(SessionResult{File: files[i], Calls: n})
					if i == 0 && n == 0 {
						select {
						case <-firstSeen:
						case <-time.After(10 * time.Second):
							return // reported below: the result was not streamed
						}
					}
				}
			}, func(i int, s *SessionResult) {
				got = append(got, fmt.Sprintf("%d:%d", i, s.Calls))
				if len(got) == 1 {
					close(firstSeen)
				}
			}, func(i int, r *fileResult) {
				got = append(got, fmt.Sprintf("%d:done", i))
			})
		}()
		select {
		case <-finished:
		case <-time.After(20 * time.Second):
			t.Fatalf("jobs %d: forEachFile did not finish", jobs)
		}
		want := "0:0 0:1 0:2 0:done 1:0 1:1 1:2 1:done 2:0 2:1 2:2 2:done"
		if s := strings.Join(got, " "); s != want {
			t.Errorf("jobs %d, chunk %d: streamed %s, want %s", jobs, run.chunk, s, want)
		}
	}
}

// TestResultQueueSpillsUntilItsTurn: a queue not yet drained keeps no more
// than a chunk in memory; drained, it gives every result in order, those
// on disk first, and then those pushed while it drains, and leaves no
// file behind. Without a temporary directory it keeps them all in memory
// and says why.
func TestResultQueueSpillsUntilItsTurn(t *testing.T) {
	defer func(n int) { spillChunk = n }(spillChunk)
	spillChunk = 3
	for _, writable := range []bool{true, false} {
		dir := t.TempDir()
		t.Setenv("TMPDIR", dir)
		if !writable {
			t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
		}
		var q resultQueue
		for n := range 10 {
			q.push(SessionResult{Calls: n})
		}
		if writable && (len(q.items) >= spillChunk || q.spill == nil || q.spill.n != 9) {
			t.Fatalf("%d results in memory, spill %+v: want 9 on disk", len(q.items), q.spill)
		}
		if !writable && len(q.items) != 10 {
			t.Fatalf("no temporary directory: %d results in memory, want all 10", len(q.items))
		}
		var got []int
		var writeErr, err error
		done := make(chan struct{})
		go func() {
			writeErr, err = q.drain(func(s *SessionResult) { got = append(got, s.Calls) })
			close(done)
		}()
		for n := 10; n < 20; n++ { // pushed while it drains: never spilled
			q.push(SessionResult{Calls: n})
		}
		q.close()
		<-done
		if err != nil || (writeErr != nil) == writable {
			t.Fatalf("writable %v: drain returned %v, %v", writable, writeErr, err)
		}
		if len(got) != 20 {
			t.Fatalf("drained %v, want 0..19", got)
		}
		for i, n := range got {
			if n != i {
				t.Fatalf("drained %v, want 0..19 in order", got)
			}
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("TMPDIR holds %v after the drain", left)
		}
	}
}
