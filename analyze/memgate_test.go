package analyze

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
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

// TestMemGate: the oldest file in flight never waits; the others wait while
// they hold more than the budget together, and go on once the oldest is
// done (the next oldest no longer counts among the others) or once bytes
// are given back.
func TestMemGate(t *testing.T) {
	const budget = 100
	g := newMemGate(budget)
	a, b, c := g.start(), g.start(), g.start()

	// The oldest holds far past the budget without waiting.
	if _, ok := returnsWithin(time.Second, func() { g.hold(a, 10*budget) }); !ok {
		t.Fatal("the oldest file waited")
	}
	// Another holds up to the budget, then its next read waits.
	if _, ok := returnsWithin(time.Second, func() { g.hold(b, budget+1) }); !ok {
		t.Fatal("a file under the budget waited")
	}
	waitB, ok := returnsWithin(50*time.Millisecond, func() { g.hold(b, 1) })
	if ok {
		t.Fatal("a file past the budget did not wait")
	}
	// c waits too: the others (b) hold more than the budget.
	waitC, ok := returnsWithin(50*time.Millisecond, func() { g.hold(c, 1) })
	if ok {
		t.Fatal("a file did not wait while the others held more than the budget")
	}
	// The oldest is done: b is the oldest now and goes on, and its bytes
	// no longer count against c, which goes on too.
	g.done(a)
	for name, w := range map[string]chan struct{}{"b (now the oldest)": waitB, "c": waitC} {
		select {
		case <-w:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still waits after the oldest file was done", name)
		}
	}
	// c past the budget waits, until b gives back what its session held.
	if _, ok := returnsWithin(time.Second, func() { g.hold(c, budget) }); !ok {
		t.Fatal("c waited under the budget")
	}
	waitC, ok = returnsWithin(50*time.Millisecond, func() { g.hold(c, 1) })
	if ok {
		t.Fatal("c past the budget did not wait")
	}
	g.release(c, budget)
	select {
	case <-waitC:
	case <-time.After(5 * time.Second):
		t.Fatal("c still waits after its bytes were given back")
	}
	g.done(b)
	g.done(c)
	if len(g.flight) != 0 || g.others != 0 {
		t.Errorf("after every file is done: %d in flight, others hold %d", len(g.flight), g.others)
	}
}

// TestReplayMemGateSameReport: with a budget of a few bytes, so that
// nearly every read of a file that is not the oldest waits, the replay of
// files of one long session each finishes, at any number of jobs, with the
// report it gives with the default budget.
func TestReplayMemGateSameReport(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 12 {
		var b strings.Builder
		b.WriteString(`{"_type": "metadata", "key": "cli:s` + strconv.Itoa(i) + `", "created_at": "2026-01-01T00:00:00", "updated_at": "2026-01-01T00:00:00", "metadata": {}, "last_consolidated": 0}` + "\n")
		for k := range 40 + 30*i {
			b.WriteString(`{"role": "user", "content": "look ` + strconv.Itoa(k) + `", "timestamp": "2026-01-01T00:00:01"}` + "\n")
			b.WriteString(`{"role": "assistant", "content": "", "tool_calls": [{"id": "c` + strconv.Itoa(k) + `", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"f` + strconv.Itoa(k%7) + `\"}"}}], "timestamp": "2026-01-01T00:00:02"}` + "\n")
			b.WriteString(`{"role": "tool", "tool_call_id": "c` + strconv.Itoa(k) + `", "name": "read_file", "content": "` + strings.Repeat("text ", 50) + `", "timestamp": "2026-01-01T00:00:03"}` + "\n")
		}
		p := filepath.Join(dir, "s"+strconv.Itoa(i)+".jsonl")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	replay := func(jobs int) string {
		rep := Replay(files, Options{Rules: r, Tokens: counter, Jobs: jobs, Ingest: ingest.Options{}})
		defer rep.Close()
		if rep.Summary.Sessions != len(files) || rep.Summary.Problems != 0 || rep.Summary.Redundant == 0 {
			t.Fatalf("jobs %d: %d sessions, %d problems, %d redundant calls", jobs, rep.Summary.Sessions, rep.Summary.Problems, rep.Summary.Redundant)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := replay(2)
	defer func(b int64) { aheadSessionBytes = b }(aheadSessionBytes)
	aheadSessionBytes = 8
	for _, jobs := range []int{1, 2, 4} {
		var got string
		if _, ok := returnsWithin(30*time.Second, func() { got = replay(jobs) }); !ok {
			t.Fatalf("jobs %d: the replay did not finish with a budget of 8 bytes", jobs)
		}
		if got != want {
			t.Errorf("jobs %d: the report with a budget of 8 bytes differs", jobs)
		}
	}
}
