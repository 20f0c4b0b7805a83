package lazyre

import (
	"sync"
	"testing"
)

func TestCompiledOnceAtFirstUse(t *testing.T) {
	re := New(`^a(\d+)$`)
	if re.re != nil {
		t.Fatal("compiled before its first use")
	}
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if m := re.Get().FindStringSubmatch("a42"); m != nil {
				got[i] = m[1]
			}
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != "42" {
			t.Errorf("goroutine %d matched %q, want 42", i, g)
		}
	}
	if re.Get() != re.Get() {
		t.Error("compiled twice")
	}
}

func TestInvalidPatternPanicsAtFirstUse(t *testing.T) {
	re := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("an invalid pattern did not panic at its first use")
		}
	}()
	re.Get()
}
