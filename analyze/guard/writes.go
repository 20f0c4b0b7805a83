package guard

import (
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/rules"
)

// scope.write_clears_reads: a write to a path clears the counts of the
// reader calls whose key names the path (pi §3.7), so that reading a file
// again after changing it is not a loop.

// readerKey is a reader key not cleared since it was counted: its index,
// and its text as written (for the path test). Under invalidate: path,
// reach is what clearObservers compares with each act, worked out from
// text when first needed and not saved: the observed paths' reaches
// (shellcmd.Reach) joined by observedSep ("" until worked out).
type readerKey struct {
	kid   int32
	text  string
	reach string
}

// A tool's roles under scope.write_clears_reads (Guard.role).
const (
	roleReader   uint8 = 1 << iota // in readers
	roleWriter                     // in writers: its path argument clears
	roleClearAll                   // in clear_all
	roleKnown                      // worked out (Guard.toolRole)
	// roleEffect: under invalidate: path, the tool's calls may act or
	// observe files (callEffect is worked out for them).
	roleEffect
)

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
		if p, ok = writePath(g.r, ev.ClassName(), ev.arguments()); !ok {
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
	g.forget(clearing)
}

// forget clears the detectors' counts of the keys cleared and starts new
// epochs for them.
func (g *Guard) forget(clearing []int32) {
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
		if len(key) > maxPlainKey || strings.Contains(key, keySeparator+"\x00") {
			// A compacted key: the path test needs the written text, built
			// again here (reader keys are rarely long).
			args := ev.arguments() // first: it sets ArgsOK false when ArgsRaw is not JSON
			full, _ = callKey(g.r, ev.Tool, args, ev.ArgsOK, ev.ArgsRaw)
		}
		ki.texts[kid] = full
	}
	g.readers = append(g.readers, readerKey{kid: kid, text: full})
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
	role = g.roleByName(tool)
	g.toolRole[tid] = role
	return role
}

// roleByName is role for a tool known by its name only (g.roleOf).
func (g *Guard) roleByName(tool string) uint8 {
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
		if g.byPath && mayTouchFiles(g.r, tool) {
			role |= roleEffect
		}
		g.roleOf[tool] = role
	}
	return role
}

// ActsForOthers reports whether a call may change what another agent of
// the session observed under r: whether OtherAgentCall(ev) on a guard of r
// may clear anything (a write, a shell command that writes or whose reach
// is unknown, a tool of write_clears_reads' writers or clear_all). The
// live hook tells an agent's siblings of these calls only.
func ActsForOthers(r *Rules, ev *CallEvent) bool {
	w := &r.Scope.WriteClearsReads
	if len(w.Readers) == 0 {
		return false
	}
	tool := ev.ClassName()
	if len(w.ClearAll) > 0 && r.MatchesAny(w.ClearAll, tool) {
		return true
	}
	if !r.InvalidatesByPath() {
		return len(w.Writers) > 0 && r.MatchesAny(w.Writers, tool)
	}
	return mayTouchFiles(r, tool) && callEffect(r, ev, w.PathArgs).Kind == shellcmd.EffectAct
}

// OtherAgentCall is a call that another agent of the same session made (a
// subagent working beside this one, or the agent that started it, while
// both run): this guard counts nothing for it and decides nothing on it,
// but what the call changed, it changed for this agent too. The
// observations it may have made stale are cleared as this agent's own act
// would clear them (scope.write_clears_reads): a listing answered from a
// first reading after a sibling wrote into the directory hid the new
// files. Call it where the call ran among this agent's calls: after the
// calls of this agent that began before it ended.
func (g *Guard) OtherAgentCall(ev *CallEvent) {
	if len(g.readers) == 0 {
		return
	}
	role := g.roleByName(ev.ClassName())
	switch {
	case g.byPath:
		var fx shellcmd.Effect
		switch {
		case role&roleClearAll != 0:
			fx = shellcmd.Effect{Kind: shellcmd.EffectAct, All: true}
		case role&roleEffect != 0:
			fx = callEffect(g.r, ev, g.r.Scope.WriteClearsReads.PathArgs)
		}
		if fx.Kind == shellcmd.EffectAct {
			g.clearObservers(fx, -1)
		}
	case g.clearsReads && role&(roleWriter|roleClearAll) != 0:
		g.clearReadsAfterWrite(ev, -1, role)
	}
}

// Under write_clears_reads.invalidate: path, a reader's entry in g.readers
// holds what it observed (callEffect), not its key: its paths joined by
// observedSep, or observedAll when it reads what it does not name. The
// entries are saved with the guard's state as they are.
const (
	observedSep = "\x00"
	observedAll = "\x00*"
)

// noteObserver records a counted reader key and what its call observed.
func (g *Guard) noteObserver(kid int32, fx shellcmd.Effect) {
	g.readerPos = grow(g.readerPos, kid)
	text := observedAll
	if !fx.All {
		text = strings.Join(fx.Paths, observedSep)
	}
	if p := g.readerPos[kid]; p != 0 {
		// The same key observing again: what it observes now counts.
		g.readers[p-1].text, g.readers[p-1].reach = text, ""
		return
	}
	g.readers = append(g.readers, readerKey{kid: kid, text: text})
	g.readerPos[kid] = int32(len(g.readers))
}

// clearObservers clears the reader keys whose observation the act fx
// invalidates (shellcmd.Effect.Invalidates), all but the act's own key.
func (g *Guard) clearObservers(fx shellcmd.Effect, own int32) {
	if len(g.readers) == 0 || fx.Kind != shellcmd.EffectAct {
		return
	}
	// The act's paths as Overlap compares them, worked out once for every
	// observation (shellcmd.Reach).
	acts := g.actReach[:0]
	if !fx.All {
		for _, p := range fx.Paths {
			acts = append(acts, shellcmd.Reach(p))
		}
	}
	g.actReach = acts
	clearing := g.clearing[:0]
	kept := g.readers[:0]
	for _, rk := range g.readers {
		if rk.kid != own && invalidatesObserved(fx.All, acts, &rk) {
			clearing = append(clearing, rk.kid)
			g.readerPos[rk.kid] = 0
			continue
		}
		kept = append(kept, rk)
		g.readerPos[rk.kid] = int32(len(kept))
	}
	clear(g.readers[len(kept):])
	g.readers, g.clearing = kept, clearing
	g.forget(clearing)
}

// invalidatesObserved is fx.Invalidates (shellcmd.Effect) of the
// observation noted in rk (noteObserver), for an act fx whose paths'
// reaches are acts and that reaches everything when all. The observation
// is read in place rather than split into a list for each act, and its
// paths' reaches are worked out at its first test and kept in rk.
func invalidatesObserved(all bool, acts []string, rk *readerKey) bool {
	if all || rk.text == observedAll {
		return true
	}
	if rk.text == "" {
		return false
	}
	if rk.reach == "" {
		var b strings.Builder
		for r := range strings.SplitSeq(rk.text, observedSep) {
			if b.Len() > 0 {
				b.WriteString(observedSep)
			}
			b.WriteString(shellcmd.Reach(r))
		}
		rk.reach = b.String()
	}
	for r := range strings.SplitSeq(rk.reach, observedSep) {
		for _, w := range acts {
			if shellcmd.OverlapReach(w, r) {
				return true
			}
		}
	}
	return false
}

// mayTouchFiles reports whether a tool's calls may act or observe files:
// a shell tool, a tool whose class or effect rules may make it act, or a
// file tool (read, search, list, write).
func mayTouchFiles(r *rules.Rules, tool string) bool {
	class := r.ClassOf(tool)
	act, byArg := r.ToolEffect(tool)
	return act || byArg || shellcmd.IsShellTool(tool) || fileWriters[tool] ||
		class == "shell" || class == "read" || class == "search" || class == "list" || class == "write"
}

// UserPrompt is a genuine user message whose text is known. Under
// scope.reset: mentioned the counts outlive it, except what the user may
// have changed that the message says: the observations of the paths it
// names (MentionedPaths, matched as an act on them would be:
// shellcmd.Effect.Invalidates), the observations of what they do not name
// (a search of the working directory), and every count that is not a file
// observation (a web page, an unknown tool: nothing says what they
// observe). Under the other resets it is UserTurn.
func (g *Guard) UserPrompt(t time.Time, text string) {
	if g.r.Scope.Reset != "mentioned" || !g.byPath {
		g.UserTurn(t)
		return
	}
	g.UserPromptPaths(t, MentionedPaths(text))
}

// UserPromptPaths is UserPrompt of a message whose text names these paths
// (MentionedPaths of it): the live hook keeps a prompt's paths, not its
// text, and decides with them as replay does with the text.
func (g *Guard) UserPromptPaths(t time.Time, paths []string) {
	if g.r.Scope.Reset != "mentioned" || !g.byPath {
		g.UserTurn(t)
		return
	}
	g.userTurn(t) // the detectors do not reset: resetsOnTurn is false
	g.clearObservers(shellcmd.Effect{Kind: shellcmd.EffectAct, Paths: paths}, -1)
	// What no reader holds: every key numbered so far that is not a file
	// observation still standing. Of those, only the keys calls touched
	// since the last prompt can hold anything (Guard.touched): the others
	// were cleared then, and clearing is the same done twice. The readers
	// stay touched, to be looked at again at the next prompt.
	clearing, kept := g.clearing[:0], g.touched[:0]
	notReader := func(k int32) bool { return int(k) >= len(g.readerPos) || g.readerPos[k] == 0 }
	if g.touchedAll {
		clear(g.inTouched)
		for k := int32(0); int(k) < len(g.ki.m); k++ {
			if notReader(k) {
				clearing = append(clearing, k)
			} else {
				g.inTouched = grow(g.inTouched, k)
				g.inTouched[k] = true
				kept = append(kept, k)
			}
		}
		g.touchedAll = false
	} else {
		for _, k := range g.touched {
			if notReader(k) {
				clearing = append(clearing, k)
				g.inTouched[k] = false
			} else {
				kept = append(kept, k)
			}
		}
	}
	g.clearing, g.touched = clearing, kept
	g.forget(clearing)
}

// touch notes the keys of a call a guard is about to give state
// (Guard.touched).
func (g *Guard) touch(c *callCtx) {
	if c.hasKey {
		g.touchKey(c.kid)
	}
	if c.hasPlain {
		g.touchKey(c.pkid)
	}
}

func (g *Guard) touchKey(k int32) {
	g.inTouched = grow(g.inTouched, k)
	if !g.inTouched[k] {
		g.inTouched[k] = true
		g.touched = append(g.touched, k)
	}
}

// MentionedPaths are the words of a user's message that read as paths: a
// word with a slash, or a file name with an extension (name.ext), without
// the quotes, brackets and punctuation around it. Each holds no white
// space.
func MentionedPaths(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '*':
			return true
		}
		return false
	}) {
		w = strings.TrimRight(w, ".:!?")
		if strings.Trim(w, `/\.~`) == "" {
			// A slash alone ("A / B"), an ellipsis: no path, though as
			// one it would name everything.
			continue
		}
		if strings.ContainsAny(w, `/\`) {
			out = append(out, w)
			continue
		}
		if i := strings.LastIndexByte(w, '.'); i > 0 && i < len(w)-1 && len(w)-i-1 <= 10 {
			out = append(out, w)
		}
	}
	return out
}
