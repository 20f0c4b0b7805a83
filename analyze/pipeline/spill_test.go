package pipeline

import (
	"fmt"
	"os"
	"testing"
)

// TestSpillFileByWeight: items are due for the disk once Chunk of them
// wait, or once they weigh Weight, however few; a weight of 0 never ends
// a chunk on its own.
func TestSpillFileByWeight(t *testing.T) {
	codec := intCodec(4)
	codec.Weight = 100
	tests := []struct {
		weights []int
		due     int // the 1-based push that is due first, 0: none
	}{
		{[]int{0, 0, 0, 0}, 4},
		{[]int{0, 0, 0}, 0},
		{[]int{60, 50}, 2},
		{[]int{100}, 1},
		{[]int{99, 0, 0}, 0},
	}
	for _, tt := range tests {
		sp := NewSpillFile(codec)
		got := 0
		for n, w := range tt.weights {
			if sp.Due(w, n+1) {
				got = n + 1
				break
			}
		}
		if got != tt.due {
			t.Errorf("weights %v: due at push %d, want %d", tt.weights, got, tt.due)
		}
	}
}

// TestSpillFileKeepsItemsInOrder: items flushed in chunks come back
// through Each complete and in order, more than once, and Close leaves no
// file behind.
func TestSpillFileKeepsItemsInOrder(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	sp := NewSpillFile(intCodec(3))
	var waiting []int
	for n := range 10 {
		waiting = append(waiting, n)
		if sp.Due(1, len(waiting)) {
			waiting = sp.Flush(waiting)
		}
	}
	if sp.Len() != 9 || len(waiting) != 1 || sp.Err() != nil {
		t.Fatalf("%d on disk, %d in memory, err %v: want 9 and 1", sp.Len(), len(waiting), sp.Err())
	}
	for pass := range 2 {
		var got []int
		if err := sp.Each(func(n *int) error { got = append(got, *n); return nil }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != "[0 1 2 3 4 5 6 7 8]" {
			t.Fatalf("pass %d: read back %v", pass, got)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("after Close, TMPDIR holds %v", left)
	}
}

// TestSpillFileWriteFailureKeepsItems: when the file cannot be written,
// the items stay in memory and Err says why.
func TestSpillFileWriteFailureKeepsItems(t *testing.T) {
	ro, err := os.Open(os.DevNull) // opened for reading: every write fails
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	sp := NewSpillFile(intCodec(4))
	sp.f = ro
	var waiting []int
	for n := range 9 {
		waiting = append(waiting, n)
		if sp.Due(1, len(waiting)) {
			waiting = sp.Flush(waiting)
		}
	}
	if sp.Err() == nil || len(waiting) != 9 || sp.Len() != 0 {
		t.Fatalf("err %v, %d in memory, %d on disk: want the write to fail and all 9 kept", sp.Err(), len(waiting), sp.Len())
	}
}
