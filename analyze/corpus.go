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
	sessions []SessionResult
	tools    [][]ToolStat
	problems []Problem
	bytes    int64
	done     chan struct{}
}

// forEachFile runs work for every file on jobs workers and then emit for
// each file in the files' order: parallel reading, deterministic output.
// It is the shared skeleton of replay, compare and sweep.
//
// Files are worked on largest first, so that one big file does not start
// last and leave the other cores idle at the end; emission still follows
// the given order. Results wait for their turn to be emitted; they are small
// (counts and decisions), and at most maxAhead files can be finished ahead
// of the emitter, which bounds that memory.
func forEachFile(files []string, jobs int, work func(i int, r *fileResult), emit func(i int, r *fileResult)) {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	slots := make([]*fileResult, len(files))
	for i := range slots {
		slots[i] = &fileResult{done: make(chan struct{})}
	}
	order := largestFirst(files)
	const maxAhead = 4096
	window := make(chan struct{}, max(maxAhead, jobs*4))
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

// largestFirst returns the indices of files ordered by size, largest first
// (ties and unknown sizes keep their order).
func largestFirst(files []string) []int {
	sizes := make([]int64, len(files))
	order := make([]int, len(files))
	for i, f := range files {
		order[i] = i
		if fi, err := os.Stat(f); err == nil {
			sizes[i] = fi.Size()
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] > sizes[order[b]] })
	return order
}

// Replay reads the files, replays every session under the rules and
// returns the report. Output order is the order of files and of sessions
// within a file, whatever the number of jobs.
func Replay(files []string, opt Options) *Report {
	counter := opt.Tokens
	if counter == nil {
		counter, _ = tokens.New("o200k_base")
	}
	agg := NewAggregator(opt.Rules, counter.Name())
	agg.rep.Summary.Files = len(files)
	caches := sync.Pool{New: func() any { return NewTokenCache(counter) }}
	var bytesRead int64
	done := 0
	forEachFile(files, opt.Jobs, func(i int, r *fileResult) {
		tc := caches.Get().(*TokenCache)
		defer caches.Put(tc)
		if fi, err := os.Stat(files[i]); err == nil {
			r.bytes = fi.Size()
		}
		// Reading and replaying a file run as a two-stage pipeline: while
		// the guard replays one session, the next is being parsed. A few
		// sessions wait in the channel at most, so memory stays bounded.
		sessions := make(chan *ingest.Session, 2)
		replayed := make(chan struct{})
		go func() {
			for s := range sessions {
				sr, tools := Run(Prepare(s), opt.Rules, tc)
				r.sessions = append(r.sessions, sr)
				r.tools = append(r.tools, tools)
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
		for j := range r.sessions {
			if opt.OnSession != nil {
				opt.OnSession(&r.sessions[j])
			}
			agg.AddSession(r.sessions[j], r.tools[j], !opt.DropSessions)
		}
		for _, p := range r.problems {
			agg.AddProblem(p)
		}
		done++
		bytesRead += r.bytes
		if opt.Progress != nil {
			opt.Progress(done, len(files), bytesRead)
		}
	})
	return agg.Finish()
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
