package live

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// frozenRecords is a session of n calls with ids: most alone in their
// request (ended), some in pairs (the first done but never ended), some
// without a result, repeats among their arguments.
func frozenRecords(n int) []record {
	recs := []record{{kind: 'P'}}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("toolu_%d", i)
		b := record{kind: 'B', id: id, tool: "Read", argsOK: true, args: fmt.Sprintf(`{"file_path":"/f%d.go"}`, i%7)}
		switch i % 5 {
		case 1: // a pair in one request: the first done, never ended
			b.request = fmt.Sprintf("req%d", i)
			id2 := id + "b"
			b2 := record{kind: 'B', id: id2, request: b.request, tool: "Grep", argsOK: true, args: `{"pattern":"x"}`}
			recs = append(recs, b, b2,
				record{kind: 'A', id: id, hash: uint64(i % 3)}, record{kind: 'A', id: id2, hash: 7, failed: i%2 == 0},
				record{kind: 'E', id: id2})
			continue
		case 3: // no result: a prompt takes it from the guard's hands
			recs = append(recs, b, record{kind: 'P'})
			continue
		}
		recs = append(recs, b, record{kind: 'A', id: id, hash: uint64(i % 4)}, record{kind: 'E', id: id})
	}
	return recs
}

// frozenTail looks up old calls every way a hook call can: a retried
// PreToolUse of a done call and of one that never had a result, a result
// and a request end of done calls (one never ended: its end still
// applies), then new calls, one repeating an old one's arguments.
func frozenTail() []record {
	return []record{
		{kind: 'B', id: "toolu_10", tool: "Read", argsOK: true, args: `{"file_path":"/f3.go"}`},
		{kind: 'B', id: "toolu_13", tool: "Read", argsOK: true, args: `{"file_path":"/f6.go"}`},
		{kind: 'A', id: "toolu_20", hash: 1},
		{kind: 'E', id: "toolu_21"}, // done, never ended: ends now
		{kind: 'E', id: "toolu_21"}, // and then is ended
		{kind: 'E', id: "toolu_20"},
		{kind: 'B', id: "new1", tool: "Read", argsOK: true, args: `{"file_path":"/f1.go"}`},
		{kind: 'A', id: "new1", hash: 1},
		{kind: 'B', id: "toolu_21", tool: "Read"},
		{kind: 'E', id: "new1"},
		{kind: 'B', id: "new2", tool: "Read", argsOK: true, args: `{"file_path":"/f1.go"}`},
		{kind: 'A', id: "toolu_21b", hash: 3},
		{kind: 'A', id: "new2", hash: 3},
	}
}

// frozenSession is a session of frozenRecords(n) restored from its
// checkpoint.
func frozenSession(tb testing.TB, n int) *session {
	r, err := rules.Preset("loopgate")
	if err != nil {
		tb.Fatal(err)
	}
	s := newSession(r, "claude-code", "")
	recs := frozenRecords(n)
	for i := range recs {
		s.apply(&recs[i])
	}
	return checkpointed(tb, s, r)
}

// checkpointed saves s and restores it into a new session.
func checkpointed(t testing.TB, s *session, r *rules.Rules) *session {
	t.Helper()
	g, err := s.g.AppendState(nil)
	if err != nil {
		t.Fatal(err)
	}
	var w snapbin.Writer
	s.save(&w, g)
	n := newSession(r, "claude-code", "")
	if err := n.restore(w.B); err != nil {
		t.Fatalf("restore: %v", err)
	}
	return n
}

// shown is what a hook answers of a call (a done call's verdicts keep no
// key or scope in a checkpoint).
func shown(c *call) string {
	if c == nil {
		return "none"
	}
	v := func(v guard.Verdict) string {
		return fmt.Sprintf("%v/%s/%d/%q", v.Action, v.Detector, v.Count, v.Message)
	}
	return fmt.Sprintf("%s #%d %s before %s final %s ran %v done %v halted %v ended %v",
		c.id, c.index, c.request, v(c.before), v(c.final), c.ran, c.done, c.halted, c.ended)
}

func shownEffect(e effect) string {
	return fmt.Sprintf("call %s; ended %s %v; halt %v; note %q", shown(e.call), shown(e.ended), e.endVerdict.Action, e.halt, e.note)
}

// knownCalls lists every call s knows, frozen or not, by index.
func knownCalls(t *testing.T, s *session) []string {
	t.Helper()
	var out []string
	for i, at := range s.frozen.at {
		if slices.Contains(s.frozen.thawed, i) {
			continue
		}
		var c call
		r := snapbin.NewReader(s.frozen.b[at:])
		s.loadCall(r, &c, false)
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		out = append(out, shown(&c))
	}
	for _, c := range s.calls {
		out = append(out, shown(c))
	}
	if s.last != nil && s.calls[s.last.id] != s.last {
		out = append(out, shown(s.last))
	}
	slices.Sort(out)
	return out
}

// TestFrozenCalls: a session restored from checkpoints, its done calls
// frozen and looked up again by retries, results and request ends, gives
// the effects the session kept in process gives, and knows the same calls
// after; a checkpoint saved again unchanged is the same bytes.
func TestFrozenCalls(t *testing.T) {
	for _, preset := range []string{"loopgate", "hermes", "claude-code"} {
		t.Run(preset, func(t *testing.T) {
			r, err := rules.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			if preset == "loopgate" {
				// The preset clears every call at a prompt (scope.reset:
				// turn), which would leave nothing to freeze; mentioned
				// keeps the calls of paths a prompt does not name.
				r.Scope.Reset = "mentioned"
			}
			recs := frozenRecords(60)
			inProcess := newSession(r, "claude-code", "")
			restored := newSession(r, "claude-code", "")
			for i := range recs {
				inProcess.apply(&recs[i])
				restored.apply(&recs[i])
				if i == len(recs)/2 || i == 2*len(recs)/3 {
					restored = checkpointed(t, restored, r)
				}
			}
			restored = checkpointed(t, restored, r)
			if len(restored.frozen.at) < 40 {
				t.Fatalf("only %d calls frozen", len(restored.frozen.at))
			}
			// Saved again without a change: the same checkpoint.
			g, _ := restored.g.AppendState(nil)
			var w1, w2 snapbin.Writer
			restored.save(&w1, g)
			checkpointed(t, restored, r).save(&w2, g)
			if string(w1.B) != string(w2.B) {
				t.Error("a checkpoint saved again unchanged differs")
			}
			for i, rec := range frozenTail() {
				a, b := inProcess.apply(&rec), restored.apply(&rec)
				if x, y := shownEffect(a), shownEffect(b); x != y {
					t.Errorf("record %d (%c %s): in process %s\nrestored %s", i, rec.kind, rec.id, x, y)
				}
				if i == 5 {
					restored = checkpointed(t, restored, r)
				}
			}
			if len(restored.frozen.thawed) > 0 {
				restored = checkpointed(t, restored, r)
			}
			want, got := knownCalls(t, checkpointed(t, inProcess, r)), knownCalls(t, restored)
			if !slices.Equal(want, got) {
				t.Errorf("calls known: in process %d, restored %d\n%q\n%q", len(want), len(got), want, got)
			}
		})
	}
}

// TestSkipFrozen: the frozen calls a restore accepts are the ones loadCall
// reads whole as frozen (done, registered, no open event), call by call,
// over every byte of a checkpoint's frozen calls changed.
func TestSkipFrozen(t *testing.T) {
	s := frozenSession(t, 12)
	s = checkpointed(t, s, s.r)
	valid := s.frozen.b
	if len(valid) == 0 {
		t.Fatal("no frozen calls")
	}
	n := len(s.frozen.at)
	// reference reads b's n calls with loadCall.
	reference := func(b []byte) bool {
		rd := snapbin.NewReader(b)
		for range n {
			var c call
			flags := (*session)(nil).loadCall(rd, &c, false)
			if rd.Err() != nil || flags&(flagInMap|flagDone|flagEv) != flagInMap|flagDone || c.id == "" {
				return false
			}
		}
		return rd.Rest() == 0
	}
	accepted, refused := 0, 0
	for i := range valid {
		for _, x := range []byte{0, 1, byte(guard.Halt) + 1, 0x7f, 0x80, 0xff, valid[i] + 1, valid[i] - 1} {
			b := slices.Clone(valid)
			b[i] = x
			var f frozenCalls
			got := f.read(n, b) == nil
			if want := reference(b); got != want {
				t.Fatalf("byte %d set to %#x: restore accepts %v, loadCall reads %v", i, x, got, want)
			}
			if got {
				accepted++
			} else {
				refused++
			}
		}
	}
	for _, cut := range []int{1, len(valid) / 2, len(valid) - 1} {
		var f frozenCalls
		if f.read(n, valid[:cut]) == nil {
			t.Errorf("cut to %d bytes: accepted", cut)
		}
	}
	for _, m := range []int{n - 1, n + 1} {
		var f frozenCalls
		if f.read(m, valid) == nil {
			t.Errorf("%d calls read as %d: accepted", n, m)
		}
	}
	if accepted == 0 || refused == 0 {
		t.Errorf("%d changed inputs accepted, %d refused: the test reads nothing", accepted, refused)
	}
}

// BenchmarkFrozenRead is a restore's check of 2,000 frozen calls.
func BenchmarkFrozenRead(b *testing.B) {
	s := frozenSession(b, 2000)
	blob, count := s.frozen.b, len(s.frozen.at)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var f frozenCalls
		if err := f.read(count, blob); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzRestore: a session's checkpoint of any bytes is refused or restored
// without a panic, and one restored saves to a checkpoint that restores
// and saves again to the same bytes (the frozen calls copied as read).
func FuzzRestore(f *testing.F) {
	for _, n := range []int{0, 3, 12} {
		s := frozenSession(f, n)
		g, err := s.g.AppendState(nil)
		if err != nil {
			f.Fatal(err)
		}
		var w snapbin.Writer
		s.save(&w, g)
		f.Add(w.B)
	}
	r, err := rules.Preset("loopgate")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newSession(r, "claude-code", "")
		if restoreSafely(s, b) != nil {
			return
		}
		save := func(s *session) []byte {
			g, err := s.g.AppendState(nil)
			if err != nil {
				t.Fatal(err)
			}
			var w snapbin.Writer
			s.save(&w, g)
			return w.B
		}
		once := save(s)
		again := newSession(r, "claude-code", "")
		if err := restoreSafely(again, once); err != nil {
			t.Fatalf("a checkpoint saved from a restored one is refused: %v", err)
		}
		if twice := save(again); string(twice) != string(once) {
			t.Fatal("saved twice, the checkpoint differs")
		}
	})
}
