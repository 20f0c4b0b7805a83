package analyze

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/rules"
)

// runScratch is what Run builds and throws away per session. Nothing in it
// reaches a result.
type runScratch struct {
	keyBuf     []byte // lent to the session's KeyIndex (KeyIndex.LendBuffer)
	seen       seenResults
	toolPos    []int32
	toolClass  []string
	toolEffect []toolEffect
	// textReaders are the detectors of textRules that read the model's
	// text (rules.Detectors.TextReaders), worked out once per rules.
	textRules   *rules.Rules
	textReaders []string
}

// toolEffect is what a tool's calls do (rules.Rules.ToolEffect): observe,
// act, or either, by an argument of each call.
type toolEffect uint8

const (
	effectObserve toolEffect = iota
	effectAct
	effectByArgument
)

// maxScratchCalls bounds the per-call tables a TokenCache keeps between
// runs: a rare huge session does not keep its tables for the replay's life.
const maxScratchCalls = 1 << 16

// maxDecisionArgs bounds the argument text kept in a decision; reports
// redact it and abbreviate it further.
const maxDecisionArgs = 4096

// Run replays one prepared session under the rules: each call goes through
// a fresh guard (one per session, which is one agent scope), and the
// verdicts are judged against the transcript's own results.
//
// Readings taken where the definitions (docs/cli.md, "What the numbers
// mean") leave room:
//   - Replay does not invent a future: after a block the real transcript
//     goes on, and the guard sees the real later calls.
//   - A halt ends the turn: the calls after it in the same turn are marked
//     halted (not run) and are not shown to the guard.
//   - "Harmful" compares a stopped call's real result with the real results
//     of every earlier call with the same guard key and scope, stopped or
//     not, as docs/cli.md defines it: hiding one new result is counted once,
//     at the first stop that hides it. (An earlier version compared only
//     with the calls the guard let run, which counted every later stop of
//     the same unseen result again.)
//   - Calls that the agent's own guard already stopped in the transcript
//     (Native) are not counted as redundant, stopped or harmful, and save
//     nothing: the model already got the short message.
//   - A call that acts on the world (replayfast.CallActs) is never
//     redundant; stopped, it is a stopped action, judged neither right nor
//     harmful: precision covers the observations only.
//
// tc belongs to one goroutine, and r must not change while runs share tc:
// tc keeps what the guards work out from r for the next run under r.
func Run(p *PreparedSession, r *rules.Rules, tc *TokenCache) (SessionResult, []ToolStat) {
	// On the design's own agent the guard names its tools exactly; where
	// no one watches the session, its unattended rules apply. gr is what
	// the guard runs; the tools' classes and effects in the report and the
	// truth stay those of r, whatever agent wrote the session.
	sr := r.ForSession(p.Format, p.Platform)
	gr := sr.Rules
	toolNames := "classes"
	if sr.Native {
		toolNames = "native"
	}
	res := SessionResult{
		File: p.File, ID: p.ID, Format: p.Format, Agent: p.Agent, Selector: ingest.SessionSelector(p.ID, p.Agent), Parent: p.Parent, Model: p.Model,
		ToolNames: toolNames, Unattended: sr.Unattended,
		Turns: p.Turns, Requests: p.Requests, Calls: len(p.Calls), HasUsage: p.HasUsage,
		RecordedInput: p.UsageInput, RecordedOutput: p.UsageOutput,
		TokensFrom: tc.Counter.Name(), BytesPerToken: p.BytesPerToken, UsageUnused: p.UsageUnused,
		StartedAt: reportTime(p.StartedAt), EndedAt: reportTime(p.EndedAt),
		Decisions: []Decision{}, Notes: p.Notes,
	}
	if p.BytesPerToken > 0 {
		res.TokensFrom = "usage"
	}
	st := sessionTokens{tc: tc, bytesPerToken: p.BytesPerToken, p: p}
	// Keys are numbered once per session and key section, for every
	// configuration that shares the section (replayfast.KeyIndex).
	ki := p.keys
	if !ki.Serves(gr) {
		ki = replayfast.NewKeyIndex(gr, len(p.Calls))
		p.keys = ki
	}
	// The rules do not change while the caller runs them (as with a
	// Guard): the guards of later sessions under the same rules share what
	// the earlier ones worked out from them.
	rc := tc.rules
	if !rc.Serves(gr) {
		rc = replayfast.NewRuleCache(gr)
		tc.rules = rc
	}
	g := rc.NewGuard(ki)
	if p.cut != nil {
		g.SetResultSource(p.wholeResult)
	}
	sc := &tc.scratch
	sc.keyBuf = ki.LendBuffer(sc.keyBuf)
	// By tool number (replayfast.KeyIndex.Number): 1 + the tool's place in tools, and its
	// class (known when toolPos is not 0).
	toolPos, toolClass, toolEff := sc.toolPos[:0], sc.toolClass[:0], sc.toolEffect[:0]
	var tools []ToolStat
	// scope+key -> distinct real results so far; scopes are numbered from
	// 1 and mostly one per keyed call, so the calls are the size hint.
	seenRun := &sc.seen
	if cap(seenRun.byScope) < len(p.Calls)+1 {
		seenRun.byScope = make([]hashSet, 0, len(p.Calls)+1)
	}
	var timeline strings.Builder
	timeline.Grow(len(p.Calls) + len(p.TurnStarts))
	// The model's text, for the detectors that read it (replay_text.go).
	var text *textFeed
	if sc.textRules != gr {
		sc.textRules, sc.textReaders = gr, gr.Detectors.TextReaders()
	}
	if readers := sc.textReaders; len(readers) > 0 {
		if note := textNotRun(p, readers); note != "" {
			res.Notes = append(res.Notes[:len(res.Notes):len(res.Notes)], note)
		} else {
			text = &textFeed{texts: p.Texts}
		}
	}

	// The session's other agents' calls, heard where they stand among
	// this session's calls (PreparedOther.At).
	others := p.Others
	for ti, ts := range p.TurnStarts {
		end := len(p.Calls)
		if ti+1 < len(p.TurnStarts) {
			end = p.TurnStarts[ti+1].FirstCall
		}
		if ts.Compacted {
			g.Compaction()
		}
		t := ts.Time
		if t.IsZero() && ts.FirstCall < end {
			t = p.Calls[ts.FirstCall].Event.Time
		}
		switch {
		case ts.Continued:
			// A compaction's summary (heard above), no user's message.
		case ts.Prompt != "":
			g.UserPrompt(t, ts.Prompt)
		default:
			g.UserTurn(t)
		}
		if ts.FirstCall < end && timeline.Len() > 0 {
			timeline.WriteByte(TurnSeparator)
		}
		halted := false
		var haltedBy guard.Verdict
		haltedAt := 0
		// A notice (a message nobody typed: a background task's end, a
		// bash-mode command) is heard as a user's message is, where it
		// stands; the model goes on after it, as after a prompt, even in a
		// turn the guard ended.
		notices := ts.Notices
		hear := func(upTo int, at time.Time) {
			for len(notices) > 0 && notices[0].At <= upTo {
				nt := notices[0]
				notices = notices[1:]
				if nt.Compaction {
					// No message: the context was compacted here.
					g.Compaction()
					continue
				}
				if !nt.Time.IsZero() {
					at = nt.Time
				}
				g.UserPrompt(at, nt.Text)
				halted = false
			}
		}
		for i := ts.FirstCall; i < end; i++ {
			c := &p.Calls[i]
			if len(notices) > 0 {
				hear(i, c.Event.Time)
			}
			for len(others) > 0 && others[0].At <= i {
				g.OtherAgentCall(&others[0].Event)
				others = others[1:]
			}
			var tid int
			if k := c.Repeats - 1; c.SameResult && k >= 0 && k < i && p.Calls[k].Event.Index == c.Repeats {
				// An earlier call had the same tool and arguments (Sig):
				// its key, already built, is this call's.
				tid = ki.NumberTwin(&c.Event, &p.Calls[k].Event, gr)
			} else {
				tid = ki.Number(&c.Event, gr)
			}
			toolPos, toolClass, toolEff = grow(toolPos, tid), grow(toolClass, tid), grow(toolEff, tid)
			if toolPos[tid] == 0 {
				// Numbered by the name it is classed by (a gateway call's
				// names the tool it calls: guard.CallEvent.ClassName).
				name := c.Event.ClassName()
				toolClass[tid] = r.ClassOf(name)
				switch act, byArg := r.ToolEffect(name); {
				case byArg:
					toolEff[tid] = effectByArgument
				case !act && (toolClass[tid] == "shell" || shellcmd.IsShellTool(c.Event.Tool)):
					// A shell call acts when its command does.
					toolEff[tid] = effectByArgument
				case act:
					toolEff[tid] = effectAct
				default:
					toolEff[tid] = effectObserve
				}
				tools = append(tools, ToolStat{Tool: c.Event.Tool, Class: toolClass[tid]})
				toolPos[tid] = int32(len(tools))
			}
			c.Event.Class = toolClass[tid]
			// Whether the call acts: known from its tool, or read from its
			// arguments (replayfast.CallActs) when they decide, and then
			// only where it counts: for a call that returned the same
			// result as before, and for one judged below. Most calls are
			// neither, and the guard reads the arguments for itself.
			acts, actsByArgs := toolEff[tid] == effectAct, toolEff[tid] == effectByArgument
			if actsByArgs && c.SameResult {
				acts, actsByArgs = replayfast.CallActs(r, &c.Event), false
			}
			// An action returning the same acknowledgement again did
			// something again: never redundant.
			redundant := c.SameResult && !acts
			var v guard.Verdict
			ran := false
			var said guard.Verdict // a verdict on the model's text before this call
			if text != nil {
				text.upTo(g, ti, i, halted)
				said = text.take()
			}
			if halted {
				v = guard.Verdict{Action: guard.Halt, Detector: haltedBy.Detector, Count: haltedBy.Count,
					Message: "not run: the guard ended this turn at call " + strconv.Itoa(haltedAt)}
			} else if said.Action == guard.Halt {
				// The text ended the turn before this call was made.
				v = said
				halted, haltedBy, haltedAt = true, v, c.Event.Index
			} else {
				v = g.Before(&c.Event)
				ran = !v.Action.Stops() && v.Action != guard.Halt
				after := g.After(&c.Event, v)
				guard.Raise(&v, &after)
				guard.Raise(&v, &said)
				if c.EndOfRequest {
					if end := g.EndRequest(); end.Action > v.Action {
						guard.Raise(&v, &end)
					}
				}
				if v.Action == guard.Halt {
					halted, haltedBy, haltedAt = true, v, c.Event.Index
				}
			}
			ts := &tools[toolPos[tid]-1]
			if v.Action == guard.Allow && !redundant && c.Native == "" && !c.NativeStops {
				// Most calls: allowed, neither redundant nor the agent's
				// own note, so nothing to count but the call and nothing
				// to record but its result (what judge does for them,
				// without building a decision).
				if c.HasResult {
					seenRun.add(c, v, c.Event.OutputHash)
				}
				ts.Calls++
				timeline.WriteByte(MarkAllow)
				continue
			}
			if actsByArgs {
				acts = replayfast.CallActs(r, &c.Event)
			}
			d := judge(c, v, ran, redundant, acts, seenRun, st, &res)
			if k := d.Repeats - 1; k >= 0 && k < len(p.Calls) && p.Calls[k].Event.Index == d.Repeats {
				d.RepeatsLine = p.Calls[k].Line
			}
			ts.Calls++
			if redundant {
				ts.Redundant++
			}
			switch {
			case c.NativeStops:
			case v.Action == guard.Steer:
				ts.Steered++
			case v.Action == guard.Block:
				ts.Blocked++
			case v.Action == guard.Dedup:
				ts.Deduped++
			}
			if d.Harmful {
				ts.Harmful++
			}
			ts.TokensSaved += d.TokensSaved
			timeline.WriteByte(mark(c, d))
			if d.Action != guard.Allow || d.Redundant || d.Native != "" {
				res.Decisions = append(res.Decisions, d)
			}
		}
		hear(end, t)
		if text != nil {
			if note := text.endTurn(g, ti, end, halted); note != "" {
				res.Notes = append(res.Notes[:len(res.Notes):len(res.Notes)], note)
			}
		}
	}
	res.Timeline = timeline.String()
	// Every call is keyed now; the session keeps its replayfast.KeyIndex (compare,
	// sweep) but not the buffer the keys were built in, which the next
	// run of this goroutine reuses.
	sc.keyBuf = ki.TakeBuffer()
	rc.Release(g)
	clear(toolClass)
	sc.toolPos, sc.toolClass, sc.toolEffect = toolPos[:0], toolClass[:0], toolEff[:0]
	seenRun.reset()
	if cap(sc.toolPos) > maxScratchCalls || cap(sc.toolClass) > maxScratchCalls {
		sc.toolPos, sc.toolClass, sc.toolEffect = nil, nil, nil
	}
	return res, tools
}

// reportTime formats a session time for the report: RFC 3339 in UTC, to
// the second; "" for no time.
func reportTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// judge turns a verdict on a call into a decision: truth, savings, counts.
// ran says whether the call would still have run under the guard (a steer,
// or a halt that came after the call); redundant, whether it brought nothing
// new; acts, whether it acts on the world.
func judge(c *PreparedCall, v guard.Verdict, ran, redundant, acts bool, seenRun *seenResults, st sessionTokens, res *SessionResult) Decision {
	args := c.Event.ArgsRaw
	if len(args) > maxDecisionArgs {
		args = args[:maxDecisionArgs]
	}
	d := Decision{
		Turn: c.Event.Turn, Call: c.Event.Index, Line: c.Line, CallID: c.CallID,
		Tool: c.Event.Tool, Class: c.Event.Class, Args: args,
		Action: v.Action, Detector: v.Detector, Count: v.Count, Message: v.Message,
		Redundant: redundant, Native: c.Native,
	}
	if redundant {
		d.Repeats = c.Repeats
	}
	if v.Action != guard.Allow {
		if last := seenRun.last(c, v); last > 0 {
			d.Repeats = last
		}
	}
	if redundant {
		res.Redundant++
	}
	if c.NativeStops {
		res.Native++
		return d
	}
	switch v.Action {
	case guard.Steer:
		res.Steered++
		res.SteerTokens += st.count(v.Message)
	case guard.Block, guard.Dedup:
		if v.Action == guard.Block {
			res.Blocked++
		} else {
			res.Deduped++
		}
		switch {
		case acts:
			// Whether repeating the action was wanted, the transcript
			// cannot show: counted apart, never harmful.
			d.StoppedAction = true
			res.StoppedActions++
		case c.HasResult:
			// Results compare as the truth compares them: the tool's
			// output, without the envelope its format declares (a wall
			// time, a run id).
			d.Harmful = !seenRun.has(c, v, c.Event.OutputHash)
		}
		if d.Harmful {
			res.Harmful++
		}
		if redundant {
			res.RedundantStopped++
		}
		d.TokensSaved = max(0, st.result(c)-st.count(v.Message))
	case guard.Halt:
		if !ran {
			res.Halted++
			d.TokensSaved = max(0, st.result(c)-st.count(v.Message))
		}
	}
	d.ContextTokensSaved = d.TokensSaved * int64(c.LaterRequests)
	res.TokensSaved += d.TokensSaved
	res.ContextTokensSaved += d.ContextTokensSaved
	if c.HasResult {
		seenRun.add(c, v, c.Event.OutputHash)
	}
	return d
}

// judgeKey is "the same call" for the harmful judgement: the guard's key in
// its scope, or (for a call the guard gave no key) the truth signature's
// digest. A struct, not a joined string, so that judging a call allocates
// nothing.
type judgeKey struct {
	scope int
	isSig bool
	sig   SigDigest
	key   string
}

// seenResults holds the distinct real results so far of each "same call"
// (judgeKey). A verdict's Scope is an epoch number the guard gave to one
// key only, so a call counted under its own key is looked up by Scope
// alone, in a slice; the other calls (without a key) by judgeKey.
type seenResults struct {
	byScope []hashSet
	other   map[judgeKey]*hashSet
}

// hashSet is a small set of result hashes: most keys see one distinct
// result, which is kept inline (no allocation per key).
type hashSet struct {
	first uint64
	has   bool
	// lastCall is the index of the most recent call added.
	lastCall int32
	more     []uint64
}

func (h *hashSet) contains(x uint64) bool {
	return h != nil && h.has && (h.first == x || contains(h.more, x))
}

func (h *hashSet) add(x uint64, call int) {
	h.lastCall = int32(call)
	switch {
	case !h.has:
		h.first, h.has = x, true
	case !h.contains(x):
		h.more = append(h.more, x)
	}
}

// byScope says whether the call's verdict is keyed by Scope alone.
func byScope(c *PreparedCall, v guard.Verdict) bool {
	key, ok := replayfast.Key(&c.Event)
	return v.Scope > 0 && ok && v.Key != "" && v.Key == key
}

func (s *seenResults) key(c *PreparedCall, v guard.Verdict) judgeKey {
	if v.Key == "" {
		return judgeKey{isSig: true, sig: c.Sig}
	}
	return judgeKey{scope: v.Scope, key: v.Key}
}

func (s *seenResults) has(c *PreparedCall, v guard.Verdict, x uint64) bool {
	if byScope(c, v) {
		return v.Scope < len(s.byScope) && s.byScope[v.Scope].contains(x)
	}
	return s.other[s.key(c, v)].contains(x)
}

// last is the index of the most recent call recorded under the call's
// key, 0 when none was.
func (s *seenResults) last(c *PreparedCall, v guard.Verdict) int {
	var h *hashSet
	if byScope(c, v) {
		if v.Scope < len(s.byScope) {
			h = &s.byScope[v.Scope]
		}
	} else {
		h = s.other[s.key(c, v)]
	}
	if h == nil || !h.has {
		return 0
	}
	return int(h.lastCall)
}

func (s *seenResults) add(c *PreparedCall, v guard.Verdict, x uint64) {
	if byScope(c, v) {
		if v.Scope >= len(s.byScope) {
			s.byScope = slices.Grow(s.byScope, v.Scope+1-len(s.byScope))[:v.Scope+1]
		}
		s.byScope[v.Scope].add(x, c.Event.Index)
		return
	}
	if s.other == nil {
		s.other = map[judgeKey]*hashSet{}
	}
	k := s.key(c, v)
	h := s.other[k]
	if h == nil {
		h = &hashSet{}
		s.other[k] = h
	}
	h.add(x, c.Event.Index)
}

// reset empties s for the next session, keeping its tables unless they
// are large (maxScratchCalls).
func (s *seenResults) reset() {
	clear(s.byScope)
	s.byScope = s.byScope[:0]
	if cap(s.byScope) > maxScratchCalls {
		s.byScope = nil
	}
	if len(s.other) > maxScratchCalls {
		s.other = nil
	}
	clear(s.other)
}

func contains(hs []uint64, h uint64) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// grow returns s long enough to be indexed by i.
func grow[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	return append(s, make([]T, i+1-len(s))...)
}

func mark(c *PreparedCall, d Decision) byte {
	switch {
	case c.NativeStops:
		return MarkNative
	case d.Harmful:
		return MarkHarmful
	case d.Action == guard.Block:
		return MarkBlock
	case d.Action == guard.Dedup:
		return MarkDedup
	case d.Action == guard.Halt:
		return MarkHalt
	case d.Action == guard.Steer:
		return MarkSteer
	case c.Native != "":
		return MarkNative
	case d.Redundant:
		return MarkRedundant
	}
	return MarkAllow
}
