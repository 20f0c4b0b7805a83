package analyze

import (
	"os"
	"runtime"
	"sort"
	"sync"

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
	// Progress, when set, is called after each file with the files done,
	// the total, and the bytes read so far.
	Progress func(done, total int, bytes int64)
	// DropSessions leaves sessions out of the report once they were passed
	// to OnSession (bounded memory for jsonl).
	DropSessions bool
}

type fileResult struct {
	prepared []*PreparedSession
	// sessions[k] and tools[k] are the file's session results under the
	// k-th configuration of the replay.
	sessions [][]SessionResult
	tools    [][][]ToolStat
	facts    CorpusFacts // of the file's sessions
	problems []Problem
	bytes    int64
	done     chan struct{}
}

// forEachFile runs work for every file on jobs workers and then emit for
// each file in the files' order: parallel reading, deterministic output.
// It is the shared skeleton of replay, compare and sweep.
//
// Files are worked on largest first within runs of ahead files in the
// given order (largestFirst), so that one big file does not start last and
// leave the other cores idle at the end; emission still follows the given
// order. Results wait for their turn to be emitted, and at most 2*ahead
// files are started and not yet emitted, which bounds that memory.
//
// Sorting within runs is what makes the bound safe: the emitter waits for
// the earliest file not emitted, and the run holding it is always fully
// started before the window can fill. Sorting all the files by size, as
// before, hung the whole replay once there were more files than the window
// and the first file was not among the largest (TestForEachFileManyFiles).
func forEachFile(files []string, jobs, ahead int, work func(i int, r *fileResult), emit func(i int, r *fileResult)) {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	ahead = max(ahead, 1)
	slots := make([]*fileResult, len(files))
	for i := range slots {
		slots[i] = &fileResult{done: make(chan struct{})}
	}
	order := largestFirst(files, ahead)
	window := make(chan struct{}, 2*ahead)
	next := make(chan int)
	go func() {
		for _, i := range order {
			window <- struct{}{}
			next <- i
		}
		close(next)
	}()
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				work(i, slots[i])
				close(slots[i].done)
			}
		}()
	}
	for i := range slots {
		<-slots[i].done
		emit(i, slots[i])
		slots[i] = nil
		<-window
	}
	wg.Wait()
}

// filesAhead is forEachFile's run of files sorted together for a replay
// under one configuration: per file, results are counts and decisions.
const filesAhead = 2048

// largestFirst returns the indices of files in runs of n in the given
// order, each run ordered by size, largest first (ties and unknown sizes
// keep their order).
func largestFirst(files []string, n int) []int {
	sizes := make([]int64, len(files))
	order := make([]int, len(files))
	for i, f := range files {
		order[i] = i
		if fi, err := os.Stat(f); err == nil {
			sizes[i] = fi.Size()
		}
	}
	for start := 0; start < len(order); start += n {
		run := order[start:min(start+n, len(order))]
		sort.SliceStable(run, func(a, b int) bool { return sizes[run[a]] > sizes[run[b]] })
	}
	return order
}

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
// first. opt.Rules, OnSession and DropSessions are not used.
//
// This is compare's and sweep's replay. Each session is prepared once and
// run under every configuration in turn while its calls are in cache, and
// dropped: memory is bounded as in Replay, whatever the corpus size, where
// holding the prepared corpus took about 2.5 times its size (a 1 GiB
// corpus: 2.5 GB), and the runs of later configurations overlap the reading
// of later files.
func ReplayAll(files []string, opt Options, cfgs []*rules.Rules, early []Problem) ([]*Report, CorpusFacts) {
	return replayAll(files, opt, cfgs, false, early)
}

// sessionRunner is one worker's means to run sessions under several
// configurations: one token cache, and each configuration's rule cache
// (the rules do not change during a run, so the guards of a
// configuration share what they work out from it).
type sessionRunner struct {
	tc     *TokenCache
	caches []*ruleCache
}

// run is Run of p under cfgs[k].
func (sr *sessionRunner) run(p *PreparedSession, cfgs []*rules.Rules, k int) (SessionResult, []ToolStat) {
	if sr.caches[k] == nil {
		sr.caches[k] = newRuleCache(cfgs[k])
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
	runners := sync.Pool{New: func() any {
		return &sessionRunner{tc: NewTokenCache(counter), caches: make([]*ruleCache, len(cfgs))}
	}}
	var bytesRead int64
	done := 0
	// A file's results under many configurations are as many times
	// larger: fewer files are let ahead of the emitter.
	ahead := max(filesAhead/len(cfgs), 16)
	forEachFile(files, opt.Jobs, ahead, func(i int, r *fileResult) {
		rn := runners.Get().(*sessionRunner)
		defer runners.Put(rn)
		if fi, err := os.Stat(files[i]); err == nil {
			r.bytes = fi.Size()
		}
		r.sessions = make([][]SessionResult, len(cfgs))
		r.tools = make([][][]ToolStat, len(cfgs))
		// Reading and replaying a file run as a two-stage pipeline: while
		// the guard replays one session, the next is being parsed. A few
		// sessions wait in the channel at most, so memory stays bounded.
		sessions := make(chan *ingest.Session, 2)
		replayed := make(chan struct{})
		go func() {
			for s := range sessions {
				p := Prepare(s)
				r.facts.add(p)
				for k := range cfgs {
					res, tools := rn.run(p, cfgs, k)
					if !keep && (k > 0 || opt.OnSession == nil) {
						res.Decisions = nil // neither kept nor passed on: only counted
					}
					r.sessions[k] = append(r.sessions[k], res)
					r.tools[k] = append(r.tools[k], tools)
				}
			}
			close(replayed)
		}()
		ingest.ReadFile(files[i], opt.Ingest, &ingest.Sink{
			OnSession: func(s *ingest.Session) { sessions <- s },
			OnProblem: func(p Problem) { r.problems = append(r.problems, p) },
		})
		close(sessions)
		<-replayed
	}, func(i int, r *fileResult) {
		for k := range cfgs {
			for j := range r.sessions[k] {
				if k == 0 && opt.OnSession != nil {
					opt.OnSession(&r.sessions[k][j])
				}
				aggs[k].AddSession(r.sessions[k][j], r.tools[k][j], keep)
			}
			for _, p := range r.problems {
				aggs[k].AddProblem(p)
			}
		}
		facts.merge(r.facts)
		facts.Problems += len(r.problems)
		done++
		bytesRead += r.bytes
		if opt.Progress != nil {
			opt.Progress(done, len(files), bytesRead)
		}
	})
	reports := make([]*Report, len(cfgs))
	for k := range aggs {
		reports[k] = aggs[k].Finish()
	}
	return reports, facts
}

// Aggregator sums session results into a report.
type Aggregator struct {
	rep       Report
	toolIndex map[string]int
}

// NewAggregator starts an empty report for the rules.
func NewAggregator(r *rules.Rules, tokenizer string) *Aggregator {
	a := &Aggregator{toolIndex: map[string]int{}}
	a.rep.Sessions = []SessionResult{}
	a.rep.Tools = []ToolStat{}
	a.rep.Problems = []Problem{}
	if r != nil {
		a.rep.Rules = RulesInfo{Name: r.Name, Source: r.Source}
	}
	a.rep.Tokens.Tokenizer = tokenizer
	return a
}

// AddProblem records an input problem.
func (a *Aggregator) AddProblem(p Problem) {
	a.rep.Problems = append(a.rep.Problems, p)
	a.rep.Summary.Problems++
}

// AddSession adds one session's result (keep=false counts it without
// keeping it in the report).
func (a *Aggregator) AddSession(s SessionResult, tools []ToolStat, keep bool) {
	sum := &a.rep.Summary
	sum.Sessions++
	sum.Turns += s.Turns
	sum.Requests += s.Requests
	sum.Calls += s.Calls
	sum.Steered += s.Steered
	sum.Blocked += s.Blocked
	sum.Deduped += s.Deduped
	sum.Halted += s.Halted
	sum.Redundant += s.Redundant
	sum.RedundantStopped += s.RedundantStopped
	sum.Harmful += s.Harmful
	sum.Native += s.Native
	sum.TokensSaved += s.TokensSaved
	sum.ContextTokensSaved += s.ContextTokensSaved
	sum.SteerTokens += s.SteerTokens
	if s.HasUsage {
		a.rep.Tokens.SessionsWithUsage++
		a.rep.Tokens.RecordedInput += s.RecordedInput
		a.rep.Tokens.RecordedOutput += s.RecordedOutput
	}
	if s.TokensFrom == "usage" {
		a.rep.Tokens.SessionsCalibrated++
	}
	for _, t := range tools {
		i, ok := a.toolIndex[t.Tool]
		if !ok {
			i = len(a.rep.Tools)
			a.toolIndex[t.Tool] = i
			a.rep.Tools = append(a.rep.Tools, ToolStat{Tool: t.Tool, Class: t.Class})
		}
		x := &a.rep.Tools[i]
		x.Calls += t.Calls
		x.Redundant += t.Redundant
		x.Steered += t.Steered
		x.Blocked += t.Blocked
		x.Deduped += t.Deduped
		x.Harmful += t.Harmful
		x.TokensSaved += t.TokensSaved
	}
	if keep {
		a.rep.Sessions = append(a.rep.Sessions, s)
	}
}

// Finish computes precision and recall and sorts the tool table.
func (a *Aggregator) Finish() *Report {
	s := &a.rep.Summary
	s.Precision, s.Recall = PrecisionRecall(s.Blocked+s.Deduped, s.Harmful, s.RedundantStopped, s.Redundant)
	sort.SliceStable(a.rep.Tools, func(i, j int) bool {
		x, y := a.rep.Tools[i], a.rep.Tools[j]
		if x.Calls != y.Calls {
			return x.Calls > y.Calls
		}
		return x.Tool < y.Tool
	})
	return &a.rep
}

// PrecisionRecall applies DESIGN.md's definitions: precision = (stopped -
// harmful) / stopped, recall = redundant calls stopped / redundant calls;
// nil when the denominator is 0.
func PrecisionRecall(stopped, harmful, redundantStopped, redundant int) (precision, recall *float64) {
	if stopped > 0 {
		p := float64(stopped-harmful) / float64(stopped)
		precision = &p
	}
	if redundant > 0 {
		r := float64(redundantStopped) / float64(redundant)
		recall = &r
	}
	return precision, recall
}
