package analyze

import (
	"slices"
	"sync"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// PreparedSession is a session reduced to what a replay needs, with the
// rules-independent truth already computed. replay prepares each session and
// drops it after one run; compare and sweep prepare a corpus once and run
// every configuration over it ("parse once, replay many").
type PreparedSession struct {
	File, ID, Format, Agent, Parent, Model string
	// Platform is where the session ran (ingest.Session.Platform).
	Platform        string
	Turns, Requests int
	// Notes are the reader's notes of the session (ingest.Session.Notes).
	Notes []string
	// HasUsage is true when the transcript records token usage;
	// UsageInput/UsageOutput sum it.
	HasUsage                bool
	UsageInput, UsageOutput int64
	// BytesPerToken is calibrated from the recorded usage (calibrate.go),
	// 0 when the tokenizer counts this session; UsageUnused then says why
	// recorded usage could not be used ("" without usage).
	BytesPerToken float64
	UsageUnused   string
	Calls         []PreparedCall
	// StartedAt and EndedAt are the earliest and latest times the
	// transcript records for the session's turns and calls (zero when it
	// records none).
	StartedAt, EndedAt time.Time
	// TurnStarts has one entry per turn (also turns without calls).
	TurnStarts []TurnStart
	// TextKept says the reader kept the responses' visible text
	// (ingest.Session.TextKept): the detectors that read it can run.
	// Texts are those texts, the non-empty ones, in order.
	TextKept bool
	Texts    []PreparedText

	// Others are the calls of the session's other agents
	// (ingest.Session.Others), each placed before the first call of this
	// session that began after it began, and again after it ended
	// (PreparedOther.At).
	Others []PreparedOther

	// keys numbers the calls' keys under the key section of the latest
	// run (Run, replayfast.KeyIndex); the calls' events remember their numbers.
	keys replayfast.KeyIndex
	// cut holds the calls whose result was read as its head alone
	// (ingest.Call.Cut), by Event.Index, for wholeResult.
	cut *cutCalls
}

// TurnStart marks where a turn begins in Calls.
type TurnStart struct {
	FirstCall int
	Time      time.Time
	Compacted bool
	// Prompt is the user message's text when the reader kept it
	// (ingest.Turn.UserText), for scope.reset: mentioned.
	Prompt string
	// Continued: the turn opens at a compaction's summary, not at a
	// user's message (ingest.Turn.Continued).
	Continued bool
	// Notices are the turn's messages that nobody typed
	// (ingest.Turn.Notices), placed among its calls.
	Notices []PreparedNotice
}

// PreparedOther is a call of another agent of the session placed among
// this session's calls, once at its start and again at its end
// (otherStamps): it began, or ended, no later than Calls[At] began, so what
// it changed, it may have changed before that call ran. Event holds its
// tool and arguments.
type PreparedOther struct {
	At    int
	Event guard.CallEvent
}

// PreparedNotice is an ingest.Notice placed among the calls: it comes
// before Calls[At] (At is the turn's end when no call follows it).
type PreparedNotice struct {
	At   int
	Time time.Time
	Text string
	// Compaction: a compaction inside the turn (ingest.Notice.Compaction).
	Compaction bool
}

// PreparedText is one model response's visible text, placed among the
// calls: the response's calls (if any) start at Calls[At].
type PreparedText struct {
	// Turn is the 0-based index of the response's turn (TurnStarts).
	Turn int
	At   int
	// Line is the response's line (0 when unknown).
	Line int
	// Calls says the response made tool calls.
	Calls bool
	Text  string
}

// PreparedCall is one call with its rules-independent facts.
type PreparedCall struct {
	// Event is the engine's view of the call; Class is filled per rules.
	Event  guard.CallEvent
	Line   int
	CallID string
	// Request is the 1-based index of the call's model request in the
	// session; EndOfRequest marks the last call of that request.
	Request int
	// LaterRequests counts the model requests after this call's request in
	// the same context (until a compaction or the end of the session):
	// the number of times a result is sent to the model again.
	LaterRequests int
	// Sig is the digest of the truth signature (tool plus sorted
	// arguments, appendSignature).
	Sig SigDigest
	// Repeats is the index of the most recent earlier call in the same
	// context with the same signature and the same normalized result (0
	// when none; SameResult).
	Repeats int
	// Native names the agent's own guard intervention in the result;
	// NativeStops says the agent's guard did not run the call.
	Native string

	resultTokens int // -1 until counted

	// The flags come last, side by side: between the wider fields each
	// took a word of padding, and a replay scans a table of prepared
	// calls as long as the session (docs/performance.md, "A call's
	// size").
	EndOfRequest bool
	HasResult    bool
	// SameResult: an earlier call in the same context had the same
	// signature and the same normalized result (Repeats). The call is
	// redundant when it also observes (Run: an action is never
	// redundant).
	SameResult  bool
	NativeStops bool
	// resultIsNormalized: Event.ResultHash is the hash of Event.Result
	// itself (normalizing removed nothing), so it can key the token memo.
	resultIsNormalized bool
}

// Prepare computes the rules-independent form of a session. The session's
// result texts stay referenced by the prepared calls (tokens are counted
// lazily, only for the calls a guard stops).
func Prepare(s *ingest.Session) *PreparedSession { return PrepareOn(s, 1) }

// PrepareOn is Prepare with the facts of a long session's calls worked
// out on up to workers cores (callFactsAhead); the result is the same.
func PrepareOn(s *ingest.Session, workers int) *PreparedSession {
	p := &PreparedSession{File: s.File, ID: s.ID, Format: s.Format, Agent: s.Agent, Parent: s.Parent, Model: s.Model, Platform: s.Platform, Turns: len(s.Turns), Notes: s.Notes, TextKept: s.TextKept}
	// The slices are sized up front: a prepared call is a few hundred
	// bytes, and growing Calls by appending copied them over and over.
	requests, calls := 0, 0
	for _, t := range s.Turns {
		requests += len(t.Requests)
		for _, r := range t.Requests {
			calls += len(r.Calls)
		}
	}
	p.Calls = make([]PreparedCall, 0, calls)
	p.TurnStarts = make([]TurnStart, 0, len(s.Turns))
	// seen maps a signature and result to the latest call that had them.
	var seen seenResultsTable
	seen.init(calls)
	request := 0
	index := 0
	// requestEpoch[i] is the context epoch of request i+1; compactions
	// start a new epoch, and a result is re-sent only within its epoch.
	requestEpoch := make([]int, 0, requests)
	epoch := 0
	view := resultViewOf(s.Format)
	facts := callFactsAhead(s, calls, workers, view)
	var (
		own callFacts // a call's facts, when not worked out ahead
		sig []byte    // reused to build each call's signature
	)
	inv := invalidations{calls: p.Calls[:calls]}
	others := otherStamps(s.Others)
	for ti, t := range s.Turns {
		if t.CompactedBefore {
			epoch++
			seen.clear()
		}
		p.noteTime(t.Time)
		ts := TurnStart{FirstCall: len(p.Calls), Time: t.Time, Compacted: t.CompactedBefore, Prompt: t.UserText, Continued: t.Continued}
		if len(t.Notices) > 0 {
			// Each notice stands before the first call of the request
			// after it: every call of the turn is placed in Calls below.
			ts.Notices = make([]PreparedNotice, 0, len(t.Notices))
			at, k := len(p.Calls), 0
			for _, nt := range t.Notices {
				for ; k < nt.Request && k < len(t.Requests); k++ {
					at += len(t.Requests[k].Calls)
				}
				ts.Notices = append(ts.Notices, PreparedNotice{At: at, Time: nt.Time, Text: nt.Text, Compaction: nt.Compaction})
			}
		}
		p.TurnStarts = append(p.TurnStarts, ts)
		firstRequest := request + 1
		nextNotice := 0
		for ri, r := range t.Requests {
			for ; nextNotice < len(t.Notices) && t.Notices[nextNotice].Request <= ri; nextNotice++ {
				if t.Notices[nextNotice].Compaction {
					// A compaction inside the turn starts a new epoch
					// where it stands, as one before a turn does.
					epoch++
					seen.clear()
				}
			}
			request++
			requestEpoch = append(requestEpoch, epoch)
			if r.Text != "" {
				p.Texts = append(p.Texts, PreparedText{Turn: ti, At: len(p.Calls), Line: r.Line, Calls: len(r.Calls) > 0, Text: r.Text})
			}
			if r.Usage != nil {
				p.HasUsage = true
				p.UsageInput = ingest.SaturatingAdd(p.UsageInput, r.Usage.Input)
				p.UsageOutput = ingest.SaturatingAdd(p.UsageOutput, r.Usage.Output)
			}
			for ci := range r.Calls {
				c := &r.Calls[ci]
				index++
				for len(others) > 0 && !c.Time.IsZero() && !others[0].t.After(c.Time) {
					o := p.addOther(others[0].o, others[0].t, index-1)
					inv.noteOther(&o.Event, index)
					others = others[1:]
				}
				f := &own
				if facts != nil {
					f = &facts[index-1]
				} else {
					sig = own.fill(c, sig, view)
				}
				// Filled in place, field by field: Calls has room for every
				// call, its slots are zero, and a prepared call built aside
				// and appended was copied whole.
				p.Calls = p.Calls[:len(p.Calls)+1]
				pc := &p.Calls[len(p.Calls)-1]
				ev := &pc.Event
				ev.Turn, ev.Request, ev.Index, ev.Tool = ti+1, request-firstRequest+1, index, c.Tool
				ev.ArgsOK, ev.ArgsRaw, ev.Time = c.ArgsOK, c.ArgsRaw, c.Time
				replayfast.SetArgs(ev, c.Args, c.ArgsCompact, c.ArgsPending)
				ev.Result, ev.ResultHash, ev.OutputHash, ev.Failed, ev.IsError = view.guardResult(c), f.resultHash, f.outputHash, f.failed, c.IsError
				ev.NoResult, ev.ExitCode = !c.HasResult, int(c.ExitCode)
				if c.Cut != nil {
					ev.ResultBytes = c.Cut.Bytes
					p.noteCut(c, index)
				}
				pc.Line, pc.CallID, pc.Request, pc.EndOfRequest = c.Line, c.ID, request, ci == len(r.Calls)-1
				pc.HasResult, pc.Native, pc.NativeStops, pc.resultTokens = c.HasResult, f.native, f.stops, -1
				pc.resultIsNormalized, pc.Sig = f.normalized, f.sig
				p.noteTime(c.Time)
				if c.HasResult && !f.stops {
					// The truth compares the tool's output, not its envelope.
					if last := seen.swap(seenKey{pc.Sig, f.outputHash}, index); last > 0 && !inv.since(last, ev) {
						pc.SameResult, pc.Repeats = true, last
					}
				}
				inv.note(ev, index)
			}
		}
	}
	p.Requests = request
	if p.StartedAt.IsZero() {
		// No turn or call has a time: the session's own, when the reader
		// found one (a session of local commands only).
		p.noteTime(s.Time)
	}
	if p.HasUsage {
		p.BytesPerToken, p.UsageUnused = calibration(s)
	}
	// Later requests in the same context, counted from the end.
	laterInEpoch := make([]int, request+1)
	for i := request - 1; i >= 0; i-- {
		if i+1 < request && requestEpoch[i+1] == requestEpoch[i] {
			laterInEpoch[i+1] = laterInEpoch[i+2] + 1
		}
	}
	for i := range p.Calls {
		p.Calls[i].LaterRequests = laterInEpoch[p.Calls[i].Request]
	}
	return p
}

// seenKey is a call's signature and normalized result.
type seenKey struct {
	sig  SigDigest
	hash uint64
}

// seenResultsTable maps seenKeys to the latest call (1-based) that had
// them: an open-addressing table sized once for a session's calls. Both
// halves of a key are already random (digests), so they place a key
// without hashing it again, and one probe both finds a key and stores the
// new call, where a map[seenKey]int hashed the 24-byte key twice per call.
// A slot holds a word of its key and the call, 8 bytes: the keys
// themselves are in keys, by call, written in order. The table of a long
// session is then a quarter of the size it was with keys in the slots,
// and its probes, each at a random place, miss the cache less.
type seenResultsTable struct {
	slots []seenSlot
	mask  uint64
	keys  []seenKey // keys[call-1]: the key call was swapped in with
}

type seenSlot struct {
	tag  uint32 // seenTag of the key
	call int32  // 0: empty
}

// seenTag is the word of k a slot holds, the bits its place does not use.
func seenTag(k seenKey) uint32 { return uint32((k.sig[1] ^ k.hash) >> 32) }

// init sizes the table for n keys, at most half full.
func (t *seenResultsTable) init(n int) {
	size := 8
	for size < 2*n {
		size *= 2
	}
	t.slots = make([]seenSlot, size)
	t.mask = uint64(size - 1)
	t.keys = make([]seenKey, n)
}

// clear empties the table.
func (t *seenResultsTable) clear() { clear(t.slots) }

// swap records call (> 0, at most the n of init) as the latest with key k
// and returns the call it replaces (0 when none).
func (t *seenResultsTable) swap(k seenKey, call int) int {
	t.keys[call-1] = k
	tag := seenTag(k)
	for i := (k.sig[0] ^ k.hash) & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.call == 0 {
			s.tag, s.call = tag, int32(call)
			return 0
		}
		if s.tag == tag && t.keys[s.call-1] == k {
			last := int(s.call)
			s.call = int32(call)
			return last
		}
	}
}

// noteTime widens the session's time span to t (a zero t is no time).
func (p *PreparedSession) noteTime(t time.Time) {
	if t.IsZero() {
		return
	}
	if p.StartedAt.IsZero() || t.Before(p.StartedAt) {
		p.StartedAt = t
	}
	if t.After(p.EndedAt) {
		p.EndedAt = t
	}
}

// otherStamp is a time at which another agent's call may have changed
// something: its start and its end, when known.
type otherStamp struct {
	t time.Time
	o *ingest.OtherCall
}

// otherStamps returns the times at which the other agents' calls are
// heard, in order: each call at its start and again at its end. Heard at
// its end alone, a write that began before this agent's repeated listing
// and whose result came after it would not separate that listing from the
// one before, though the write may have landed between them; heard at its
// start alone, it would not separate a listing made while it ran from one
// made after it ended.
func otherStamps(others []ingest.OtherCall) []otherStamp {
	if len(others) == 0 {
		return nil
	}
	stamps := make([]otherStamp, 0, 2*len(others))
	for i := range others {
		o := &others[i]
		if o.Start.IsZero() {
			continue
		}
		stamps = append(stamps, otherStamp{o.Start, o})
		if o.End.After(o.Start) {
			stamps = append(stamps, otherStamp{o.End, o})
		}
	}
	slices.SortStableFunc(stamps, func(a, b otherStamp) int { return a.t.Compare(b.t) })
	return stamps
}

// addOther places another agent's call, heard at t, before Calls[at].
func (p *PreparedSession) addOther(o *ingest.OtherCall, t time.Time, at int) *PreparedOther {
	ev := guard.CallEvent{Index: -1, Tool: o.Tool, ArgsRaw: o.ArgsRaw, ArgsOK: jsonx.Valid([]byte(o.ArgsRaw)), Time: t}
	p.Others = append(p.Others, PreparedOther{At: at, Event: ev})
	return &p.Others[len(p.Others)-1]
}

// CorpusFacts are the facts of a corpus that no rules change, reported once
// by compare and sweep above their rows.
type CorpusFacts struct {
	Files    int `json:"files"`
	Sessions int `json:"sessions"`
	Turns    int `json:"turns"`
	Requests int `json:"requests"`
	Calls    int `json:"calls"`
	// Redundant calls brought the model nothing new (docs/cli.md): truth,
	// under the built-in tool classes and effects (defaultEffects).
	Redundant int `json:"redundant"`
	Problems  int `json:"problems"`
}

// add counts one prepared session in f.
func (f *CorpusFacts) add(p *PreparedSession) {
	f.Sessions++
	f.Turns += p.Turns
	f.Requests += p.Requests
	f.Calls += len(p.Calls)
	for i := range p.Calls {
		c := &p.Calls[i]
		if c.SameResult && !replayfast.CallActs(defaultEffects(), &c.Event) {
			f.Redundant++
		}
	}
}

// defaultEffects judges which calls act for the corpus facts, which no
// rules change: the built-in class and effect tables. A rules file that
// extends them counts its own redundant calls in its report. Built at
// first use, not at start: `loopgate hook` starts once per tool call and
// never uses it.
var defaultEffects = sync.OnceValue(func() *rules.Rules {
	r := &rules.Rules{Classes: rules.DefaultClasses(), Effects: rules.DefaultEffects()}
	r.ClassOf("") // compiled now: it is shared by every goroutine
	return r
})

// merge adds g's sessions to f (not its files or problems).
func (f *CorpusFacts) merge(g CorpusFacts) {
	f.Sessions += g.Sessions
	f.Turns += g.Turns
	f.Requests += g.Requests
	f.Calls += g.Calls
	f.Redundant += g.Redundant
}
