package ingest

import (
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/decisionlog"
)

// TestDecisionLogReads: a log written with the hook's own record type
// (decisionlog.Append) reads back as sessions, and each kind of bad line
// is a problem at its line.
func TestDecisionLogReads(t *testing.T) {
	s := func(v string) *string { return &v }
	rec := func(r decisionlog.Record) decisionlog.Record {
		r.Loopgate, r.Time, r.Agent = decisionlog.Tag, "2026-11-01T10:00:00Z", "claude-code"
		return r
	}
	good := []decisionlog.Record{
		rec(decisionlog.Record{Session: "S1", Event: "prompt"}),
		rec(decisionlog.Record{Session: "S1", Event: "call", CallID: "c1", Call: 1, Tool: "Read", Args: s(`{"file_path":"/a"}`), Request: "r1", Action: "allow"}),
		rec(decisionlog.Record{Session: "S1", Event: "result", CallID: "c1", Call: 1, Tool: "Read", Result: s("package a")}),
		rec(decisionlog.Record{Session: "S1", Scope: "sub1", Event: "call", CallID: "c2", Call: 1, Tool: "Grep", Args: s(`{}`)}),
	}
	var log []byte
	for i := range good {
		var err error
		if log, err = decisionlog.Append(log, &good[i]); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name      string
		extra     string
		sessions  int
		calls     int
		problem   string // a problem at line 5 that contains this; "" none
		noProblem bool
	}{
		{"clean", "", 2, 2, "", true},
		{"untagged", `{"loopgate":"other","event":"call"}`, 2, 2, `not a loopgate decision log line`, false},
		{"wrong type", `{"loopgate":"decision-log/1","event":"call","call":"three"}`, 2, 2, `line is not valid JSON`, false},
		{"hook problem", `{"loopgate":"decision-log/1","event":"problem","problem":"state unreadable"}`, 2, 2, `the hook reported: state unreadable`, false},
		{"unknown event", `{"loopgate":"decision-log/1","event":"dance"}`, 2, 2, `unknown decision log event "dance"`, false},
		{"orphan result", `{"loopgate":"decision-log/1","session":"S1","event":"result","call_id":"zz"}`, 2, 2, `result of call "zz"`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := append([]byte(nil), log...)
			if tc.extra != "" {
				data = append(data, tc.extra+"\n"...)
			}
			sessions, problems := readBytesAs(t, "decisions.jsonl", data)
			if len(sessions) != tc.sessions || numCalls(sessions) != tc.calls {
				t.Fatalf("%d sessions, %d calls; want %d, %d", len(sessions), numCalls(sessions), tc.sessions, tc.calls)
			}
			if sessions[0].Format != formatDecisionLog || !sessions[0].Turns[0].Requests[0].Calls[0].HasResult {
				t.Errorf("first session %s, its call without its result", sessions[0].Format)
			}
			if tc.noProblem {
				if len(problems) != 0 {
					t.Errorf("problems: %v", problems)
				}
				return
			}
			if len(problems) != 1 || problems[0].Line != 5 || !strings.Contains(problems[0].Message, tc.problem) {
				t.Errorf("problems %v, want one at line 5 containing %q", problems, tc.problem)
			}
		})
	}
}
