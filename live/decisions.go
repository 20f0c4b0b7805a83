package live

import (
	"encoding/json"
	"os"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/redact"
)

// The decision log: one JSON object per line, appended by every hook call
// that was given --log (always under --shadow). It records every prompt,
// compaction, call (with what the guard decided) and result (with what the
// guard decided once the result was in), secrets redacted, so that
// `loopgate replay LOG` reads it as a transcript (ingest/decisionlog.go)
// and scores the rules on live traffic. Problems (a malformed event,
// unreadable state) are lines of their own.

// DecisionLogTag is the value of the "loopgate" member that starts every
// line of a decision log: what detection looks for.
const DecisionLogTag = "decision-log/1"

// DecisionLine is one line of the decision log.
type DecisionLine struct {
	Loopgate string `json:"loopgate"`
	Time     string `json:"time"`
	Agent    string `json:"agent"`
	Rules    string `json:"rules,omitempty"`
	Shadow   bool   `json:"shadow,omitempty"`
	Session  string `json:"session,omitempty"`
	Scope    string `json:"scope,omitempty"`
	// Event: prompt, compaction, call, result, round, problem.
	Event  string `json:"event"`
	CallID string `json:"call_id,omitempty"`
	// Call is the 1-based index of the call in its session scope.
	Call int    `json:"call,omitempty"`
	Tool string `json:"tool,omitempty"`
	// Args is the argument text (JSON when it parsed), redacted.
	Args    *string `json:"args,omitempty"`
	Request string  `json:"request,omitempty"`
	// CallTime is the call's time (the transcript's, else the clock's).
	CallTime string  `json:"call_time,omitempty"`
	Result   *string `json:"result,omitempty"`
	IsError  bool    `json:"is_error,omitempty"`
	// What the guard decided (or, under --shadow, would have decided).
	Action   string `json:"action,omitempty"`
	Detector string `json:"detector,omitempty"`
	Count    int    `json:"count,omitempty"`
	Message  string `json:"message,omitempty"`
	Problem  string `json:"problem,omitempty"`
}

type decisionLog struct {
	path           string
	shadow         bool
	agent, rules   string
	session, scope string
	now            func() time.Time
	lines          []byte
	// failed: a write failed; later lines of this hook call are dropped,
	// so that the failure is said once (the first one's message says it).
	failed bool
}

func (d *decisionLog) add(l DecisionLine) {
	if d.path == "" {
		return
	}
	l.Loopgate, l.Agent, l.Rules, l.Shadow = DecisionLogTag, d.agent, d.rules, d.shadow
	l.Time = d.now().UTC().Format(time.RFC3339Nano)
	if l.Session == "" {
		l.Session, l.Scope = d.session, d.scope
	}
	l.Session = redact.Redact(l.Session)
	l.Message = redact.Redact(l.Message)
	l.CallID = redact.Redact(l.CallID)
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	d.lines = append(append(d.lines, b...), '\n')
}

func verdictFields(l *DecisionLine, v guard.Verdict) {
	l.Action = v.Action.String()
	if v.Action != guard.Allow {
		l.Detector, l.Count, l.Message = v.Detector, v.Count, v.Message
	}
}

func (d *decisionLog) event(ev *Event, kind string, _ *call) {
	d.add(DecisionLine{Event: kind})
}

func (d *decisionLog) call(ev *Event, c *call, rec *record) {
	args := redact.Redact(rec.args)
	l := DecisionLine{Event: "call", CallID: c.id, Call: c.index, Tool: ev.Tool, Args: &args, Request: rec.request}
	if rec.time != 0 {
		l.CallTime = time.Unix(0, rec.time).UTC().Format(time.RFC3339Nano)
	}
	verdictFields(&l, c.final)
	d.add(l)
}

func (d *decisionLog) result(ev *Event, id string, c *call) {
	res := redact.Redact(ev.Result)
	l := DecisionLine{Event: "result", CallID: id, Tool: ev.Tool, Result: &res, IsError: ev.IsError}
	if c != nil {
		l.Call = c.index
		verdictFields(&l, c.final)
	}
	d.add(l)
}

func (d *decisionLog) end(ev *Event, c *call) {
	l := DecisionLine{Event: "round", CallID: c.id, Call: c.index}
	verdictFields(&l, c.final)
	d.add(l)
}

func (d *decisionLog) problem(ev *Event, msg string) {
	l := DecisionLine{Event: "problem", Problem: redact.Redact(msg)}
	if ev != nil && d.session == "" {
		l.Session = ev.Session
	}
	d.add(l)
}

// flush appends the lines of this hook call to the log in one write.
func (d *decisionLog) flush() error {
	if d.path == "" || len(d.lines) == 0 || d.failed {
		d.lines = nil
		return nil
	}
	f, err := openState(d.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err == nil {
		_, err = f.Write(d.lines)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	d.lines = nil
	d.failed = err != nil
	return err
}
