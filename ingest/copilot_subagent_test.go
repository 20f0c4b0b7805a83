package ingest

import (
	"path/filepath"
	"testing"
)

// TestCopilotSubagentsAndTotals: a task sub-agent's calls (events with
// data.parentToolCallId) are a session of their own, not the main
// agent's, and session.shutdown's tokenDetails are the session's usage.
func TestCopilotSubagentsAndTotals(t *testing.T) {
	cases := []struct {
		path                  string
		mainCalls, subCalls   int
		input, output, cached int64
	}{
		{filepath.Join("..", "fixtures", "ingest", "copilot-cli", "session-state", "7a1b2c3d-0000-4000-8000-00000000c0p1", "events.jsonl"), 1, 2, 5000, 300, 4000},
		{thirdPartySample(t, "copilot-cli/jazzyalex-agent-sessions/small.jsonl"), 3, 1, 100, 15, 5},
	}
	for _, c := range cases {
		sessions, _ := readAll(t, c.path, Options{})
		var mainCalls, subCalls int
		var usage *Usage
		for _, s := range sessions {
			for _, tr := range s.Turns {
				for _, r := range tr.Requests {
					if s.Agent == "main" {
						mainCalls += len(r.Calls)
						if r.Usage != nil {
							usage = r.Usage
						}
					} else {
						subCalls += len(r.Calls)
						if s.Parent == "" {
							t.Errorf("%s: sub-agent %s has no parent", c.path, s.Agent)
						}
					}
				}
			}
		}
		if mainCalls != c.mainCalls || subCalls != c.subCalls {
			t.Errorf("%s: %d main calls and %d sub-agent calls, want %d and %d", c.path, mainCalls, subCalls, c.mainCalls, c.subCalls)
		}
		if usage == nil || usage.Input != c.input || usage.Output != c.output || usage.CacheRead != c.cached {
			t.Errorf("%s: usage %+v, want input %d output %d cache read %d", c.path, usage, c.input, c.output, c.cached)
		}
	}
}
