package analyze

import (
	"encoding/json"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/gen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestRunAllMatchesRun: replaying each session under every configuration in
// turn (RunAll, as compare and sweep do) gives, configuration by
// configuration, the report of a Run of that configuration alone, for any
// number of jobs; without keep, the same report but the sessions.
func TestRunAllMatchesRun(t *testing.T) {
	dir := t.TempDir()
	// Seed 6 gives at least 20 sessions in 2 MB (seed 5 gave 18 once issue
	// 26's one-session formats joined the plan).
	if _, err := gen.Generate(dir, gen.Config{Seed: 6, TotalBytes: 2 << 20, MaxFileBytes: 512 << 10, MaxResultBytes: 16 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	files := ingest.Expand([]string{dir}, func(p ingest.Problem) { t.Errorf("%v", p) })
	counter, _ := tokens.New("chars4")
	var cfgs []*rules.Rules
	for _, name := range rules.PresetNames() {
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
	if _, err := gen.Generate(dir, gen.Config{Seed: 8, TotalBytes: 2 << 20, MaxFileBytes: 512 << 10, MaxResultBytes: 16 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	files := ingest.Expand([]string{dir}, func(p ingest.Problem) { t.Errorf("%v", p) })
	files = append(files, dir+"/missing.jsonl") // a problem of the reading
	counter, _ := tokens.New("chars4")
	var cfgs []*rules.Rules
	for _, name := range rules.PresetNames() {
		r, _ := rules.Preset(name)
		cfgs = append(cfgs, r)
	}
	early := []Problem{{File: "x", Message: "could not be listed"}}
	for _, jobs := range []int{1, 3} {
		reports, facts := ReplayAll(files, Options{Tokens: counter, Jobs: jobs}, cfgs, early)
		for k, r := range cfgs {
			want := Replay(files, Options{Rules: r, Tokens: counter, Jobs: 2})
			want.Problems = append(early, want.Problems...)
			want.Summary.Problems += len(early)
			want.Sessions = []SessionResult{}
			got, _ := json.Marshal(reports[k])
			wantJSON, _ := json.Marshal(want)
			if string(got) != string(wantJSON) {
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
