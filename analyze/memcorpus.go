package analyze

import (
	"runtime"
	"sync"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// Corpus is a set of prepared sessions held in memory so that many rule
// configurations can be replayed over one reading of the files (compare,
// sweep). Token counts of results are computed the first time a run needs
// them and then kept, so later configurations pay nothing for them.
type Corpus struct {
	Files    int
	Sessions []*PreparedSession
	Problems []Problem
}

// LoadCorpus reads and prepares every file, in parallel, keeping file and
// session order.
func LoadCorpus(files []string, opt Options) *Corpus {
	c := &Corpus{Files: len(files)}
	forEachFile(files, opt.Jobs, func(i int, r *fileResult) {
		ingest.ReadFile(files[i], opt.Ingest, &ingest.Sink{
			OnSession: func(s *ingest.Session) { r.prepared = append(r.prepared, Prepare(s)) },
			OnProblem: func(p Problem) { r.problems = append(r.problems, p) },
		})
	}, func(i int, r *fileResult) {
		c.Sessions = append(c.Sessions, r.prepared...)
		c.Problems = append(c.Problems, r.problems...)
		if opt.Progress != nil {
			opt.Progress(i+1, len(files), 0)
		}
	})
	return c
}

// Run replays the corpus under one rules configuration. Sessions are spread
// over jobs workers; the report is identical for any number of jobs.
func (c *Corpus) Run(r *rules.Rules, counter tokens.Counter, jobs int) *Report {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	type out struct {
		res   SessionResult
		tools []ToolStat
	}
	results := make([]out, len(c.Sessions))
	next := make(chan int, len(c.Sessions))
	for i := range c.Sessions {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc := NewTokenCache(counter)
			// r does not change during the run: its guards share what
			// they work out from it.
			tc.rules = newRuleCache(r)
			for i := range next {
				res, tools := Run(c.Sessions[i], r, tc)
				results[i] = out{res, tools}
			}
		}()
	}
	wg.Wait()
	agg := NewAggregator(r, counter.Name())
	agg.rep.Summary.Files = c.Files
	for _, o := range results {
		agg.AddSession(o.res, o.tools, true)
	}
	for _, p := range c.Problems {
		agg.AddProblem(p)
	}
	return agg.Finish()
}
