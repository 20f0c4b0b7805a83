package pipeline

import (
	"testing"
	"time"
)

// returnsWithin runs f and reports whether it returned within d.
func returnsWithin(d time.Duration, f func()) (chan struct{}, bool) {
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
		return done, true
	case <-time.After(d):
		return done, false
	}
}

// TestMemoryBudget: the oldest file in flight never waits; the others wait while
// they hold more than the budget together, and go on once the oldest is
// done (the next oldest no longer counts among the others) or once bytes
// are given back.
func TestMemoryBudget(t *testing.T) {
	const budget = 100
	bud := newMemoryBudget(budget)
	a, b, c := bud.start(), bud.start(), bud.start()

	// The oldest holds far past the budget without waiting.
	if _, ok := returnsWithin(time.Second, func() { bud.hold(a, 10*budget) }); !ok {
		t.Fatal("the oldest file waited")
	}
	// Another holds up to the budget, then its next read waits.
	if _, ok := returnsWithin(time.Second, func() { bud.hold(b, budget+1) }); !ok {
		t.Fatal("a file under the budget waited")
	}
	waitB, ok := returnsWithin(50*time.Millisecond, func() { bud.hold(b, 1) })
	if ok {
		t.Fatal("a file past the budget did not wait")
	}
	// c waits too: the others (b) hold more than the budget.
	waitC, ok := returnsWithin(50*time.Millisecond, func() { bud.hold(c, 1) })
	if ok {
		t.Fatal("a file did not wait while the others held more than the budget")
	}
	// The oldest is done: b is the oldest now and goes on, and its bytes
	// no longer count against c, which goes on too.
	bud.done(a)
	for name, w := range map[string]chan struct{}{"b (now the oldest)": waitB, "c": waitC} {
		select {
		case <-w:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still waits after the oldest file was done", name)
		}
	}
	// c past the budget waits, until b gives back what its session held.
	if _, ok := returnsWithin(time.Second, func() { bud.hold(c, budget) }); !ok {
		t.Fatal("c waited under the budget")
	}
	waitC, ok = returnsWithin(50*time.Millisecond, func() { bud.hold(c, 1) })
	if ok {
		t.Fatal("c past the budget did not wait")
	}
	bud.release(c, budget)
	select {
	case <-waitC:
	case <-time.After(5 * time.Second):
		t.Fatal("c still waits after its bytes were given back")
	}
	bud.done(b)
	bud.done(c)
	if len(bud.flight) != 0 || bud.others != 0 {
		t.Errorf("after every file is done: %d in flight, others hold %d", len(bud.flight), bud.others)
	}
}
