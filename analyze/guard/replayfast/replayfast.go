// Package replayfast is the guard's entry point for loopgate's replay:
// what replaying many recorded sessions, each under many rules, reuses from
// one guard to the next. A program that embeds the guard needs none of it:
// package guard is its API.
//
// A replay keys each call once per session and key section (KeyIndex),
// shares what guards of the same rules work out from them (RuleCache),
// hands the guard arguments its readers parsed already (SetArgs), and
// reads results whose members a reader noted as it decoded them
// (ResultFacts).
//
// This package is loopgate's own: it takes values of the module's internal
// JSON package, and it changes whenever replay's needs do, with no promise
// of stability.
package replayfast

import (
	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/internal/bridge"
	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
)

// SetArgs gives an event the arguments its caller parsed already (args;
// nil when ArgsRaw is not JSON, or not parsed yet) and says what ArgsRaw
// holds: compact, it is args as jsonx.Value.String writes it, and the
// guard builds the call's key from that text, members moved into key
// order, instead of writing args out again; pending (compact too), args
// is not parsed yet and the guard parses ArgsRaw only when a rule reads
// an argument. Set ArgsRaw and ArgsOK first.
func SetArgs(ev *guard.CallEvent, args *jsonx.Value, compact, pending bool) {
	bridge.SetArgs(ev, args, compact, pending)
}

// Key returns the event's guard key under the rules of the latest guard
// (or KeyIndex.Number) that keyed it, and false when the call has none
// (its arguments give no key under those rules). Long keys are compact: a
// key is for comparing, not for showing.
func Key(ev *guard.CallEvent) (string, bool) { return bridge.Key(ev) }

// SameKey reports whether two events were numbered by the same KeyIndex
// under the same key: the guard counted them as the same call.
func SameKey(a, b *guard.CallEvent) bool { return bridge.SameKey(a, b) }

// CallActs reports whether a call acts on the world under the rules'
// effects (rules.Effects: a by_argument rule naming its tool whose
// argument holds one of the rule's values, else its class's effect); the
// truth of a replay depends on it.
func CallActs(r *guard.Rules, ev *guard.CallEvent) bool { return bridge.CallActs(r, ev) }

// Effect is what a call does to the files a session sees under the rules'
// classes and effects, as the guard's path invalidation reads it: the
// truth of a replay calls a repeat redundant only when no act in between
// invalidates it.
func Effect(r *guard.Rules, ev *guard.CallEvent) shellcmd.Effect { return bridge.Effect(r, ev) }

// MayTouchFiles reports whether Effect may find anything in the calls of
// tool (a shell tool, a file tool, a tool that may act): the others'
// arguments need not be read.
func MayTouchFiles(r *guard.Rules, tool string) bool { return bridge.MayTouchFiles(r, tool) }

// ResultFacts is guard.ResultFacts of a result whose top-level
// resultmembers.Keys members a reader already noted (nil: not noted), as
// jsonx.TopLevelFields(result, resultmembers.Keys[:]...) gives them.
func ResultFacts(result string, isError bool, members *resultmembers.Members) (norm string, failed bool) {
	return bridge.ResultFacts(result, isError, members)
}

// KeyIndex numbers distinct call keys 0, 1, 2, ... for one key section of
// the rules (rules.Rules.KeyID), so that the guard's counters are slices
// indexed by a key's number instead of maps hashing the key's text at
// every access. An event remembers its number next to its key: compare
// and sweep share one KeyIndex per prepared session and key section over
// all their configurations, so later configurations number no key again.
// A KeyIndex is a handle, copied freely (its copies number alike); the
// zero KeyIndex serves no rules.
type KeyIndex struct{ ki any }

// NewKeyIndex returns an empty numbering for the key section of the rules
// r, sized for about size keys.
func NewKeyIndex(r *guard.Rules, size int) KeyIndex {
	return KeyIndex{bridge.NewKeyIndex(r, size)}
}

// Serves reports whether ki numbers keys under the key section of the
// rules r. The zero KeyIndex serves nothing.
func (ki KeyIndex) Serves(r *guard.Rules) bool { return ki.ki != nil && bridge.KeyServes(ki.ki, r) }

// Number keys the event under the rules r, which ki must serve, once per
// KeyIndex, and returns the number of its tool (0, 1, 2, ... in the order
// ki first met them): a replay keeps its per-tool facts in slices indexed
// by it. The event must not change its Tool or arguments afterwards.
func (ki KeyIndex) Number(ev *guard.CallEvent, r *guard.Rules) int {
	return bridge.Number(ki.ki, ev, r)
}

// NumberTwin is Number for an event whose tool and arguments are those of
// prev, up to the order of object members (the same truth signature):
// when prev is keyed under ki and the rules' keys do not depend on member
// order, ev takes prev's key and numbers instead of building the same key
// again. A loop repeats its calls, and building a key (canonical JSON,
// then a digest of a long one) was most of numbering a call.
func (ki KeyIndex) NumberTwin(ev, prev *guard.CallEvent, r *guard.Rules) int {
	return bridge.NumberTwin(ki.ki, ev, prev, r)
}

// LendBuffer gives ki a buffer to build keys in when it has none, and
// returns what it did not take: a replay moves one buffer from session to
// session (TakeBuffer), where each session's KeyIndex grew one of its own.
func (ki KeyIndex) LendBuffer(buf []byte) []byte { return bridge.LendBuffer(ki.ki, buf) }

// TakeBuffer returns ki's key buffer and leaves ki without one (it builds
// a new one if it needs to again).
func (ki KeyIndex) TakeBuffer() []byte { return bridge.TakeBuffer(ki.ki) }

// RuleCache is what a guard works out from its rules alone, kept for the
// next guard of the same rules (one goroutine at a time), and the memory
// of the latest guard that is done (Release). A replay that runs many
// sessions under one rules builds its guards with RuleCache.NewGuard and
// hands each back with Release; guard.NewGuard alone is the simple way.
type RuleCache struct{ rc any }

// NewRuleCache returns an empty cache for guards of the rules r, which
// must not change while the cache is in use.
func NewRuleCache(r *guard.Rules) *RuleCache { return &RuleCache{bridge.NewRuleCache(r)} }

// Serves reports whether the cache may build guards of the rules r: it is
// r's (the very rules, not equal ones) and has not grown past its bounds.
// A nil cache serves nothing.
func (rc *RuleCache) Serves(r *guard.Rules) bool { return rc != nil && bridge.CacheServes(rc.rc, r) }

// NewGuard returns a Guard running the cache's rules, numbering keys with
// ki, which must serve the rules (KeyIndex.Serves), and sharing what the
// guards before it worked out; the keys ki already holds size the guard's
// tables. It takes the memory of the guard last released, if any.
func (rc *RuleCache) NewGuard(ki KeyIndex) *guard.Guard {
	return bridge.NewGuard(rc.rc, ki.ki).(*guard.Guard)
}

// Release hands the guard's memory to the next guard of rc (NewGuard): a
// replay builds one guard per session, and each grew its tables from
// nothing. The guard is emptied now, so that it holds nothing of its
// session, and must not be used again.
func (rc *RuleCache) Release(g *guard.Guard) { bridge.Release(rc.rc, g) }
