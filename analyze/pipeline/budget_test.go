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
	bud := newMemoryBudget(budget, 0)
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
	if len(bud.flight) != 0 || bud.others() != 0 {
		t.Errorf("after every file is done: %d in flight, others hold %d", len(bud.flight), bud.others())
	}
}

// TestMemoryBudgetHandover: once the oldest file's reader is done, the
// next file still reading becomes the oldest and reads on past the budget
// while the first holds at most the handover; past it, the next file
// waits until the first gives bytes back or is done. A file after them
// still waits while the others (the first's bytes among them) hold more
// than the budget.
func TestMemoryBudgetHandover(t *testing.T) {
	const budget = 100
	mustWait := func(t *testing.T, what string, f func()) chan struct{} {
		t.Helper()
		w, ok := returnsWithin(50*time.Millisecond, f)
		if ok {
			t.Fatalf("%s did not wait", what)
		}
		return w
	}
	mustReturn := func(t *testing.T, what string, w chan struct{}) {
		t.Helper()
		select {
		case <-w:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still waits", what)
		}
	}
	noWait := func(t *testing.T, what string, f func()) {
		t.Helper()
		if _, ok := returnsWithin(time.Second, f); !ok {
			t.Fatalf("%s waited", what)
		}
	}

	t.Run("under the handover", func(t *testing.T) {
		bud := newMemoryBudget(budget, 10*budget)
		a, b, c := bud.start(), bud.start(), bud.start()
		noWait(t, "the oldest", func() { bud.hold(a, 5*budget) })
		noWait(t, "b under the budget", func() { bud.hold(b, budget+1) })
		waitB := mustWait(t, "b past the budget", func() { bud.hold(b, 1) })
		bud.readDone(a)
		mustReturn(t, "b, the oldest still reading once a's reader is done,", waitB)
		noWait(t, "b, the oldest, far past the budget", func() { bud.hold(b, 20*budget) })
		// c is not the oldest: a's bytes count among the others.
		waitC := mustWait(t, "c while a holds more than the budget", func() { bud.hold(c, 1) })
		bud.done(a)
		mustReturn(t, "c once a is done", waitC)
		allDone(t, bud, b, c)
	})

	t.Run("over the handover", func(t *testing.T) {
		bud := newMemoryBudget(budget, 2*budget)
		a, b := bud.start(), bud.start()
		noWait(t, "the oldest", func() { bud.hold(a, 5*budget) })
		noWait(t, "b under the budget", func() { bud.hold(b, budget) })
		bud.readDone(a)
		// b is the oldest still reading, but a holds more than the
		// handover: b waits until a gives enough back.
		waitB := mustWait(t, "b while a holds more than the handover", func() { bud.hold(b, 1) })
		bud.release(a, 2*budget)
		select {
		case <-waitB:
			t.Fatal("b went on while a still held more than the handover")
		case <-time.After(50 * time.Millisecond):
		}
		bud.release(a, budget)
		mustReturn(t, "b once a holds the handover or less", waitB)
		allDone(t, bud, a, b)
	})

	t.Run("files after the oldest", func(t *testing.T) {
		// Only the files started before the oldest count against the
		// handover: a later one whose reader is done (a small file read
		// while a large one still is) does not hold the oldest back.
		bud := newMemoryBudget(budget, budget)
		a, b, c := bud.start(), bud.start(), bud.start()
		noWait(t, "the oldest", func() { bud.hold(a, budget/10) })
		bud.readDone(a)
		noWait(t, "c under the budget", func() { bud.hold(c, budget/2) })
		noWait(t, "c while the others are under the budget", func() { bud.hold(c, 5*budget) })
		bud.readDone(c)
		noWait(t, "b, the oldest, while only c holds more than the handover", func() { bud.hold(b, 1) })
		allDone(t, bud, a, b, c)
	})

	t.Run("no handover", func(t *testing.T) {
		bud := newMemoryBudget(budget, 0)
		a, b := bud.start(), bud.start()
		noWait(t, "the oldest", func() { bud.hold(a, 1) })
		bud.readDone(a)
		waitB := mustWait(t, "b while a's sessions are replayed, with no handover", func() { bud.hold(b, 1) })
		bud.done(a)
		mustReturn(t, "b once a is done", waitB)
		allDone(t, bud, b)
	})
}

// allDone says the files are done and checks that the budget then counts
// nothing.
func allDone(t *testing.T, bud *memoryBudget, files ...int64) {
	t.Helper()
	for _, f := range files {
		bud.done(f)
	}
	if len(bud.flight) != 0 || bud.others() != 0 || bud.oldest() != -1 {
		t.Errorf("after every file is done: %d in flight, others hold %d, oldest %d", len(bud.flight), bud.others(), bud.oldest())
	}
}
