package ingest

// loopgate's own decision log (`loopgate hook --log FILE`, or --shadow):
// one JSON object per line (internal/decisionlog's Record), each tagged
// "loopgate": "decision-log/1", for every prompt, compaction, call and
// result the live hook saw in any number of sessions (docs/live.md). Reading it as a transcript is what
// lets `loopgate replay LOG` score rules on live traffic.
//
// Readings taken:
//   - A session is one (session, scope) pair of the log, in the order of
//     its first line; the log interleaves sessions, so its sessions are
//     held until the end of the file and emitted then.
//   - A prompt line opens a turn; calls before the first prompt go into a
//     turn of their own. A compaction marks the next turn CompactedBefore.
//   - A call's model request is its "request" member: consecutive calls
//     with the same non-empty request share one Request; without one each
//     call is a request of its own, as the hook read them.
//   - The hook's own verdicts (action, detector) are not read: replay
//     decides again under whatever rules it is given. "round" lines carry
//     nothing else and are skipped as read.
//   - A "problem" line (the hook failed open) is reported as a problem of
//     the log, with its line.

import (
	"github.com/loopgate/loopgate/internal/decisionlog"
)

const formatDecisionLog = "loopgate-decisions"

func init() {
	register(&Format{
		ID:         formatDecisionLog,
		Family:     "loopgate",
		Reads:      "loopgate hook's decision log (--log FILE, or --shadow): the calls and results a live agent's hook saw, to replay under any rules.",
		Detection:  `JSONL whose first record has "loopgate": "decision-log/1".`,
		Priority:   5,
		Sniff:      func(h *Head) bool { return !h.Array && h.String("loopgate") == decisionlog.Tag },
		ParseLines: parseDecisionLog,
	})
}

type dlSession struct {
	s         *Session
	request   string
	compacted bool
	calls     map[string][3]int // call id -> turn, request, call
}

func parseDecisionLog(lr *LineReader, _ *Head, out *Sink) {
	byKey := map[[2]string]*dlSession{}
	var order []*dlSession
	get := func(l *decisionlog.Record, n int) *dlSession {
		scope := l.Scope
		if scope == "" {
			scope = "main"
		}
		k := [2]string{l.Session, scope}
		d := byKey[k]
		if d == nil {
			d = &dlSession{s: &Session{Format: formatDecisionLog, ID: l.Session, Agent: scope, Line: n}, calls: map[string][3]int{}}
			if scope != "main" {
				d.s.Parent = l.Session
			}
			byKey[k] = d
			order = append(order, d)
		}
		return d
	}
	for {
		line, n, ok := lr.Next()
		if !ok {
			break
		}
		l, err := decisionlog.Decode(line)
		if err != nil {
			out.BadLine(lr, n, err)
			continue
		}
		if l.Loopgate != decisionlog.Tag {
			out.Problemf(n, "not a loopgate decision log line (no \"loopgate\": %q)", decisionlog.Tag)
			continue
		}
		t := parseTime(l.Time)
		switch l.Event {
		case "prompt":
			d := get(&l, n)
			d.s.Turns = append(d.s.Turns, Turn{Line: n, Time: t, CompactedBefore: d.compacted})
			d.compacted, d.request = false, ""
		case "compaction":
			get(&l, n).compacted = true
		case "call":
			d := get(&l, n)
			if len(d.s.Turns) == 0 || d.compacted {
				d.s.Turns = append(d.s.Turns, Turn{CompactedBefore: d.compacted})
				d.compacted, d.request = false, ""
			}
			turn := &d.s.Turns[len(d.s.Turns)-1]
			ct := parseTime(l.CallTime)
			if ct.IsZero() {
				ct = t
			}
			if l.Request == "" || l.Request != d.request || len(turn.Requests) == 0 {
				turn.Requests = append(turn.Requests, Request{Line: n, Time: ct})
			}
			d.request = l.Request
			r := &turn.Requests[len(turn.Requests)-1]
			c := Call{ID: l.CallID, Tool: l.Tool, Time: ct, Line: n}
			args := ""
			if l.Args != nil {
				args = *l.Args
			}
			c.SetArgs(args)
			r.Calls = append(r.Calls, c)
			if l.CallID != "" {
				d.calls[l.CallID] = [3]int{len(d.s.Turns) - 1, len(turn.Requests) - 1, len(r.Calls) - 1}
			}
		case "result":
			d := get(&l, n)
			at, known := d.calls[l.CallID]
			if !known {
				out.Problemf(n, "result of call %q, which the log does not have", l.CallID)
				continue
			}
			c := &d.s.Turns[at[0]].Requests[at[1]].Calls[at[2]]
			if c.HasResult {
				continue // the hook saw the result once; a repeat adds nothing
			}
			if l.Result != nil {
				c.Result = *l.Result
			}
			c.HasResult, c.IsError, c.ResultLine = true, l.IsError, n
		case "round":
		case "problem":
			out.Problemf(n, "the hook reported: %s", l.Problem)
		default:
			out.Problemf(n, "unknown decision log event %q", l.Event)
		}
	}
	for _, d := range order {
		out.Session(d.s)
	}
}
