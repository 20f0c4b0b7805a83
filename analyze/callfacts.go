package analyze

import (
	"sync"
	"sync/atomic"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/ingest"
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
// returned for the next call.
func (f *callFacts) fill(c *ingest.Call, sig []byte, view resultView) []byte {
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
	sig = appendSignature(sig[:0], c)
	f.sig = sigDigest(sig)
	return sig
}
