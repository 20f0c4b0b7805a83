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
	forEachFile(files, opt.Jobs, filesAhead, func(i int, r *fileResult) {
		ingest.ReadFile(files[i], opt.Ingest, &ingest.Sink{
			OnSession: func(s *ingest.Session) { r.prepared = append(r.prepared, Prepare(s)) },
			OnProblem: func(p Problem) { r.problems.List = append(r.problems.List, p) },
		})
	}, nil, func(i int, r *fileResult) {
		c.Sessions = append(c.Sessions, r.prepared...)
		c.Problems = append(c.Problems, r.problems.List...)
		if opt.Progress != nil {
			opt.Progress(i+1, len(files), 0)
		}
	})
	return c
}

// Run replays the corpus under one rules configuration. Sessions are spread
// over jobs workers; the report is identical for any number of jobs.
func (c *Corpus) Run(r *rules.Rules, counter tokens.Counter, jobs int) *Report {
	return c.RunAll([]*rules.Rules{r}, counter, jobs, true, nil)[0]
}

// RunAll replays the corpus under each of cfgs and returns their reports in
// the same order, identical to one Run each for any number of jobs; keep
// false leaves the sessions out of the reports (compare and sweep read the
// summaries only, and 50 reports of every session's result were most of a
// sweep's memory). progress, when not nil, is told of each session done.
//
// A worker takes one session at a time and replays it under every
// configuration in turn, while the session's prepared calls are still in
// the processor's caches. Replaying the whole corpus under one
// configuration after another (as a loop of Run calls did) read every
// prepared call from memory once per configuration: 50 times 2.6 GB for a
// 50-configuration sweep of the 1 GiB benchmark corpus (docs/performance.md).
func (c *Corpus) RunAll(cfgs []*rules.Rules, counter tokens.Counter, jobs int, keep bool, progress func(done, total int)) []*Report {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	// out is one session's results, by configuration.
	type out struct {
		res   []SessionResult
		tools [][]ToolStat
	}
	results := make([]*out, len(c.Sessions))
	next := make(chan int, len(c.Sessions))
	for i := range c.Sessions {
		next <- i
	}
	close(next)
	done := make(chan int, len(c.Sessions))
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rn := &sessionRunner{tc: NewTokenCache(counter), caches: make([]*ruleCache, len(cfgs))}
			for i := range next {
				o := &out{res: make([]SessionResult, len(cfgs)), tools: make([][]ToolStat, len(cfgs))}
				for k := range cfgs {
					o.res[k], o.tools[k] = rn.run(c.Sessions[i], cfgs, k)
				}
				results[i] = o
				done <- i
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	aggs := make([]*Aggregator, len(cfgs))
	for k, r := range cfgs {
		aggs[k] = NewAggregator(r, counter.Name())
		aggs[k].rep.Summary.Files = c.Files
	}
	// Sessions are added in corpus order as they complete, whatever order
	// the workers finish them in, and dropped once added.
	// ready marks what has come through done: only those slots are read
	// here (the receive orders the worker's write before the read).
	ready := make([]bool, len(results))
	added := 0
	for i := range done {
		ready[i] = true
		for added < len(results) && ready[added] {
			o := results[added]
			results[added] = nil
			for k := range cfgs {
				aggs[k].AddSession(o.res[k], o.tools[k], keep)
			}
			added++
			if progress != nil {
				progress(added, len(results))
			}
		}
	}
	reports := make([]*Report, len(cfgs))
	for k := range cfgs {
		for _, p := range c.Problems {
			aggs[k].AddProblem(p)
		}
		reports[k] = aggs[k].Finish()
	}
	return reports
}
