package ingest

import (
	"testing"
)

// TestHermesStateChildOfLive: a child session that began while its parent
// was running is a subagent even when its build marks it neither with
// source "subagent" nor with _delegate_from; a compression continuation
// (begun after the parent ended) and a branch stay main.
func TestHermesStateChildOfLive(t *testing.T) {
	script := `
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, model_config TEXT, parent_session_id TEXT,
  started_at REAL, ended_at REAL, end_reason TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT, content TEXT,
  tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL);
INSERT INTO sessions VALUES
  ('p', 'weixin', 'm', '{"max_iterations": 90}', NULL, 100, 200.0000, 'compression'),
  ('sub', 'weixin', 'm', '{"max_iterations": 50}', 'p', 150, NULL, NULL),
  ('cont', 'weixin', 'm', '{"max_iterations": 90}', 'p', 200.0048, NULL, NULL),
  ('sub2', 'weixin', 'm', '{"max_iterations": 50}', 'cont', 300, NULL, NULL),
  ('branch', 'cli', 'm', '{"_branched_from": "p"}', 'p', 150, NULL, NULL),
  ('marked', 'subagent', 'm', NULL, 'p', 400, NULL, NULL),
  ('early', 'cli', 'm', NULL, 'p', 50, NULL, NULL),
  ('lost', 'cli', 'm', NULL, 'gone', 150, NULL, NULL);
INSERT INTO messages (session_id, role, content) VALUES
  ('p', 'user', 'plan it'), ('sub', 'user', 'Implement Task 2'), ('cont', 'user', 'go on'),
  ('sub2', 'user', 'Implement Task 3'), ('branch', 'user', 'try another way'), ('marked', 'user', 'x'),
  ('early', 'user', 'y'), ('lost', 'user', 'z');
`
	path := buildDB(t, []byte(script), t.TempDir(), "state.db")
	sessions, problems := readAll(t, path, Options{Format: formatHermesState})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	got := map[string][2]string{}
	for _, s := range sessions {
		got[s.ID] = [2]string{s.Agent, s.Parent}
	}
	tests := []struct {
		id, agent, parent string
	}{
		{"p", "main", ""},
		{"sub", "sub", "p"},      // began while p ran
		{"cont", "main", ""},     // began after p ended: the continuation
		{"sub2", "sub2", "cont"}, // cont has not ended
		{"branch", "main", ""},   // a branch is marked as one
		{"marked", "marked", "p"},
		{"early", "main", ""}, // began before its parent: no claim
		{"lost", "main", ""},  // no parent row: no claim
	}
	for _, tt := range tests {
		g, ok := got[tt.id]
		if !ok {
			t.Errorf("%s: not read", tt.id)
			continue
		}
		agent := g[0]
		if agent == "" {
			agent = "main"
		}
		if agent != tt.agent || g[1] != tt.parent {
			t.Errorf("%s: agent %q parent %q, want %q %q", tt.id, agent, g[1], tt.agent, tt.parent)
		}
	}
}
