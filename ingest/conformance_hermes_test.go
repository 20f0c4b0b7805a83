package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Conformance of the hermes ingester with the real transcripts in
// ../shared/samples/hermes: every figure asserted here is a fact listed in that
// folder's ORIGIN.md (computed there independently of loopgate).

var hermesSamples = filepath.Join("..", "..", "shared", "samples", "hermes")

func hermesSample(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(hermesSamples, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("hermes samples not available (%v); they live in shared/samples/hermes beside the repository", err)
	}
	return p
}

// hermesSignature is the ORIGIN.md signature: tool name plus the canonical
// (sorted-key) JSON of the parsed arguments.
func hermesSignature(c *Call) string {
	if !c.ArgsOK {
		return c.Tool + " " + c.ArgsRaw
	}
	return c.Tool + " " + string(c.ArgsValue().Append(nil, jsonx.Sorted))
}

// hermesTurnRepeats lists, for one session, the signatures called more than
// once within one turn, as "turn N: tool xK".
func hermesTurnRepeats(s *Session) []string {
	var out []string
	for _, t := range s.Turns {
		counts := map[string]int{}
		var order []string
		for _, r := range t.Requests {
			for i := range r.Calls {
				sig := hermesSignature(&r.Calls[i])
				if counts[sig] == 0 {
					order = append(order, sig)
				}
				counts[sig]++
			}
		}
		for _, sig := range order {
			if counts[sig] > 1 {
				tool, _, _ := strings.Cut(sig, " ")
				out = append(out, fmt.Sprintf("turn %d: %s x%d", t.Index, tool, counts[sig]))
			}
		}
	}
	sort.Strings(out)
	return out
}

func hermesToolCounts(s *Session) map[string]int {
	m := map[string]int{}
	for _, t := range s.Turns {
		for _, r := range t.Requests {
			for _, c := range r.Calls {
				m[c.Tool]++
			}
		}
	}
	return m
}

func TestHermesConformanceExport(t *testing.T) {
	path := hermesSample(t, "exprted.jsonl")
	sessions, problems := readAll(t, path, Options{})
	for _, p := range problems {
		t.Errorf("unexpected problem: line %d: %s", p.Line, p.Message)
	}
	if len(sessions) != 19 {
		t.Fatalf("sessions = %d, want 19", len(sessions))
	}
	calls, telegram, cli := 0, 0, 0
	byID := map[string]*Session{}
	for i, s := range sessions {
		// Most recent first: session ids start with their start time.
		if i > 0 && s.ID >= sessions[i-1].ID {
			t.Errorf("session %d (%s) is not older than the one before it (%s)", i+1, s.ID, sessions[i-1].ID)
		}
		if s.Format != "hermes-export" {
			t.Errorf("session %s: format %q, want hermes-export", s.ID, s.Format)
		}
		if s.Line != i+1 {
			t.Errorf("session %s: line %d, want %d (one session per line)", s.ID, s.Line, i+1)
		}
		if s.Agent != "main" {
			t.Errorf("session %s: agent %q, want main", s.ID, s.Agent)
		}
		byID[s.ID] = s
		calls += s.NumCalls()
		for _, n := range s.Notes {
			switch n {
			case "source: telegram":
				telegram++
				if s.Model != "" {
					t.Errorf("telegram session %s: model %q, want none (null)", s.ID, s.Model)
				}
				if s.ID != "20260219_091846_2f3b5650" && s.ID != "20260219_011410_8b7098a3" {
					t.Errorf("session %s is telegram; ORIGIN.md names only 2f3b5650 and 8b7098a3", s.ID)
				}
			case "source: cli":
				cli++
			}
		}
		for _, tr := range s.Turns {
			for _, r := range tr.Requests {
				for _, c := range r.Calls {
					if !c.HasResult || c.Tool == "" || c.Tool == "unknown" || c.Line != s.Line {
						t.Errorf("session %s: call %s: tool %q, has_result %v, line %d", s.ID, c.ID, c.Tool, c.HasResult, c.Line)
					}
				}
			}
		}
		// Only one within-turn repeat exists in the whole file, and no
		// signature repeats across the turns of a session either.
		seen := map[string]int{}
		for _, tr := range s.Turns {
			for _, r := range tr.Requests {
				for i := range r.Calls {
					seen[hermesSignature(&r.Calls[i])]++
				}
			}
		}
		for sig, n := range seen {
			want := 1
			if s.ID == "20260219_011410_8b7098a3" && sig == `read_file {"limit":68,"offset":638,"path":"~/.hermes/hermes-agent/tools/terminal_tool.py"}` {
				want = 2
			}
			if n != want {
				t.Errorf("session %s: signature %s called %d times, want %d", s.ID, sig, n, want)
			}
		}
	}
	if calls != 125 {
		t.Errorf("calls = %d, want 125", calls)
	}
	if telegram != 2 || cli != 17 {
		t.Errorf("telegram sessions = %d, cli sessions = %d, want 2 and 17", telegram, cli)
	}

	tg := byID["20260219_011410_8b7098a3"]
	if tg == nil {
		t.Fatal("session 20260219_011410_8b7098a3 not found")
	}
	if tg.Model != "" {
		t.Errorf("telegram session model %q, want none (model is null)", tg.Model)
	}
	if n := tg.NumCalls(); n != 95 {
		t.Errorf("telegram session calls = %d, want 95", n)
	}
	if n := len(tg.Turns); n != 3 {
		t.Errorf("telegram session turns = %d, want 3", n)
	}
	wantTools := map[string]int{"terminal": 40, "read_file": 23, "patch": 13, "memory": 8, "search": 5, "todo": 3, "web_search": 1, "web_extract": 1, "send_message": 1}
	if got := hermesToolCounts(tg); !reflect.DeepEqual(got, wantTools) {
		t.Errorf("telegram session tools = %v, want %v", got, wantTools)
	}
	if got, want := hermesTurnRepeats(tg), []string{"turn 3: read_file x2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("telegram session within-turn repeats = %v, want %v", got, want)
	}
	if s := byID["20260219_091846_2f3b5650"]; s == nil || s.NumCalls() != 10 {
		t.Errorf("session 20260219_091846_2f3b5650: want 10 calls, got %v", s)
	}
	if s := byID["20260219_200627_0bf46c"]; s == nil || !reflect.DeepEqual(hermesToolCounts(s), map[string]int{"clarify": 1}) {
		t.Errorf("session 20260219_200627_0bf46c: want one clarify call")
	}
}

func TestHermesConformanceTrajectories(t *testing.T) {
	path := hermesSample(t, filepath.Join("neurareport-v2", "failed_trajectories.jsonl"))
	sessions, problems := readAll(t, path, Options{})
	for _, p := range problems {
		t.Errorf("unexpected problem: line %d: %s", p.Line, p.Message)
	}
	if len(sessions) != 1 {
		t.Fatalf("sessions = %d, want 1", len(sessions))
	}
	s := sessions[0]
	if s.Format != "hermes-trajectory" || s.Model != "Qwen/Qwen3.5-27B-FP8" {
		t.Errorf("format %q model %q", s.Format, s.Model)
	}
	if len(s.Turns) != 4 {
		t.Errorf("turns = %d, want 4 (one per human entry)", len(s.Turns))
	}
	if n := s.NumRequests(); n != 29 {
		t.Errorf("requests = %d, want 29 (one per gpt entry)", n)
	}
	wantTools := map[string]int{"execute_code": 13, "search_files": 4, "session_transition": 2, "verify_template": 1, "auto_map_tokens": 1, "session_get_state": 1, "get_schema": 1, "inspect_data": 1}
	if got := hermesToolCounts(s); !reflect.DeepEqual(got, wantTools) {
		t.Errorf("tools = %v, want %v", got, wantTools)
	}
	if got := hermesTurnRepeats(s); len(got) != 0 {
		t.Errorf("within-turn repeats = %v, want none", got)
	}
	// "No identical repeats": not across turns either. Every call has its
	// <tool_response> (as many responses as calls).
	seen := map[string]bool{}
	for _, tr := range s.Turns {
		for _, r := range tr.Requests {
			for i := range r.Calls {
				c := &r.Calls[i]
				if sig := hermesSignature(c); seen[sig] {
					t.Errorf("signature %s repeats", sig)
				} else {
					seen[sig] = true
				}
				if !c.HasResult {
					t.Errorf("call %s (%s) has no result", c.ID, c.Tool)
				}
			}
		}
	}
	if !hermesHasNote(s, "completed: false") {
		t.Errorf("notes %v do not say completed: false", s.Notes)
	}
}

func hermesHasNote(s *Session, note string) bool {
	for _, n := range s.Notes {
		if n == note {
			return true
		}
	}
	return false
}

func TestHermesConformanceProdo(t *testing.T) {
	path := hermesSample(t, filepath.Join("neurareport-v2", "prodo", "failed_trajectories.jsonl"))
	sessions, problems := readAll(t, path, Options{})
	for _, p := range problems {
		t.Errorf("unexpected problem: line %d: %s", p.Line, p.Message)
	}
	// The prodo table of ORIGIN.md, indexed by 0-based line.
	// parallel: requests (gpt entries) with several <tool_call> blocks;
	// ORIGIN.md names lines 0, 1 and 8 as having one each.
	want := []struct {
		humans, calls int
		repeats       []string
		parallel      int
	}{
		{2, 25, []string{"turn 2: auto_map_tokens x3"}, 1},
		{3, 12, nil, 1},
		{3, 11, nil, 0},
		{2, 14, []string{"turn 2: build_contract x2", "turn 2: validate_pipeline x2"}, 0},
		{2, 9, nil, 0},
		{3, 11, nil, 0},
		{4, 8, nil, 0},
		{2, 24, []string{"turn 2: auto_map_tokens x3", "turn 2: build_contract x2", "turn 2: read_mapping x3", "turn 2: session_get_state x2", "turn 2: session_transition x2", "turn 2: session_transition x3"}, 0},
		{3, 27, []string{"turn 2: auto_map_tokens x2", "turn 2: build_contract x2", "turn 2: build_generator_assets x2", "turn 2: read_mapping x2", "turn 2: validate_pipeline x2"}, 1},
	}
	if len(sessions) != len(want) {
		t.Fatalf("sessions = %d, want %d", len(sessions), len(want))
	}
	for i, w := range want {
		s := sessions[i]
		if s.Line != i+1 || s.Model != "qwen" || s.Format != "hermes-trajectory" {
			t.Errorf("line %d: session line %d model %q format %q", i, s.Line, s.Model, s.Format)
		}
		if len(s.Turns) != w.humans {
			t.Errorf("line %d: turns = %d, want %d (one per human entry)", i, len(s.Turns), w.humans)
		}
		if n := s.NumCalls(); n != w.calls {
			t.Errorf("line %d: calls = %d, want %d", i, n, w.calls)
		}
		got := hermesTurnRepeats(s)
		if !reflect.DeepEqual(got, w.repeats) && !(len(got) == 0 && len(w.repeats) == 0) {
			t.Errorf("line %d: within-turn repeats = %v, want %v", i, got, w.repeats)
		}
		for _, r := range got {
			if !strings.HasPrefix(r, "turn 2: ") {
				t.Errorf("line %d: repeat %q; ORIGIN.md says all are in turn 2", i, r)
			}
		}
		parallel := 0
		for _, tr := range s.Turns {
			for _, r := range tr.Requests {
				if len(r.Calls) > 1 {
					parallel++
				}
			}
		}
		if parallel != w.parallel {
			t.Errorf("line %d: %d requests with several calls, want %d", i, parallel, w.parallel)
		}
		if !hermesHasNote(s, "completed: false") {
			t.Errorf("line %d: notes %v do not say completed: false", i, s.Notes)
		}
		for _, tr := range s.Turns {
			for _, r := range tr.Requests {
				for _, c := range r.Calls {
					if !c.HasResult || c.ID == "" || c.Line != i+1 {
						t.Errorf("line %d: call %s (%s): has_result %v, line %d", i, c.ID, c.Tool, c.HasResult, c.Line)
					}
				}
			}
		}
	}
	// Line 8 (0-based) has one gpt entry with three calls whose responses
	// share one tool entry: they are one request, paired in order.
	var parallel []Call
	for _, tr := range sessions[8].Turns {
		for _, r := range tr.Requests {
			if len(r.Calls) == 3 {
				parallel = r.Calls
			}
		}
	}
	if len(parallel) != 3 {
		t.Fatal("line 8: no request with three parallel calls")
	}
	for i, tool := range []string{"build_contract", "build_generator_assets", "validate_pipeline"} {
		c := parallel[i]
		if c.Tool != tool || c.ID != fmt.Sprintf("qwen_tc_%d", i) || !strings.Contains(c.Result, `"stage":"`+tool+`"`) {
			t.Errorf("line 8 parallel call %d: tool %q id %q result %.80q", i, c.Tool, c.ID, c.Result)
		}
	}
}
