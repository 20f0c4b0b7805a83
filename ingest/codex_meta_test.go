package ingest

import (
	"strconv"
	"strings"
	"testing"
)

// TestCodexLaterSessionMeta: only a rollout's first session_meta names
// its session; the other threads' metas embedded later (a schema
// catalogue built on a real head holds 7) relabel nothing.
func TestCodexLaterSessionMeta(t *testing.T) {
	fixture := cxHead + `{"timestamp":"2026-01-05T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}
{"timestamp":"2026-01-05T09:00:02.000Z","type":"session_meta","payload":{"id":"other","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p9","depth":1}}}}}
`
	cases := []struct {
		name, path, id string
		text           string
		later          int
	}{
		{name: "fixture", text: fixture, id: "s1", later: 1},
		{name: "real", path: thirdPartySample(t, "codex/jazzyalex-agent-sessions/small.jsonl"), id: "019fc8be-3658-7ca3-9e29-000000000000", later: 6},
	}
	for _, c := range cases {
		var sessions []*Session
		sink := &Sink{OnSession: func(s *Session) { sessions = append(sessions, s) }}
		if c.path != "" {
			ReadFile(c.path, Options{}, sink)
		} else {
			Read(strings.NewReader(c.text), "rollout.jsonl", Options{}, sink)
		}
		if len(sessions) != 1 {
			t.Fatalf("%s: %d sessions", c.name, len(sessions))
		}
		s := sessions[0]
		if s.ID != c.id || s.Agent != "main" || s.Parent != "" {
			t.Errorf("%s: session %q agent %q parent %q; want %q, main, no parent", c.name, s.ID, s.Agent, s.Parent, c.id)
		}
		note := strings.Join(s.Notes, "\n")
		if want := strconv.Itoa(c.later) + " later session_meta"; !strings.Contains(note, want) {
			t.Errorf("%s: notes %q, want %q", c.name, note, want)
		}
	}
}
