// The guard engine: one Guard per agent scope of a session takes one call
// at a time (Before it runs, After its result is known) and decides, under
// a rules.Rules, whether to allow, steer, dedup, block or halt. Every
// preset (nanobot, hermes, pi-loopguard, attractor, ...) runs on this same
// engine; the designs differ only in their rules (rules/presets/*.yaml).
//
// The engine is independent of transcript formats and of replay: replay
// calls it in transcript order, tests build call streams by hand, and a
// live agent could call it from its own loop.

package analyze

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// Guard is the state of one guard over one agent scope of one session.
// It is not safe for concurrent use; build one Guard per scope.
type Guard struct {
	r    *rules.Rules
	dets []detector

	// ids hands out counting-epoch numbers (Verdict.Scope). A key's epoch
	// is fixed when the key is first counted after a reset that clears it
	// for every detector, so "same Key and Scope" means "the guard treated
	// these calls as the same call".
	ids int
	// epoch[k] is the epoch of key index k (see keyIndex), valid while its
	// gen is egen: clearing every epoch is egen++.
	epoch []epochEnt
	egen  uint32
	// ki numbers the keys of the calls this guard sees (callKey).
	ki *keyIndex
	// turnClearsAll: every detector resets at a user turn, so a turn is a
	// new epoch for every key (hermes' read/search streak spans turns).
	turnClearsAll bool

	// Time window (scope.window).
	timerSet    bool
	timerStart  time.Time
	pendingNote string

	// calls in flight between Before and After, latest last. A replay
	// calls After right after Before, so this holds one call or none and
	// is searched from the end; it was a map, whose insert and delete per
	// call cost more than the rest of Before in a sweep (issue 7).
	inflight []*callCtx
	// lastKey is the key of the latest call, for round-level verdicts.
	lastKey  string
	lastKid  int32
	lastTool string
	// spare is a call context After is done with, for the next Before.
	spare *callCtx

	// eff caches per-(detector, tool) thresholds and messages, and
	// roleOf the tools' roles by name; guards of the same rules that run one
	// after the other may share them (ruleCache).
	eff    map[effKey]*effective
	roleOf map[string]uint8

	// readers are the counted keys of reader tools not cleared since
	// (scope.write_clears_reads), and readerPos[k] is 1 + the position of
	// key index k in readers (0: not there); clearing is scratch for
	// clearReadsAfterWrite. toolRole caches which tools read, write or
	// clear every reader key. clearsReads: the rules name readers, and
	// writers or tools that clear every reader key.
	readers     []readerKey
	readerPos   []int32
	clearing    []int32
	toolRole    []uint8 // by tool index (keyIndex)
	clearsReads bool
}

// readerKey is a reader key not cleared since it was counted: its index,
// and its text as written (for the path test).
type readerKey struct {
	kid  int32
	text string
}

type epochEnt struct {
	gen uint32
	e   int
}

// keyIndex numbers distinct call keys 0, 1, 2, ... for one key-rule set
// (rules.KeyID), so that the guard's counters are slices indexed by a
// key's number instead of maps hashing the key's text at every access. A
// CallEvent remembers its number next to its key (CallEvent.ki, kidx):
// compare and sweep share one keyIndex per prepared session and key-rule
// set over all their configurations, so later configurations number no
// key again.
type keyIndex struct {
	keyID uint64
	m     map[string]int32
	// tools numbers tool names the same way (CallEvent.tidx).
	tools map[string]int32
	// texts[k] is key k as written, for write_clears_reads ("" until a
	// guard needed it).
	texts []string
	// buf is reused to build keys: memo runs once per call, and a key was
	// otherwise built in a buffer of its own and then copied to a string.
	buf []byte
}

// maxKeyBuf is the largest key buffer a keyIndex keeps between calls: a
// rare huge key (a write_file's content) is not held for the session's life.
const maxKeyBuf = 64 << 10

func newKeyIndex(keyID uint64, size int) *keyIndex {
	return &keyIndex{keyID: keyID, m: make(map[string]int32, size), tools: map[string]int32{}}
}

// memo sets the event's key under the rules' key section (which must be
// ki's), and its key's and tool's numbers, once per keyIndex.
func (ki *keyIndex) memo(ev *CallEvent, r *rules.Rules) {
	if ev.ki == ki {
		return
	}
	if ev.keyID != ki.keyID {
		full, ok := r.AppendCallKey(ki.buf[:0], ev.Tool, ev.Args, ev.ArgsOK, ev.ArgsRaw)
		ev.key, ev.hasKey = "", ok
		if ok {
			ev.key = compactKeyBytes(full)
		}
		ev.keyID = ki.keyID
		ki.buf = full
		if cap(full) > maxKeyBuf {
			ki.buf = nil
		}
	}
	ev.ki, ev.kidx = ki, -1
	if ev.hasKey {
		ev.kidx = ki.intern(ev.key)
	}
	t, ok := ki.tools[ev.Tool]
	if !ok {
		t = int32(len(ki.tools))
		ki.tools[ev.Tool] = t
	}
	ev.tidx = t
}

func (ki *keyIndex) intern(key string) int32 {
	i, ok := ki.m[key]
	if !ok {
		i = int32(len(ki.m))
		ki.m[key] = i
	}
	return i
}

// grow returns s long enough to be indexed by i.
func grow[T any](s []T, i int32) []T {
	if int(i) < len(s) {
		return s
	}
	return append(s, make([]T, int(i)+1-len(s))...)
}

// A tool's roles under scope.write_clears_reads (Guard.role).
const (
	roleReader   uint8 = 1 << iota // in readers
	roleWriter                     // in writers: its path argument clears
	roleClearAll                   // in clear_all
	roleKnown                      // worked out (Guard.toolRole)
)

type effKey struct{ det, tool string }

// callCtx is what Before learned about a call, for After.
type callCtx struct {
	ev      *CallEvent
	key     string
	kid     int32 // the key's index (keyIndex), when hasKey
	tid     int32 // the tool's index (keyIndex)
	hasKey  bool
	scope   int  // the key's epoch when Before saw the call
	command bool // the manual reset command: neither counted nor checked
	// failed and hash are how the rules read the result (Guard.resultOf),
	// set by After.
	failed bool
	hash   uint64
}

// NewGuard returns a Guard running the rules. The rules must not be
// changed while the Guard is in use.
func NewGuard(r *rules.Rules) *Guard {
	return newGuard(r, newKeyIndex(r.KeyID(), 0), newRuleCache(r))
}

// ruleCache is what a guard works out from its rules alone, kept for the
// next guard of the same rules (one goroutine at a time), and the memory
// of the latest guard that is done (spare: Guard.done).
type ruleCache struct {
	r      *rules.Rules
	eff    map[effKey]*effective
	roleOf map[string]uint8
	spare  *Guard
}

func newRuleCache(r *rules.Rules) *ruleCache {
	return &ruleCache{r: r, eff: map[effKey]*effective{}, roleOf: map[string]uint8{}}
}

// maxSpareKeys bounds the key tables a spare guard keeps (Guard.done).
const maxSpareKeys = 1 << 16

// newGuard returns a Guard running the rules, numbering keys with ki, which
// must be for the rules' key section (ki.keyID == r.KeyID()), and sharing
// rc with the guards before it; the keys ki already holds size the guard's
// tables. It takes the memory of rc's spare guard, if any.
func newGuard(r *rules.Rules, ki *keyIndex, rc *ruleCache) *Guard {
	g := rc.spare
	rc.spare = nil
	if g == nil {
		g = &Guard{}
	}
	g.renew(r, ki, rc)
	return g
}

// done hands the guard's memory to the next guard of rc (newGuard): a
// replay builds one guard per session, and each grew its tables from
// nothing. The guard is emptied now, so that it holds nothing of its
// session, and must not be used again.
func (g *Guard) done(rc *ruleCache) {
	if rc.r != g.r || cap(g.epoch) > maxSpareKeys {
		return
	}
	g.renew(g.r, nil, rc)
	rc.spare = g
}

// renew puts g in the state of a new guard, keeping its tables' memory
// (zeroed). ki nil: no keys (Guard.done).
func (g *Guard) renew(r *rules.Rules, ki *keyIndex, rc *ruleCache) {
	size := 0
	if ki != nil {
		size = len(ki.m)
	}
	// A literal: nothing of the old state survives but the tables' memory.
	*g = Guard{
		r:         r,
		ki:        ki,
		egen:      1,
		lastKid:   -1,
		epoch:     reuse(g.epoch, size),
		inflight:  reuse(g.inflight, 0),
		eff:       rc.eff,
		roleOf:    rc.roleOf,
		readers:   reuse(g.readers, 0),
		clearing:  reuse(g.clearing, 0),
		toolRole:  reuse(g.toolRole, 0),
		readerPos: reuse(g.readerPos, 0),
		dets:      g.dets,
	}
	w := &r.Scope.WriteClearsReads
	g.clearsReads = len(w.Readers) > 0 && (len(w.Writers) > 0 || len(w.ClearAll) > 0)
	if g.clearsReads {
		g.readerPos = reuse(g.readerPos, size)
	}
	g.dets = buildDetectors(g, r, size, g.dets)
	g.turnClearsAll = true
	for _, d := range g.dets {
		if !d.resetsOnTurn() {
			g.turnClearsAll = false
		}
	}
}

func (g *Guard) newID() int {
	g.ids++
	return g.ids
}

// epochOf returns the counting epoch of a key (by its index), starting one
// if needed.
func (g *Guard) epochOf(kid int32) int {
	g.epoch = grow(g.epoch, kid)
	p := &g.epoch[kid]
	if p.gen != g.egen {
		p.gen, p.e = g.egen, g.newID()
	}
	return p.e
}

// UserTurn is a genuine user message: detectors scoped to the turn start
// afresh (and the time window restarts).
func (g *Guard) UserTurn(t time.Time) {
	for _, d := range g.dets {
		if d.resetsOnTurn() {
			d.reset()
		}
	}
	// Epochs end only when every detector resets at a turn: a session-wide
	// detector (hermes' read/search streak) still treats calls of earlier
	// turns as the same call.
	if g.turnClearsAll {
		g.egen++
	}
	if g.r.Scope.Reset == "turn" {
		g.timerSet = false
	}
	g.pendingNote = ""
	// A call whose After never came (a halted turn) is not kept forever.
	clear(g.inflight)
	g.inflight = g.inflight[:0]
}

// Compaction is a context compaction: it resets everything when the rules
// say so (scope.reset_on_compaction).
func (g *Guard) Compaction() {
	if g.r.Scope.ResetOnCompaction {
		g.resetAll()
		g.timerSet = false
	}
}

func (g *Guard) resetAll() {
	for _, d := range g.dets {
		d.reset()
	}
	g.egen++
}

// Before decides on a call before it runs. The caller has set ev.Class.
func (g *Guard) Before(ev *CallEvent) Verdict {
	c := g.spare
	if c != nil {
		g.spare = nil
		*c = callCtx{ev: ev}
	} else {
		c = &callCtx{ev: ev}
	}
	if i := g.inflightAt(ev); i >= 0 {
		g.inflight[i] = c // Before again without After: the latest counts
	} else {
		g.inflight = append(g.inflight, c)
	}
	if g.r.IsResetCommand(ev.Tool, ev.Args) {
		// pi §3.9: the reset command clears everything, restarts the
		// timer, and is itself allowed and not recorded.
		c.command = true
		g.resetAll()
		g.timerSet, g.timerStart = !ev.Time.IsZero(), ev.Time
		g.lastKey, g.lastKid, g.lastTool = "", -1, ev.Tool
		return Verdict{Action: Allow}
	}
	g.checkWindow(ev)
	c.key, c.kid, c.hasKey = g.callKey(ev)
	c.tid = ev.tidx
	var role uint8 // under scope.write_clears_reads
	if c.hasKey {
		c.scope = g.epochOf(c.kid)
		if g.clearsReads {
			role = g.role(ev.Tool, c.tid)
			g.noteReader(ev, c.key, c.kid, role)
		}
	}
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		v := d.before(c)
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	if best.Action == Allow && g.pendingNote != "" {
		best = Verdict{Action: Steer, Detector: "scope", Message: g.pendingNote}
	}
	g.pendingNote = ""
	best.Key, best.Scope = c.key, c.scope
	for _, d := range g.dets {
		d.commit(c, best)
	}
	if !best.Action.Stops() && c.hasKey && role&(roleWriter|roleClearAll) != 0 {
		g.clearReadsAfterWrite(ev, c.kid, role)
	}
	g.lastKey, g.lastTool = c.key, ev.Tool
	g.lastKid = -1
	if c.hasKey {
		g.lastKid = c.kid
	}
	return best
}

// callKey returns the call's key under the guard's rules, built once per
// distinct key section (see CallEvent.keyID), in its compact form, and
// its index in the guard's keyIndex (numbered once per keyIndex).
func (g *Guard) callKey(ev *CallEvent) (string, int32, bool) {
	g.ki.memo(ev, g.r)
	return ev.key, ev.kidx, ev.hasKey
}

// maxPlainKey is the longest key kept as written inside the guard.
const maxPlainKey = 128

// keySeeds seed the digests of long keys (per process: keys never reach a
// report, so their digests need not be stable across runs).
var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// compactKey replaces a long key by a fixed-size one: the tool, the
// separator, a NUL byte and a 128-bit digest of the whole key. A key holds
// the canonical arguments (a write_file call's key holds the file), and
// keys are hashed when they are numbered (keyIndex) and compared in
// verdicts; hashing such keys at every map access was once a quarter of a
// sweep's time. Two distinct keys share a digest with probability about
// 2^-128 per pair. A plain key has no raw NUL after its separator unless
// its arguments were not JSON (canonical JSON escapes NUL), and even then
// it would have to end in the same 16 bytes as a digest to be confused.
func compactKey(full string) string {
	if len(full) <= maxPlainKey {
		return full
	}
	return compactKeyBytes([]byte(full))
}

// compactKeyBytes is compactKey of a key built in a buffer; the result
// never aliases full, which the caller reuses.
func compactKeyBytes(full []byte) string {
	if len(full) <= maxPlainKey {
		return string(full)
	}
	tool, _, _ := bytes.Cut(full, []byte(rules.KeySeparator))
	var d [maxPlainKey]byte // room for the compact key of a usual tool name
	b := append(d[:0], tool...)
	b = append(b, rules.KeySeparator...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint64(b, maphash.Bytes(keySeeds[0], full))
	b = binary.LittleEndian.AppendUint64(b, maphash.Bytes(keySeeds[1], full))
	return string(b)
}

// rank orders actions when several detectors fire on one call: the
// strongest wins; among equals, the first detector in rules.DetectorNames.
func rank(a Action) int {
	switch a {
	case Halt:
		return 4
	case Block:
		return 3
	case Dedup:
		return 2
	case Steer:
		return 1
	}
	return 0
}

// inflightAt returns the index of ev's call in g.inflight, or -1.
func (g *Guard) inflightAt(ev *CallEvent) int {
	for i := len(g.inflight) - 1; i >= 0; i-- {
		if g.inflight[i].ev == ev {
			return i
		}
	}
	return -1
}

// After takes the call's result (ev.Result, ResultHash, Failed) and the
// verdict Before gave. It is called for every call, blocked ones too: a
// stopped call did not run, so result-based detectors skip it unless the
// design counts the block itself (blocked_count_as_failure).
func (g *Guard) After(ev *CallEvent, before Verdict) Verdict {
	i := g.inflightAt(ev)
	var c *callCtx
	if i < 0 {
		// After without Before: build the context now, count nothing new.
		c = &callCtx{ev: ev}
		c.key, c.kid, c.hasKey = g.callKey(ev)
		c.tid = ev.tidx
		if c.hasKey {
			c.scope = g.epochOf(c.kid)
		}
	} else {
		c = g.inflight[i]
		last := len(g.inflight) - 1
		copy(g.inflight[i:], g.inflight[i+1:])
		g.inflight[last] = nil
		g.inflight = g.inflight[:last]
	}
	if c.command {
		g.spare = c
		return Verdict{Action: Allow}
	}
	c.failed, c.hash = g.resultOf(ev)
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		v := d.after(c, before)
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	best.Key, best.Scope = c.key, c.scope
	g.spare = c
	return best
}

// EndRequest is called after all calls of one model response; round-level
// detectors (attractor's cycle check) may steer here. The caller attaches
// the steer to the request's last call.
func (g *Guard) EndRequest() Verdict {
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		v := d.endRequest()
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	if best.Action != Allow && g.lastKey != "" {
		kid := g.lastKid
		if kid < 0 {
			// A key the guard did not count (no key): numbered for its
			// epoch all the same, as before keys were numbered.
			kid = g.ki.intern(g.lastKey)
		}
		best.Key, best.Scope = g.lastKey, g.epochOf(kid)
	}
	return best
}

// checkWindow applies scope.window lazily at each call (pi §3.8): once the
// window has passed since the timer started, every counter is cleared and
// the timer restarts at this call.
func (g *Guard) checkWindow(ev *CallEvent) {
	w := time.Duration(g.r.Scope.Window)
	if w <= 0 || ev.Time.IsZero() {
		return
	}
	if !g.timerSet {
		g.timerSet, g.timerStart = true, ev.Time
		return
	}
	if ev.Time.Sub(g.timerStart) >= w {
		hadSteered := false
		for _, d := range g.dets {
			hadSteered = hadSteered || d.steeredAny()
		}
		g.resetAll()
		g.timerStart = ev.Time
		if hadSteered && g.r.Scope.WindowResetMessage != "" {
			g.pendingNote = g.fill(g.r.Scope.WindowResetMessage, &callCtx{ev: ev}, 0, nil)
		}
	}
}

// clearReadsAfterWrite applies scope.write_clears_reads: a write naming a
// path clears the counters of reader keys containing the path (a raw
// substring test on the key, as pi does), and starts new epochs for them.
//
// A call selected by write_clears_reads.clear_all (a shell command, which
// may change any file) clears every reader key.
//
// A call never clears its own key: running the same command again cannot
// make its own earlier result stale.
//
// Only the reader keys seen since they were last cleared (g.readers)
// are looked at: every key a detector holds came through Before, so the
// other keys cannot match, and a session with many shell calls does not
// rescan every counter at each one.
//
// role is the tool's roles (Guard.role): Before calls this only for a
// writer or a tool in clear_all, and the arguments are looked at only for
// a writer.
func (g *Guard) clearReadsAfterWrite(ev *CallEvent, own int32, role uint8) {
	if len(g.readers) == 0 {
		return
	}
	all := role&roleClearAll != 0
	var p string
	if !all {
		if role&roleWriter == 0 {
			return
		}
		var ok bool
		if p, ok = g.r.WritePath(ev.Tool, ev.Args); !ok {
			return
		}
	}
	// One pass: the cleared keys go to g.clearing, the others stay, in
	// their order.
	clearing := g.clearing[:0]
	kept := g.readers[:0]
	for _, rk := range g.readers {
		if rk.kid != own && (all || strings.Contains(rk.text, p)) {
			clearing = append(clearing, rk.kid)
			g.readerPos[rk.kid] = 0
			continue
		}
		kept = append(kept, rk)
		g.readerPos[rk.kid] = int32(len(kept))
	}
	clear(g.readers[len(kept):]) // drop the texts
	g.readers, g.clearing = kept, clearing
	if len(clearing) == 0 {
		return
	}
	for _, d := range g.dets {
		d.clearKeys(clearing)
	}
	for _, k := range clearing {
		if int(k) < len(g.epoch) {
			g.epoch[k].gen = 0
		}
	}
}

// noteReader records a counted key whose tool is a reader under
// scope.write_clears_reads, for clearReadsAfterWrite. Before calls it only
// when the rules clear reads (Guard.clearsReads), with the tool's roles.
func (g *Guard) noteReader(ev *CallEvent, key string, kid int32, role uint8) {
	if role&roleReader == 0 {
		return
	}
	g.readerPos = grow(g.readerPos, kid)
	if g.readerPos[kid] != 0 {
		return
	}
	ki := g.ki
	ki.texts = grow(ki.texts, kid)
	full := ki.texts[kid]
	if full == "" {
		full = key
		if len(key) > maxPlainKey || strings.Contains(key, rules.KeySeparator+"\x00") {
			// A compacted key: the path test needs the written text, built
			// again here (reader keys are rarely long).
			full, _ = g.r.CallKey(ev.Tool, ev.Args, ev.ArgsOK, ev.ArgsRaw)
		}
		ki.texts[kid] = full
	}
	g.readers = append(g.readers, readerKey{kid, full})
	g.readerPos[kid] = int32(len(g.readers))
}

// role returns the tool's roles under scope.write_clears_reads, worked out
// once per tool: they depend only on the tool's name and the rules, which do
// not change while the Guard is in use.
func (g *Guard) role(tool string, tid int32) uint8 {
	g.toolRole = grow(g.toolRole, tid)
	role := g.toolRole[tid]
	if role&roleKnown != 0 {
		return role
	}
	role, ok := g.roleOf[tool]
	if !ok {
		role = roleKnown
		w := &g.r.Scope.WriteClearsReads
		if g.r.MatchesAny(w.Readers, tool) {
			role |= roleReader
		}
		if len(w.Writers) > 0 && g.r.MatchesAny(w.Writers, tool) {
			role |= roleWriter
		}
		if len(w.ClearAll) > 0 && g.r.MatchesAny(w.ClearAll, tool) {
			role |= roleClearAll
		}
		g.roleOf[tool] = role
	}
	g.toolRole[tid] = role
	return role
}

// effective is a detector's thresholds and messages for one tool, after
// the tool entries (class, alias, exact name) are applied.
type effective struct {
	on                          bool
	steerAt, blockAt, haltAt    int
	steerMsg, blockMsg, haltMsg string
}

// resolve returns the effective settings of detector det for a tool.
func (g *Guard) resolve(det string, base effective, only, except []string, tool string) *effective {
	k := effKey{det, tool}
	if e, ok := g.eff[k]; ok {
		return e
	}
	e := base
	e.on = g.r.Selects(only, except, tool)
	entries := g.r.ToolEntry(tool)
	// Most specific last, so that it wins.
	for i := len(entries) - 1; i >= 0; i-- {
		t := entries[i]
		if t.Off {
			e.on = false
		}
		if det == "repeat" || det == "consecutive" {
			if t.SteerAt != nil {
				e.steerAt = *t.SteerAt
			}
			if t.BlockAt != nil {
				e.blockAt = *t.BlockAt
			}
		}
		o := t.Override(det)
		if o == nil {
			continue
		}
		if o.Off != nil {
			e.on = !*o.Off
		}
		setInt(&e.steerAt, o.SteerAt)
		setInt(&e.blockAt, o.BlockAt)
		setInt(&e.haltAt, o.HaltAt)
		setStr(&e.steerMsg, o.SteerMessage)
		setStr(&e.blockMsg, o.BlockMessage)
		setStr(&e.haltMsg, o.HaltMessage)
	}
	g.eff[k] = &e
	return &e
}

// cachedEff is effOf's answer when the call's tool is resolved already,
// else nil: the detectors ask it first, since building effOf's default
// settings for every call (a struct of six fields) cost more than the
// lookup itself (about 5% of a sweep, issue 7). It is small enough to be
// inlined.
func (b *base) cachedEff(c *callCtx) *effective {
	if int(c.tid) < len(b.effs) {
		return b.effs[c.tid]
	}
	return nil
}

// effOf returns the detector's effective settings for the call's tool,
// resolved once per tool index (the guard's resolve keeps one per tool
// name for every detector).
func (b *base) effOf(c *callCtx, det string, base effective, only, except []string) *effective {
	if int(c.tid) < len(b.effs) {
		if e := b.effs[c.tid]; e != nil {
			return e
		}
	}
	e := b.g.resolve(det, base, only, except, c.ev.Tool)
	b.effs = grow(b.effs, c.tid)
	b.effs[c.tid] = e
	return e
}

func setInt(dst *int, src *int) {
	if src != nil {
		*dst = *src
	}
}

func setStr(dst *string, src *string) {
	if src != nil {
		*dst = *src
	}
}

// fill expands a message template. Placeholders: {tool}, {count}, {args}
// (the raw arguments, first 120 UTF-16 units, as pi shows them),
// {args_sha256} (sha256 of the sorted compact JSON, as hermes signs calls),
// {arg:NAME} (an argument's text), {json:NAME} (its JSON), and the
// detector's extras ({window}, {period}, {result}). Anything else in
// braces is left as written, so JSON templates need no escaping.
func (g *Guard) fill(tmpl string, c *callCtx, count int, extra map[string]string) string {
	if !strings.Contains(tmpl, "{") {
		return tmpl
	}
	var b strings.Builder
	for i := 0; i < len(tmpl); {
		open := strings.IndexByte(tmpl[i:], '{')
		if open < 0 {
			b.WriteString(tmpl[i:])
			break
		}
		b.WriteString(tmpl[i : i+open])
		i += open
		end := strings.IndexByte(tmpl[i:], '}')
		if end < 0 {
			b.WriteString(tmpl[i:])
			break
		}
		name := tmpl[i+1 : i+end]
		if val, ok := g.placeholder(name, c, count, extra); ok {
			b.WriteString(val)
			i += end + 1
			continue
		}
		b.WriteByte('{')
		i++
	}
	return b.String()
}

func (g *Guard) placeholder(name string, c *callCtx, count int, extra map[string]string) (string, bool) {
	ev := c.ev
	switch name {
	case "tool":
		return ev.Tool, true
	case "count":
		return strconv.Itoa(count), true
	case "args":
		return argsSummary(ev, 120), true
	case "args_sha256":
		args := ev.Args
		if !ev.ArgsOK || args.Kind != jsonx.Object {
			args = jsonx.Value{Kind: jsonx.Object}
		}
		sum := sha256.Sum256(args.Append(nil, jsonx.Sorted))
		return hex.EncodeToString(sum[:]), true
	}
	if v, ok := extra[name]; ok {
		return v, true
	}
	if arg, ok := strings.CutPrefix(name, "arg:"); ok {
		v, found := ev.Args.Get(arg)
		if !found {
			return "", true
		}
		return v.Text(), true
	}
	if arg, ok := strings.CutPrefix(name, "json:"); ok {
		v, found := ev.Args.Get(arg)
		if !found {
			return "null", true
		}
		return v.String(), true
	}
	return "", false
}

// argsSummary is pi's JSON.stringify(input).slice(0, n): the raw arguments
// in their written order, cut at n UTF-16 code units.
func argsSummary(ev *CallEvent, n int) string {
	var s string
	switch {
	case !ev.ArgsOK:
		s = ev.ArgsRaw
	case ev.Args.Kind == jsonx.String:
		s = ev.Args.Str
	default:
		s = ev.Args.String()
	}
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			if w == 2 && units+1 == n {
				// JS would keep a lone high surrogate; Go strings cannot
				// carry one, so the replacement character stands for it.
				return s[:i] + string(utf8.RuneError)
			}
			return s[:i]
		}
		units += w
	}
	return s
}
