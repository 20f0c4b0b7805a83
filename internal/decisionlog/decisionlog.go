// Package decisionlog defines the line of loopgate's decision log, once,
// for the hook that writes it (live) and every reader of it: the
// transcript format that replays it (ingest's loopgate-decisions), the
// hook simulator that compares it with a replay (live/simulate) and the
// agent lab.
//
// The log is one JSON object per line, appended by every hook call that
// was given --log (always under --shadow): every prompt, compaction, call
// (with what the guard decided) and result (with what the guard decided
// once the result was in), secrets redacted by the writer, so that
// `loopgate replay LOG` reads it as a transcript and scores rules on live
// traffic. Problems (a malformed event, unreadable state) are lines of
// their own (docs/live.md).
package decisionlog

import (
	"encoding/json"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Tag is the value of the "loopgate" member that starts every line of a
// decision log: what format detection looks for. A change to the line
// that an older reader would misread takes a new tag.
const Tag = "decision-log/1"

// Record is one line of the decision log.
type Record struct {
	// Loopgate is Tag.
	Loopgate string `json:"loopgate"`
	// Time is when the hook wrote the line (RFC 3339, UTC).
	Time   string `json:"time"`
	Agent  string `json:"agent"`
	Rules  string `json:"rules,omitempty"`
	Shadow bool   `json:"shadow,omitempty"`
	// Session and Scope name the agent's session and the scope in it
	// ("main" or a subagent; "" reads as "main").
	Session string `json:"session,omitempty"`
	Scope   string `json:"scope,omitempty"`
	// Event: prompt, compaction, call, result, round, problem.
	Event  string `json:"event"`
	CallID string `json:"call_id,omitempty"`
	// Call is the 1-based index of the call in its session scope.
	Call int    `json:"call,omitempty"`
	Tool string `json:"tool,omitempty"`
	// Args is the argument text (JSON when it parsed), redacted.
	Args *string `json:"args,omitempty"`
	// Request names the model request the call came in; consecutive calls
	// of one request share it.
	Request string `json:"request,omitempty"`
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

// Append appends r as one line of the log, newline included.
func Append(b []byte, r *Record) ([]byte, error) {
	line, err := json.Marshal(r)
	if err != nil {
		return b, err
	}
	return append(append(b, line...), '\n'), nil
}

// Decode reads one line of the log. It does not check the tag: a reader
// says in its own words what a line without it is.
func Decode(line []byte) (Record, error) {
	var r Record
	err := jsonx.Unmarshal(line, &r)
	return r, err
}
