package analyze

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/analyze/pipeline"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// Options control a replay over files.
type Options struct {
	Rules *rules.Rules
	// Tokens counts tokens; nil means o200k_base.
	Tokens tokens.Counter
	// Jobs is the number of files read in parallel (0: the number of cores).
	Jobs   int
	Ingest ingest.Options
	// OnSession, when set, receives each session's result as soon as it
	// and every session before it are done (deterministic order), so that
	// jsonl output streams.
	OnSession func(*SessionResult)
	// Progress, when set, is called as each file is read and replayed,
	// with the files done, the total, and the bytes of the files done. It
	// counts files as they finish, which is not the files' order (the
	// largest of a run are read first): counted in order, a corpus whose
	// first file was small showed 0 files done for most of the run. It is
	// called from the reading goroutines, one call at a time.
	Progress func(done, total int, bytes int64)
	// FileEmitted, when set, is called on the caller's goroutine once each
	// file's sessions have all gone to OnSession, in the files' order
	// (jsonl writes out what it holds then).
	FileEmitted func()
	// DropSessions leaves sessions out of the report once they were passed
	// to OnSession (bounded memory for jsonl).
	DropSessions bool
	// SpillSessions keeps the report's sessions in a temporary file, a
	// chunk at a time, so that memory does not grow with their number
	// (spill.go). The report must then be read with EachSession and
	// SessionCount, and closed (Report.Close).
	SpillSessions bool
	// Cache, when set, keeps each file's results between runs (Replay
	// only; filecache.go). The report is the same with it as without.
	Cache FileCache
	// CacheVersion identifies the loopgate build whose results the cache
	// holds: an entry of another build is not used.
	CacheVersion string
}

// fileResult is what a replay keeps of one file until its turn to be
// emitted: the session results themselves go through the pipeline.
type fileResult struct {
	// tally[k] counts the file's sessions under the k-th configuration of
	// the replay (no sessions kept: those are pushed to the pipeline).
	tally    []*Aggregator
	facts    CorpusFacts // of the file's sessions
	problems FileProblems
	bytes    int64
	// estimated counts the texts of the file's kept sessions whose tokens
	// were estimated (the report's tokens.estimated_texts, with a cache).
	estimated int64
}

// filesAhead is the run of files a replay under one configuration starts
// largest first (pipeline.Run): per file, results are counts and
// decisions.
const filesAhead = 2048

// aheadSessionBytes is the replay's memory budget (pipeline.DefaultBudget);
// a variable so that tests can make it small.
var aheadSessionBytes = pipeline.DefaultBudget

// handoverSessionBytes is the replay's pipeline.Plan.Handover: once a
// file's reader is done, the next file may read on past the budget while
// the first file's sessions are replayed, if they hold at most this. Half
// the soft memory limit (internal/memlimit): a session replayed and the
// next file read at once stay under it, where two larger sessions at
// once had the collector run against it (analyze/pipeline/budget.go).
const handoverSessionBytes = 64 << 20

// Replay reads the files, replays every session under the rules and
// returns the report. Output order is the order of files and of sessions
// within a file, whatever the number of jobs.
func Replay(files []string, opt Options) *Report {
	reports, _ := replayAll(files, opt, []*rules.Rules{opt.Rules}, !opt.DropSessions, nil)
	return reports[0]
}

// ReplayAll reads the files once and replays every session under each of
// cfgs, returning one report per configuration (summaries, tools and
// problems: the sessions are left out) and the corpus' facts. early are
// problems found before reading (paths that could not be listed), counted
// first. opt.OnSession receives the first configuration's results;
// opt.Rules and DropSessions are not used.
//
// This is compare's and sweep's replay. Each session is prepared once and
// run under every configuration in turn while its calls are in cache, and
// dropped: memory is bounded as in Replay, whatever the corpus size, where
// holding the prepared corpus took about 2.5 times its size (a 1 GiB
// corpus: 2.5 GB), and the runs of later configurations overlap the reading
// of later files.
func ReplayAll(files []string, opt Options, cfgs []*rules.Rules, early []Problem) ([]*Report, CorpusFacts) {
	opt.Cache = nil // the cache keeps one configuration's results
	return replayAll(files, opt, cfgs, false, early)
}

// sessionRunner is one worker's means to run sessions under several
// configurations: one token cache, and each configuration's rule cache
// (the rules do not change during a run, so the guards of a
// configuration share what they work out from it).
type sessionRunner struct {
	tc     *TokenCache
	caches []*replayfast.RuleCache
}

// run is Run of p under cfgs[k].
func (sr *sessionRunner) run(p *PreparedSession, cfgs []*rules.Rules, k int) (SessionResult, []ToolStat) {
	if sr.caches[k] == nil {
		sr.caches[k] = replayfast.NewRuleCache(cfgs[k])
	}
	sr.tc.rules = sr.caches[k]
	res, tools := Run(p, cfgs[k], sr.tc)
	sr.caches[k] = sr.tc.rules // Run starts a new cache when one grows too big
	return res, tools
}

func replayAll(files []string, opt Options, cfgs []*rules.Rules, keep bool, early []Problem) ([]*Report, CorpusFacts) {
	counter := opt.Tokens
	if counter == nil {
		counter, _ = tokens.New("o200k_base")
	}
	aggs := make([]*Aggregator, len(cfgs))
	for k, r := range cfgs {
		aggs[k] = NewAggregator(r, counter.Name())
		aggs[k].rep.Summary.Files = len(files)
		for _, p := range early {
			aggs[k].AddProblem(p)
		}
	}
	facts := CorpusFacts{Files: len(files), Problems: len(early)}
	// The responses' text is held only when a configuration reads it.
	keepText := opt.Ingest.KeepText
	for _, r := range cfgs {
		keepText = keepText || r.ReadsText()
	}
	// Long results are held as their head alone when no configuration
	// reads every result whole (callfacts.go).
	cut := cutResults(cfgs)
	runners := sync.Pool{New: func() any {
		return &sessionRunner{tc: NewTokenCache(counter), caches: make([]*replayfast.RuleCache, len(cfgs))}
	}}
	var (
		progressMu sync.Mutex
		bytesRead  int64
		done       int
	)
	// fileDone counts a file done for the progress line.
	fileDone := func(size int64) {
		progressMu.Lock()
		defer progressMu.Unlock()
		done++
		bytesRead += size
		if opt.Progress != nil {
			opt.Progress(done, len(files), bytesRead)
		}
	}
	// A file's results under many configurations are as many times
	// larger: fewer files are let ahead of the emitter.
	ahead := max(filesAhead/len(cfgs), 16)
	// The first configuration's results go to the emitter when they are
	// kept or passed on; every configuration's are counted by the worker.
	passOn := keep || opt.OnSession != nil
	slots := make([]*fileResult, len(files))
	scope := ""
	if len(cfgs) != 1 {
		opt.Cache = nil
	} else if opt.Cache != nil {
		scope = cacheScope(opt, cfgs[0], counter.Name())
	}
	plan := pipeline.Plan[SessionResult]{Jobs: opt.Jobs, Window: 2 * ahead, Spill: sessionCodec(), Budget: aheadSessionBytes, Handover: handoverSessionBytes}
	pipeline.Run(files, plan, func(i int, f *pipeline.File[SessionResult]) {
		r := &fileResult{}
		slots[i] = r
		rn := runners.Get().(*sessionRunner)
		defer runners.Put(rn)
		if fi, err := os.Stat(files[i]); err == nil {
			r.bytes = fi.Size()
		}
		r.tally = make([]*Aggregator, len(cfgs))
		for k := range cfgs {
			r.tally[k] = &Aggregator{}
		}
		// Reading and replaying a file run as a two-stage pipeline: while
		// the guard replays one batch of sessions, the next is being
		// parsed. A few batches wait in the channel at most, so memory
		// stays bounded.
		//
		// The bytes the reader takes in are held at the memory budget
		// until the sessions they made are replayed: a batch carries the
		// bytes read since the batch before it.
		in := withWorkers(opt.Ingest, opt.Jobs)
		in.OnRead = f.Read
		in.KeepText = keepText
		if in.CutResult == nil {
			in.CutResult = cut
		}
		fc := newFileCaching(opt, scope, files[i])
		if e := fc.lookup(); e != nil && fc.serve(e, r, f, passOn, in.BytesRead) {
			r.problems = e.problems
			if fc.leftOut() {
				r.problems = problemsLeftOut(r.problems, opt.Ingest)
			}
			f.ReadDone()
			fileDone(r.bytes)
			return
		}
		if fc != nil {
			// The file is replayed whole for its entry; the filters
			// are applied to what it holds (filecache.go).
			in.Keep = nil
		}
		type heldBatch struct {
			sessions []*ingest.Session
			bytes    int64
		}
		sessions := make(chan heldBatch, 2)
		replayed := make(chan struct{})
		go func() {
			for batch := range sessions {
				for j, s := range batch.sessions {
					var cs cachedSession
					kept := true
					if fc != nil {
						cs, kept = digest(s), fc.kept(s)
						fc.seen++
						if kept {
							fc.keptN++
						}
					}
					p := PrepareOn(s, in.Workers)
					batch.sessions[j] = nil // let the session go once prepared
					if kept {
						r.facts.add(p)
					}
					for k := range cfgs {
						estimated := rn.tc.estimated
						res, tools := rn.run(p, cfgs, k)
						if fc != nil {
							cs.estimated, cs.stats, cs.res = rn.tc.estimated-estimated, tools, res
							fc.add(&cs)
						}
						if !kept {
							continue
						}
						r.estimated += rn.tc.estimated - estimated
						r.tally[k].AddSession(res, tools, false)
						if k == 0 && passOn {
							f.Push(res, summarySize(&res))
						}
					}
				}
				f.Release(batch.bytes)
			}
			close(replayed)
		}()
		var batch sessionBatch
		hand := func() { sessions <- heldBatch{batch.take(), f.Taken()} }
		ingest.ReadFile(files[i], in, &ingest.Sink{
			OnSession: func(s *ingest.Session) {
				if batch.add(s) {
					hand()
				}
			},
			OnProblem: r.problems.Add,
		})
		if len(batch.sessions) > 0 {
			hand()
		}
		close(sessions)
		f.ReadDone()
		<-replayed
		r.problems.Close(files[i])
		if fc != nil {
			fc.store(&r.problems)
			if fc.leftOut() {
				r.problems = problemsLeftOut(r.problems, opt.Ingest)
			}
		}
		fileDone(r.bytes)
	}, func(i int, s *SessionResult) {
		if opt.OnSession != nil {
			opt.OnSession(s)
		}
		if keep {
			aggs[0].rep.keepSession(*s, opt.SpillSessions)
		}
	}, func(i int, end pipeline.End) {
		r := slots[i]
		slots[i] = nil
		if end.Lost != nil {
			r.problems.List = append(r.problems.List, Problem{File: files[i],
				Message: fmt.Sprintf("some session results of this file are missing from the report: %v", end.Lost)})
		}
		if end.SpillErr != nil && aggs[0].rep.spillErr == nil {
			aggs[0].rep.spillErr = end.SpillErr
		}
		for k := range cfgs {
			aggs[k].merge(r.tally[k])
			for _, p := range r.problems.List {
				aggs[k].AddProblem(p)
			}
			aggs[k].rep.Summary.Problems += r.problems.Count() - len(r.problems.List)
		}
		if opt.Cache != nil {
			aggs[0].rep.Tokens.EstimatedTexts += r.estimated
		}
		facts.merge(r.facts)
		facts.Problems += r.problems.Count()
		if opt.FileEmitted != nil {
			opt.FileEmitted()
		}
	})
	reports := make([]*Report, len(cfgs))
	for k := range aggs {
		reports[k] = aggs[k].Finish()
	}
	return reports, facts
}

// withWorkers gives in the cores a large file's lines may be decoded on
// (ingest.Options.Workers) when the caller set none: as many as files
// are read at once, so that --jobs 1 decodes nothing on other cores.
func withWorkers(in ingest.Options, jobs int) ingest.Options {
	if in.Workers == 0 {
		in.Workers = jobs
		if jobs <= 0 {
			in.Workers = runtime.NumCPU()
		}
	}
	return in
}

// sessionBatch gathers the sessions a file's reader hands to its replay
// stage, so that a log of many short sessions does not pay a channel
// handoff (and, as often as not, a goroutine wakeup) per session: on a
// log of 200 000 one-request sessions, batching made the jsonl replay
// much faster (docs/performance.md, "Session batches"). A batch is handed on once
// it holds batchSessions sessions or about batchBytes of calls, so a large
// session goes on alone and the pipeline's memory stays bounded as
// before: a few batches wait at most.
type sessionBatch struct {
	sessions []*ingest.Session
	bytes    int
}

const (
	batchSessions = 64
	batchBytes    = 1 << 20
)

// add adds s and reports whether the batch is full.
func (b *sessionBatch) add(s *ingest.Session) bool {
	b.sessions = append(b.sessions, s)
	for _, t := range s.Turns {
		for _, q := range t.Requests {
			for _, c := range q.Calls {
				// A call's own fields and slices count for a little.
				b.bytes += len(c.Result) + len(c.ArgsRaw) + 256
			}
		}
	}
	return len(b.sessions) >= batchSessions || b.bytes >= batchBytes
}

// take returns the sessions gathered and starts a new batch.
func (b *sessionBatch) take() []*ingest.Session {
	out := b.sessions
	*b = sessionBatch{}
	return out
}
