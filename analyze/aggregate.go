package analyze

import (
	"sort"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/rules"
)

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
		a.rep.Rules = RulesInfo{Name: r.Name, Source: r.Source, NotChecked: r.NotReplayed}
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
	sum.StoppedActions += s.StoppedActions
	sum.Native += s.Native
	sum.TokensSaved += s.TokensSaved
	sum.ContextTokensSaved += s.ContextTokensSaved
	sum.SteerTokens += s.SteerTokens
	if s.HasUsage {
		a.rep.Tokens.SessionsWithUsage++
		a.rep.Tokens.RecordedInput = ingest.SaturatingAdd(a.rep.Tokens.RecordedInput, s.RecordedInput)
		a.rep.Tokens.RecordedOutput = ingest.SaturatingAdd(a.rep.Tokens.RecordedOutput, s.RecordedOutput)
	}
	if s.TokensFrom == "usage" {
		a.rep.Tokens.SessionsCalibrated++
	}
	a.addTools(tools)
	if keep {
		a.rep.Sessions = append(a.rep.Sessions, s)
	}
}

// addTools adds per-tool counts to the report's tool table.
func (a *Aggregator) addTools(tools []ToolStat) {
	for _, t := range tools {
		i, ok := a.toolIndex[t.Tool]
		if !ok {
			if a.toolIndex == nil {
				a.toolIndex = map[string]int{}
			}
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
}

// merge adds the counts of b, an Aggregator that kept no sessions and no
// problems (one file's tally), to a. Tools new to a are appended in b's
// order, so merging files' tallies in file order gives the tools the order
// of their first appearance, as adding each session would.
func (a *Aggregator) merge(b *Aggregator) {
	a.rep.Summary.add(&b.rep.Summary, b.rep.Summary.Problems)
	a.rep.Tokens.SessionsWithUsage += b.rep.Tokens.SessionsWithUsage
	a.rep.Tokens.SessionsCalibrated += b.rep.Tokens.SessionsCalibrated
	a.rep.Tokens.RecordedInput = ingest.SaturatingAdd(a.rep.Tokens.RecordedInput, b.rep.Tokens.RecordedInput)
	a.rep.Tokens.RecordedOutput = ingest.SaturatingAdd(a.rep.Tokens.RecordedOutput, b.rep.Tokens.RecordedOutput)
	a.addTools(b.rep.Tools)
}

// add adds t's counts to s, all but Files and the first skipProblems of
// its Problems (those s already counts). Ratios are left for
// computeRates.
func (s *Summary) add(t *Summary, skipProblems int) {
	s.Files += t.Files
	s.Sessions += t.Sessions
	s.Turns += t.Turns
	s.Requests += t.Requests
	s.Calls += t.Calls
	s.Steered += t.Steered
	s.Blocked += t.Blocked
	s.Deduped += t.Deduped
	s.Halted += t.Halted
	s.Redundant += t.Redundant
	s.RedundantStopped += t.RedundantStopped
	s.Harmful += t.Harmful
	s.StoppedActions += t.StoppedActions
	s.Native += t.Native
	s.TokensSaved += t.TokensSaved
	s.ContextTokensSaved += t.ContextTokensSaved
	s.SteerTokens += t.SteerTokens
	s.Problems += t.Problems - skipProblems
}

// computeRates sets precision and recall from the counts.
func (s *Summary) computeRates() {
	s.Precision, s.Recall = PrecisionRecall(s.Blocked+s.Deduped-s.StoppedActions, s.Harmful, s.RedundantStopped, s.Redundant)
}

// Finish computes precision and recall and sorts the tool table.
func (a *Aggregator) Finish() *Report {
	a.rep.Summary.computeRates()
	sort.SliceStable(a.rep.Tools, func(i, j int) bool {
		x, y := a.rep.Tools[i], a.rep.Tools[j]
		if x.Calls != y.Calls {
			return x.Calls > y.Calls
		}
		return x.Tool < y.Tool
	})
	return &a.rep
}

// PrecisionRecall applies the definitions of docs/cli.md: precision = (stopped -
// harmful) / stopped, where stopped counts the stopped observations (not
// the stopped actions), recall = redundant calls stopped / redundant calls;
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
