package ingest

import (
	"strings"
	"testing"
)

// TestPiHeaderOnly: a pi file holding its session header and no entry (a
// session started and left) is read as one session with no turns, named
// by the header's id, or by the file's name when that id is empty; a file
// with neither header nor entry is a problem. Before, a header alone gave
// neither a session nor a problem (found by FuzzRead).
func TestPiHeaderOnly(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		wantID     string // "" with wantProblem
		wantProb   bool
	}{
		{"header", `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/x"}` + "\n", "s1", false},
		{"header with an empty id", `{"type":"session","id":"","timestamp":"","cwd":""}`, "2026-01-01_s2", false},
		{"blank lines only", "\n\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Detected, not forced: a forced format's sessions with no
			// turns count as none found (forcedSink), which says so.
			sessions, problems := readBytes([]byte(tc.data), "2026-01-01_s2.jsonl", "")
			if tc.wantProb {
				if len(sessions) != 0 || len(problems) == 0 {
					t.Fatalf("got %d sessions and problems %v, want a problem and no session", len(sessions), problems)
				}
				return
			}
			if len(problems) != 0 {
				t.Fatalf("problems %v", problems)
			}
			if len(sessions) != 1 {
				t.Fatalf("got %d sessions, want 1", len(sessions))
			}
			if s := sessions[0]; s.ID != tc.wantID || len(s.Turns) != 0 || s.Format != formatPi {
				t.Errorf("session %q (%s) with %d turns, want %q with none", s.ID, s.Format, len(s.Turns), tc.wantID)
			}
		})
	}
}

// TestPiJoinedEntries: a line holding two entries with no newline between
// them (pi's own session files hold such lines: badlogic/pi-mono commits
// d5dde00d, 705ba5d4) is read as both entries; a line that is not only JSON
// objects stays a bad line.
func TestPiJoinedEntries(t *testing.T) {
	const head = `{"type":"session","id":"s1","timestamp":"2025-12-17T19:39:21.535Z","cwd":"/w"}` + "\n" +
		`{"type":"message","timestamp":"2025-12-17T19:39:22Z","message":{"role":"user","content":[{"type":"text","text":"go"}]}}` + "\n"
	reply := `{"type":"message","timestamp":"2025-12-17T19:39:23Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"a.go"}}]}}`
	result := `{"type":"message","timestamp":"2025-12-17T19:39:24Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"package a"}],"isError":false}}`
	user := `{"type":"message","timestamp":"2025-12-17T19:39:25Z","message":{"role":"user","content":[{"type":"text","text":"thanks"}]}}`
	for _, tc := range []struct {
		name, data      string
		turns, problems int
		note            bool
	}{
		{"one per line", head + reply + "\n" + result + "\n" + user + "\n", 2, 0, false},
		{"result and the next user message on one line", head + reply + "\n" + result + user + "\n", 2, 0, true},
		{"three on one line, blanks between", head + reply + " " + result + "\t" + user + "\n", 2, 0, true},
		{"an object then garbage: a bad line, the call without result", head + reply + "\n" + result + "x\n" + user + "\n", 2, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readBytes([]byte(tc.data), "s1.jsonl", "")
			if len(sessions) != 1 || len(problems) != tc.problems {
				t.Fatalf("sessions %d, problems %v; want 1 and %d", len(sessions), problems, tc.problems)
			}
			s := sessions[0]
			if len(s.Turns) != tc.turns {
				t.Errorf("turns %d, want %d", len(s.Turns), tc.turns)
			}
			c := s.Turns[0].Requests[0].Calls[0]
			if tc.problems == 0 && (!c.HasResult || c.Result != "package a") {
				t.Errorf("the call's result = %q (%v), want the joined line's", c.Result, c.HasResult)
			}
			noted := false
			for _, n := range s.Notes {
				noted = noted || strings.Contains(n, "no newline between them")
			}
			if noted != tc.note {
				t.Errorf("note of joined lines: %v, want %v (%q)", noted, tc.note, s.Notes)
			}
		})
	}
}

// TestPiJSONMode: pi --mode json prints the session header and then its
// events (packages/coding-agent/docs/json.md): every message whole in its
// message_end, the rest in parts or about nothing the messages lack. The
// message_end events are the session's messages, in file order; a
// finished auto_compaction_end is a compaction. Before, every event was an
// entry of unknown type: no turn, a problem per line.
func TestPiJSONMode(t *testing.T) {
	msg := func(role, rest string) string {
		return `{"type":"message_end","message":{"role":"` + role + `",` + rest + `}}` + "\n"
	}
	stream := `{"type":"session","version":3,"id":"j1","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}
{"type":"agent_start"}
{"type":"turn_start"}
{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1772359200000}}
` + msg("user", `"content":[{"type":"text","text":"list files"}],"timestamp":1772359200000`) +
		`{"type":"message_update","message":{"role":"assistant","content":[]},"assistantMessageEvent":{"type":"toolcall_start","contentIndex":0}}
` + msg("assistant", `"content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"ls"}}],"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0},"stopReason":"toolUse","timestamp":1772359201000`) +
		`{"type":"tool_execution_start","toolCallId":"t1","toolName":"bash","args":{"command":"ls"}}
{"type":"tool_execution_end","toolCallId":"t1","toolName":"bash","result":{"content":[{"type":"text","text":"a.txt"}]},"isError":false}
` + msg("toolResult", `"toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"a.txt"}],"isError":false,"timestamp":1772359202000`) +
		`{"type":"turn_end","message":{"role":"assistant","content":[]},"toolResults":[]}
{"type":"auto_compaction_start","reason":"threshold"}
{"type":"auto_compaction_end","result":{"summary":"..."},"aborted":false,"willRetry":false}
` + msg("user", `"content":"go on","timestamp":1772359300000`) +
		msg("assistant", `"content":[{"type":"text","text":"done"}],"stopReason":"stop","timestamp":1772359301000`) +
		`{"type":"agent_end","messages":[]}
`
	runConformance(t, formatPi, []conformanceCase{{
		name: "a JSON mode stream", file: "run.jsonl", text: stream,
		sessions: "j1 main 2t 2r t1/bash=a.txt",
		check: func(t *testing.T, s []*Session) {
			tr := s[0].Turns
			if !tr[1].CompactedBefore {
				t.Errorf("the turn after the compaction is not marked compacted")
			}
			if got := tr[0].Time.UTC().Format("15:04:05"); got != "10:00:00" {
				t.Errorf("first turn at %s, want the message's own time 10:00:00", got)
			}
			if !strings.Contains(strings.Join(s[0].Notes, "\n"), "9 pi --mode json event(s)") {
				t.Errorf("notes %q do not count the 9 other events", s[0].Notes)
			}
		},
	}})
}
