package pipeline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// intCodec keeps ints on disk as varints, chunk of them at a time.
func intCodec(chunk int) *Codec[int] {
	return &Codec[int]{
		Encode: func(b []byte, n *int) []byte { return binary.AppendVarint(b, int64(*n)) },
		Decode: func(b []byte, n *int) ([]byte, error) {
			v, k := binary.Varint(b)
			if k <= 0 {
				return b, errors.New("not a varint")
			}
			*n = int(v)
			return b[k:], nil
		},
		Chunk: chunk, Weight: 1 << 30,
	}
}

// sizedFiles writes n files, file i of i+1 bytes (the first the
// smallest), and returns their paths.
func sizedFiles(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	files := make([]string, n)
	for i := range files {
		files[i] = filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(files[i], []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// finishes runs f and fails the test if it does not return within d.
func finishes(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish", what)
	}
}

// TestRunManyFiles: more files than the window, the first ones the
// smallest (the order that hung every replay of more than 4096 files
// before runs were sorted separately), are all worked on and emitted in
// order, with at most Window started and not emitted at any time, whether
// files go out in order (waiting) or largest first (spilling).
func TestRunManyFiles(t *testing.T) {
	const n, window = 300, 16
	files := sizedFiles(t, n)
	for _, spill := range []bool{false, true} {
		for _, jobs := range []int{1, 2, 5} {
			plan := Plan[int]{Jobs: jobs, Window: window, TurnLimit: 2, AheadLimit: 3}
			if spill {
				plan.Spill = intCodec(2)
			}
			var mu sync.Mutex
			started, emitted, most := 0, 0, 0
			var got []string
			finishes(t, 20*time.Second, fmt.Sprintf("spill %v, jobs %d: Run", spill, jobs), func() {
				Run(files, plan, func(i int, f *File[int]) {
					mu.Lock()
					started++
					most = max(most, started-emitted)
					mu.Unlock()
					for k := range 3 {
						f.Push(10*i+k, 1)
					}
				}, func(i int, item *int) {
					got = append(got, strconv.Itoa(*item))
				}, func(i int, end End) {
					if end.SpillErr != nil || end.Lost != nil {
						t.Errorf("file %d: %+v", i, end)
					}
					mu.Lock()
					emitted++
					mu.Unlock()
					got = append(got, fmt.Sprintf("done %d", i))
				})
			})
			var want []string
			for i := range n {
				want = append(want, strconv.Itoa(10*i), strconv.Itoa(10*i+1), strconv.Itoa(10*i+2), fmt.Sprintf("done %d", i))
			}
			if g, w := strings.Join(got, ","), strings.Join(want, ","); g != w {
				t.Fatalf("spill %v, jobs %d: emitted out of order:\n%.200s\nwant\n%.200s", spill, jobs, g, w)
			}
			if most > window {
				t.Errorf("spill %v, jobs %d: up to %d files started ahead (window %d)", spill, jobs, most, window)
			}
		}
	}
}

// TestRunStreamsTheFileInTurn: the items a worker pushes for the file
// whose turn it is reach emit before the worker is done with that file (a
// file of a million sessions is not held whole), in order, and those of a
// later file wait for their turn. The work for file 0 waits until emit
// has seen its first item: without streaming it never ends.
func TestRunStreamsTheFileInTurn(t *testing.T) {
	files := sizedFiles(t, 3)
	for _, run := range []struct {
		jobs  int
		spill *Codec[int]
	}{{1, nil}, {2, nil}, {1, intCodec(8192)}, {2, intCodec(8192)}, {1, intCodec(2)}, {2, intCodec(2)}} {
		// With a chunk of 2, the items of a file read ahead of its turn
		// wait on disk.
		firstSeen := make(chan struct{})
		var got []string
		finishes(t, 20*time.Second, fmt.Sprintf("jobs %d: Run", run.jobs), func() {
			Run(files, Plan[int]{Jobs: run.jobs, Window: 4, Spill: run.spill}, func(i int, f *File[int]) {
				for n := range 3 {
					f.Push(n, 1)
					if i == 0 && n == 0 {
						select {
						case <-firstSeen:
						case <-time.After(10 * time.Second):
							return // reported below: the item was not streamed
						}
					}
				}
			}, func(i int, n *int) {
				got = append(got, fmt.Sprintf("%d:%d", i, *n))
				if len(got) == 1 {
					close(firstSeen)
				}
			}, func(i int, _ End) {
				got = append(got, fmt.Sprintf("%d:done", i))
			})
		})
		want := "0:0 0:1 0:2 0:done 1:0 1:1 1:2 1:done 2:0 2:1 2:2 2:done"
		if s := strings.Join(got, " "); s != want {
			t.Errorf("jobs %d, spill %v: streamed %s, want %s", run.jobs, run.spill != nil, s, want)
		}
	}
}

// TestRunSpillsUntilItsTurn: the items of a file read ahead of its turn
// go to disk a chunk at a time while the file in turn is held up; when the
// turn comes they are emitted in order, those on disk first, and no file
// is left behind. Without a temporary directory they wait in memory, all
// of them, and End says why.
func TestRunSpillsUntilItsTurn(t *testing.T) {
	files := sizedFiles(t, 2)
	for _, writable := range []bool{true, false} {
		dir := t.TempDir()
		t.Setenv("TMPDIR", dir)
		if !writable {
			t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
		}
		aheadDone := make(chan struct{})
		var onDisk, inMemory int
		var got []int
		var ends []End
		finishes(t, 20*time.Second, "Run", func() {
			Run(files, Plan[int]{Jobs: 2, Window: 4, Spill: intCodec(3)}, func(i int, f *File[int]) {
				if i == 0 {
					// File 0 waits for file 1 to be read whole.
					select {
					case <-aheadDone:
					case <-time.After(10 * time.Second):
					}
					f.Push(-1, 1)
					return
				}
				for n := range 10 {
					f.Push(n, 1)
				}
				f.run.mu.Lock()
				if f.spill != nil {
					onDisk = f.spill.Len()
				}
				inMemory = len(f.items)
				f.run.mu.Unlock()
				close(aheadDone)
			}, func(i int, n *int) {
				got = append(got, *n)
			}, func(i int, end End) {
				ends = append(ends, end)
			})
		})
		if writable && (onDisk != 9 || inMemory != 1) || !writable && (onDisk != 0 || inMemory != 10) {
			t.Errorf("writable %v: %d items on disk, %d in memory", writable, onDisk, inMemory)
		}
		if fmt.Sprint(got) != "[-1 0 1 2 3 4 5 6 7 8 9]" {
			t.Errorf("writable %v: emitted %v", writable, got)
		}
		if len(ends) != 2 || ends[1].Lost != nil || (ends[1].SpillErr != nil) == writable {
			t.Errorf("writable %v: ends %+v", writable, ends)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("TMPDIR holds %v after the run", left)
		}
	}
}

// TestRunBounds: without Spill, however small the limits, no more items
// wait for the caller than TurnLimit for the file in turn (plus the batch
// being emitted) and AheadLimit for the files ahead, and every wait ends.
func TestRunBounds(t *testing.T) {
	files := sizedFiles(t, 12)
	for _, jobs := range []int{1, 3, 8} {
		const turn, ahead = 2, 5
		var mu sync.Mutex
		pushed, emitted, most := 0, 0, 0
		finishes(t, 20*time.Second, fmt.Sprintf("jobs %d: Run", jobs), func() {
			Run(files, Plan[int]{Jobs: jobs, Window: 6, TurnLimit: turn, AheadLimit: ahead}, func(i int, f *File[int]) {
				for n := range 20 {
					mu.Lock()
					pushed++
					most = max(most, pushed-emitted)
					mu.Unlock()
					f.Push(n, 1)
				}
			}, func(i int, _ *int) {
				if i == 0 {
					time.Sleep(100 * time.Microsecond) // the others run ahead
				}
				mu.Lock()
				emitted++
				mu.Unlock()
			}, func(int, End) {})
		})
		// One item being pushed per worker counts too.
		if bound := 2*turn + ahead + jobs; most > bound {
			t.Errorf("jobs %d: up to %d items waited for the caller, bound %d", jobs, most, bound)
		}
		if emitted != 12*20 {
			t.Errorf("jobs %d: %d items emitted, want %d", jobs, emitted, 12*20)
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
