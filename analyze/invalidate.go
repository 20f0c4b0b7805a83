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
	// lastAll is the index (1-based) of the latest act of unknown reach,
	// lastAct of the latest act of any kind.
	lastAll, lastAct int
	// acts are the acts that name their paths, in order.
	acts []pathAct
	// tools caches by tool name whether its calls may act or observe
	// files (worth working out the effect of).
	tools map[string]toolFx
}

type pathAct struct {
	index int
	fx    shellcmd.Effect
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

// note records the call at index (1-based) when it acts.
func (v *invalidations) note(ev *guard.CallEvent, index int) {
	if !v.maybe(ev.Tool) {
		return
	}
	fx := replayfast.Effect(defaultEffects(), ev)
	if fx.Kind != shellcmd.EffectAct {
		return
	}
	v.lastAct = index
	if fx.All {
		v.lastAll = index
		return
	}
	v.acts = append(v.acts, pathAct{index, fx})
}

// since reports whether an act after the call at index last (1-based)
// invalidates what ev, which repeats it, observes.
func (v *invalidations) since(last int, ev *guard.CallEvent) bool {
	if v.lastAct <= last || !v.maybe(ev.Tool) {
		return false
	}
	obs := replayfast.Effect(defaultEffects(), ev)
	if obs.Kind != shellcmd.EffectObserve {
		return false
	}
	if v.lastAll > last || obs.All {
		return true
	}
	for i := len(v.acts) - 1; i >= 0 && v.acts[i].index > last; i-- {
		if v.acts[i].fx.Invalidates(obs) {
			return true
		}
	}
	return false
}
