package ingest

import (
	"strings"
	"testing"
)

// TestCodexLegacyRollout: an older rollout (a bare meta line, bare
// response items, state lines) is read as Codex: its calls joined to
// their outputs, its user messages turns, its meta's time its start.
func TestCodexLegacyRollout(t *testing.T) {
	const fixture = `{"id":"0a0a0a0a-1111-4222-8333-444444444444","timestamp":"2025-08-20T10:00:00.000Z","instructions":null,"git":{"branch":"main"}}
{"record_type":"state"}
{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"list the files"}]}
{"record_type":"state"}
{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}
{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"a\\nb\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}
{"type":"function_call","id":"fc_2","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_2"}
{"type":"function_call_output","call_id":"call_2","output":"{\"output\":\"a\\nb\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.3}}"}
{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"a and b"}]}
`
	var sessions []*Session
	var problems []Problem
	Read(strings.NewReader(fixture), "rollout-2025-08-20T10-00-00-0a0a0a0a-1111-4222-8333-444444444444.jsonl", Options{}, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	if len(sessions) != 1 || len(problems) != 0 {
		t.Fatalf("%d sessions, problems %v; want 1 and none", len(sessions), problems)
	}
	s := sessions[0]
	if s.Format != "codex" || s.ID != "0a0a0a0a-1111-4222-8333-444444444444" || len(s.Turns) != 1 || s.Turns[0].Time.IsZero() {
		t.Errorf("read as %s %q, %d turns, first at %v", s.Format, s.ID, len(s.Turns), s.Turns[0].Time)
	}
	if n := countJoins(sessions); n.calls != 2 || n.joined != 2 {
		t.Errorf("%d of %d calls joined, want 2 of 2", n.joined, n.calls)
	}
	// The two outputs differ only in their duration: the same output.
	var outs []string
	for _, c := range s.Turns[0].Requests[0].Calls {
		out, env := SplitEnvelope(s.Format, c.Result)
		if env == "" {
			t.Errorf("no envelope in %q", c.Result)
		}
		outs = append(outs, out)
	}
	if len(outs) == 2 && outs[0] != outs[1] {
		t.Errorf("outputs %q and %q differ", outs[0], outs[1])
	}

	// A real rollout of August 2025: its 76 calls (counted apart from
	// loopgate from the file's function_call lines) all joined.
	paths := []string{
		"codex/JaydenXsoe-ocodex/.codex/main_codex.back/sessions/2025/08/19/rollout-2025-08-19T08-25-08-38b123ff-933b-4dfe-bd12-d42671fcb25f.jsonl",
	}
	for _, rel := range paths {
		sessions, problems := readAll(t, thirdPartySample(t, rel), Options{})
		n := countJoins(sessions)
		if len(sessions) != 1 || sessions[0].Format != "codex" || n.calls != 76 || n.joined != 76 || len(problems) != 0 {
			t.Errorf("%s: %d sessions, %d of %d calls joined, %d problems; want 1 codex session, 76 of 76, none", rel, len(sessions), n.joined, n.calls, len(problems))
		}
	}
}
