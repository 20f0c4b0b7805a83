package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze"
)

// The replay page: summary cards, stops and tokens saved per day, one
// timeline per session, per-tool bars, the decisions table and the input
// problems (docs/html.md).
//
// The page lists the top sessions (ranked by harmful stops, then stops,
// steers, redundant calls and tokens saved) and their decisions, as many as
// fit in HTMLMaxBytes; what it leaves out is totalled in "rest" and said on
// the page. Sessions are read once, in a stream (a spilled report's come
// from disk), and only the top ones are kept.

// Caps before the size budget applies: beyond these a page is more than
// anyone reads, however small it would be.
const (
	htmlMaxSessions  = 400
	htmlMaxDecisions = 5000
	htmlMaxTools     = 40
	htmlMaxProblems  = 500
	// htmlMaxMarks bounds one session's timeline: a longer session is
	// drawn with each mark standing for several calls (the worst of them).
	htmlMaxMarks = 4000
	// htmlArgsChars and htmlMessageChars cut arguments and guard messages
	// for the page (the JSON report keeps more).
	htmlArgsChars    = 160
	htmlMessageChars = 240
)

type htmlReplay struct {
	Rules     analyze.RulesInfo  `json:"rules"`
	Tokens    analyze.TokensInfo `json:"tokens"`
	Summary   htmlSummary        `json:"summary"`
	Days      []htmlDay          `json:"days"`
	Sessions  []htmlSession      `json:"sessions"`
	Rest      htmlRest           `json:"rest"`
	Tools     []analyze.ToolStat `json:"tools"`
	ToolsRest htmlToolsRest      `json:"tools_rest"`
	Decisions []htmlDecision     `json:"decisions"`
	// DecisionsTotal counts every decision of the replay, listed or not.
	DecisionsTotal int               `json:"decisions_total"`
	Problems       []analyze.Problem `json:"problems"`
}

// htmlSummary is the report's summary with the figures the cards add.
type htmlSummary struct {
	analyze.Summary
	// Stopped counts blocked, deduped and halted calls.
	Stopped int `json:"stopped"`
}

// htmlDay totals the sessions that started on one day (UTC).
type htmlDay struct {
	Day         string `json:"day"`
	Sessions    int    `json:"sessions"`
	Stops       int    `json:"stops"`
	Harmful     int    `json:"harmful"`
	TokensSaved int64  `json:"tokens_saved"`
}

type htmlSession struct {
	ID string `json:"id"`
	// Selector tells apart the sessions of one file (main and subagents):
	// the page names a session by it.
	Selector    string `json:"selector"`
	File        string `json:"file"`
	Agent       string `json:"agent"`
	Format      string `json:"format"`
	StartedAt   string `json:"started_at,omitempty"`
	Calls       int    `json:"calls"`
	Steered     int    `json:"steered"`
	Stopped     int    `json:"stopped"`
	Harmful     int    `json:"harmful"`
	Redundant   int    `json:"redundant"`
	TokensSaved int64  `json:"tokens_saved"`
	// Marks is the timeline run-length encoded: a mark (analyze.Mark*)
	// then how many times it repeats, "." for allowed: ".12B1.3".
	Marks string `json:"marks"`
	// PerMark is how many calls each mark stands for (1 unless the
	// session is longer than htmlMaxMarks).
	PerMark int `json:"per_mark"`
}

// htmlRest totals what the page does not list.
type htmlRest struct {
	Sessions    int   `json:"sessions"`
	Calls       int   `json:"calls"`
	Steered     int   `json:"steered"`
	Stopped     int   `json:"stopped"`
	Harmful     int   `json:"harmful"`
	Redundant   int   `json:"redundant"`
	TokensSaved int64 `json:"tokens_saved"`
	Decisions   int   `json:"decisions"`
	Problems    int   `json:"problems"`
}

type htmlToolsRest struct {
	Tools int `json:"tools"`
	Calls int `json:"calls"`
}

type htmlDecision struct {
	// Session is the index of the decision's session in Sessions.
	Session            int    `json:"session"`
	Turn               int    `json:"turn"`
	Call               int    `json:"call"`
	Line               int    `json:"line"`
	Tool               string `json:"tool"`
	Class              string `json:"class"`
	Args               string `json:"args"`
	Action             string `json:"action"`
	Detector           string `json:"detector"`
	Count              int    `json:"count"`
	Message            string `json:"message"`
	Redundant          bool   `json:"redundant"`
	Harmful            bool   `json:"harmful"`
	StoppedAction      bool   `json:"stopped_action"`
	Native             string `json:"native,omitempty"`
	TokensSaved        int64  `json:"tokens_saved"`
	ContextTokensSaved int64  `json:"context_tokens_saved"`
	Repeats            int    `json:"repeats,omitempty"`
}

// HTML writes the replay report as one self-contained page.
func HTML(w io.Writer, rep *analyze.Report, opt Options) error {
	top, days, decisionsTotal, err := collectHTMLSessions(rep, opt)
	if err != nil {
		return err
	}
	base := htmlReplay{
		Rules: preparedRules(rep.Rules, opt), Tokens: rep.Tokens,
		Summary:        htmlSummary{Summary: rep.Summary, Stopped: rep.Summary.Blocked + rep.Summary.Deduped + rep.Summary.Halted},
		Days:           days,
		DecisionsTotal: decisionsTotal,
	}
	base.Tools, base.ToolsRest = htmlTools(preparedTools(rep.Tools, opt))
	problems := preparedProblems(rep.Problems, opt)
	if len(problems) > htmlMaxProblems {
		problems = problems[:htmlMaxProblems]
	}
	base.Problems = problems

	title := "loopgate replay: " + rep.Rules.Name
	sub := fmt.Sprintf("Rules %s (%s), tokens counted with %s. %s files, %s sessions, %s calls.",
		rep.Rules.Name, rep.Rules.Source, rep.Tokens.Tokenizer,
		thousands(int64(rep.Summary.Files)), thousands(int64(rep.Summary.Sessions)), thousands(int64(rep.Summary.Calls)))
	if len(rep.Rules.NotChecked) > 0 {
		sub += " Not checked in any session: " + strings.Join(rep.Rules.NotChecked, "; ") + "."
	}
	if opt.Redact {
		title, sub = Redact(title), Redact(sub)
	}
	// Fit the budget: halve what is listed until the page fits.
	budget := htmlBudget - htmlShellBytes() - len(title) - len(sub)
	nSessions, nDecisions := len(top), htmlMaxDecisions
	for {
		page := base
		page.Sessions, page.Decisions, page.Rest = listHTML(top, nSessions, nDecisions, rep.Summary, decisionsTotal)
		page.Rest.Problems = rep.Summary.Problems - len(page.Problems)
		data, err := htmlJSON(page)
		if err != nil {
			return err
		}
		if len(data) <= budget || (nSessions == 0 && nDecisions == 0 && len(page.Problems) == 0) {
			return writeHTMLPage(w, "replay", title, sub, data)
		}
		switch {
		case nDecisions > 0 && nDecisions >= nSessions:
			nDecisions /= 2
		case nSessions > 0:
			nSessions /= 2
		default:
			base.Problems = base.Problems[:len(base.Problems)/2]
		}
	}
}

// rankedSession is a session kept for the page, with its rank.
type rankedSession struct {
	s   analyze.SessionResult // prepared: redacted, abbreviated
	seq int                   // order in the report, to break ties
}

func sessionRank(s *analyze.SessionResult) [6]int64 {
	return [6]int64{int64(s.Harmful), int64(s.Blocked + s.Deduped + s.Halted), int64(s.Steered),
		int64(s.Redundant), s.TokensSaved, int64(s.Calls)}
}

func ranksBefore(a, b *rankedSession) bool {
	ra, rb := sessionRank(&a.s), sessionRank(&b.s)
	for i := range ra {
		if ra[i] != rb[i] {
			return ra[i] > rb[i]
		}
	}
	return a.seq < b.seq
}

// collectHTMLSessions reads the sessions once: it keeps the top
// htmlMaxSessions (prepared for showing), totals stops and savings per
// day, and counts the decisions.
func collectHTMLSessions(rep *analyze.Report, opt Options) ([]rankedSession, []htmlDay, int, error) {
	var top []rankedSession
	byDay := map[string]*htmlDay{}
	decisions, seq := 0, 0
	// floor is the lowest session kept at the last trim, once top was
	// full: a session that does not rank before it cannot make the list.
	var floor *rankedSession
	trim := func() {
		sort.SliceStable(top, func(i, j int) bool { return ranksBefore(&top[i], &top[j]) })
		if len(top) >= htmlMaxSessions {
			top = top[:htmlMaxSessions]
			last := top[len(top)-1]
			floor = &last
		}
	}
	err := rep.EachSession(func(s *analyze.SessionResult) error {
		seq++
		decisions += len(s.Decisions)
		if day := sessionDay(s); day != "" {
			d := byDay[day]
			if d == nil {
				d = &htmlDay{Day: day}
				byDay[day] = d
			}
			d.Sessions++
			d.Stops += s.Blocked + s.Deduped + s.Halted
			d.Harmful += s.Harmful
			d.TokensSaved += s.TokensSaved
		}
		if floor != nil && !ranksBefore(&rankedSession{s: *s, seq: seq}, floor) {
			return nil
		}
		// preparedSession copies what it keeps: the caller may reuse s.
		top = append(top, rankedSession{s: preparedSession(s, opt), seq: seq})
		if len(top) >= 2*htmlMaxSessions {
			trim()
		}
		return nil
	})
	trim()
	days := make([]htmlDay, 0, len(byDay))
	for _, d := range byDay {
		days = append(days, *d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Day < days[j].Day })
	return top, days, decisions, err
}

// sessionDay is the UTC day a session started, "" when its transcript has
// no times (started_at is RFC 3339 in UTC: its first ten bytes are the
// day).
func sessionDay(s *analyze.SessionResult) string {
	if len(s.StartedAt) < len("2006-01-02") {
		return ""
	}
	return s.StartedAt[:len("2006-01-02")]
}

// listHTML lists the first n sessions of top, and up to maxDecisions of
// their decisions (the most telling first: harmful, stopped, steered,
// redundant, the agent's own), and totals the rest.
func listHTML(top []rankedSession, n, maxDecisions int, sum analyze.Summary, decisionsTotal int) ([]htmlSession, []htmlDecision, htmlRest) {
	n = min(n, len(top))
	sessions := make([]htmlSession, 0, n)
	decisions := []htmlDecision{}
	rest := htmlRest{Sessions: sum.Sessions, Calls: sum.Calls, Steered: sum.Steered,
		Stopped: sum.Blocked + sum.Deduped + sum.Halted, Harmful: sum.Harmful,
		Redundant: sum.Redundant, TokensSaved: sum.TokensSaved, Decisions: decisionsTotal}
	for i := 0; i < n; i++ {
		s := &top[i].s
		hs := htmlSession{ID: s.ID, Selector: selectorOf(s), File: s.File, Agent: s.Agent, Format: s.Format, StartedAt: s.StartedAt, Calls: s.Calls,
			Steered: s.Steered, Stopped: s.Blocked + s.Deduped + s.Halted, Harmful: s.Harmful,
			Redundant: s.Redundant, TokensSaved: s.TokensSaved}
		hs.Marks, hs.PerMark = encodeMarks(s.Timeline, htmlMaxMarks)
		sessions = append(sessions, hs)
		rest.Sessions--
		rest.Calls -= s.Calls
		rest.Steered -= s.Steered
		rest.Stopped -= hs.Stopped
		rest.Harmful -= s.Harmful
		rest.Redundant -= s.Redundant
		rest.TokensSaved -= s.TokensSaved
		for j := range s.Decisions {
			d := &s.Decisions[j]
			decisions = append(decisions, htmlDecision{Session: i, Turn: d.Turn, Call: d.Call, Line: d.Line,
				Tool: d.Tool, Class: d.Class, Args: AbbreviateArgs(d.Args, htmlArgsChars), Action: d.Action.String(),
				Detector: d.Detector, Count: d.Count, Message: AbbreviateArgs(d.Message, htmlMessageChars),
				Redundant: d.Redundant, Harmful: d.Harmful, StoppedAction: d.StoppedAction, Native: d.Native,
				TokensSaved: d.TokensSaved, ContextTokensSaved: d.ContextTokensSaved, Repeats: d.Repeats})
		}
	}
	if len(decisions) > maxDecisions {
		sort.SliceStable(decisions, func(i, j int) bool { return decisionWeight(&decisions[i]) > decisionWeight(&decisions[j]) })
		decisions = decisions[:maxDecisions]
		sort.SliceStable(decisions, func(i, j int) bool {
			a, b := &decisions[i], &decisions[j]
			if a.Session != b.Session {
				return a.Session < b.Session
			}
			return a.Call < b.Call
		})
	}
	rest.Decisions -= len(decisions)
	return sessions, decisions, rest
}

// decisionWeight orders decisions by what a reader must see first.
func decisionWeight(d *htmlDecision) int {
	switch {
	case d.Harmful, d.StoppedAction:
		return 5
	case d.Action == "block" || d.Action == "dedup" || d.Action == "halt":
		return 4
	case d.Action == "steer":
		return 3
	case d.Redundant:
		return 2
	}
	return 1
}

// markWeight orders timeline marks when one mark stands for several calls:
// the one drawn is the one a reader must see first.
func markWeight(m byte) int {
	switch m {
	case analyze.MarkHarmful:
		return 7
	case analyze.MarkBlock, analyze.MarkDedup, analyze.MarkHalt:
		return 6
	case analyze.MarkSteer:
		return 5
	case analyze.MarkRedundant:
		return 4
	case analyze.MarkNative:
		return 3
	}
	return 1
}

// encodeMarks run-length encodes a timeline without its turn separators.
// A timeline of more than maxMarks calls is drawn with each mark standing
// for perMark calls, the weightiest of them.
func encodeMarks(timeline string, maxMarks int) (marks string, perMark int) {
	calls := make([]byte, 0, len(timeline))
	for i := 0; i < len(timeline); i++ {
		switch c := timeline[i]; c {
		case analyze.TurnSeparator:
		case analyze.MarkRedundant, analyze.MarkSteer, analyze.MarkBlock, analyze.MarkDedup,
			analyze.MarkHalt, analyze.MarkHarmful, analyze.MarkNative:
			calls = append(calls, c)
		default:
			// Allowed, or a byte that is no mark (a report merged from
			// hand-edited JSON): drawn as allowed, so that the page's
			// run-length code stays one mark then digits.
			calls = append(calls, analyze.MarkAllow)
		}
	}
	perMark = 1
	if maxMarks > 0 && len(calls) > maxMarks {
		perMark = (len(calls) + maxMarks - 1) / maxMarks
		merged := make([]byte, 0, maxMarks)
		for i := 0; i < len(calls); i += perMark {
			m := calls[i]
			for _, c := range calls[i:min(i+perMark, len(calls))] {
				if markWeight(c) > markWeight(m) {
					m = c
				}
			}
			merged = append(merged, m)
		}
		calls = merged
	}
	var b strings.Builder
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && calls[j] == calls[i] {
			j++
		}
		b.WriteByte(calls[i])
		b.WriteString(strconv.Itoa(j - i))
		i = j
	}
	return b.String(), perMark
}

// htmlTools keeps the tools with the most calls and totals the others.
func htmlTools(ts []analyze.ToolStat) ([]analyze.ToolStat, htmlToolsRest) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Calls > ts[j].Calls })
	var rest htmlToolsRest
	if len(ts) > htmlMaxTools {
		for _, t := range ts[htmlMaxTools:] {
			rest.Tools++
			rest.Calls += t.Calls
		}
		ts = ts[:htmlMaxTools]
	}
	return ts, rest
}
