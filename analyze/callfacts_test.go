package analyze

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPrepareOnSameAsPrepare: a long session prepared with its calls'
// facts worked out on several cores is the same as one prepared on one.
func TestPrepareOnSameAsPrepare(t *testing.T) {
	sizes := []int{100, 2 * parallelFactsCalls, 6 * parallelFactsCalls}
	if testing.Short() {
		sizes = sizes[:2] // -short: one session long enough to be shared out
	}
	for _, events := range sizes {
		data := make([]byte, 3*events)
		r := rand.New(rand.NewPCG(uint64(events), 7))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		s := fuzzSession(data)
		want := Prepare(s)
		if events > parallelFactsCalls && len(want.Calls) < parallelFactsCalls {
			t.Fatalf("%d events made %d calls: too few to be prepared on several cores", events, len(want.Calls))
		}
		for _, workers := range []int{2, 3} {
			got := PrepareOn(s, workers)
			if d := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
				t.Fatalf("%d events, %d workers: prepared differently (-one core +several):\n%s", events, workers, d)
			}
		}
	}
}
