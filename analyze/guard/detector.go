package guard

import (
	"strings"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// detector is one loop detector's state inside a Guard. before proposes a
// verdict without changing state; commit then records the call given the
// verdict the Guard chose (so each design's rule on counting blocked calls
// applies); after sees the result; endRequest runs after a model response.
type detector interface {
	before(c *callCtx) Verdict
	commit(c *callCtx, final Verdict)
	after(c *callCtx, before Verdict) Verdict
	endRequest() Verdict
	reset()
	resetsOnTurn() bool
	// clearKeys forgets the counts of these keys, by their index in the
	// guard's KeyIndex (write_clears_reads). The list has no duplicates.
	clearKeys(keys []int32)
	steeredAny() bool
	// save writes the detector's state for a snapshot (snapshot.go), and
	// load reads it back into a detector just built from the same rules:
	// together they round-trip the state exactly.
	save(w *snapbin.Writer)
	load(r *snapbin.Reader)
}

// registry holds each detector's constructor under its name.
// Each detector's own file registers it (register): its settings with the
// rules (rules.RegisterDetector: the settings type, its defaults, checks
// and per-tool override fields, its place in the evaluation order and in
// the schema) and its constructor here, so that adding a detector is that
// file and its section in docs/rules.md. TestDetectorRegistry checks that
// the rules and this registry name the same detectors.
var registry = map[string]func(build) detector{}

// register adds a detector: its settings to the rules' schema and its
// constructor under the same name. A name registered twice is a mistake
// in this package, refused when the program starts.
func register[T any](d rules.Detector[T], newDetector func(build) detector) bool {
	if registry[d.Name] != nil {
		panic("guard: detector " + d.Name + " is registered twice")
	}
	rules.RegisterDetector(d)
	registry[d.Name] = newDetector
	return true
}

// The override fields a detector's per-tool entry may take, shared by
// several detectors.
var (
	overSteerBlock = []string{"off", "steer_at", "block_at", "steer_message", "block_message"}
	overAll        = []string{"off", "steer_at", "block_at", "halt_at", "steer_message", "block_message", "halt_message"}
	overHalt       = []string{"off", "halt_at", "halt_message"}
	overOff        = []string{"off"}
)

// texter is a detector that reads the model's streamed text (Guard.Text).
type texter interface {
	text(piece string) Verdict
}

// messager is a detector that reads the model's responses that made no
// tool call (Guard.Message).
type messager interface {
	message(text string) Verdict
}

// compactor is a detector that learns of a context compaction whether or
// not the rules reset at one (Guard.Compaction).
type compactor interface {
	compacted()
}

// build is what a detector's constructor gets: the guard, its rules, the
// number of keys expected (size: tables grow past it), and the detector
// of a done guard of the same rules in the same place (old, or nil), whose
// memory the new one takes, in a fresh state. A constructor returns nil
// when the rules leave its detector off.
type build struct {
	g    *Guard
	r    *rules.Rules
	size int
	old  detector
}

// resetsOnTurn reports whether a detector with this reset setting clears
// at a user turn ("" follows scope.reset).
func (b build) resetsOnTurn(reset string) bool {
	if reset == "" {
		reset = b.r.Scope.Reset
	}
	return reset == "turn"
}

// buildDetectors returns the rules' detectors in rules.DetectorNames order.
// size is the number of keys expected. old are the detectors of a guard
// of the same rules that is done (or nil): the new ones take their memory.
func buildDetectors(g *Guard, r *rules.Rules, size int, old []detector) []detector {
	out := old[:0]
	for _, name := range rules.DetectorNames {
		var prev detector
		if len(out) < len(old) {
			prev = old[len(out)]
		}
		// Each constructor builds from a literal, so that nothing of the
		// old state survives but the tables' memory (zeroed by reuse).
		if d := registry[name](build{g: g, r: r, size: size, old: prev}); d != nil {
			out = append(out, d)
		}
	}
	return out
}

// recycled returns old if it is a *T (the same rules build the same
// detectors in the same order), else a new T.
func recycled[T any, P interface {
	*T
	detector
}](old detector) P {
	if d, ok := old.(P); ok {
		return d
	}
	return new(T)
}

// reuse returns n zero values in s's memory when it has room for them.
//
// Only s's length is cleared (dropping what it points to), not its whole
// capacity: these tables only ever grow by append (grow appends zeros), so
// what lies beyond the length is never read before it is written. Clearing
// the capacity would cost the largest session's table size on every
// session, which dominated a many-configuration sweep.
func reuse[T any](s []T, n int) []T {
	clear(s)
	return append(s[:0], make([]T, n)...)
}

// renewMap returns m emptied, or a new map.
func renewMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	clear(m)
	return m
}

// base holds what every detector shares, and no-op defaults.
type base struct {
	g    *Guard
	turn bool
	effs []*effective // by tool index (effOf)
	// clearsBy caches clears by tool index: 0 unknown, 1 no, 2 yes.
	clearsBy []uint8
}

// renew returns a fresh base for guard g, in b's memory.
func (b *base) renew(g *Guard, turn bool) base {
	return base{g: g, turn: turn, effs: reuse(b.effs, 0), clearsBy: reuse(b.clearsBy, 0)}
}

func (b *base) resetsOnTurn() bool              { return b.turn }
func (b *base) before(*callCtx) Verdict         { return Verdict{} }
func (b *base) commit(*callCtx, Verdict)        {}
func (b *base) after(*callCtx, Verdict) Verdict { return Verdict{} }
func (b *base) endRequest() Verdict             { return Verdict{} }
func (b *base) clearKeys([]int32)               {}
func (b *base) steeredAny() bool                { return false }

// clears reports whether a successful call of this tool clears every count
// (a detector's cleared_by), worked out once per tool.
func (b *base) clears(c *callCtx, sels []string) bool {
	if len(sels) == 0 {
		return false
	}
	b.clearsBy = grow(b.clearsBy, c.tid)
	m := &b.clearsBy[c.tid]
	if *m == 0 {
		*m = 1
		if b.g.r.MatchesAny(sels, c.ev.ClassName()) {
			*m = 2
		}
	}
	return *m == 2
}

func (b *base) verdict(a Action, det string, count int, msg string, c *callCtx, extra map[string]string) Verdict {
	return Verdict{Action: a, Detector: det, Count: count, Message: b.g.fill(msg, c, count, extra)}
}

// ranAsFailure says how a failure detector sees a call: whether it ran
// (or was refused by a detector whose blocks count as failures) and
// whether it failed.
func ranAsFailure(c *callCtx, before Verdict, blocksAsFailures []string, emptyFails bool) (counted, failed bool) {
	if before.Action.Stops() {
		if before.Action == Block {
			for _, d := range blocksAsFailures {
				if d == before.Detector {
					return true, true
				}
			}
		}
		return false, false
	}
	return true, c.failed || (emptyFails && strings.TrimSpace(c.ev.Result) == "")
}

// stoppedByOther reports whether another detector stopped the call: the
// winning detector's stop is read as a guard layered before this one, so
// the call never reached this detector's check and neither counts nor
// breaks a streak here. hermes (agent/tool_guardrails.py at 06c25ac90be8, docs/rules.md): a call blocked
// by tool_guardrails is not executed, so its read/search guard in
// tools/file_tools.py never sees it.
func stoppedByOther(final Verdict, det string) bool {
	return final.Action.Stops() && final.Detector != det
}

// The detectors keep their per-key state in slices indexed by the key's
// number (KeyIndex); an entry counts only while its gen is the detector's
// gen, so a reset is gen++ and forgetting one key is setting its gen to 0
// (gens start at 1).

// countEnt is a per-key count.
type countEnt struct {
	gen uint32
	n   int
}

func (e *countEnt) get(gen uint32) int {
	if e.gen != gen {
		return 0
	}
	return e.n
}

func (e *countEnt) inc(gen uint32) int {
	if e.gen != gen {
		e.gen, e.n = gen, 0
	}
	e.n++
	return e.n
}

func forget[T any](ent []T, keys []int32, gen func(*T) *uint32) {
	for _, k := range keys {
		if int(k) < len(ent) {
			*gen(&ent[k]) = 0
		}
	}
}

func saveCountEnt(w *snapbin.Writer, e *countEnt) {
	w.Uint(uint64(e.gen))
	w.Int(int64(e.n))
}

func loadCountEnt(r *snapbin.Reader, e *countEnt) {
	*e = countEnt{gen: r.Uint32(), n: int(r.Int())}
}
