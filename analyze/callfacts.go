package analyze

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/rules"
)

// callFacts is what Prepare works out from one call alone: its result's
// normalized hash and failure, the agent's own guard note in it, and the
// digest of its signature. None needs the calls before, so a long
// session's are worked out on several cores (callFactsAhead) while the rest
// of Prepare (repeats, epochs) goes through the calls in order.
type callFacts struct {
	resultHash uint64
	// outputHash is the hash of the tool's output: the normalized result
	// without the envelope its format declares (ingest.Format.Envelope),
	// resultHash when it has none.
	outputHash uint64
	failed     bool
	// normalized: the hash is that of the result itself (normalizing
	// removed nothing), so it can key the token memo.
	normalized bool
	native     string
	stops      bool
	sig        SigDigest
}

// Why a session must be this long before its facts are worked out on
// several cores: a Claude Code file is one session, and Prepare of a
// session of tens of thousands of calls ran on one core while the other
// waited (the memory budget holds a second large file back); below a few
// thousand calls the goroutines cost about what they save.
const (
	parallelFactsCalls = 4096
	factsChunk         = 512
)

// callFactsAhead returns the facts of every call of s in order, worked
// out on up to workers goroutines, or nil when s is too short for that
// (Prepare then works each call's out in turn, with nothing allocated).
func callFactsAhead(s *ingest.Session, calls, workers int, view resultView) []callFacts {
	if workers < 2 || calls < parallelFactsCalls {
		return nil
	}
	list := make([]*ingest.Call, 0, calls)
	for ti := range s.Turns {
		for ri := range s.Turns[ti].Requests {
			r := &s.Turns[ti].Requests[ri]
			for ci := range r.Calls {
				list = append(list, &r.Calls[ci])
			}
		}
	}
	facts := make([]callFacts, len(list))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sig []byte // reused to build each call's signature
			for {
				lo := int(next.Add(factsChunk)) - factsChunk
				if lo >= len(list) {
					return
				}
				for i := lo; i < min(lo+factsChunk, len(list)); i++ {
					sig = facts[i].fill(list[i], sig, view)
				}
			}
		}()
	}
	wg.Wait()
	return facts
}

// envelopeFunc splits a result into the tool's output and its envelope
// (ingest.EnvelopeOf).
type envelopeFunc = func(result string) (output, envelope string)

// resultView is how a format's results are read: its envelope
// (ingest.EnvelopeOf) and the result its hooks get (ingest.HookResultOf).
type resultView struct {
	envelope envelopeFunc
	hook     func(string) string
}

func resultViewOf(format string) resultView {
	return resultView{envelope: ingest.EnvelopeOf(format), hook: ingest.HookResultOf(format)}
}

// guardResult is the result the guard reads: what the agent's hooks get.
func (v resultView) guardResult(c *ingest.Call) string {
	if v.hook != nil && c.HasResult {
		return v.hook(c.Result)
	}
	return c.Result
}

// fill works out the facts of c; sig is a buffer for its signature,
// returned for the next call. A cut result's were worked out from the
// whole text when it was read (cutResults).
func (f *callFacts) fill(c *ingest.Call, sig []byte, view resultView) []byte {
	if c.Cut != nil {
		*f = *c.Cut.Facts.(*callFacts)
	} else {
		f.fillResult(c, view)
	}
	sig = appendSignature(sig[:0], c)
	f.sig = sigDigest(sig)
	return sig
}

// fillResult works out the facts of c's result.
func (f *callFacts) fillResult(c *ingest.Call, view resultView) {
	result, members := c.Result, c.ResultMembers
	if view.hook != nil {
		if r := view.guardResult(c); r != result {
			result, members = r, nil
		}
	}
	norm, failed := replayfast.ResultFacts(result, c.IsError, members)
	f.resultHash, f.failed, f.normalized = guard.HashString(norm), failed, norm == c.Result
	f.outputHash = f.resultHash
	if view.envelope != nil && c.HasResult {
		if out, env := view.envelope(c.Result); env != "" {
			outNorm, _ := guard.ResultFacts(out, c.IsError)
			f.outputHash = guard.HashString(outNorm)
		}
	}
	f.native, f.stops = NativeIntervention(c.Result)
}

// Results cut to their head as they are read (ingest.Options.CutResult):
// a replay reads of a result its facts (fillResult), its length, its
// first guard.ResultHeadBytes (answer_missing) and whether it is blank
// (blank_is_failure); the whole text only for the few calls a guard
// answers with the result (dedup's {result}) or stops in a session whose
// tokens are counted by the tokenizer (savings.go). Those read it again
// from the file (PreparedSession.wholeResult). A result is cut when it is
// longer than cutAbove: a longer one was decoded into a scratch the next
// lines reuse, and one not cut is copied (ingest.CutAbove); a shorter
// one keeps its whole text, no longer than its head would be
// (guard.ResultHeadBytes).
const cutAbove = ingest.CutAbove

// cutResult reads the head of a result longer than cutAbove: it must be
// there (a compile error when it is not).
const _ = uint(cutAbove - guard.ResultHeadBytes)

// cutResults returns the ingest.Options.CutResult of a replay under cfgs,
// or nil when one of them reads every result whole (results.failure or
// results.hash of another agent, in its own rules or its unattended
// preset's).
func cutResults(cfgs []*rules.Rules) func(format string, c *ingest.Call) {
	for _, r := range cfgs {
		if r.ReadsWholeResults() {
			return nil
		}
		if name := r.Unattended.Rules; name != "" {
			if u, err := rules.Preset(name); err != nil || u.ReadsWholeResults() {
				return nil
			}
		}
	}
	return cutResult
}

// cutResult keeps the head of c's result alone when the result is long,
// with its facts worked out from the whole.
func cutResult(format string, c *ingest.Call) {
	if len(c.Result) <= cutAbove {
		return
	}
	view := resultViewOf(format)
	if view.hook != nil {
		return // the guard reads another text than the result
	}
	// Whether a result is blank is read from the text the guard gets
	// (blank_is_failure): the head must say what the whole says, and a
	// head that is not blank says the whole is not.
	if strings.TrimSpace(c.Result[:guard.ResultHeadBytes]) == "" {
		return
	}
	f := new(callFacts)
	f.fillResult(c, view)
	c.CutResult(guard.ResultHeadBytes, f)
}

// cutCalls are a prepared session's cut results (ingest.Call.Cut), and
// the whole texts read again so far.
type cutCalls struct {
	calls map[int]ingest.Call // by Event.Index: the line, the cut
	file  *ingest.ResultFile
	whole map[int]string
}

// noteCut notes that call index of p (c) holds its result's head alone.
func (p *PreparedSession) noteCut(c *ingest.Call, index int) {
	if p.cut == nil {
		p.cut = &cutCalls{calls: map[int]ingest.Call{}, whole: map[int]string{}}
	}
	p.cut.calls[index] = ingest.Call{Result: c.Result, ResultLine: c.ResultLine, Cut: c.Cut}
}

// wholeResult is the whole result of ev, a call of p whose Result holds
// the head alone, read again from the file. Should the file have changed
// since it was read, the head is all there is.
func (p *PreparedSession) wholeResult(ev *guard.CallEvent) string {
	cr := p.cut
	if cr == nil {
		return ev.Result
	}
	if text, ok := cr.whole[ev.Index]; ok {
		return text
	}
	c, ok := cr.calls[ev.Index]
	if !ok {
		return ev.Result
	}
	if cr.file == nil {
		cr.file = ingest.NewResultFile(p.File, p.Format)
	}
	text, err := cr.file.Result(&c)
	if err != nil {
		text = ev.Result
	}
	cr.whole[ev.Index] = text
	return text
}
