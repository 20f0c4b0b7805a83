package gate

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
)

// Run replays every case and checks it. The error is for a gate file
// that is wrong in a way only the replay shows (a calls entry naming no
// session) and for snapshots that cannot be read or written: exit 2.
func Run(g *Gate, opt Options) (*Result, error) {
	start := time.Now()
	res := &Result{File: g.File}
	counters := map[string]tokens.Counter{}
	for _, c := range g.Cases {
		caseStart := time.Now()
		counter, ok := counters[c.Tokenizer]
		if !ok {
			var err error
			if counter, err = tokens.New(c.Tokenizer); err != nil {
				return nil, errorf(g.File, c.Line, "%v", err)
			}
			counters[c.Tokenizer] = counter
		}
		var early []analyze.Problem
		// What a glob matched is read as a walk would read it: no device,
		// no link out of the gate file's tree (nor to a device).
		var matched []string
		for _, f := range c.Files {
			if why := ingest.CheckMatch(f, filepath.Dir(g.File)); why != "" {
				early = append(early, analyze.Problem{File: f, Message: why})
				continue
			}
			matched = append(matched, f)
		}
		files := ingest.Expand(matched, func(p analyze.Problem) { early = append(early, p) })
		rep := analyze.Replay(files, analyze.Options{Rules: c.Rules, Tokens: counter, Jobs: opt.Jobs, Ingest: ingest.Options{MaxRecord: opt.MaxRecord}})
		rep.Problems = append(early, rep.Problems...)
		rep.Summary.Problems += len(early)
		cr := CaseResult{Case: c, Report: rep}
		cr.Failures = append(cr.Failures, checkSummary(c, rep)...)
		calls, err := checkCalls(g.File, c, rep)
		if err != nil {
			return nil, err
		}
		cr.Failures = append(cr.Failures, calls...)
		if c.Snapshot != "" && opt.SnapshotText != nil {
			// The file name comes from the case name, by default the
			// transcript's path: redacted as the snapshot's text is.
			c.Snapshot = filepath.Join(filepath.Dir(c.Snapshot), slug(opt.SnapshotText(c.Name))+".golden")
		}
		if c.Snapshot != "" {
			snap := makeSnapshot(g, c, rep, opt.SnapshotArgs, opt.SnapshotText)
			if opt.Update {
				written, err := writeSnapshot(filepath.Dir(g.File), c.Snapshot, snap)
				if err != nil {
					return nil, err
				}
				cr.SnapshotWritten = written
			} else {
				fails, missing, err := checkSnapshot(g, c, snap)
				if err != nil {
					return nil, err
				}
				cr.SnapshotMissing = missing
				cr.Failures = append(cr.Failures, fails...)
			}
		}
		cr.Duration = time.Since(caseStart)
		res.Cases = append(res.Cases, cr)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// FormatNumber prints a summary value: integers as integers, fractions
// with up to 4 decimals, null as "null".
func FormatNumber(v *float64) string {
	if v == nil {
		return "null"
	}
	switch {
	case math.IsInf(*v, 0) || math.IsNaN(*v):
		return strconv.FormatFloat(*v, 'g', -1, 64)
	case *v == math.Trunc(*v) && math.Abs(*v) < 1e15:
		return strconv.FormatInt(int64(*v), 10)
	case *v == math.Trunc(*v):
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(*v*1e4)/1e4, 'f', -1, 64)
}

func compare(op string, actual, want float64) bool {
	const eps = 1e-9
	switch op {
	case "==":
		return math.Abs(actual-want) <= eps
	case "!=":
		return math.Abs(actual-want) > eps
	case ">=":
		return actual >= want-eps
	case "<=":
		return actual <= want+eps
	case ">":
		return actual > want+eps
	case "<":
		return actual < want-eps
	}
	return false
}

func checkSummary(c *Case, rep *analyze.Report) []Failure {
	var out []Failure
	for _, e := range c.Expect {
		actual := summaryValue(&rep.Summary, e.Field)
		ok := false
		var msg string
		switch {
		case e.Value == nil && e.Op == "==":
			ok = actual == nil
			msg = fmt.Sprintf("%s: expected null, got %s", e.Field, FormatNumber(actual))
		case e.Value == nil:
			ok = actual != nil
			msg = fmt.Sprintf("%s: expected a number (!= null), got null (%s)", e.Field, nullReason(e.Field))
		case actual == nil:
			msg = fmt.Sprintf("%s: expected %s, got null (%s); a null value fails every numeric comparison", e.Field, opText(e), nullReason(e.Field))
		default:
			ok = compare(e.Op, *actual, *e.Value)
			msg = fmt.Sprintf("%s: expected %s, got %s", e.Field, opText(e), FormatNumber(actual))
		}
		if ok {
			continue
		}
		f := Failure{Kind: FailExpect, Message: msg, Field: e.Field, Expected: opText(e), Actual: FormatNumber(actual), GateLine: e.Line}
		anchorSummary(&f, rep, e.Field, c)
		out = append(out, f)
	}
	if !c.expectsProblems && rep.Summary.Problems > 0 {
		p := rep.Problems[0]
		f := Failure{Kind: FailProblems, Field: "problems", Expected: "0", Actual: strconv.Itoa(rep.Summary.Problems), GateLine: c.Line, File: p.File, Line: p.Line,
			Message: fmt.Sprintf("problems: the transcripts must read cleanly, got %d input problem(s), first %s:%d: %s (add problems: %d under expect to accept them)",
				rep.Summary.Problems, p.File, p.Line, p.Message, rep.Summary.Problems)}
		if f.File == "" && len(c.Files) > 0 {
			f.File = c.Files[0]
		}
		out = append(out, f)
	}
	return out
}

func opText(e Expectation) string {
	if e.Op == "==" {
		return FormatNumber(e.Value)
	}
	return e.Op + " " + FormatNumber(e.Value)
}

func nullReason(field string) string {
	switch field {
	case "precision":
		return "no observation call was blocked or deduped"
	case "recall":
		return "no call was redundant"
	}
	return "no value"
}

// anchorSummary points a summary failure at the first decision that
// explains it (the first block for "blocked", the first harmful stop for
// "harmful", ...), else at the first transcript's line 1.
func anchorSummary(f *Failure, rep *analyze.Report, field string, c *Case) {
	match := func(d *analyze.Decision) bool {
		switch field {
		case "steered":
			return d.Action == guard.Steer
		case "blocked":
			return d.Action == guard.Block
		case "deduped":
			return d.Action == guard.Dedup
		case "halted":
			return d.Action == guard.Halt
		case "harmful":
			return d.Harmful
		case "stopped_actions":
			return d.StoppedAction
		case "redundant", "redundant_stopped", "recall":
			return d.Redundant
		case "native":
			return d.Native != ""
		}
		return d.Action != guard.Allow
	}
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		for j := range s.Decisions {
			if d := &s.Decisions[j]; match(d) {
				f.File, f.Line, f.Session, f.Call = s.File, d.Line, s.ID, d.Call
				f.Action, f.Detector = d.Action.String(), d.Detector
				return
			}
		}
	}
	if len(rep.Sessions) > 0 {
		f.File, f.Session = rep.Sessions[0].File, rep.Sessions[0].ID
		return
	}
	if len(c.Files) > 0 {
		f.File = c.Files[0]
	}
}

// sessionMatches: a calls entry's session names a session by id, by
// selector (ID/AGENT: one subagent of a Claude Code file), by file
// (as resolved, relative to the gate file, or its base name).
func sessionMatches(gateDir string, s *analyze.SessionResult, name string) bool {
	if name == s.ID || name == s.Selector || name == s.File || filepath.ToSlash(name) == filepath.ToSlash(s.File) || name == filepath.Base(s.File) {
		return true
	}
	if rel, err := filepath.Rel(gateDir, s.File); err == nil && filepath.ToSlash(rel) == filepath.ToSlash(name) {
		return true
	}
	return false
}

func checkCalls(gateFile string, c *Case, rep *analyze.Report) ([]Failure, error) {
	var out []Failure
	gateDir := filepath.Dir(gateFile)
	for _, ce := range c.Calls {
		var s *analyze.SessionResult
		var ids []string
		matched := 0
		for i := range rep.Sessions {
			x := &rep.Sessions[i]
			ids = append(ids, x.Selector)
			if ce.Session == "" || sessionMatches(gateDir, x, ce.Session) {
				s = x
				matched++
			}
		}
		if matched > 1 && ce.Session != "" {
			// An id names the main scope and its subagents; the main
			// one (whose selector is the id) is the one meant.
			for i := range rep.Sessions {
				if rep.Sessions[i].Selector == ce.Session {
					s, matched = &rep.Sessions[i], 1
				}
			}
		}
		if matched > 1 {
			which := "say which one with session: (its selector or file)"
			if ce.Session != "" {
				which = fmt.Sprintf("session %q names %d of them; use the session id", ce.Session, matched)
			}
			return nil, errorf(gateFile, ce.Line, "the case has several sessions (%s); %s", strings.Join(ids, ", "), which)
		}
		if s == nil {
			if ce.Session != "" {
				return nil, errorf(gateFile, ce.Line, "no session of this case is %q (sessions: %s)", ce.Session, strings.Join(ids, ", "))
			}
			return nil, errorf(gateFile, ce.Line, "the case has no session to check calls in")
		}
		f := Failure{Kind: FailCall, GateLine: ce.Line, File: s.File, Session: s.ID, Call: ce.Call, Action: ce.Action, Detector: ce.Detector}
		want := callText(ce.Action, ce.Detector, ce.Count)
		f.Expected = want
		if ce.Call > s.Calls {
			f.Actual = fmt.Sprintf("the session has %d calls", s.Calls)
			f.Message = fmt.Sprintf("call %d: expected %s, but the session has only %d calls", ce.Call, want, s.Calls)
			out = append(out, f)
			continue
		}
		var d *analyze.Decision
		for j := range s.Decisions {
			if s.Decisions[j].Call == ce.Call {
				d = &s.Decisions[j]
				break
			}
		}
		action, detector, count := "allow", "", 0
		if d != nil {
			action, detector, count = d.Action.String(), d.Detector, d.Count
			f.Line = d.Line
		}
		if (ce.Action == "" || ce.Action == action) && (ce.Detector == "" || ce.Detector == detector) && (ce.Count == 0 || ce.Count == count) {
			continue
		}
		f.Actual = callText(action, detector, count)
		f.Message = fmt.Sprintf("call %d: expected %s, got %s", ce.Call, want, f.Actual)
		out = append(out, f)
	}
	return out, nil
}

func callText(action, detector string, count int) string {
	s := action
	if s == "" {
		s = "any action"
	}
	if detector != "" {
		s += " by " + detector
	}
	if count > 0 {
		s += fmt.Sprintf(" (count %d)", count)
	}
	return s
}
