package live

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// A session's checkpoint: the state a hook call reached (the Guard's, with
// guard.AppendState, and the session's own: its calls, halt, pending
// compaction), written beside the scope's log after a hook call, so that
// the next call restores it and applies only the log lines written after
// it instead of the whole log. The log stays the truth: a checkpoint that is
// absent, unreadable, corrupt (checksum), of other rules, another build of
// loopgate, another log or a log that does not hold what it covers is
// ignored, and the log is replayed as without checkpoints (fail open).
// Rebuilding from a checkpoint and from the log run the same session.apply
// over the same records, so they decide alike (TestCheckpointEquivalence).
//
// The file is the log's name with .snap (checkpointPath); its magic keeps
// the word of the first version, and its number changes with the layout,
// so that a file of another layout is never read as this one (2: the
// frozen calls). File layout: checkpointMagic, a CRC-32 of the rest, then
// the body:
//
//	tag        digest of the rules as given, the session's format and platform, and this build
//	log        device, inode, bytes covered, lines covered, CRC-32 of the bytes covered
//	problems   the log's problems met in the lines covered (named again on each call, as a rebuild would)
//	session    call count, halt, pending compaction, call lines, call lines at the latest prompt, turn id, steers waiting,
//	           its frozen calls (frozenCalls: done, registered under their ids, not the latest), its other calls
//	           (ids, verdicts, flags; an open call's record), which of them is the latest
//	guard      guard.AppendState
const checkpointMagic = "loopgate-snapshot-2\n"

// restoredCheckpoints counts the sessions built from a checkpoint in this
// process: tests read it to know that the checkpoint path ran.
var restoredCheckpoints atomic.Int64

// crcTable is the checksum of checkpoints and of the log bytes they
// cover: CRC-32 (IEEE), whose table Go builds at no cost, where CRC-32C's
// tables are computed at first use, a measurable part of a hook call
// (docs/performance.md, "The live hook, every preset"); both run on the
// processor's own instructions where it has them.
var crcTable = crc32.IEEETable

// logPos is where a log was read to and what it is.
type logPos struct {
	dev, ino uint64
	size     int64  // bytes of the log covered
	lines    int    // lines covered
	crc      uint32 // CRC-32 of the bytes covered
	// whole: the log ends with a complete line (a checkpoint can cover it).
	whole bool
}

// checkpointTag identifies what a checkpoint is valid for: the rules as given
// (the digest of the text they were parsed from when known, RulesDigest,
// else every setting as JSON), the transcript format and platform (which
// pick the session's variant of them), and the build of loopgate that
// wrote it (a new build may keep other state, and holds the presets a
// rules file extends).
func checkpointTag(r *rules.Rules, digest []byte, format, platform string) (string, error) {
	if digest == nil {
		var err error
		if digest, err = RulesValueDigest(r); err != nil {
			return "", err
		}
	}
	h := sha256.New()
	h.Write([]byte("text digest\x00"))
	h.Write(digest)
	h.Write([]byte("\x00" + format + "\x00" + platform + "\x00" + buildID()))
	return string(h.Sum(nil)), nil
}

// RulesValueDigest names rules by every setting (their JSON form): the
// digest a checkpoint is tagged with when the text the rules were parsed
// from is not known. A caller that decides many events under the same
// rules without their text (hook simulate) works it out once and gives
// it as Config.RulesDigest: the tag is the same.
func RulesValueDigest(r *rules.Rules) ([]byte, error) {
	j, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("json\x00"), j...))
	return sum[:], nil
}

// BuildID names this build: its Go version, module version, VCS revision
// and state. loopgate and loopgate-hook built together have the same, and
// share their checkpoints.
func BuildID() string { return buildID() }

// buildID is BuildID, worked out once.
var buildID = sync.OnceValue(func() string {
	id := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		id += " " + bi.Main.Path + "@" + bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.time", "vcs.modified":
				id += " " + s.Value
			}
		}
	}
	return id
})

// checkpointPath is the checkpoint file of a scope's log.
func checkpointPath(logPath string) string {
	return strings.TrimSuffix(logPath, ".log") + ".snap"
}

// checkpoint is a checkpoint file read and checked, not yet restored.
type checkpoint struct {
	pos      logPos
	problems []string
	session  []byte // the rest: the session's state, then the guard's
}

// readCheckpoint reads and checks the checkpoint file of a log: its checksum
// and its tag. nil when there is none or it does not serve.
func readCheckpoint(path, tag string) *checkpoint {
	data, err := readState(path)
	if err != nil || !bytes.HasPrefix(data, []byte(checkpointMagic)) || len(data) < len(checkpointMagic)+4 {
		return nil
	}
	body := data[len(checkpointMagic)+4:]
	if binary.LittleEndian.Uint32(data[len(checkpointMagic):]) != crc32.Checksum(body, crcTable) {
		return nil
	}
	r := snapbin.NewReader(body)
	if r.String() != tag {
		return nil
	}
	sn := &checkpoint{}
	sn.pos.dev, sn.pos.ino = r.Uint(), r.Uint()
	sn.pos.size, sn.pos.lines = int64(r.Uint()), int(r.Uint())
	sn.pos.crc = r.Uint32()
	for range r.Len() {
		sn.problems = append(sn.problems, r.String())
	}
	if r.Err() != nil {
		return nil
	}
	sn.session = body[len(body)-r.Rest():]
	return sn
}

// writeCheckpoint saves s as covering the log up to pos, atomically (a
// temporary file renamed over the old checkpoint), under the session's lock.
// A session with a call in the guard's hands (between its PreToolUse and
// PostToolUse) is not saved: the checkpoint written before stays, and the
// next call applies the lines after it.
func writeCheckpoint(path, tag string, pos logPos, problems []string, s *session) error {
	g, err := s.g.AppendState(nil)
	if err != nil {
		return err
	}
	w := &snapbin.Writer{B: make([]byte, len(checkpointMagic)+4, 2*len(g)+4096)}
	copy(w.B, checkpointMagic)
	w.String(tag)
	w.Uint(pos.dev)
	w.Uint(pos.ino)
	w.Uint(uint64(pos.size))
	w.Uint(uint64(pos.lines))
	w.Uint(uint64(pos.crc))
	w.Uint(uint64(len(problems)))
	for _, p := range problems {
		w.String(p)
	}
	s.save(w, g)
	binary.LittleEndian.PutUint32(w.B[len(checkpointMagic):], crc32.Checksum(w.B[len(checkpointMagic)+4:], crcTable))
	// Written in place, under the session's lock: creating a new file and
	// renaming it over the old one on every call cost more than the rest of
	// the call on some file systems. A write cut short by a crash leaves a
	// file whose checksum fails, which the next call ignores (fail open).
	f, err := openState(path, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return err
	}
	_, werr := f.WriteAt(w.B, 0)
	if werr == nil {
		werr = f.Truncate(int64(len(w.B)))
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

// save writes the session's state, then its guard's (g, from
// guard.AppendState).
func (s *session) save(w *snapbin.Writer, g []byte) {
	w.Uint(uint64(s.index))
	w.Bool(s.halted)
	saveVerdict(w, &s.haltedBy, true)
	w.Uint(uint64(s.haltedAt))
	w.Bool(s.compacted)
	w.Uint(uint64(s.bLines))
	w.Uint(uint64(s.promptAt))
	w.String(s.turn)
	w.String(s.pending)
	// Every call the session knows, in order, and whether the latest is
	// one of them (a call without an id is not in s.calls). A done call
	// registered under its id that is not the latest is frozen (see
	// frozenCalls): the frozen calls the checkpoint was restored with are
	// copied as they were read, and the calls frozen since are appended to
	// them.
	calls := make([]*call, 0, len(s.calls)+1)
	for _, c := range s.calls {
		calls = append(calls, c)
	}
	if s.last != nil && (s.last.id == "" || s.calls[s.last.id] != s.last) {
		calls = append(calls, s.last)
	}
	// By index (a session numbers its calls one by one); a checkpoint
	// that was not written so (two calls of one index) still saves the same
	// bytes every time: by id, the latest last.
	slices.SortFunc(calls, func(a, b *call) int {
		if c := cmp.Compare(a.index, b.index); c != 0 {
			return c
		}
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return cmp.Compare(boolInt(a == s.last), boolInt(b == s.last))
	})
	var fw snapbin.Writer
	live, frozen := calls[:0], 0
	for _, c := range calls {
		if c.done && c != s.last && c.id != "" && s.calls[c.id] == c {
			saveCall(&fw, s, c)
			frozen++
		} else {
			live = append(live, c)
		}
	}
	w.Uint(uint64(len(s.frozen.at) - len(s.frozen.thawed) + frozen))
	w.Uint(uint64(s.frozen.keptLen() + len(fw.B)))
	w.B = s.frozen.appendKept(w.B)
	w.B = append(w.B, fw.B...)
	w.Uint(uint64(len(live)))
	last := -1
	for i, c := range live {
		if c == s.last {
			last = i
		}
		saveCall(w, s, c)
	}
	w.Int(int64(last))
	w.String(string(g))
}

// saveCall writes one call of the session.
func saveCall(w *snapbin.Writer, s *session, c *call) {
	w.String(c.id)
	w.Uint(uint64(c.index))
	w.String(c.request)
	flags := callFlags(c.id != "" && s.calls[c.id] == c, c.ran, c.done, c.halted, c.ended, c.ev != nil, c.before == c.final)
	w.Uint(uint64(flags))
	// A done call's verdicts are read only for what the hook says of
	// it (action, detector, count, message): its key and scope are
	// not kept, which halves a checkpoint. An open call's are kept
	// whole, for its result.
	full := c.ev != nil || !c.done
	saveVerdict(w, &c.final, full)
	if flags&flagBeforeSame == 0 {
		saveVerdict(w, &c.before, full)
	}
	if ev := c.ev; ev != nil {
		// A call that ran and has no result yet, no longer in the
		// guard's hands (a prompt cleared it): its event is built
		// again from what its record held.
		w.String(ev.Tool)
		w.Bool(ev.ArgsOK)
		w.String(ev.ArgsRaw)
		var t int64
		if !ev.Time.IsZero() {
			t = ev.Time.UnixNano()
		}
		w.Int(t)
	}
}

// loadCall reads what saveCall wrote into c, and returns its flags. A
// call with an open event is corrupt unless events (its event is then
// built again for s).
func (s *session) loadCall(r *snapbin.Reader, c *call, events bool) uint64 {
	c.id, c.index, c.request = r.String(), int(r.Uint()), r.String()
	flags := r.Uint()
	full := flags&flagEv != 0 || flags&flagDone == 0
	loadVerdict(r, &c.final, full)
	if flags&flagBeforeSame != 0 {
		c.before = c.final
	} else {
		loadVerdict(r, &c.before, full)
	}
	c.ran, c.done, c.halted, c.ended = flags&flagRan != 0, flags&flagDone != 0, flags&flagHalted != 0, flags&flagEnded != 0
	if flags&flagEv != 0 {
		if !events {
			r.Fail(snapbin.ErrCorrupt)
			return flags
		}
		tool, argsOK, args, t := r.String(), r.Bool(), r.String(), r.Int()
		c.ev = s.callEvent(c.index, tool, argsOK, args, t)
	}
	return flags
}

// restore reads what save wrote into a new session of the same rules.
func (s *session) restore(b []byte) error {
	r := snapbin.NewReader(b)
	s.index = int(r.Uint())
	s.halted = r.Bool()
	loadVerdict(r, &s.haltedBy, true)
	s.haltedAt = int(r.Uint())
	s.compacted = r.Bool()
	s.bLines = int(r.Uint())
	s.promptAt = int(r.Uint())
	s.turn = r.String()
	s.pending = r.String()
	if err := s.frozen.read(r.Len(), r.Bytes()); err != nil {
		return err
	}
	n := r.Len()
	s.expect(n)
	calls := make([]*call, n)
	for i := range calls {
		c := s.newCall()
		if s.loadCall(r, c, true)&flagInMap != 0 {
			s.calls[c.id] = c
		}
		calls[i] = c
	}
	if last := int(r.Int()); last >= 0 && last < n {
		s.last = calls[last]
	} else if last != -1 {
		r.Fail(snapbin.ErrCorrupt)
	}
	g := r.Bytes()
	if err := r.Err(); err != nil {
		return err
	}
	if r.Rest() != 0 {
		return snapbin.ErrCorrupt
	}
	return s.g.RestoreState(g)
}

// frozenCalls are the done calls of a restored checkpoint, kept as the
// checkpoint holds them until one is looked up. A done call registered
// under its id changes only if a request end names it (an E record), and
// is read only when a call of its id is looked up (a retried hook, a
// result or request end of it, its request's calls checked for an end):
// decoding them all, thousands on a long session, and registering each
// under its id was most of a call's restore, and sorting them again for
// the next checkpoint most of its save. A call looked up is decoded then
// and becomes the session's again (thaw), and the next save writes it as
// a session's call; the others are copied to it as they were read.
type frozenCalls struct {
	b []byte
	// at is where each call starts in b, and sum a hash of its id
	// (idSum), by which a call is looked up; thawed are the calls thawed
	// (their indices in at).
	at     []int32
	sum    []uint32
	thawed []int
}

// idSum hashes a call id (FNV-1a) for looking it up among the frozen calls.
func idSum(id []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range id {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// read checks the calls frozen in b, as a restore reads them, and keeps
// them; n is their count.
func (f *frozenCalls) read(n int, b []byte) error {
	*f = frozenCalls{b: b}
	if len(b) > math.MaxInt32 || n > len(b) {
		return snapbin.ErrCorrupt
	}
	f.at, f.sum = make([]int32, n), make([]uint32, n)
	at := 0
	for i := range n {
		idAt, idEnd, end := skipFrozen(b, at)
		if end < 0 {
			return snapbin.ErrCorrupt
		}
		f.at[i], f.sum[i] = int32(at), idSum(b[idAt:idEnd])
		at = end
	}
	if at != len(b) {
		return snapbin.ErrCorrupt
	}
	return nil
}

// skipFrozen returns where the id of the frozen call at b[at:] starts and
// ends, and where the call ends; end -1 if it is not one that loadCall
// reads (without events) or not a frozen one. It reads what loadCall
// reads, field by field, without building anything, as a restore does
// for thousands of calls (TestSkipFrozen holds it to loadCall).
func skipFrozen(b []byte, at int) (idAt, idEnd, end int) {
	// at is -1 after an error; every read then fails too.
	uint := func() uint64 {
		if at < 0 || at >= len(b) {
			at = -1
			return 0
		}
		if c := b[at]; c < 0x80 {
			at++
			return uint64(c)
		}
		v, n := binary.Uvarint(b[at:])
		if n <= 0 {
			at = -1
			return 0
		}
		at += n
		return v
	}
	str := func() (start int) {
		n := uint()
		if at < 0 || n > uint64(len(b)-at) {
			at = -1
			return 0
		}
		start = at
		at += int(n)
		return start
	}
	verdict := func() {
		if uint() > uint64(guard.Halt) {
			at = -1
		}
		str()
		uint() // the count, a signed varint: read as loadVerdict reads it
		str()
	}
	idAt = str()
	idEnd = at
	uint() // index
	str()  // request
	flags := uint()
	if at < 0 || flags&(flagInMap|flagDone|flagEv) != flagInMap|flagDone || idEnd <= idAt {
		return 0, 0, -1
	}
	verdict()
	if flags&flagBeforeSame == 0 {
		verdict()
	}
	return idAt, idEnd, at
}

// thaw returns the frozen call of the id, decoded into new memory, and
// drops it from the frozen calls; nil if there is none.
func (f *frozenCalls) thaw(s *session, id string) *call {
	if len(f.at) == 0 || id == "" {
		return nil
	}
	h := idSum([]byte(id))
	for i, sum := range f.sum {
		if sum != h || slices.Contains(f.thawed, i) {
			continue
		}
		if snapbin.NewReader(f.b[f.at[i]:]).String() != id {
			continue
		}
		c := s.newCall()
		s.loadCall(snapbin.NewReader(f.b[f.at[i]:]), c, false)
		f.thawed = append(f.thawed, i)
		return c
	}
	return nil
}

// span is where the frozen call i starts and ends in f.b.
func (f *frozenCalls) span(i int) (at, end int) {
	end = len(f.b)
	if i+1 < len(f.at) {
		end = int(f.at[i+1])
	}
	return int(f.at[i]), end
}

// keptLen is the length of the frozen calls not thawed.
func (f *frozenCalls) keptLen() int {
	n := len(f.b)
	for _, i := range f.thawed {
		at, end := f.span(i)
		n -= end - at
	}
	return n
}

// appendKept appends the frozen calls not thawed, as read.
func (f *frozenCalls) appendKept(b []byte) []byte {
	if len(f.thawed) == 0 {
		return append(b, f.b...)
	}
	for i := range f.at {
		if !slices.Contains(f.thawed, i) {
			at, end := f.span(i)
			b = append(b, f.b[at:end]...)
		}
	}
	return b
}

// A call's flags in a checkpoint.
const (
	flagInMap = 1 << iota // registered under its id
	flagRan
	flagDone
	flagHalted
	flagEnded
	flagEv         // open: its event follows
	flagBeforeSame // its Before verdict is its final one
)

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func callFlags(bits ...bool) uint {
	var f uint
	for i, b := range bits {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// saveVerdict writes a verdict; full: its key and scope too.
func saveVerdict(w *snapbin.Writer, v *guard.Verdict, full bool) {
	w.Uint(uint64(v.Action))
	w.String(v.Detector)
	w.Int(int64(v.Count))
	w.String(v.Message)
	if full {
		w.String(v.Key)
		w.Int(int64(v.Scope))
	}
}

func loadVerdict(r *snapbin.Reader, v *guard.Verdict, full bool) {
	a := r.Uint()
	if a > uint64(guard.Halt) {
		r.Fail(snapbin.ErrCorrupt)
	}
	*v = guard.Verdict{Action: guard.Action(a), Detector: r.String(), Count: int(r.Int()), Message: r.String()}
	if full {
		v.Key, v.Scope = r.String(), int(r.Int())
	}
}
