package analyze

import (
	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
)

// invalidations are the acts of a session so far, for the truth's "the
// same result again": a call that returns what an earlier identical call
// returned brought nothing new only when no act in between may have
// changed what it observes (replayfast.Effect: a write to a path it read,
// a shell command that wrote it, an act of unknown reach). A read
// repeated after an edit of its file returned the same text by chance,
// or because the edit was undone: the model could not know that before
// reading, so the read was not redundant.
//
// The effects are the built-in tables' (defaultEffects), like the
// redundant count of the corpus facts: Prepare knows no rules.
type invalidations struct {
	// calls are the session's prepared calls, by index (1-based) less
	// one: every slot, filled or not yet.
	calls []PreparedCall
	// touch are the indexes (1-based) of the calls so far whose tool may
	// act on files or observe them, in order, and kind what each does
	// (fxUnknown until worked out; the effect of an act is kept in acts).
	// What a call does is worked out only when a repeat asks (since): a
	// repeat of the same result is rare, and working out every call's
	// effect as it came (its arguments parsed, its shell command read) was
	// a large part of preparing a session (docs/performance.md, "Acts
	// worked out when a repeat asks").
	touch []int32
	kind  []fxKind
	acts  map[int32]shellcmd.Effect
	// other holds the acts of other agents of the session (noteOther),
	// by their place in touch, where they stand under the index of the
	// call they came before.
	other map[int]shellcmd.Effect
	// tools caches by tool name whether its calls may act or observe
	// files (worth working out the effect of).
	tools map[string]toolFx
}

// toolFx says what a tool's calls may do to files: nothing, or something
// that only its arguments say.
type toolFx uint8

const (
	toolFxUnknown toolFx = iota
	toolFxNone
	toolFxMaybe
)

// maybe reports whether the calls of tool may act on files or observe
// them, worked out once per tool from the built-in tables.
func (v *invalidations) maybe(tool string) bool {
	if v.tools == nil {
		v.tools = map[string]toolFx{}
	}
	fx := v.tools[tool]
	if fx == toolFxUnknown {
		fx = toolFxNone
		if replayfast.MayTouchFiles(defaultEffects(), tool) {
			fx = toolFxMaybe
		}
		v.tools[tool] = fx
	}
	return fx == toolFxMaybe
}

// fxKind is what a call was found to do, once worked out.
type fxKind uint8

const (
	fxUnknown fxKind = iota
	fxNoAct
	fxAct
	fxOther // another agent's act, in other
)

// note records the call at index (1-based) when its tool may act.
func (v *invalidations) note(ev *guard.CallEvent, index int) {
	if v.maybe(ev.Tool) {
		v.touch = append(v.touch, int32(index))
		v.kind = append(v.kind, fxUnknown)
	}
}

// noteOther records an act of another agent of the session that came
// before the call at index (1-based): it invalidates what the calls before
// index observed, and nothing the call at index or later ones observe.
func (v *invalidations) noteOther(ev *guard.CallEvent, index int) {
	if !v.maybe(ev.Tool) {
		return
	}
	fx := replayfast.Effect(defaultEffects(), ev)
	if fx.Kind != shellcmd.EffectAct {
		return
	}
	if v.other == nil {
		v.other = map[int]shellcmd.Effect{}
	}
	v.other[len(v.touch)] = fx
	v.touch = append(v.touch, int32(index))
	v.kind = append(v.kind, fxOther)
}

// act is what the i-th call of touch does, when it acts (worked out once).
func (v *invalidations) act(i int) (shellcmd.Effect, bool) {
	index := v.touch[i]
	switch v.kind[i] {
	case fxNoAct:
		return shellcmd.Effect{}, false
	case fxAct:
		return v.acts[index], true
	case fxOther:
		return v.other[i], true
	}
	fx := replayfast.Effect(defaultEffects(), &v.calls[index-1].Event)
	if fx.Kind != shellcmd.EffectAct {
		v.kind[i] = fxNoAct
		return shellcmd.Effect{}, false
	}
	if v.acts == nil {
		v.acts = map[int32]shellcmd.Effect{}
	}
	v.kind[i], v.acts[index] = fxAct, fx
	return fx, true
}

// since reports whether an act after the call at index last (1-based)
// invalidates what ev, which repeats it, observes.
func (v *invalidations) since(last int, ev *guard.CallEvent) bool {
	if !v.maybe(ev.Tool) {
		return false
	}
	var obs shellcmd.Effect
	observed := false
	for i := len(v.touch) - 1; i >= 0 && int(v.touch[i]) > last; i-- {
		act, ok := v.act(i)
		if !ok {
			continue
		}
		if !observed {
			// What ev observes, once an act follows the call it repeats.
			if obs, observed = replayfast.Effect(defaultEffects(), ev), true; obs.Kind != shellcmd.EffectObserve {
				return false
			}
		}
		if act.Invalidates(obs) {
			return true
		}
	}
	return false
}
