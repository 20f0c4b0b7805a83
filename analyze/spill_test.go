package analyze

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// fillValue sets every exported field of v, recursively, to a value
// derived from *seed and different from the zero value; it fails on a kind
// it does not know, so that a new kind of field cannot go unnoticed.
func fillValue(t *testing.T, v reflect.Value, seed *int) {
	t.Helper()
	u, ok := fillFields(v, seed, func(v reflect.Value, seed int) bool {
		switch v.Kind() {
		case reflect.String:
			v.SetString("s" + strconv.Itoa(seed) + "\x00é\"")
		case reflect.Int, reflect.Int64:
			v.SetInt(int64(seed) * -7919 * int64(1+seed%3) << (seed % 40))
		case reflect.Uint8:
			v.SetUint(uint64(seed%250 + 1))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Float64:
			v.SetFloat(float64(seed) + 1.0/3)
		default:
			return false
		}
		return true
	})
	if !ok {
		t.Fatalf("fillValue: no rule for a %s (%s): teach it, and encodeSession", u.Kind(), u.Type())
	}
}

// TestSessionEncodingRoundTrip: a session with every field set (by
// reflection: a field added to SessionResult or Decision and not encoded
// fails here), a zero one and one with extreme numbers come back equal, in
// order; every cut of the encoding is an error, never a panic.
func TestSessionEncodingRoundTrip(t *testing.T) {
	var full SessionResult
	seed := 0
	fillValue(t, reflect.ValueOf(&full).Elem(), &seed)
	extreme := SessionResult{Turns: -1 << 62, TokensSaved: 1<<63 - 1, BytesPerToken: -0.0,
		Decisions: []Decision{{Action: guard.Halt, Count: -1 << 62}}}
	in := []SessionResult{full, {}, extreme, {Decisions: []Decision{}}}
	var b []byte
	for i := range in {
		b = encodeSession(b, &in[i])
	}
	rest := b
	for i := range in {
		var got SessionResult
		var err error
		if rest, err = decodeSession(rest, &got); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, in[i]) {
			t.Errorf("session %d came back as\n%+v\nwant\n%+v", i, got, in[i])
		}
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes left over", len(rest))
	}
	one := encodeSession(nil, &full)
	for n := range len(one) {
		var got SessionResult
		if _, err := decodeSession(one[:n], &got); !errors.Is(err, errSpillCorrupt) {
			t.Fatalf("cut at %d of %d: err = %v, want errSpillCorrupt", n, len(one), err)
		}
	}
}

// spillTestSessions are n distinct sessions, some with decisions.
func spillTestSessions(n int) []SessionResult {
	out := make([]SessionResult, n)
	for i := range out {
		out[i] = SessionResult{File: "f" + strconv.Itoa(i/10), ID: strconv.Itoa(i), Calls: i, Timeline: "..B"}
		if i%3 == 0 {
			out[i].Decisions = []Decision{{Turn: i, Call: 2, Tool: "read", Action: guard.Block, Args: `{"p":"x"}`}}
		}
	}
	return out
}

// collect lists a report's sessions through EachSession.
func collect(t *testing.T, r *Report) []SessionResult {
	t.Helper()
	var got []SessionResult
	if err := r.EachSession(func(s *SessionResult) error {
		got = append(got, *s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSpillKeepsEverySessionInOrder: sessions kept with spilling on go to
// disk a chunk at a time (Sessions holds fewer than a chunk), come back
// through EachSession complete and in order, and leave no file behind in
// the temporary directory, before or after Close.
func TestSpillKeepsEverySessionInOrder(t *testing.T) {
	defer func(n int) { spillChunk = n }(spillChunk)
	spillChunk = 4
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	in := spillTestSessions(3*spillChunk + 3)
	var r Report
	for _, s := range in {
		r.keepSession(s, true)
	}
	if len(r.Sessions) >= spillChunk || r.spill == nil || r.spill.Len() != 3*spillChunk {
		t.Fatalf("%d sessions in memory, spill %+v: want 3 chunks on disk", len(r.Sessions), r.spill)
	}
	if n := r.SessionCount(); n != len(in) {
		t.Errorf("SessionCount = %d, want %d", n, len(in))
	}
	for pass := range 2 { // a report may be read more than once
		if got := collect(t, &r); !reflect.DeepEqual(got, in) {
			t.Fatalf("pass %d: EachSession gave %d sessions, not the %d kept, in order", pass, len(got), len(in))
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("after Close, TMPDIR holds %v", left)
	}
	stop := errors.New("stop")
	if err := (&Report{Sessions: in}).EachSession(func(*SessionResult) error { return stop }); err != stop {
		t.Errorf("EachSession returned %v, want f's error", err)
	}
}

// fixtureReplay is the replay and demo fixtures, and options to replay
// them under the loopgate preset with chars4 on two jobs.
func fixtureReplay(t *testing.T) ([]string, Options) {
	t.Helper()
	files := ingest.Expand([]string{filepath.Join("..", "fixtures", "replay"), filepath.Join("..", "fixtures", "demo")}, func(p ingest.Problem) { t.Fatal(p) })
	counter, _ := tokens.New("chars4")
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	return files, Options{Rules: r, Tokens: counter, Jobs: 2}
}

// TestReplaySpillsTheSameSessions: a replay of the fixtures that spills
// (a chunk of 2 sessions) lists exactly the sessions of one that does not.
func TestReplaySpillsTheSameSessions(t *testing.T) {
	defer func(n int) { spillChunk = n }(spillChunk)
	spillChunk = 2
	files, opt := fixtureReplay(t)
	plain := Replay(files, opt)
	opt.SpillSessions = true
	spilled := Replay(files, opt)
	defer spilled.Close()
	if spilled.spill == nil || spilled.spill.Len() == 0 {
		t.Fatalf("%d sessions: nothing was spilled", len(plain.Sessions))
	}
	if got := collect(t, spilled); !reflect.DeepEqual(got, plain.Sessions) {
		t.Errorf("spilled replay lists %d sessions, plain %d, or not the same", len(got), len(plain.Sessions))
	}
	plainRest, spilledRest := *plain, *spilled
	plainRest.Sessions, spilledRest.Sessions, spilledRest.spill = nil, nil, nil
	if !reflect.DeepEqual(plainRest, spilledRest) {
		t.Errorf("the rest of the report differs:\n%+v\n%+v", spilledRest, plainRest)
	}
}

// FuzzSessionSpill: any session built from the fuzzer's values comes back
// from its encoding unchanged, and any bytes read as a spilled session
// give a session or an error, never a panic; a session read from them
// encodes to bytes that read back the same.
func FuzzSessionSpill(f *testing.F) {
	f.Add([]byte{}, "", int64(0), 0.0, uint8(0))
	f.Add(encodeSession(nil, &SessionResult{ID: "x", Decisions: []Decision{{Tool: "t"}}}), "é\x00", int64(-1), 2.5, uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, str string, n int64, x float64, decisions uint8) {
		s := SessionResult{File: str, ID: str + "1", Turns: int(n), TokensSaved: n, BytesPerToken: x,
			Timeline: str, HasUsage: n%2 == 0}
		for i := range int(decisions % 8) {
			s.Decisions = append(s.Decisions, Decision{Turn: i, Args: str, Action: guard.Action(decisions), TokensSaved: n, Harmful: i%2 == 1})
		}
		var back SessionResult
		rest, err := decodeSession(encodeSession(nil, &s), &back)
		if err != nil || len(rest) != 0 {
			t.Fatalf("round trip: err %v, %d bytes left", err, len(rest))
		}
		// NaN is not equal to itself: compare the float's bits.
		if math.Float64bits(back.BytesPerToken) != math.Float64bits(s.BytesPerToken) {
			t.Fatalf("bytes per token %v came back as %v", s.BytesPerToken, back.BytesPerToken)
		}
		back.BytesPerToken, s.BytesPerToken = 0, 0
		if !reflect.DeepEqual(back, s) {
			t.Fatalf("round trip:\n%+v\nwant\n%+v", back, s)
		}
		var got SessionResult
		if _, err := decodeSession(b, &got); err != nil {
			return
		}
		var again SessionResult
		if _, err := decodeSession(encodeSession(nil, &got), &again); err != nil {
			t.Fatalf("a decoded session does not read back: %v", err)
		}
		again.BytesPerToken, got.BytesPerToken = 0, 0
		if !reflect.DeepEqual(again, got) {
			t.Fatalf("a decoded session reads back differently:\n%+v\n%+v", again, got)
		}
	})
}

// TestReplayWithoutATemporaryDirectory: when the temporary directory
// cannot be written, a replay that spills keeps every session in memory,
// lists the same sessions, and says why (SpillError, which the CLI prints
// as a warning).
func TestReplayWithoutATemporaryDirectory(t *testing.T) {
	defer func(n int) { spillChunk = n }(spillChunk)
	spillChunk = 2
	files, opt := fixtureReplay(t)
	plain := Replay(files, opt)
	if plain.SpillError() != nil {
		t.Fatalf("a replay with a temporary directory reports %v", plain.SpillError())
	}
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	opt.SpillSessions = true
	rep := Replay(files, opt)
	defer rep.Close()
	if rep.SpillError() == nil {
		t.Error("SpillError is nil, want why the temporary file could not be made")
	}
	if got := collect(t, rep); !reflect.DeepEqual(got, plain.Sessions) {
		t.Errorf("lists %d sessions, want the %d of a replay in memory", len(got), len(plain.Sessions))
	}
}

// TestSpillBySize: sessions with many decisions are written out once
// their estimated size reaches spillBytes, before spillChunk of them.
func TestSpillBySize(t *testing.T) {
	defer func(n, b int) { spillChunk, spillBytes = n, b }(spillChunk, spillBytes)
	spillChunk, spillBytes = 1000, 64<<10
	t.Setenv("TMPDIR", t.TempDir())
	big := SessionResult{ID: "big", Decisions: make([]Decision, 100)}
	for i := range big.Decisions {
		big.Decisions[i] = Decision{Call: i, Args: strings.Repeat("x", 500), Message: "stop"}
	}
	var r Report
	defer r.Close()
	for range 10 {
		r.keepSession(big, true)
	}
	// Each is about 100 * (160 + 504) bytes: 66 KB, past the 64 KiB bound.
	if r.spill == nil || r.spill.Len() != 10 || len(r.Sessions) != 0 {
		t.Fatalf("%d sessions in memory, %v: want all 10 spilled one by one", len(r.Sessions), r.spill != nil)
	}
	if got := collect(t, &r); len(got) != 10 || !reflect.DeepEqual(got[9], big) {
		t.Errorf("read back %d sessions, or not the same", len(got))
	}
}

// fillFields walks v, counting each value it visits in *n (before visiting
// it): a slice becomes two elements, a struct has its exported fields
// filled in order, and any other value is handed to leaf with the count,
// to be set to something other than its zero value. leaf reports whether
// it knew the value's kind; fillFields stops at the first it did not and
// returns that value and false, so that a new kind of field is not
// silently left zero.
func fillFields(v reflect.Value, n *int, leaf func(v reflect.Value, n int) bool) (reflect.Value, bool) {
	*n++
	switch v.Kind() {
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			if u, ok := fillFields(s.Index(i), n, leaf); !ok {
				return u, false
			}
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if u, ok := fillFields(v.Field(i), n, leaf); !ok {
					return u, false
				}
			}
		}
	default:
		if !leaf(v, *n) {
			return v, false
		}
	}
	return v, true
}
