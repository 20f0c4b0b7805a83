package guard

import (
	"strings"

	"github.com/loopgate/loopgate/analyze/guard/internal/bridge"
	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
	"github.com/loopgate/loopgate/rules"
)

// What only a replay needs (package replayfast) is reached through
// internal/bridge, so that this package's exported API is the embedder's.
func init() {
	bridge.SetArgs = func(ev any, args *jsonx.Value, compact, pending bool) {
		ev.(*CallEvent).setArgs(args, compact, pending)
	}
	bridge.Key = func(ev any) (string, bool) { return ev.(*CallEvent).memoKey() }
	bridge.SameKey = func(a, b any) bool { return a.(*CallEvent).sameKey(b.(*CallEvent)) }
	bridge.CallActs = func(r *rules.Rules, ev any) bool { return callActs(r, ev.(*CallEvent)) }
	bridge.Effect = func(r *rules.Rules, ev any) shellcmd.Effect { return callEffect(r, ev.(*CallEvent), nil) }
	bridge.MayTouchFiles = mayTouchFiles
	bridge.ResultFacts = func(result string, isError bool, members *resultmembers.Members) (string, bool) {
		return normalizeFailed(result, isError, members)
	}

	bridge.NewKeyIndex = func(r *rules.Rules, size int) any { return newKeyIndex(r, size) }
	bridge.KeyServes = func(ki any, r *rules.Rules) bool { return ki.(*keyIndex).Serves(r) }
	bridge.Number = func(ki, ev any, r *rules.Rules) int { return ki.(*keyIndex).Number(ev.(*CallEvent), r) }
	bridge.NumberTwin = func(ki, ev, prev any, r *rules.Rules) int {
		return ki.(*keyIndex).NumberTwin(ev.(*CallEvent), prev.(*CallEvent), r)
	}
	bridge.LendBuffer = func(ki any, buf []byte) []byte { return ki.(*keyIndex).LendBuffer(buf) }
	bridge.TakeBuffer = func(ki any) []byte { return ki.(*keyIndex).TakeBuffer() }

	bridge.NewRuleCache = func(r *rules.Rules) any { return newRuleCache(r) }
	bridge.CacheServes = func(rc any, r *rules.Rules) bool { return rc.(*ruleCache).Serves(r) }
	bridge.NewGuard = func(rc, ki any) any { return rc.(*ruleCache).NewGuard(ki.(*keyIndex)) }
	bridge.Release = func(rc, g any) { rc.(*ruleCache).Release(g.(*Guard)) }
}

// defaultEffects is the effect table of rules that set none.
var defaultEffects = rules.DefaultEffects()

// callActs reports whether a call acts on the world under the rules'
// effects: the first effect rule that names its tool and whose argument
// holds one of the rule's values (compared trimmed and lower-cased), else
// its class's effect. A call whose arguments are not JSON takes its
// class's. A shell tool's call acts when its command does
// (shellcmd.Classify), unless the rules make the shell class act.
func callActs(r *rules.Rules, ev *CallEvent) bool {
	var t topArgs
	return callActsOn(r, ev, &t)
}

// callActsOn is callActs reading the arguments through t, which it sets
// to read ev's when they are first needed (a zero topArgs reads none).
func callActsOn(r *rules.Rules, ev *CallEvent, t *topArgs) bool {
	name := ev.ClassName()
	if class := r.ClassOf(name); (class == "shell" || shellcmd.IsShellTool(ev.Tool)) && !r.ClassActs(class) {
		t.use(ev)
		c, _ := shellcmd.FromCallMembers(ev.Tool, true, t.isObject(), t.get)
		return c.Acts
	}
	if ev.ArgsOK {
		t.use(ev)
		e := &r.Effects
		if e.Act == nil && e.Observe == nil && e.ByArgument == nil {
			e = &defaultEffects
		}
		for i := range e.ByArgument {
			er := &e.ByArgument[i]
			if !r.MatchesAny(er.Tools, name) {
				continue
			}
			if v, has := t.getString(er.Arg); has && holdsValue(er.Values, v) {
				return er.Effect == rules.EffectAct
			}
		}
	}
	return r.ClassActs(r.ClassOf(name))
}

// holdsValue reports whether v is one of values, both trimmed and
// lower-cased; the value "*" holds any v that is not blank.
func holdsValue(values []string, v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	for _, x := range values {
		x = strings.ToLower(strings.TrimSpace(x))
		if x == v || x == "*" && v != "" {
			return true
		}
	}
	return false
}
