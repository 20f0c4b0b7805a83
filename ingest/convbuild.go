package ingest

// convBuilder turns a conversation read in order (user messages, model
// responses with their tool calls, tool results joined by call id) into a
// session's turns, requests and calls. The readers of pi, Gemini CLI,
// Cline/Roo, Copilot CLI, Kimi CLI, OpenCode and hermes' state.db share it;
// the older readers have builders of their own (hermesConv, ...).

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

type convRef struct{ turn, req, call int }

type convBuilder struct {
	s   *Session
	out *Sink
	// where starts every problem ("session X: ", or "" when the file is
	// the session).
	where string
	// pending maps a call id to its calls still waiting for a result,
	// oldest first (an id repeated while waiting is answered in order).
	pending map[string][]convRef
	order   []convRef
	// compacted marks the next turn as following a context compaction.
	compacted bool
	// unanswered says why a call left waiting (abandon) has no result.
	unanswered map[convRef]string
}

func newConvBuilder(s *Session, out *Sink) *convBuilder {
	return &convBuilder{s: s, out: out, pending: map[string][]convRef{}}
}

func (b *convBuilder) ref(r convRef) *Call {
	return &b.s.Turns[r.turn].Requests[r.req].Calls[r.call]
}

// turn opens a turn at a genuine user message.
func (b *convBuilder) turn(line int, t time.Time, chars int) {
	b.s.Turns = append(b.s.Turns, Turn{Line: line, Time: t, UserChars: chars, CompactedBefore: b.compacted})
	b.compacted = false
}

// notice records a message nobody typed where it stands in the current
// turn (Turn.Notices); before any turn, it is dropped.
func (b *convBuilder) notice(line int, t time.Time, text string) {
	if len(b.s.Turns) == 0 {
		return
	}
	tr := &b.s.Turns[len(b.s.Turns)-1]
	tr.Notices = append(tr.Notices, Notice{Request: len(tr.Requests), Line: line, Time: t, Text: text})
}

// compaction marks the next turn as compacted.
func (b *convBuilder) compaction() { b.compacted = true }

// request opens a model response in the current turn (a turn of its own
// when no user message came first).
func (b *convBuilder) request(line int, t time.Time, textChars int, u *Usage) {
	if len(b.s.Turns) == 0 {
		b.s.Turns = append(b.s.Turns, Turn{CompactedBefore: b.compacted})
		b.compacted = false
	}
	tr := &b.s.Turns[len(b.s.Turns)-1]
	tr.Requests = append(tr.Requests, Request{Line: line, Time: t, TextChars: textChars, Usage: u})
}

// text adds a piece of the current response's visible text, when the
// reader keeps it (Sink.KeepText).
func (b *convBuilder) text(s string) {
	if b.out.KeepText {
		b.lastRequest().addText(s)
	}
}

// lastRequest is the request calls are added to (opened when there is none).
func (b *convBuilder) lastRequest() *Request {
	if len(b.s.Turns) == 0 || len(b.s.Turns[len(b.s.Turns)-1].Requests) == 0 {
		b.request(0, time.Time{}, 0, nil)
	}
	tr := &b.s.Turns[len(b.s.Turns)-1]
	return &tr.Requests[len(tr.Requests)-1]
}

// call adds a call to the last request and has it wait for its result
// (unless it comes with its result: setResult).
func (b *convBuilder) call(c Call) {
	rq := b.lastRequest()
	rq.Calls = append(rq.Calls, c)
	tr := len(b.s.Turns) - 1
	ref := convRef{tr, len(b.s.Turns[tr].Requests) - 1, len(rq.Calls) - 1}
	b.order = append(b.order, ref)
	if c.HasResult {
		return
	}
	if q := b.pending[c.ID]; len(q) > 0 && c.ID != "" {
		b.out.Problemf(c.Line, "%scall id %q is used again while an earlier call with that id has no result yet; both calls are kept and results are joined to them in order", b.where, c.ID)
	}
	b.pending[c.ID] = append(b.pending[c.ID], ref)
}

// result joins a result to the oldest call waiting under id. A result
// with no call is a problem and is not otherwise kept.
func (b *convBuilder) result(id, tool, text string, isErr bool, line int, t time.Time) {
	q := b.pending[id]
	if len(q) == 0 {
		name := ""
		if tool != "" {
			name = " (" + tool + ")"
		}
		b.out.Problemf(line, "%stool result for unknown call id %q%s: no call before it issued it; result ignored", b.where, id, name)
		return
	}
	if len(q) == 1 {
		delete(b.pending, id)
	} else {
		b.pending[id] = q[1:]
	}
	c := b.ref(q[0])
	if c.Tool == "" {
		c.Tool = tool
	}
	c.Result, c.HasResult, c.IsError, c.ResultLine = text, true, isErr, line
	if c.Time.IsZero() {
		c.Time = t
	}
}

// abandon stops the oldest call waiting under id from waiting, for a
// reason the file states (the task was resumed without its result):
// finish reports it with that reason.
func (b *convBuilder) abandon(id, why string) {
	q := b.pending[id]
	if len(q) == 0 {
		return
	}
	if len(q) == 1 {
		delete(b.pending, id)
	} else {
		b.pending[id] = q[1:]
	}
	if b.unanswered == nil {
		b.unanswered = map[convRef]string{}
	}
	b.unanswered[q[0]] = why
}

// setResult gives a call its result directly (formats that record a call
// and its result together).
func setResult(c *Call, text string, isErr bool, line int) {
	c.Result, c.HasResult, c.IsError, c.ResultLine = text, true, isErr, line
}

// finish reports the calls that never got a result (kept, HasResult false)
// and names unnamed tools.
func (b *convBuilder) finish() {
	for _, r := range b.order {
		c := b.ref(r)
		if c.Tool == "" {
			c.Tool = "unknown"
		}
		if !c.HasResult {
			if why := b.unanswered[r]; why != "" {
				b.out.Problemf(c.Line, "%scall %q (%s) has no result: %s", b.where, c.ID, c.Tool, why)
				continue
			}
			b.out.Problemf(c.Line, "%scall %q (%s) has no result", b.where, c.ID, c.Tool)
		}
	}
}

// noteSkipped adds a session note counting records of a kind left out.
func noteSkipped(s *Session, n int, what string) {
	if n > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d %s", n, what))
	}
}

// isoTime parses an ISO 8601 time ("" or junk: the zero time).
func isoTime(s string) time.Time { return hermesISOTime(s) }

// msTime reads Unix milliseconds (0: the zero time).
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// decodeErr words a decoding error for a problem.
func decodeErr(err error) string { return hermesDecodeError(err) }

// timeZero is the time of a record that has none.
var timeZero time.Time

// parentDirName is the name of the folder holding path ("" for none).
func parentDirName(path string) string {
	d := filepath.Base(filepath.Dir(path))
	if d == "." || d == string(filepath.Separator) {
		return ""
	}
	return d
}

// eachJSONLine calls fn with each line of a JSONL file that is valid JSON
// and reports the others (Sink.BadLine). Past 2 MiB the lines are checked
// ahead on other cores (eachRecord); fn runs in the file's order.
func eachJSONLine(lr *LineReader, h *Head, out *Sink, fn func(line []byte, n int)) {
	eachRecord(lr.Next, lr, h, func(_ *LineReader, line []byte, _ int, notValid *bool) {
		*notValid = !jsonx.Valid(line)
	}, func(lines *LineReader, line []byte, n int, notValid *bool) {
		if *notValid {
			out.BadLine(lines, n, notJSON(line))
			return
		}
		fn(line, n)
	})
}
