package analyze

import (
	"encoding/json"
	"runtime"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/analyze/pipeline"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// Corpus is a set of prepared sessions held in memory, for tests and
// benchmarks that replay many rule configurations over one reading of the
// files. compare and sweep stream instead (ReplayAll: bounded memory). Token counts of results are computed the first time a run needs
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
	problems := make([][]Problem, len(files))
	plan := pipeline.Plan[*PreparedSession]{Jobs: opt.Jobs, Window: 2 * filesAhead}
	pipeline.Run(files, plan, func(i int, f *pipeline.File[*PreparedSession]) {
		ingest.ReadFile(files[i], opt.Ingest, &ingest.Sink{
			OnSession: func(s *ingest.Session) { f.Push(Prepare(s), 0) },
			OnProblem: func(p Problem) { problems[i] = append(problems[i], p) },
		})
	}, func(_ int, p **PreparedSession) {
		c.Sessions = append(c.Sessions, *p)
	}, func(i int, _ pipeline.End) {
		c.Problems = append(c.Problems, problems[i]...)
		problems[i] = nil
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
			rn := &sessionRunner{tc: NewTokenCache(counter), caches: make([]*replayfast.RuleCache, len(cfgs))}
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

// Facts returns the corpus' rules-independent facts.
func (c *Corpus) Facts() CorpusFacts {
	f := CorpusFacts{Files: c.Files, Problems: len(c.Problems)}
	for _, p := range c.Sessions {
		f.add(p)
	}
	return f
}

// TestRunAllMatchesRun: replaying each session under every configuration in
// turn (RunAll, as compare and sweep do) gives, configuration by
// configuration, the report of a Run of that configuration alone, for any
// number of jobs; without keep, the same report but the sessions.
func TestRunAllMatchesRun(t *testing.T) {
	dir := t.TempDir()
	// Seed 6 gives at least 20 sessions in 2 MB (seed 5 gave 18 once issue
	// 26's one-session formats joined the plan).
	if _, err := corpusgen.Generate(dir, corpusgen.Config{Seed: 6, TotalBytes: 2 << 20, MaxFileBytes: 512 << 10, MaxResultBytes: 16 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	files := ingest.Expand([]string{dir}, func(p ingest.Problem) { t.Errorf("%v", p) })
	counter, _ := tokens.New("chars4")
	var cfgs []*rules.Rules
	for _, name := range tierPresets() {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, r)
	}
	dump := func(r *Report) string {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Each Run on a corpus of its own: no key index or token count cached
	// by another configuration's run.
	var want []string
	for _, r := range cfgs {
		want = append(want, dump(LoadCorpus(files, Options{Jobs: 2}).Run(r, counter, 1)))
	}
	for _, jobs := range []int{1, 3} {
		corpus := LoadCorpus(files, Options{Jobs: 2})
		calls := 0
		reports := corpus.RunAll(cfgs, counter, jobs, true, func(done, total int) {
			calls++
			if done != calls || total != len(corpus.Sessions) {
				t.Fatalf("progress %d/%d after %d calls (%d sessions)", done, total, calls, len(corpus.Sessions))
			}
		})
		if calls != len(corpus.Sessions) || len(corpus.Sessions) < 20 {
			t.Fatalf("progress told %d times for %d sessions", calls, len(corpus.Sessions))
		}
		for k, rep := range reports {
			if got := dump(rep); got != want[k] {
				t.Errorf("jobs %d, %s: RunAll's report differs from Run's", jobs, cfgs[k].Name)
			}
		}
		lean := corpus.RunAll(cfgs, counter, jobs, false, nil)
		for k, rep := range lean {
			got, _ := json.Marshal(rep.Summary)
			want, _ := json.Marshal(reports[k].Summary)
			if len(rep.Sessions) != 0 || string(got) != string(want) {
				t.Errorf("jobs %d, %s: without keep, %d sessions kept or another summary", jobs, cfgs[k].Name, len(rep.Sessions))
			}
		}
	}
}

// TestReplayAllMatchesReplay: compare's and sweep's streaming replay gives
// each configuration the summary, tools and problems of a Replay under it
// alone, early problems counted first, and the facts of the corpus read
// into memory.
func TestReplayAllMatchesReplay(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Config{Seed: 8, TotalBytes: 2 << 20, MaxFileBytes: 512 << 10, MaxResultBytes: 16 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	files := ingest.Expand([]string{dir}, func(p ingest.Problem) { t.Errorf("%v", p) })
	files = append(files, dir+"/missing.jsonl") // a problem of the reading
	counter, _ := tokens.New("chars4")
	var cfgs []*rules.Rules
	for _, name := range tierPresets() {
		r, _ := rules.Preset(name)
		cfgs = append(cfgs, r)
	}
	early := []Problem{{File: "x", Message: "could not be listed"}}
	// Each configuration's Replay alone, the same for every jobs below.
	wants := make([]string, len(cfgs))
	for k, r := range cfgs {
		want := Replay(files, Options{Rules: r, Tokens: counter, Jobs: 2})
		want.Problems = append(append([]Problem{}, early...), want.Problems...)
		want.Summary.Problems += len(early)
		want.Sessions = []SessionResult{}
		wantJSON, _ := json.Marshal(want)
		wants[k] = string(wantJSON)
	}
	for _, jobs := range []int{1, 3} {
		reports, facts := ReplayAll(files, Options{Tokens: counter, Jobs: jobs}, cfgs, early)
		for k, r := range cfgs {
			got, _ := json.Marshal(reports[k])
			if string(got) != wants[k] {
				t.Errorf("jobs %d, %s: ReplayAll's report differs from Replay's", jobs, r.Name)
			}
		}
		c := LoadCorpus(files, Options{Jobs: 2})
		c.Problems = append(early, c.Problems...)
		if wantFacts := c.Facts(); facts != wantFacts || facts.Problems < 2 || facts.Sessions < 20 {
			t.Errorf("jobs %d: facts %+v, the corpus in memory %+v", jobs, facts, wantFacts)
		}
	}
}

// tierPresets is every preset, or under -short every fifth (four presets
// of different families), for the tests that compare runs under every
// preset.
func tierPresets() []string {
	names := rules.PresetNames()
	if !testing.Short() {
		return names
	}
	var some []string
	for i := 0; i < len(names); i += 5 {
		some = append(some, names[i])
	}
	return some
}
