package analyze

import (
	"sync"
	"sync/atomic"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
)

// callFacts is what Prepare works out from one call alone: its result's
// normalized hash and failure, the agent's own guard note in it, and the
// digest of its signature. None needs the calls before, so a long
// session's are worked out on several cores (callFactsOf) while the rest
// of Prepare (repeats, epochs) goes through the calls in order.
type callFacts struct {
	resultHash uint64
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

// callFactsOf returns the facts of every call of s in order, on up to
// workers goroutines.
func callFactsOf(s *ingest.Session, calls, workers int) []callFacts {
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
	if workers < 2 || len(list) < parallelFactsCalls {
		fillCallFacts(list, facts)
		return facts
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(factsChunk)) - factsChunk
				if lo >= len(list) {
					return
				}
				hi := min(lo+factsChunk, len(list))
				fillCallFacts(list[lo:hi], facts[lo:hi])
			}
		}()
	}
	wg.Wait()
	return facts
}

// fillCallFacts works out the facts of calls into facts.
func fillCallFacts(calls []*ingest.Call, facts []callFacts) {
	var sig []byte // reused to build each call's signature
	for i, c := range calls {
		f := &facts[i]
		norm, failed := guard.ResultFactsWithMembers(c.Result, c.IsError, c.ResultMembers)
		f.resultHash, f.failed, f.normalized = guard.HashString(norm), failed, norm == c.Result
		f.native, f.stops = NativeIntervention(c.Result)
		sig = appendSignature(sig[:0], c.Tool, c.Args, c.ArgsOK, c.ArgsRaw)
		f.sig = sigDigest(sig)
	}
}
