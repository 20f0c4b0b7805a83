package ingest

// The session builder that the OpenAI, Claude Code, Codex and OpenHands
// ingesters share: it cuts turns, appends requests and calls, joins results
// to calls by id (or, for id-less legacy functions, by order and name), and
// reports what could not be joined. Keeping one join implementation means one
// set of rules for duplicate ids and missing results across those formats.

import (
	"hash/maphash"
	"strings"
	"time"
)

// callRef locates a call inside the session being built. Indexes, not
// pointers: the slices grow while the session is built.
type callRef struct{ t, r, c int }

// sessionBuilder accumulates one session.
type sessionBuilder struct {
	s *Session
	// The calls with an id still waiting for a result, in the order they
	// were issued (results are joined first in, first out): the latest
	// recentCalls in recent, oldest first, and the ones pushed out of it
	// in older, per id, oldest first (an id leaves older once none of its
	// calls waits). Nearly every result answers one of the last few calls:
	// found in recent, by a word of its id compared first, it costs no
	// hashing of the id and no look-up in a table as large as the session,
	// which were a few percent of a replay of large Claude Code files.
	// Every call older than recent's oldest is in older.
	recent []waitingCall
	older  map[string][]callRef
	// issuedIDs are the ids of the calls that waited for a result, in
	// order, until a result finds no call waiting; then issued is made of
	// them and kept instead. It words a second result for an id whose
	// calls all got one differently from a result with no call at all.
	issuedIDs []string
	issued    map[string]bool
	// legacy holds id-less calls (legacy function_call) waiting for results.
	legacy []callRef
	// final holds calls that end the run and never get a result (OpenHands
	// finish): not reported as missing.
	final map[callRef]bool
	// early remembers the line of the first result for an id that no call
	// had issued yet. Results are joined only to calls made before them, so
	// a call that comes later with that id is not answered by it; its "has
	// no result" problem then says where the early result was.
	early map[string]int
	// cut, when set, is the sink's cut hook (Options.CutResult), called as
	// each result is joined to its call: a reader sets it when it can find
	// its results again by their line (resultcut.go).
	cut func(format string, c *Call)
	// held says the result being joined lies in memory its reader reuses
	// once the line is applied (a jsonx.Scratch): fill keeps a copy of it,
	// unless cut keeps its head alone (heldResult).
	held bool
	// doc is set for a session read from a multi-line JSON document: its
	// calls carry the lines of their elements while it is built, so that
	// problems name them, and line 0 once it is finished (zeroLines).
	doc bool
}

// newSessionBuilder starts building s, which is expected to make about
// calls calls (0: unknown).
func newSessionBuilder(s *Session, calls int) *sessionBuilder {
	return &sessionBuilder{s: s, recent: make([]waitingCall, 0, recentCalls), issuedIDs: make([]string, 0, calls), final: map[callRef]bool{}, early: map[string]int{}}
}

// recentCalls is how many waiting calls sessionBuilder.recent holds: more
// than the calls a model makes at once.
const recentCalls = 16

// waitingCall is a call waiting for a result, with its id and a word of
// the id (idTag) to compare first.
type waitingCall struct {
	tag uint64
	id  string
	ref callRef
}

// idTag is a word of id to tell most ids apart without comparing them
// whole: its length and last eight bytes, where generated ids differ.
func idTag(id string) uint64 {
	var t uint64
	for i := max(0, len(id)-8); i < len(id); i++ {
		t = t<<8 | uint64(id[i])
	}
	return t ^ uint64(len(id))<<56
}

// callsHint is how many calls a file of size bytes (0: unknown) is
// expected to hold, to make its tables that large at once (the Claude
// Code reader's requests by key, a session builder's list of ids): a map
// that grows to tens of thousands of keys hashes each of them again at
// every growth, which cost several percent of a replay of large Claude
// Code files. One call per 4 KiB is a little more than the Claude Code
// files among the samples hold (4.6 to 6 KB per call) and less than Codex
// rollouts (1.1 to 2.9 KB): a file of few calls and long results gets a
// table not much larger than it needs, and a file of many small calls
// still grows, just less often. The cap keeps a huge file from asking for
// more than a few megabytes at once.
func callsHint(size int64) int {
	return int(min(size/4096, 1<<16))
}

// turn starts a new turn at a genuine user message.
func (b *sessionBuilder) turn(line int, t time.Time, chars int) {
	b.s.Turns = append(b.s.Turns, Turn{Line: line, Time: t, UserChars: chars})
}

// notice records a Notice in the current turn; before any turn there is
// nothing it could have changed that a guard has seen, and it is dropped.
func (b *sessionBuilder) notice(line int, t time.Time, text string) {
	if len(b.s.Turns) == 0 {
		return
	}
	tr := &b.s.Turns[len(b.s.Turns)-1]
	tr.Notices = append(tr.Notices, Notice{Request: len(tr.Requests), Line: line, Time: t, Text: text})
}

// compaction records a compaction inside the current turn, once it has a
// request (a Notice with Compaction set); before that, a compaction is
// the next turn's (Turn.CompactedBefore), as the reader marks it.
func (b *sessionBuilder) compaction(line int, t time.Time) {
	if len(b.s.Turns) == 0 {
		return
	}
	if tr := &b.s.Turns[len(b.s.Turns)-1]; len(tr.Requests) > 0 {
		tr.Notices = append(tr.Notices, Notice{Request: len(tr.Requests), Line: line, Time: t, Compaction: true})
	}
}

// curTurn returns the current turn, opening a turn of its own for requests
// made before any user message.
func (b *sessionBuilder) curTurn() *Turn {
	if len(b.s.Turns) == 0 {
		b.s.Turns = append(b.s.Turns, Turn{})
	}
	return &b.s.Turns[len(b.s.Turns)-1]
}

// request appends a model request to the current turn and returns it.
func (b *sessionBuilder) request(line int, t time.Time, textChars int, u *Usage) *Request {
	tr := b.curTurn()
	tr.Requests = append(tr.Requests, Request{Line: line, Time: t, TextChars: textChars, Usage: u})
	return &tr.Requests[len(tr.Requests)-1]
}

// lastRequest returns the current request, opening one when there is none.
func (b *sessionBuilder) lastRequest(line int, t time.Time) *Request {
	tr := b.curTurn()
	if len(tr.Requests) == 0 {
		return b.request(line, t, 0, nil)
	}
	return &tr.Requests[len(tr.Requests)-1]
}

func (b *sessionBuilder) at(ref callRef) *Call {
	return &b.s.Turns[ref.t].Requests[ref.r].Calls[ref.c]
}

// call appends c to the current request (opening one when the turn has
// none).
func (b *sessionBuilder) call(c Call, out *Sink) callRef {
	tr := b.curTurn()
	if len(tr.Requests) == 0 {
		b.request(c.Line, c.Time, 0, nil)
	}
	return b.callAt(b.lastRef(), c, out)
}

// lastRef locates the current request (its c is unused).
func (b *sessionBuilder) lastRef() callRef {
	ti := len(b.s.Turns) - 1
	return callRef{t: ti, r: len(b.s.Turns[ti].Requests) - 1}
}

// callAt appends c to the request at ref. A call that already carries its
// result (HasResult) is not waited for. A call whose id is still waiting for
// a result is a duplicate: reported, and results are then joined in order.
func (b *sessionBuilder) callAt(ref callRef, c Call, out *Sink) callRef {
	r := &b.s.Turns[ref.t].Requests[ref.r]
	r.Calls = append(r.Calls, c)
	ref.c = len(r.Calls) - 1
	if c.HasResult {
		return ref
	}
	if c.ID == "" {
		b.legacy = append(b.legacy, ref)
		return ref
	}
	tag := idTag(c.ID)
	if first, _, waiting := b.waiting(c.ID, tag); waiting {
		// Both calls are kept (each was made); their results are
		// joined first call first. An id reused after its call got a
		// result is not a problem: the join is not ambiguous (local
		// models restart call_0 in every response).
		out.Problemf(c.Line, "call id %s is used again while an earlier call with that id (line %d) has no result yet; both calls are kept and results are joined to them in order", c.ID, b.at(first).Line)
	}
	if b.issued != nil {
		b.issued[c.ID] = true
	} else {
		b.issuedIDs = append(b.issuedIDs, c.ID)
	}
	if len(b.recent) == recentCalls {
		o := b.recent[0]
		if b.older == nil {
			b.older = map[string][]callRef{}
		}
		b.older[o.id] = append(b.older[o.id], o.ref)
		b.recent = append(b.recent[:0], b.recent[1:]...)
	}
	b.recent = append(b.recent, waitingCall{tag, c.ID, ref})
	return ref
}

// waiting finds the oldest call with id still waiting for a result: in
// older, else in recent (at index at; -1 for older).
func (b *sessionBuilder) waiting(id string, tag uint64) (ref callRef, at int, ok bool) {
	if len(b.older) > 0 {
		if q := b.older[id]; len(q) > 0 {
			return q[0], -1, true
		}
	}
	for i := range b.recent {
		if w := &b.recent[i]; w.tag == tag && w.id == id {
			return w.ref, i, true
		}
	}
	return callRef{}, 0, false
}

// result joins a result to the oldest call with that id still waiting, and
// returns that call (for what a reader knows of the result beside its
// text, such as an exit code; valid until the next call is added). It
// reports a result with no call and keeps going (nil).
func (b *sessionBuilder) result(id, text string, isErr bool, line int, t time.Time, out *Sink) *Call {
	ref, at, waiting := b.waiting(id, idTag(id))
	if !waiting {
		b.held = false
		answered := b.wasIssued(id)
		// A result with no call is reported, not made into a
		// call: a call of unknown tool would change the call counts the
		// guards replay. The problem is the record of it.
		switch {
		case id == "":
			out.Problemf(line, "result has no call id, so it cannot be joined to a call; ignored")
		case answered:
			out.Problemf(line, "second result for call %s (its call already has a result); ignored", id)
		default:
			b.noCall(id, line, out)
		}
		return nil
	}
	if at < 0 {
		if q := b.older[id]; len(q) > 1 {
			b.older[id] = q[1:]
		} else {
			delete(b.older, id)
		}
	} else {
		b.recent = append(b.recent[:at], b.recent[at+1:]...)
	}
	b.fill(ref, text, isErr, line, t)
	return b.at(ref)
}

// heldResult says whether the text of the next result joined (result,
// idlessResult) lies in memory its reader reuses (sessionBuilder.held),
// and returns b.
func (b *sessionBuilder) heldResult(held bool) *sessionBuilder {
	b.held = held
	return b
}

// noCall reports a result for an id no call had before it, and remembers
// its line for the problem of a call with that id left without a result.
func (b *sessionBuilder) noCall(id string, line int, out *Sink) {
	if _, ok := b.early[id]; !ok {
		b.early[id] = line
	}
	out.Problemf(line, "result for call %s has no matching call before it; ignored", id)
}

// idlessResult joins a result to the oldest call without an id still
// waiting, and says whether there was one.
func (b *sessionBuilder) idlessResult(text string, isErr bool, line int, t time.Time) bool {
	if len(b.legacy) == 0 {
		b.held = false
		return false
	}
	ref := b.legacy[0]
	b.legacy = b.legacy[1:]
	b.fill(ref, text, isErr, line, t)
	return true
}

// wasIssued says whether a call with id waited for a result before (the
// caller knows none waits now: then every such call got one).
func (b *sessionBuilder) wasIssued(id string) bool {
	if b.issued == nil {
		b.issued = make(map[string]bool, len(b.issuedIDs))
		for _, x := range b.issuedIDs {
			b.issued[x] = true
		}
		b.issuedIDs = nil
	}
	return b.issued[id]
}

// legacyResult joins a legacy role "function" message: to the oldest id-less
// call of the same name still waiting (any name when the result names none).
func (b *sessionBuilder) legacyResult(name, text string, line int, t time.Time, out *Sink) {
	for i, ref := range b.legacy {
		if name == "" || b.at(ref).Tool == name {
			b.fill(ref, text, false, line, t)
			b.legacy = append(b.legacy[:i:i], b.legacy[i+1:]...)
			return
		}
	}
	if name == "" {
		out.Problemf(line, "function result has no matching function_call; ignored")
	} else {
		out.Problemf(line, "function result for %s has no matching function_call; ignored", name)
	}
}

func (b *sessionBuilder) fill(ref callRef, text string, isErr bool, line int, t time.Time) {
	c := b.at(ref)
	c.Result, c.HasResult, c.IsError, c.ResultLine = text, true, isErr, line
	if b.cut != nil {
		b.cut(b.s.Format, c)
	}
	if b.held {
		b.held = false
		if c.Cut == nil {
			c.Result = strings.Clone(c.Result)
		}
	}
	if c.Time.IsZero() {
		c.Time = t
	}
}

// finish reports every call left without a result, then emits the session.
func (b *sessionBuilder) finish(out *Sink) {
	for ti, t := range b.s.Turns {
		for ri, r := range t.Requests {
			for ci, c := range r.Calls {
				if c.HasResult || b.final[callRef{ti, ri, ci}] {
					continue
				}
				switch early, ok := b.early[c.ID]; {
				case c.ID == "":
					out.Problemf(c.Line, "call to %s has no result", c.Tool)
				case ok:
					out.Problemf(c.Line, "call %s (%s) has no result (a result with its id came before the call, at line %d, and was not joined to it)", c.ID, c.Tool, early)
				default:
					out.Problemf(c.Line, "call %s (%s) has no result", c.ID, c.Tool)
				}
			}
		}
	}
	if b.doc {
		zeroLines(b.s)
	}
	out.Session(b.s)
}

// fingerprintSeed keys fingerprint for this process.
var fingerprintSeed = maphash.MakeSeed()

// fingerprint hashes the parts of a message that identify it across the
// requests of one conversation. Fingerprints are only compared with each
// other within one run, so a per-process seed does: maphash hashes a
// string in place, where the FNV hash it replaced needed each part copied
// to a byte slice (a user message or a result text, often large) and
// hashed it a byte at a time.
//
// A fingerprint is a value, not a string: one per message of every line,
// it allocates nothing.
func fingerprint(kind byte, parts ...string) msgPrint {
	var h maphash.Hash
	h.SetSeed(fingerprintSeed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	return msgPrint{kind: kind, sum: h.Sum64()}
}

// msgPrint is a message's fingerprint: its kind ('u' user, 'a' assistant,
// 'r' result by call ID, 'f' legacy function result) and the hash of its
// parts. The zero msgPrint is no fingerprint.
type msgPrint struct {
	kind byte
	sum  uint64
}
