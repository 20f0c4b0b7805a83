package periodic

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestEvery: f runs until it returns false, and not after stop returns.
func TestEvery(t *testing.T) {
	var n atomic.Int32
	stop := Every(time.Millisecond, func() bool { return n.Add(1) < 3 })
	deadline := time.Now().Add(5 * time.Second)
	for n.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if got := n.Load(); got != 3 {
		t.Errorf("f ran %d times after returning false on the third, want 3", got)
	}
	stop()

	n.Store(0)
	stop = Every(time.Millisecond, func() bool { n.Add(1); return true })
	for n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	after := n.Load()
	time.Sleep(20 * time.Millisecond)
	if n.Load() != after || after == 0 {
		t.Errorf("f ran %d times, then %d after stop returned", after, n.Load()-after)
	}
}
