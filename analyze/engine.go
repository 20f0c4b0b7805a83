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
	ids   int
	epoch map[string]int
	// turnClearsAll: every detector resets at a user turn, so a turn is a
	// new epoch for every key (hermes' read/search streak spans turns).
	turnClearsAll bool

	// Time window (scope.window).
	timerSet    bool
	timerStart  time.Time
	pendingNote string

	// calls in flight between Before and After.
	inflight map[*CallEvent]*callCtx
	// lastKey is the key of the latest call, for round-level verdicts.
	lastKey  string
	lastTool string

	// eff caches per-(detector, tool) thresholds and messages.
	eff map[effKey]*effective

	// readerKeys are the counted keys of reader tools not cleared since
	// (scope.write_clears_reads); toolRole caches which tools read, write
	// or clear every reader key. clearsReads: the rules name readers, and
	// writers or tools that clear every reader key.
	readerKeys  map[string]string // compact key -> key as written
	toolRole    map[string]uint8
	clearsReads bool
}

// A tool's roles under scope.write_clears_reads (Guard.role).
const (
	roleReader   uint8 = 1 << iota // in readers
	roleWriter                     // in writers: its path argument clears
	roleClearAll                   // in clear_all
)

type effKey struct{ det, tool string }

// callCtx is what Before learned about a call, for After.
type callCtx struct {
	ev      *CallEvent
	key     string
	hasKey  bool
	scope   int  // the key's epoch when Before saw the call
	command bool // the manual reset command: neither counted nor checked
}

// NewGuard returns a Guard running the rules. The rules must not be
// changed while the Guard is in use.
func NewGuard(r *rules.Rules) *Guard {
	g := &Guard{
		r:        r,
		epoch:    map[string]int{},
		inflight: map[*CallEvent]*callCtx{},
		eff:      map[effKey]*effective{},

		readerKeys: map[string]string{},
		toolRole:   map[string]uint8{},
	}
	w := &r.Scope.WriteClearsReads
	g.clearsReads = len(w.Readers) > 0 && (len(w.Writers) > 0 || len(w.ClearAll) > 0)
	g.dets = buildDetectors(g, r)
	g.turnClearsAll = true
	for _, d := range g.dets {
		if !d.resetsOnTurn() {
			g.turnClearsAll = false
		}
	}
	return g
}

func (g *Guard) newID() int {
	g.ids++
	return g.ids
}

// epochOf returns the counting epoch of a key, starting one if needed.
func (g *Guard) epochOf(key string) int {
	e, ok := g.epoch[key]
	if !ok {
		e = g.newID()
		g.epoch[key] = e
	}
	return e
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
		clear(g.epoch)
	}
	if g.r.Scope.Reset == "turn" {
		g.timerSet = false
	}
	g.pendingNote = ""
	// A call whose After never came (a halted turn) is not kept forever.
	clear(g.inflight)
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
	clear(g.epoch)
}

// Before decides on a call before it runs. The caller has set ev.Class.
func (g *Guard) Before(ev *CallEvent) Verdict {
	c := &callCtx{ev: ev}
	g.inflight[ev] = c
	if g.r.IsResetCommand(ev.Tool, ev.Args) {
		// pi §3.9: the reset command clears everything, restarts the
		// timer, and is itself allowed and not recorded.
		c.command = true
		g.resetAll()
		g.timerSet, g.timerStart = !ev.Time.IsZero(), ev.Time
		g.lastKey, g.lastTool = "", ev.Tool
		return Verdict{Action: Allow}
	}
	g.checkWindow(ev)
	c.key, c.hasKey = g.callKey(ev)
	var role uint8 // under scope.write_clears_reads
	if c.hasKey {
		c.scope = g.epochOf(c.key)
		if g.clearsReads {
			role = g.role(ev.Tool)
			g.noteReader(ev, c.key, role)
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
		g.clearReadsAfterWrite(ev, c.key, role)
	}
	g.lastKey, g.lastTool = c.key, ev.Tool
	return best
}

// callKey returns the call's key under the guard's rules, built once per
// distinct key section (see CallEvent.keyID), in its compact form.
func (g *Guard) callKey(ev *CallEvent) (string, bool) {
	if id := g.r.KeyID(); ev.keyID != id {
		full, ok := g.r.CallKey(ev.Tool, ev.Args, ev.ArgsOK, ev.ArgsRaw)
		ev.key, ev.hasKey = compactKey(full), ok
		ev.keyID = id
	}
	return ev.key, ev.hasKey
}

// maxPlainKey is the longest key kept as written inside the guard.
const maxPlainKey = 128

// keySeeds seed the digests of long keys (per process: keys never reach a
// report, so their digests need not be stable across runs).
var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// compactKey replaces a long key by a fixed-size one: the tool, the
// separator, a NUL byte and a 128-bit digest of the whole key. Every
// counter, epoch and result list of the guard is a map keyed by call keys,
// and a key holds the canonical arguments: a write_file call's key holds
// the file. Hashing such keys at every map access was a quarter of a
// sweep's time. Two distinct keys share a digest with probability about
// 2^-128 per pair. A plain key has no raw NUL after its separator unless
// its arguments were not JSON (canonical JSON escapes NUL), and even then
// it would have to end in the same 16 bytes as a digest to be confused.
func compactKey(full string) string {
	if len(full) <= maxPlainKey {
		return full
	}
	tool, _, _ := strings.Cut(full, rules.KeySeparator)
	b := make([]byte, 0, len(tool)+len(rules.KeySeparator)+17)
	b = append(b, tool...)
	b = append(b, rules.KeySeparator...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint64(b, maphash.String(keySeeds[0], full))
	b = binary.LittleEndian.AppendUint64(b, maphash.String(keySeeds[1], full))
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

// After takes the call's result (ev.Result, ResultHash, Failed) and the
// verdict Before gave. It is called for every call, blocked ones too: a
// stopped call did not run, so result-based detectors skip it unless the
// design counts the block itself (blocked_count_as_failure).
func (g *Guard) After(ev *CallEvent, before Verdict) Verdict {
	c, ok := g.inflight[ev]
	if !ok {
		// After without Before: build the context now, count nothing new.
		c = &callCtx{ev: ev}
		c.key, c.hasKey = g.callKey(ev)
		if c.hasKey {
			c.scope = g.epochOf(c.key)
		}
	}
	delete(g.inflight, ev)
	if c.command {
		return Verdict{Action: Allow}
	}
	best := Verdict{Action: Allow}
	for _, d := range g.dets {
		v := d.after(c, before)
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	best.Key, best.Scope = c.key, c.scope
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
		best.Key, best.Scope = g.lastKey, g.epochOf(g.lastKey)
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
// Only the reader keys seen since they were last cleared (g.readerKeys)
// are looked at: every key a detector holds came through Before, so the
// other keys cannot match, and a session with many shell calls does not
// rescan every counter at each one.
//
// role is the tool's roles (Guard.role): Before calls this only for a
// writer or a tool in clear_all, and the arguments are looked at only for
// a writer.
func (g *Guard) clearReadsAfterWrite(ev *CallEvent, own string, role uint8) {
	if len(g.readerKeys) == 0 {
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
	var clearing map[string]struct{}
	for key, text := range g.readerKeys {
		if key != own && (all || strings.Contains(text, p)) {
			if clearing == nil {
				clearing = map[string]struct{}{}
			}
			clearing[key] = struct{}{}
		}
	}
	if len(clearing) == 0 {
		return
	}
	for _, d := range g.dets {
		d.clearKeys(clearing)
	}
	for key := range clearing {
		delete(g.epoch, key)
		delete(g.readerKeys, key)
	}
}

// noteReader records a counted key whose tool is a reader under
// scope.write_clears_reads, for clearReadsAfterWrite. Before calls it only
// when the rules clear reads (Guard.clearsReads), with the tool's roles.
func (g *Guard) noteReader(ev *CallEvent, key string, role uint8) {
	if role&roleReader == 0 {
		return
	}
	if _, seen := g.readerKeys[key]; seen {
		return
	}
	full := key
	if len(key) > maxPlainKey || strings.Contains(key, rules.KeySeparator+"\x00") {
		// A compacted key: the path test needs the written text, built
		// again here (reader keys are rarely long).
		full, _ = g.r.CallKey(ev.Tool, ev.Args, ev.ArgsOK, ev.ArgsRaw)
	}
	g.readerKeys[key] = full
}

// role returns the tool's roles under scope.write_clears_reads, worked out
// once per tool: they depend only on the tool's name and the rules, which do
// not change while the Guard is in use.
func (g *Guard) role(tool string) uint8 {
	role, ok := g.toolRole[tool]
	if !ok {
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
		g.toolRole[tool] = role
	}
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
