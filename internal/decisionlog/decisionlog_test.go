package decisionlog

import (
	"reflect"
	"strings"
	"testing"
)

func ptr(s string) *string { return &s }

// TestRecordLines: each kind of line is written as the log's readers
// expect it (unset members left out, the tag first) and reads back as the
// record that was written.
func TestRecordLines(t *testing.T) {
	cases := []struct {
		name string
		rec  Record
		want string
	}{
		{"prompt", Record{Loopgate: Tag, Time: "2026-11-01T10:00:00Z", Agent: "claude-code", Session: "S1", Scope: "main", Event: "prompt"},
			`{"loopgate":"decision-log/1","time":"2026-11-01T10:00:00Z","agent":"claude-code","session":"S1","scope":"main","event":"prompt"}`},
		{"call", Record{Loopgate: Tag, Time: "t", Agent: "codex", Rules: "loopgate", Shadow: true, Event: "call", CallID: "c1", Call: 3, Tool: "Read", Args: ptr(`{"a":1}`), Request: "r1", CallTime: "ct", Action: "block", Detector: "repeat", Count: 3, Message: "Blocked"},
			`{"loopgate":"decision-log/1","time":"t","agent":"codex","rules":"loopgate","shadow":true,"event":"call","call_id":"c1","call":3,"tool":"Read","args":"{\"a\":1}","request":"r1","call_time":"ct","action":"block","detector":"repeat","count":3,"message":"Blocked"}`},
		{"empty result", Record{Loopgate: Tag, Time: "t", Agent: "pi", Event: "result", CallID: "c1", Result: ptr(""), IsError: true},
			`{"loopgate":"decision-log/1","time":"t","agent":"pi","event":"result","call_id":"c1","result":"","is_error":true}`},
		{"problem", Record{Loopgate: Tag, Time: "t", Agent: "hermes", Event: "problem", Problem: "bad <event>"},
			`{"loopgate":"decision-log/1","time":"t","agent":"hermes","event":"problem","problem":"bad \u003cevent\u003e"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Append([]byte("x\n"), &tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b); got != "x\n"+tc.want+"\n" {
				t.Errorf("Append wrote\n%s\nwant\n%s", got, tc.want)
			}
			back, err := Decode([]byte(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.rec) {
				t.Errorf("Decode read %+v, want %+v", back, tc.rec)
			}
		})
	}
}

// TestDecodeRefuses: a line that is not a record is an error, not a
// record of zero values.
func TestDecodeRefuses(t *testing.T) {
	for _, line := range []string{`{"loopgate":`, `[1,2]`, `{"call":"three"}`, `not json`} {
		if _, err := Decode([]byte(line)); err == nil || strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%s: no error", line)
		}
	}
}
