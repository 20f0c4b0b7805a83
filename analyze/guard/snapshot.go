package guard

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/loopgate/loopgate/internal/snapbin"
)

// A guard's state can be saved and restored exactly (AppendState,
// RestoreState), so that the live hook, one process per tool call, need
// not replay a session's whole log to rebuild it. Each detector saves and
// loads its own state (its save and load, in its own file); the Guard
// saves its own (epochs, the keys' numbering, the time window, the latest
// call, write_clears_reads' readers) around them.
//
// What a guard works out from its rules alone (thresholds per tool, tools'
// roles, cleared_by matches) is not saved: the restoring guard works it
// out again from the same rules. Which rules those are is the caller's to
// check (the live hook tags its saved state with a digest of the rules):
// a state restored under other rules is refused only when its detectors
// do not line up.

// snapshotVersion changes whenever what a saved state holds changes.
const snapshotVersion = 2

// ErrInFlight is AppendState's error while a call is between Before and
// After: its event is the caller's, and is not saved.
var ErrInFlight = errors.New("guard: a call is in flight")

// errNotPortable is AppendState's error on a guard whose hashes are
// this process's own (NewGuard): its keys would not match a later
// process's.
var errNotPortable = errors.New("guard: its state cannot be saved (build it with NewSavableGuard)")

// portableHash is HashString with the same value in every process.
func portableHash(s string) uint64 {
	sum := sha256.Sum256([]byte(s))
	return binary.LittleEndian.Uint64(sum[:8])
}

// AppendState appends the guard's state to b. The guard must be
// savable (NewSavableGuard) and have no call in flight (every Before
// followed by its After).
func (g *Guard) AppendState(b []byte) ([]byte, error) {
	if !g.portable {
		return b, errNotPortable
	}
	if len(g.inflight) > 0 {
		return b, ErrInFlight
	}
	w := &snapbin.Writer{B: b}
	w.Uint(snapshotVersion)
	w.Uint(uint64(g.ids))
	w.Uint(uint64(g.egen))
	w.Uint(uint64(len(g.epoch)))
	for _, e := range g.epoch {
		w.Uint(uint64(e.gen))
		w.Uint(uint64(e.e))
	}
	g.ki.save(w)
	w.Bool(g.timerSet)
	t, err := g.timerStart.MarshalBinary()
	if err != nil {
		return b, err
	}
	w.String(string(t))
	w.String(g.pendingNote)
	w.String(g.lastKey)
	w.Int(int64(g.lastKid))
	w.String(g.lastTool)
	w.Uint(uint64(len(g.readers)))
	for _, rk := range g.readers {
		w.Int(int64(rk.kid))
		w.String(rk.text)
	}
	w.Uint(uint64(len(g.dets)))
	for _, d := range g.dets {
		d.save(w)
	}
	return w.B, nil
}

// RestoreState puts into g, a savable guard of the same rules that has
// seen no call yet, the state AppendState saved. The guard's
// strings are b's memory: b must not change afterwards. On an error g is
// in no defined state and must not be used: build a new one.
func (g *Guard) RestoreState(b []byte) (err error) {
	if !g.portable {
		return errNotPortable
	}
	if g.ids != 0 || len(g.ki.m) != 0 || len(g.inflight) != 0 {
		return errors.New("guard: restoring into a guard that has seen calls")
	}
	r := snapbin.NewReader(b)
	if v := r.Uint(); v != snapshotVersion {
		return fmt.Errorf("guard: snapshot version %d, want %d", v, snapshotVersion)
	}
	g.ids = int(r.Uint())
	g.touchedAll = true // the state restored may be of any key
	g.egen = r.Uint32()
	g.epoch = make([]epochEnt, r.Len())
	for i := range g.epoch {
		g.epoch[i] = epochEnt{gen: r.Uint32(), e: int(r.Uint())}
	}
	nkeys := g.ki.load(r)
	g.timerSet = r.Bool()
	if err := g.timerStart.UnmarshalBinary(r.Bytes()); err != nil && r.Err() == nil {
		r.Fail(err)
	}
	g.pendingNote = r.String()
	g.lastKey = r.String()
	g.lastKid = r.Int32()
	g.lastTool = r.String()
	if g.lastKid < -1 || g.lastKid >= int32(nkeys) {
		r.Fail(snapbin.ErrCorrupt)
	}
	g.readers = make([]readerKey, r.Len())
	for i := range g.readers {
		kid := r.Int32()
		if kid < 0 || kid >= int32(nkeys) {
			r.Fail(snapbin.ErrCorrupt)
			break
		}
		g.readers[i] = readerKey{kid: kid, text: r.String()}
		g.readerPos = grow(g.readerPos, kid)
		g.readerPos[kid] = int32(i + 1)
	}
	if n := r.Uint(); n != uint64(len(g.dets)) && r.Err() == nil {
		return fmt.Errorf("guard: snapshot of %d detectors, the rules have %d", n, len(g.dets))
	}
	for _, d := range g.dets {
		d.load(r)
	}
	if r.Err() == nil && r.Rest() != 0 {
		r.Fail(snapbin.ErrCorrupt)
	}
	return r.Err()
}

// save writes the numbering of keys and tools: the keys, then the tools,
// each in the order of their numbers, and the keys' texts kept.
func (ki *keyIndex) save(w *snapbin.Writer) {
	saveNumbering(w, ki.m)
	saveNumbering(w, ki.tools)
	w.Uint(uint64(len(ki.texts)))
	for _, t := range ki.texts {
		w.String(t)
	}
}

// load reads what save wrote into an empty KeyIndex and returns the number
// of keys.
func (ki *keyIndex) load(r *snapbin.Reader) int {
	ki.m = loadNumbering(r)
	ki.tools = loadNumbering(r)
	ki.texts = make([]string, r.Len())
	for i := range ki.texts {
		ki.texts[i] = r.String()
	}
	return len(ki.m)
}

func saveNumbering(w *snapbin.Writer, m map[string]int32) {
	byNum := make([]string, len(m))
	for s, i := range m {
		byNum[i] = s
	}
	w.Uint(uint64(len(byNum)))
	for _, s := range byNum {
		w.String(s)
	}
}

func loadNumbering(r *snapbin.Reader) map[string]int32 {
	n := r.Len()
	m := make(map[string]int32, n)
	for i := range n {
		s := r.String()
		if _, dup := m[s]; dup {
			r.Fail(snapbin.ErrCorrupt)
			break
		}
		m[s] = int32(i)
	}
	return m
}

// saveSlice and loadSlice write and read a detector's per-key table,
// entry by entry.
func saveSlice[T any](w *snapbin.Writer, s []T, save func(*snapbin.Writer, *T)) {
	w.Uint(uint64(len(s)))
	for i := range s {
		save(w, &s[i])
	}
}

func loadSlice[T any](r *snapbin.Reader, load func(*snapbin.Reader, *T)) []T {
	s := make([]T, r.Len())
	for i := range s {
		load(r, &s[i])
	}
	return s
}

// saveMap writes a map in the order of its keys (cmpKey), so that equal
// states make equal snapshots.
func saveMap[K comparable, V any](w *snapbin.Writer, m map[K]V, cmpKey func(a, b K) int, save func(*snapbin.Writer, K, V)) {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmpKey)
	w.Uint(uint64(len(keys)))
	for _, k := range keys {
		save(w, k, m[k])
	}
}

// saveCounts and loadCounts write and read a count per tool name.
func saveCounts(w *snapbin.Writer, m map[string]int) {
	saveMap(w, m, cmp.Compare[string], func(w *snapbin.Writer, k string, v int) {
		w.String(k)
		w.Int(int64(v))
	})
}

func loadCounts(r *snapbin.Reader, m map[string]int) {
	clear(m)
	for range r.Len() {
		k := r.String()
		m[k] = int(r.Int())
	}
}
