package live

import (
	"os"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/decisionlog"
	"github.com/loopgate/loopgate/internal/redact"
)

// The decision log (--log FILE, always under --shadow): its line, tag and
// encoding are internal/decisionlog's, which every reader of the log
// shares; this file fills the lines from what the hook saw and decided and
// appends them.

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

func (d *decisionLog) add(l decisionlog.Record) {
	if d.path == "" {
		return
	}
	l.Loopgate, l.Agent, l.Rules, l.Shadow = decisionlog.Tag, d.agent, d.rules, d.shadow
	l.Time = d.now().UTC().Format(time.RFC3339Nano)
	if l.Session == "" {
		l.Session, l.Scope = d.session, d.scope
	}
	l.Session = redact.Redact(l.Session)
	l.Message = redact.Redact(l.Message)
	l.CallID = redact.Redact(l.CallID)
	if lines, err := decisionlog.Append(d.lines, &l); err == nil {
		d.lines = lines
	}
}

func verdictFields(l *decisionlog.Record, v guard.Verdict) {
	l.Action = v.Action.String()
	if v.Action != guard.Allow {
		l.Detector, l.Count, l.Message = v.Detector, v.Count, v.Message
	}
}

func (d *decisionLog) event(ev *Event, kind string, _ *call) {
	d.add(decisionlog.Record{Event: kind})
}

func (d *decisionLog) call(ev *Event, c *call, rec *record) {
	args := redact.Redact(rec.args)
	l := decisionlog.Record{Event: "call", CallID: c.id, Call: c.index, Tool: ev.Tool, Args: &args, Request: rec.request}
	if rec.time != 0 {
		l.CallTime = time.Unix(0, rec.time).UTC().Format(time.RFC3339Nano)
	}
	verdictFields(&l, c.final)
	d.add(l)
}

func (d *decisionLog) result(ev *Event, id string, c *call) {
	res := redact.Redact(ev.Result)
	l := decisionlog.Record{Event: "result", CallID: id, Tool: ev.Tool, Result: &res, IsError: ev.IsError}
	if c != nil {
		l.Call = c.index
		verdictFields(&l, c.final)
	}
	d.add(l)
}

func (d *decisionLog) end(ev *Event, c *call) {
	l := decisionlog.Record{Event: "round", CallID: c.id, Call: c.index}
	verdictFields(&l, c.final)
	d.add(l)
}

func (d *decisionLog) problem(ev *Event, msg string) {
	l := decisionlog.Record{Event: "problem", Problem: redact.Redact(msg)}
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
