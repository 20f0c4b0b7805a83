package guard

import (
	"fmt"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// Action is what a guard does with a call.
type Action uint8

const (
	// Allow: the call runs, nothing is added.
	Allow Action = iota
	// Steer: the call runs and a message is added to the model's context.
	Steer
	// Dedup: the call does not run; the earlier result is returned.
	Dedup
	// Block: the call does not run; the message is its result.
	Block
	// Halt: the turn ends (after this call, or instead of it when the
	// verdict comes before execution).
	Halt
)

var actionNames = [...]string{"allow", "steer", "dedup", "block", "halt"}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "unknown"
}

// ActionNames returns every action's word, weakest first.
func ActionNames() []string { return append([]string(nil), actionNames[:]...) }

// ParseAction is the inverse of Action.String.
func ParseAction(s string) (Action, bool) {
	for i, n := range actionNames {
		if n == s {
			return Action(i), true
		}
	}
	return Allow, false
}

// MarshalText makes actions read as words in JSON and YAML.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads an action's word back (a report read again, as
// 'loopgate merge' does).
func (a *Action) UnmarshalText(b []byte) error {
	x, ok := ParseAction(string(b))
	if !ok {
		return fmt.Errorf("unknown action %q", b)
	}
	*a = x
	return nil
}

// Stops reports whether the call does not run under this action.
func (a Action) Stops() bool { return a == Block || a == Dedup }

// CallEvent is what the guard engine sees of one call: everything a live
// agent would know at that moment, plus the result once it has run. It is
// format-free: replay builds it from the ingested stream, tests build it by
// hand, and a live agent could build it from its own loop. The guard
// keeps in it what it works out of the call (its parsed arguments, its
// key): an event must not change its Tool or arguments once a guard has
// seen it, nor be given to two guards at the same time.
type CallEvent struct {
	// Turn is the 1-based turn (genuine user message) within the scope.
	Turn int
	// Request is the 1-based model request within the turn.
	Request int
	// Index is the 1-based index of the call within its session scope.
	Index int
	// Tool is the tool name as written; Class its class from the rules
	// (Rules.ClassOf), which the caller sets.
	Tool  string
	Class string
	// ArgsRaw is the call's arguments as the model wrote them, and ArgsOK
	// says they are JSON: the guard parses them when a rule reads an
	// argument or keys the call, and keys a call whose arguments are not
	// JSON on their text (ArgsOK false, or set false when ArgsRaw does not
	// parse).
	ArgsRaw string
	ArgsOK  bool
	// argsCompact, argsPending and argsGiven are set by a caller that
	// parsed the arguments already or knows their text's form (SetArgs,
	// package replayfast): argsCompact says ArgsRaw is args as
	// jsonx.Value.String writes it (compact, strings escaped as
	// jsonx.AppendQuoted escapes them), so the call's key comes from that
	// text, members moved into key order, instead of args written out
	// again (appendCallKeyText); argsPending says args is not parsed yet
	// though ArgsRaw is valid compact JSON (a replay of a Claude Code
	// transcript: parsing every call's arguments was a large part of its
	// time, docs/performance.md, and most calls never need them parsed); argsGiven says args is the
	// caller's, nil when ArgsRaw is not JSON.
	argsCompact, argsPending, argsGiven bool
	// hasKey and keyPortable belong to the key below; they sit here, in
	// the word the argument flags leave free, because a replay scans a
	// table of events as long as the session (docs/performance.md, "A call's size"; the
	// padding probe).
	hasKey bool
	// keyPortable: key was compacted with the digest every process shares
	// (a keyIndex of a savable guard).
	keyPortable bool
	// args is the parsed arguments, or nil when they are not parsed yet
	// or not JSON. It is a pointer because a replay holds every call's
	// event in a table it scans, and a parsed value held in place made
	// each event longer, which showed in the time. The guard reads it
	// only through arguments.
	args *jsonx.Value
	// Time of the call (zero when the transcript has none).
	Time time.Time

	// The result, known to After (not to Before).
	Result string
	// ResultBytes is the result's length in bytes when Result holds none
	// of it (a caller that keeps results only up to ResultTextBound, as
	// the live hook's log does) or only its first ResultHeadBytes or more
	// (a replay that reads the whole again when a detector needs it:
	// Guard.SetResultSource); 0: the length of Result.
	ResultBytes int
	// ResultHash is a hash of the normalized result (the agent's own guard
	// notes and trailing white space removed), so results compare cheaply.
	ResultHash uint64
	// OutputHash is the hash of the tool's output: the normalized result
	// without the envelope its transcript format declares (a wall time, a
	// run's id), which results.envelope "strip" compares instead of
	// ResultHash; 0 when the caller did not split the result (ResultHash
	// is then used).
	OutputHash uint64
	// Failed is true when the call failed (the transcript's error flag, or
	// an error-shaped result).
	Failed bool
	// IsError is the transcript's own error flag alone.
	IsError bool
	// ExitCode is a shell command's exit code where the caller learns it
	// apart from Result (Codex hands its hooks the output alone, and the
	// hook reads the exit code from the rollout; OpenCode's is in the
	// result's metadata); 0 when it learns none.
	ExitCode int
	// NoResult: the transcript records no result for the call (it was
	// interrupted, or the file ends there, or its answer is the user's
	// next message). Nothing came back that a later identical call could
	// be answered with: dedup keeps nothing from it.
	NoResult bool

	// hermes memoizes how hermes reads the result (results.failure and
	// results.hash "hermes"), per reading: compare and sweep replay a call
	// under many rules.
	hermes hermesMemo

	// The call's guard key under the key rules numbered keyID
	// (rules.KeyID): compare and sweep replay the same calls under many
	// configurations that mostly share their key rules, and building a
	// key (canonical JSON) is the costliest step of a call. A CallEvent
	// must therefore not change its Tool or Args once a guard has seen
	// it, nor be given to two guards at the same time. hasKey, above,
	// says key is set.
	keyID uint64
	key   string
	// kidx is the key's number in the keyIndex ki (valid when ki is the
	// guard's keyIndex; -1 without a key).
	ki   *keyIndex
	kidx int32
	tidx int32 // the tool's number in ki
}

// ClassName is the name the rules class the call by (rules.CallName): its
// Tool, or for a gateway call (rules.IsGateway: Cline's use_mcp_tool) the
// gateway's name and the called tool's. Every class lookup of the guard
// goes through it; ordinary calls pay one comparison.
func (ev *CallEvent) ClassName() string {
	if !rules.IsGateway(ev.Tool) {
		return ev.Tool
	}
	return rules.CallName(ev.Tool, ev.arguments())
}

// arguments returns the parsed arguments, parsing ArgsRaw first when
// they are not parsed yet. The guard reads arguments only through it.
func (ev *CallEvent) arguments() jsonx.Value {
	if ev.args == nil {
		switch {
		case ev.argsPending:
			// ArgsRaw is valid JSON (SetArgs' promise): an error here
			// leaves the arguments empty, as a caller's broken promise
			// would.
			v, _ := jsonx.ParseStringShared(ev.ArgsRaw)
			ev.args, ev.argsPending = &v, false
		case ev.ArgsOK && !ev.argsGiven:
			v, err := jsonx.ParseStringShared(ev.ArgsRaw)
			if err != nil {
				ev.ArgsOK = false
				return jsonx.Value{}
			}
			ev.args = &v
		default:
			return jsonx.Value{}
		}
	}
	return *ev.args
}

// setArgs gives the event arguments its caller parsed already (args, nil
// when they are not JSON or not parsed yet) and the form of ArgsRaw
// (compact: as args.String writes it; pending: valid compact JSON, parsed
// when first read).
func (ev *CallEvent) setArgs(args *jsonx.Value, compact, pending bool) {
	ev.args, ev.argsCompact, ev.argsPending, ev.argsGiven = args, compact, pending, true
}

// Verdict is a guard's decision on one call.
type Verdict struct {
	Action Action
	// Detector that fired, by its name in rules.DetectorNames ("" for
	// Allow).
	Detector string
	// Count is the ordinal that fired: 4 for "the 4th identical call".
	Count int
	// Message is the exact text injected (steer) or returned (block).
	Message string
	// Key is the guard key the call was counted under, and Scope the epoch
	// of the counting scope (it changes at every reset). Two calls are "the
	// same call" to the guard when both are equal; replay uses this to judge
	// whether a block hid new information.
	Key   string
	Scope int
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

// Raise keeps in *a the stronger of two verdicts on the same call, as
// replay and the live hook combine a call's Before, After and EndRequest
// verdicts; a steer on top of a stronger action is dropped (the stronger
// action's message wins). It works in place: verdicts are copied whole
// only when b wins, which is rare (copying both in and the winner out
// showed in a sweep's profile).
func Raise(a, b *Verdict) {
	if b.Action > a.Action {
		key, scope := a.Key, a.Scope
		*a = *b
		if a.Key == "" {
			a.Key, a.Scope = key, scope
		}
	}
}

// memoKey returns the event's guard key under the rules of the latest
// guard (or keyIndex.Number) that keyed it, and false when the call has
// none (its arguments give no key under those rules). Long keys are
// compact: a key is for comparing, not for showing.
func (ev *CallEvent) memoKey() (string, bool) { return ev.key, ev.hasKey }

// sameKey reports whether two events were numbered by the same keyIndex
// under the same key: the guard counted them as the same call.
func (ev *CallEvent) sameKey(o *CallEvent) bool {
	return ev.kidx >= 0 && ev.ki == o.ki && ev.kidx == o.kidx
}
