package ingest

// Conformance of the Claude Code, Codex and OpenHands readers with the real
// (or upstream-fixture) samples in ../shared/samples, checked against the facts
// their ORIGIN.md files state. The samples are not part of this repository:
// the tests skip when the folder is absent.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleFile(t *testing.T, family, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "samples", family, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("sample %s not available (%v); these tests need shared/samples/%s", p, err, family)
	}
	return p
}

// sampleFacts is what the conformance tests compare.
type sampleFacts struct {
	sessions    int
	turns       int      // genuine user turns (turns whose Line or UserChars is set)
	calls       []string // "tool:id" in order, over all sessions
	withUsage   int      // requests that carry usage
	outputSum   int64    // sum of Output over those requests
	noResult    int      // calls without a result
	problems    int
	format      string
	model       string
	firstUsage  *Usage // usage of the first request that has one
	allTurns    int    // all turns, including the turn of calls before any user message
	agentScopes int    // sessions whose Agent is not "main"
	requests    int    // model requests over all sessions
	repeats     int    // calls whose signature (tool + sorted-key args) already occurred in the session
}

func factsOf(sessions []*Session, problems []Problem) sampleFacts {
	f := sampleFacts{sessions: len(sessions), problems: len(problems)}
	for _, s := range sessions {
		f.requests += s.NumRequests()
		seen := map[string]bool{}
		for _, t := range s.Turns {
			for _, r := range t.Requests {
				for i := range r.Calls {
					sig := hermesSignature(&r.Calls[i])
					if seen[sig] {
						f.repeats++
					}
					seen[sig] = true
				}
			}
		}
		if f.format == "" {
			f.format, f.model = s.Format, s.Model
		}
		if s.Agent != "main" {
			f.agentScopes++
		}
		for _, t := range s.Turns {
			f.allTurns++
			if t.Line != 0 || t.UserChars != 0 || !t.Time.IsZero() {
				f.turns++
			}
			for _, r := range t.Requests {
				if r.Usage != nil {
					f.withUsage++
					f.outputSum += r.Usage.Output
					if f.firstUsage == nil {
						u := *r.Usage
						f.firstUsage = &u
					}
				}
				for _, c := range r.Calls {
					f.calls = append(f.calls, c.Tool+":"+c.ID)
					if !c.HasResult {
						f.noResult++
					}
				}
			}
		}
	}
	return f
}

func TestConformanceOtherSamples(t *testing.T) {
	// want.repeats ("no repeats") and want.requests (the assistant lines
	// or model responses a file has; 0: not stated) are checked where
	// ORIGIN.md states them (checkCounts).
	tests := []struct {
		family, file string
		want         sampleFacts
		checkCounts  bool
		check        func(t *testing.T, sessions []*Session)
	}{
		{
			family: "claude-code", file: "sidechain_integrated.jsonl",
			// 4 assistant lines, 3 distinct message.id:requestId keys: usage
			// counted 3 times (output 365 + 183 + 190). No genuine prompt.
			// The sidechain Grep's result line answers another (trimmed) call.
			want: sampleFacts{sessions: 2, turns: 0, calls: []string{"Task:toolu_01JA2mLseQCAW3MdwPE4qWEk", "Grep:toolu_01BWgwmyj8gGuqFNHMPqqtN2"},
				withUsage: 3, outputSum: 738, noResult: 1, problems: 2, format: formatClaudeCode, model: "claude-sonnet-4-5-20250929",
				firstUsage: &Usage{Input: 3 + 141272, Output: 365, CacheWrite: 141272}, allTurns: 2, agentScopes: 1},
			check: func(t *testing.T, sessions []*Session) {
				side := sessions[1]
				if side.Parent != "88a8d761-7b9a-4bf1-a8ca-c1febe6bf358" || side.Agent == "main" {
					t.Errorf("sidechain scope: agent %q parent %q", side.Agent, side.Parent)
				}
				// The two split lines of msg_017zj75d... are one request.
				if n := side.NumRequests(); n != 1 {
					t.Errorf("sidechain requests = %d, want 1 (split message joined)", n)
				}
				// Task in the main chain, Grep in the sidechain.
				if got := hermesToolCounts(sessions[0]); len(got) != 1 || got["Task"] != 1 {
					t.Errorf("main chain tools %v, want Task", got)
				}
				if got := hermesToolCounts(side); len(got) != 1 || got["Grep"] != 1 {
					t.Errorf("sidechain tools %v, want Grep", got)
				}
			},
		},
		{
			family: "claude-code", file: "representative_messages.jsonl",
			// 5 assistant lines (5 requests); 2 tool_result carriers
			// answer the 2 calls; no repeats.
			want: sampleFacts{sessions: 1, turns: 4, calls: []string{"Edit:tool_001", "Bash:tool_002"},
				withUsage: 5, outputSum: 120 + 85 + 95 + 35 + 110, format: formatClaudeCode, model: "claude-3-sonnet-20240229",
				firstUsage: &Usage{Input: 25, Output: 120}, allTurns: 4, requests: 5, repeats: 0},
			checkCounts: true,
		},
		{
			family: "codex", file: "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
			// 3 calls joined by call_id, no repeats.
			want: sampleFacts{sessions: 1, turns: 1, calls: []string{"exec_command:call-structured-001", "apply_patch:call-custom-001", "mcp__synthetic__lookup:call-mcp-001"},
				format: formatCodex, model: "synthetic-model", allTurns: 1, repeats: 0},
			checkCounts: true,
			check: func(t *testing.T, sessions []*Session) {
				s := sessions[0]
				if s.ID != "11111111-1111-4111-8111-111111111111" {
					t.Errorf("id = %q", s.ID)
				}
				calls := s.Turns[0].Requests
				var args []string
				for _, r := range calls {
					for _, c := range r.Calls {
						args = append(args, c.ArgsRaw)
					}
				}
				if len(args) != 3 || args[0] != `{"cmd":"find . -maxdepth 1 -type f"}` || !strings.HasPrefix(args[1], `{"input":"*** Begin Patch`) || !strings.HasSuffix(args[1], `*** End Patch"}`) || args[2] != `{"query":"fixture"}` {
					t.Errorf("args = %q", args)
				}
				if !strings.Contains(strings.Join(s.Notes, "\n"), "future_synthetic_record") {
					t.Errorf("notes %q do not count the unknown line type", s.Notes)
				}
			},
		},
		{
			family: "codex", file: "2026-05-12T08-00-00-parent.jsonl",
			// Cumulative total_token_usage only: input 1000 (cached 100 inside), output 200.
			want: sampleFacts{sessions: 1, withUsage: 1, outputSum: 200, format: formatCodex, model: "gpt-5.2",
				firstUsage: &Usage{Input: 1000, Output: 200, CacheRead: 100}, allTurns: 1},
		},
		{
			family: "openhands", file: "basic.json",
			// 3 events carry tool_call_metadata, 2 distinct model_response ids.
			want: sampleFacts{sessions: 1, turns: 1, calls: []string{"str_replace_editor:toolu_017nBp7UfiGqyrA7j77HgtFP", "finish:toolu_01BUKu3B7nY574atNECkBiFk"},
				withUsage: 2, outputSum: 1135 + 177, noResult: 1, format: formatOpenHands, model: "claude-3-5-sonnet-20241022",
				firstUsage: &Usage{Input: 3486, Output: 1135, CacheWrite: 3482}, allTurns: 1, requests: 2, repeats: 0},
			checkCounts: true,
			check: func(t *testing.T, sessions []*Session) {
				c := sessions[0].Turns[0].Requests[0].Calls[0]
				if !c.HasResult || !strings.HasPrefix(c.Result, "--- /workspace/game_2048.py") {
					t.Errorf("edit observation (cause 3) not joined: %q", c.Result)
				}
			},
		},
		{
			family: "openhands", file: "basic_interactions.json",
			// 2 agent message actions and the finish: 3 requests; no repeats.
			want: sampleFacts{sessions: 1, turns: 3, calls: []string{"finish:call_IpyczPgEAwtpRWFZ2RNokTdH"},
				withUsage: 1, outputSum: 10, noResult: 1, format: formatOpenHands, model: "gpt-4o-2024-08-06",
				firstUsage: &Usage{Input: 2473, Output: 10, CacheRead: 2304}, allTurns: 3, requests: 3, repeats: 0},
			checkCounts: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.family+"/"+tc.file, func(t *testing.T) {
			p := sampleFile(t, tc.family, tc.file)
			sessions, problems := readAll(t, p, Options{})
			got := factsOf(sessions, problems)
			w := tc.want
			if got.sessions != w.sessions || got.turns != w.turns || got.allTurns != w.allTurns || got.format != w.format || got.model != w.model || got.agentScopes != w.agentScopes {
				t.Errorf("sessions %d turns %d/%d format %s model %s agents %d; want %d, %d/%d, %s, %s, %d",
					got.sessions, got.turns, got.allTurns, got.format, got.model, got.agentScopes, w.sessions, w.turns, w.allTurns, w.format, w.model, w.agentScopes)
			}
			if strings.Join(got.calls, " ") != strings.Join(w.calls, " ") {
				t.Errorf("calls = %q, want %q", got.calls, w.calls)
			}
			if got.withUsage != w.withUsage || got.outputSum != w.outputSum {
				t.Errorf("requests with usage %d (output %d), want %d (output %d)", got.withUsage, got.outputSum, w.withUsage, w.outputSum)
			}
			if (got.firstUsage == nil) != (w.firstUsage == nil) || (got.firstUsage != nil && *got.firstUsage != *w.firstUsage) {
				t.Errorf("first usage = %+v, want %+v", got.firstUsage, w.firstUsage)
			}
			if got.noResult != w.noResult || got.problems != w.problems {
				t.Errorf("calls without result %d, problems %d (%s); want %d, %d", got.noResult, got.problems, problemSummary(problems), w.noResult, w.problems)
			}
			if tc.checkCounts && ((w.requests > 0 && got.requests != w.requests) || got.repeats != w.repeats) {
				t.Errorf("%d requests, %d repeated calls; want %d, %d", got.requests, got.repeats, w.requests, w.repeats)
			}
			if tc.check != nil && len(sessions) == w.sessions {
				tc.check(t, sessions)
			}
		})
	}
}
