package ingest

// Conformance of the nanobot ingester with the shared samples: the five real
// session files and the synthetic F1–F6 files described in
// samples/nanobot/ORIGIN.md. The samples are not part of the repository; the
// test skips when they are absent.

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// nbSamples is where the shared nanobot samples live, seen from ingest/.
var nbSamples = filepath.Join("..", "..", "shared", "samples", "nanobot")

func nbSamplesOrSkip(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(nbSamples); err != nil {
		t.Skipf("nanobot samples not found at %s (they live outside the repository): %v", nbSamples, err)
	}
}

// nbSignature is the signature ORIGIN.md uses: tool name plus the canonical
// sorted-key JSON of the parsed arguments (the raw text when they do not
// parse).
func nbSignature(c Call) string {
	if !c.ArgsOK {
		return c.Tool + " " + c.ArgsRaw
	}
	return c.Tool + " " + string(c.ArgsValue().Append(nil, jsonx.Sorted))
}

// nbReadSample reads one sample file and expects exactly one session.
func nbReadSample(t *testing.T, rel string) (*Session, []Problem) {
	t.Helper()
	sessions, problems := readAll(t, filepath.Join(nbSamples, filepath.FromSlash(rel)), Options{})
	if len(sessions) != 1 {
		t.Fatalf("%s: %d sessions, want 1 (problems: %v)", rel, len(sessions), problems)
	}
	if sessions[0].Format != "nanobot" {
		t.Fatalf("%s: format %q, want nanobot", rel, sessions[0].Format)
	}
	return sessions[0], problems
}

// nbCalls lists the calls of a session with the 1-based turn of each.
func nbCalls(s *Session) (calls []Call, turns []int) {
	for ti, tr := range s.Turns {
		for _, r := range tr.Requests {
			for _, c := range r.Calls {
				calls = append(calls, c)
				turns = append(turns, ti+1)
			}
		}
	}
	return calls, turns
}

// nbWithinTurnRepeats counts calls whose signature already occurred in the
// same turn.
func nbWithinTurnRepeats(s *Session) int {
	n := 0
	for _, tr := range s.Turns {
		seen := map[string]bool{}
		for _, r := range tr.Requests {
			for _, c := range r.Calls {
				sig := nbSignature(c)
				if seen[sig] {
					n++
				}
				seen[sig] = true
			}
		}
	}
	return n
}

// nbCrossTurnRepeats lists calls whose signature occurred in an earlier turn
// (and not earlier in their own turn).
func nbCrossTurnRepeats(s *Session) []Call {
	var out []Call
	first := map[string]int{}
	calls, turns := nbCalls(s)
	for i, c := range calls {
		sig := nbSignature(c)
		if ft, ok := first[sig]; ok {
			if ft < turns[i] {
				out = append(out, c)
			}
			continue
		}
		first[sig] = turns[i]
	}
	return out
}

// nbFileFacts counts the records (non-blank lines) of a sample and lists
// the keys of its first record in order.
func nbFileFacts(t *testing.T, rel string) (records int, keys string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(nbSamples, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	first := ""
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if records == 0 {
			first = l
		}
		records++
	}
	v, err := jsonx.ParseString(first)
	if err != nil {
		t.Fatalf("first record: %v", err)
	}
	var names []string
	for _, m := range v.Obj {
		names = append(names, m.Key)
	}
	return records, strings.Join(names, " ")
}

// nbTurnSpread is the time between the earliest and the latest timestamp
// of a turn (its user message, responses and calls).
func nbTurnSpread(tr Turn) time.Duration {
	lo, hi := tr.Time, tr.Time
	see := func(x time.Time) {
		if x.IsZero() {
			return
		}
		if lo.IsZero() || x.Before(lo) {
			lo = x
		}
		if x.After(hi) {
			hi = x
		}
	}
	for _, r := range tr.Requests {
		see(r.Time)
		for _, c := range r.Calls {
			see(c.Time)
		}
	}
	return hi.Sub(lo)
}

func nbHasNote(s *Session, part string) bool {
	for _, n := range s.Notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

func TestNanobotConformanceReal(t *testing.T) {
	nbSamplesOrSkip(t)
	// The table of ORIGIN.md: records are "1 meta + N msgs"; tools are the
	// per-tool call counts it gives (nil where it gives none).
	files := []struct {
		name    string
		id      string
		turns   int
		calls   int
		records int
		tools   map[string]int
	}{
		{"cli_direct.jsonl", "cli:direct", 10, 0, 1 + 20, map[string]int{}},
		{"cron_ee40e6bb.jsonl", "cron:ee40e6bb", 5, 5, 1 + 20, map[string]int{"message": 5}},
		{"qq_9CADBF1CF67CA54E3BC924EE0D4C9408.jsonl", "qq:9CADBF1CF67CA54E3BC924EE0D4C9408", 6, 9, 1 + 30, map[string]int{"read_file": 6, "exec": 2, "list_dir": 1}},
		{"qq_CB2C318EF96F39A09EA8F961F4EF2BB8.jsonl", "qq:CB2C318EF96F39A09EA8F961F4EF2BB8", 4, 0, 1 + 8, map[string]int{}},
		{"qq_D536FE422F10DDB19442A6AAE7AB66FC.jsonl", "qq:D536FE422F10DDB19442A6AAE7AB66FC", 22, 21, 1 + 86, map[string]int{"read_file": 8, "exec": 6, "cron": 3, "edit_file": 2, "list_dir": 2}},
	}
	total := 0
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			s, problems := nbReadSample(t, f.name)
			if len(problems) != 0 {
				t.Errorf("problems: %v", problems)
			}
			if s.ID != f.id {
				t.Errorf("id %q, want %q", s.ID, f.id)
			}
			if s.Line != 1 {
				t.Errorf("session starts at line %d, want the metadata record on line 1", s.Line)
			}
			if len(s.Turns) != f.turns {
				t.Errorf("%d turns, want %d", len(s.Turns), f.turns)
			}
			if got := s.NumCalls(); got != f.calls {
				t.Errorf("%d calls, want %d", got, f.calls)
			}
			total += s.NumCalls()
			if n := nbWithinTurnRepeats(s); n != 0 {
				t.Errorf("%d identical calls repeated within a turn, want none", n)
			}
			if got := hermesToolCounts(s); !reflect.DeepEqual(got, f.tools) {
				t.Errorf("tools %v, want %v", got, f.tools)
			}
			// The file itself: its record count and its metadata record's
			// keys, in order, as ORIGIN.md lists them.
			records, keys := nbFileFacts(t, f.name)
			if records != f.records {
				t.Errorf("%d records, want %d", records, f.records)
			}
			if want := "_type key created_at updated_at metadata last_consolidated"; keys != want {
				t.Errorf("metadata keys %q, want %q", keys, want)
			}
			// Records of one turn are stamped when the turn is saved: all
			// within a second of each other.
			for _, tr := range s.Turns {
				if spread := nbTurnSpread(tr); spread > time.Second {
					t.Errorf("turn %d spans %v of timestamps, want (nearly) one instant", tr.Index, spread)
				}
			}
			if nbHasNote(s, "provider_state") {
				t.Errorf("a provider_state note, but the real files have none: %v", s.Notes)
			}
			if !nbHasNote(s, "nanobot F4") {
				t.Errorf("version notes %v, want F4 (v0.1.4.post3 era)", s.Notes)
			}
			for _, c := range func() []Call { c, _ := nbCalls(s); return c }() {
				if !c.HasResult || !c.ArgsOK || c.Line == 0 || c.ResultLine <= c.Line {
					t.Errorf("call %s (%s): has_result %v, args_ok %v, line %d, result line %d", c.ID, c.Tool, c.HasResult, c.ArgsOK, c.Line, c.ResultLine)
				}
			}
		})
	}
	if total != 35 {
		t.Errorf("%d calls in the five files, want 35", total)
	}

	t.Run("cron: the same message call in 5 consecutive turns", func(t *testing.T) {
		s, _ := nbReadSample(t, "cron_ee40e6bb.jsonl")
		calls, turns := nbCalls(s)
		if len(calls) != 5 {
			t.Fatalf("%d calls, want 5", len(calls))
		}
		for i, c := range calls {
			if c.Tool != "message" || nbSignature(c) != nbSignature(calls[0]) || turns[i] != i+1 {
				t.Errorf("call %d: %s in turn %d, want the same message call in turn %d", i+1, nbSignature(c), turns[i], i+1)
			}
		}
		if n := len(nbCrossTurnRepeats(s)); n != 4 {
			t.Errorf("%d cross-turn repeats, want 4", n)
		}
	})

	t.Run("qq_D536: one cross-turn repeat of read_file memory/MEMORY.md", func(t *testing.T) {
		s, _ := nbReadSample(t, "qq_D536FE422F10DDB19442A6AAE7AB66FC.jsonl")
		reps := nbCrossTurnRepeats(s)
		if len(reps) != 1 {
			t.Fatalf("%d cross-turn repeats, want 1", len(reps))
		}
		path, _ := reps[0].ArgsValue().GetString("path")
		if reps[0].Tool != "read_file" || path != "memory/MEMORY.md" {
			t.Errorf("repeat is %s, want read_file memory/MEMORY.md", nbSignature(reps[0]))
		}
	})

	t.Run("qq_D536: error results and the empty result", func(t *testing.T) {
		s, _ := nbReadSample(t, "qq_D536FE422F10DDB19442A6AAE7AB66FC.jsonl")
		calls, _ := nbCalls(s)
		errors, hinted, empty := 0, 0, 0
		for _, c := range calls {
			if c.IsError {
				errors++
				if !strings.HasPrefix(c.Result, "Error") {
					t.Errorf("call %s marked as an error: %.40q", c.ID, c.Result)
				}
			}
			if strings.HasSuffix(c.Result, nbErrorHint) {
				hinted++
				if !c.IsError {
					t.Errorf("call %s ends with the error hint but is not an error", c.ID)
				}
			}
			if c.HasResult && c.Result == "" {
				empty++
			}
		}
		if errors == 0 || hinted == 0 || empty != 1 {
			t.Errorf("%d error results (%d with the [Analyze the error above ...] hint) and %d empty results, want errors with the hint and exactly one empty result", errors, hinted, empty)
		}
	})

	t.Run("no provider_state record in any real file", func(t *testing.T) {
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(nbSamples, f.name))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), `"_type": "provider_state"`) {
				t.Errorf("%s has a provider_state record", f.name)
			}
		}
	})
}

func TestNanobotConformanceSynthetic(t *testing.T) {
	nbSamplesOrSkip(t)
	const (
		f1 = "synthetic/F1_v0.1.3_text_only/"
		f2 = "synthetic/F2_v0.1.3.post7-v0.1.4.post1_tools_used/"
		f3 = "synthetic/F3_v0.1.4.post2_first_tool_history/"
		f4 = "synthetic/F4_v0.1.4.post3-v0.2.2_full_turns/"
		f5 = "synthetic/F5_v0.3.0_base64_names/"
		f6 = "synthetic/F6_main_2026-08_outside_workspace/0f3c9b2d41e84a7fa1b2c3d4e5f60718/"
	)
	tests := []struct {
		file    string
		version string // start of the version label
		id      string
		turns   int
		calls   int
		check   func(t *testing.T, s *Session, problems []Problem)
		// repeats is the number of calls ORIGIN.md says repeat an
		// identical call of their turn; -1 where it says nothing.
		repeats int
	}{
		{f1 + "cli_direct.jsonl", "nanobot F1 ", "cli_direct", 2, 0, nil, 0},
		{f1 + "telegram_123456789.jsonl", "nanobot F1 ", "telegram_123456789", 2, 0, func(t *testing.T, s *Session, _ []Problem) {
			if s.Turns[1].UserChars == 0 || s.Turns[1].Line != 4 {
				t.Errorf("the [System: subagent] record should open turn 2 at line 4, got line %d", s.Turns[1].Line)
			}
		}, 0},
		{f2 + "v0.1.3.post7/cli_direct.jsonl", "nanobot F2 ", "cli_direct", 2, 0, func(t *testing.T, s *Session, _ []Problem) {
			if !nbHasNote(s, "tools_used only: 3 tool uses recorded without arguments (web_search ×2, web_fetch ×1); not replayable") {
				t.Errorf("no tools_used note: %v", s.Notes)
			}
		}, 0},
		{f2 + "v0.1.4.post1/feishu_ou_7d8a6e.jsonl", "nanobot F2 ", "feishu:ou_7d8a6e", 2, 0, func(t *testing.T, s *Session, _ []Problem) {
			if !nbHasNote(s, "6 tool uses recorded without arguments (read_file ×5, edit_file ×1)") {
				t.Errorf("no tools_used note: %v", s.Notes)
			}
		}, 0},
		{f3 + "cli_direct.jsonl", "nanobot F3 ", "cli:direct", 2, 3, func(t *testing.T, s *Session, _ []Problem) {
			if n := nbWithinTurnRepeats(s); n != 0 {
				t.Errorf("%d within-turn repeats, want none", n)
			}
			if s.Turns[0].UserChars != len("hi") {
				t.Errorf("turn 1 user_chars %d, want %d (runtime context left out)", s.Turns[0].UserChars, len("hi"))
			}
		}, 0},
		{f3 + "telegram_123456789.jsonl", "nanobot F3 ", "telegram:123456789", 1, 3, func(t *testing.T, s *Session, _ []Problem) {
			calls, _ := nbCalls(s)
			if calls[1].Tool != "web_fetch" || nbSignature(calls[1]) != nbSignature(calls[2]) || nbWithinTurnRepeats(s) != 1 {
				t.Errorf("want 2 identical web_fetch calls in one turn")
			}
		}, 1},
		{f4 + "v0.1.4.post4/slack_C01ABCDEF.jsonl", "nanobot F4 ", "slack:C01ABCDEF", 1, 4, func(t *testing.T, s *Session, _ []Problem) {
			calls, _ := nbCalls(s)
			n := 0
			for _, c := range calls {
				if nbSignature(c) == `read_file {"path":"skills/weather/SKILL.md"}` {
					n++
				}
			}
			if n != 3 {
				t.Errorf("read_file skills/weather/SKILL.md ×%d, want ×3", n)
			}
			if !calls[3].IsError {
				t.Errorf("the exec result with the retry hint should be an error")
			}
		}, 2},
		{f4 + "v0.2.0/websocket_5f0c2a.jsonl", "nanobot F4 (full tool history, v0.2.0", "websocket:5f0c2a", 1, 3, func(t *testing.T, s *Session, _ []Problem) {
			calls, _ := nbCalls(s)
			keys := map[string]bool{}
			for _, c := range calls {
				q, _ := c.ArgsValue().GetString("query")
				keys[strings.ToLower(strings.TrimSpace(q))] = true
			}
			if len(keys) != 1 {
				t.Errorf("the three web_search calls should share one external-lookup signature, got %v", keys)
			}
			if !strings.HasPrefix(calls[2].Result, "Error: repeated external lookup blocked.") || !calls[2].IsError {
				t.Errorf("the 3rd web_search should hold nanobot's block, as an error")
			}
			if !nbHasNote(s, "_command") {
				t.Errorf("no note about the skipped _command records: %v", s.Notes)
			}
		}, -1},
		{f4 + "v0.2.2/telegram_42.jsonl", "nanobot F4 ", "telegram:42", 1, 4, func(t *testing.T, s *Session, _ []Problem) {
			if first := s.Turns[0].Requests[0].Calls; len(first) != 2 || first[0].Tool != "exec" || first[1].Tool != "grep" {
				t.Errorf("first response has %d calls, want 2 parallel calls (exec + grep)", len(first))
			}
			calls, _ := nbCalls(s)
			if !strings.Contains(calls[0].Result, "Original size: 48211 chars") {
				t.Errorf("offloaded exec result not kept as the stub the model saw")
			}
			if calls[3].Result != "[File unchanged since last read: logs/worker.log]" || nbSignature(calls[2]) != nbSignature(calls[3]) {
				t.Errorf("the 2nd identical read_file should return the dedup stub")
			}
		}, 1},
		{f5 + "Y2xpOmRpcmVjdA.jsonl", "nanobot F5 ", "cli:direct", 2, 3, func(t *testing.T, s *Session, _ []Problem) {
			r := s.Turns[1].Requests[0]
			if len(r.Calls) != 3 || nbSignature(r.Calls[1]) != nbSignature(r.Calls[2]) || r.Calls[1].Tool != "grep" {
				t.Errorf("turn 2 should have two identical grep calls in one response")
			}
			if !s.Turns[1].CompactedBefore {
				t.Errorf("last_consolidated 2: turn 2 should be marked compacted_before")
			}
		}, 1},
		{f5 + "d2Vic29ja2V0OjlhMWI.jsonl", "nanobot F5 ", "websocket:9a1b", 1, 3, func(t *testing.T, s *Session, _ []Problem) {
			if !nbHasNote(s, "mid-run injection") {
				t.Errorf("no injection note: %v", s.Notes)
			}
			calls, _ := nbCalls(s)
			if nbSignature(calls[0]) != `exec {"command":"pytest -x -q"}` || nbSignature(calls[2]) != nbSignature(calls[0]) || calls[1].Tool != "edit_file" {
				t.Errorf("want exec pytest -x -q twice around an edit_file")
			}
		}, 1},
		{f6 + "Y2xpOmRpcmVjdA.jsonl", "nanobot F6 ", "cli:direct", 2, 1, func(t *testing.T, s *Session, problems []Problem) {
			calls, turns := nbCalls(s)
			// No call is persisted in the messages; the pending web_fetch
			// is recovered from metadata.runtime_checkpoint (line 1).
			if len(calls) != 1 || calls[0].Line != 1 || calls[0].HasResult || calls[0].Tool != "web_fetch" || turns[0] != 2 {
				t.Fatalf("want only the checkpoint's pending web_fetch, without result, in turn 2")
			}
			if s.Model != "gpt-5" {
				t.Errorf("model %q, want gpt-5", s.Model)
			}
			if len(problems) != 1 || !strings.Contains(problems[0].Message, "interrupted turn") || !strings.Contains(problems[0].Message, "call_c2") {
				t.Errorf("want one problem naming call_c2 as an interrupted turn, got %v", problems)
			}
			if !nbHasNote(s, "phase awaiting_tools") {
				t.Errorf("no note naming the checkpoint's phase awaiting_tools: %v", s.Notes)
			}
			if !nbHasNote(s, "provider_state record (line 2) skipped") {
				t.Errorf("no provider_state note: %v", s.Notes)
			}
		}, 0},
		{f6 + "dGVsZWdyYW06MTIzNDU2Nzg5.jsonl", "nanobot F6 ", "telegram:123456789", 1, 3, func(t *testing.T, s *Session, _ []Problem) {
			calls, _ := nbCalls(s)
			if nbSignature(calls[0]) != nbSignature(calls[1]) || !strings.HasPrefix(calls[1].Result, "[File unchanged since last read: README.md]") {
				t.Errorf("want read_file README.md twice, the second answered by the dedup stub")
			}
			if force, ok := calls[2].ArgsValue().Get("force"); !ok || !force.Bool {
				t.Errorf("the 3rd read should carry force: true")
			}
			if !nbHasNote(s, "_last_usage") {
				t.Errorf("no _last_usage note: %v", s.Notes)
			}
			for _, tr := range s.Turns {
				for _, r := range tr.Requests {
					if r.Usage != nil {
						t.Errorf("request at line %d has usage; nanobot records none per request", r.Line)
					}
				}
			}
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, problems := nbReadSample(t, tt.file)
			if !strings.HasPrefix(s.Notes[0], "format: "+tt.version) {
				t.Errorf("version note %q, want it to start with %q", s.Notes[0], "format: "+tt.version)
			}
			if s.ID != tt.id {
				t.Errorf("id %q, want %q", s.ID, tt.id)
			}
			if len(s.Turns) != tt.turns {
				t.Errorf("%d turns, want %d", len(s.Turns), tt.turns)
			}
			if got := s.NumCalls(); got != tt.calls {
				t.Fatalf("%d calls, want %d", got, tt.calls)
			}
			if tt.repeats >= 0 {
				if n := nbWithinTurnRepeats(s); n != tt.repeats {
					t.Errorf("%d calls repeat an identical call of their turn, want %d", n, tt.repeats)
				}
			}
			if tt.check != nil {
				tt.check(t, s, problems)
			} else if len(problems) != 0 {
				t.Errorf("problems: %v", problems)
			}
		})
	}
}
