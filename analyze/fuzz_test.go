package analyze

// Fuzz targets for the engine and the gate-file loader (issue 8).
//
// FuzzReplay decodes the fuzzer's bytes into a stream of turns, requests,
// compactions and calls drawn from small sets of tools, arguments and
// results (so that repeats, loops, failures and changed results are
// common), and replays it under every preset. Beyond "no panic" it checks
// the accounting a report relies on and that a replay is deterministic.
//
// FuzzGateFile feeds arbitrary text to ParseGate, anchored in
// fixtures/gate so that the fixtures' relative paths resolve.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

var (
	fuzzTools = []string{"read_file", "grep", "list_dir", "write_file", "exec", "web_fetch", "web_search", "edit", "Read", "process_manage", "spawn", "mystery"}
	fuzzArgs  = []string{
		`{"path": "a.txt"}`, `{"path": "b.txt"}`, `{"pattern": "TODO", "path": "src"}`,
		`{"command": "pytest", "timeout": 30}`, `{"url": "https://example.com/status", "extractMode": "text"}`,
		`{"query": "loop guard"}`, `{"path": "a.txt", "content": "v2"}`, `{"action": "poll", "session_id": "p1"}`,
		`not json`, `{}`, `{"path": "A.TXT "}`, `{"edits": [{"oldText": "a", "newText": "b"}], "path": "a.txt"}`,
	}
	fuzzResults = []string{"alpha", "alpha\n", "beta", "Error: file not found", "", "ok", "[loop guard] repeated call",
		"Traceback (most recent call last):\n  boom", strings.Repeat("long result ", 40)}
)

// fuzzSession decodes bytes into a session, three bytes per event.
func fuzzSession(data []byte) *ingest.Session {
	s := &ingest.Session{File: "fuzz.jsonl", Format: "nanobot", ID: "fuzz", Agent: "main"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	line := 0
	newTurn := func(compacted bool) {
		s.Turns = append(s.Turns, ingest.Turn{Index: len(s.Turns) + 1, Line: line, Time: now, CompactedBefore: compacted})
	}
	newRequest := func() {
		if len(s.Turns) == 0 {
			newTurn(false)
		}
		tr := &s.Turns[len(s.Turns)-1]
		tr.Requests = append(tr.Requests, ingest.Request{Line: line, Time: now})
	}
	for i := 0; i+2 < len(data); i += 3 {
		op, a, b := data[i], data[i+1], data[i+2]
		line++
		now = now.Add(time.Duration(op>>5) * 40 * time.Second) // sometimes past a 2-minute window
		switch op & 0x0f {
		case 0:
			newTurn(false)
			continue
		case 1:
			newTurn(true)
			continue
		case 2:
			newRequest()
			continue
		}
		if len(s.Turns) == 0 || len(s.Turns[len(s.Turns)-1].Requests) == 0 {
			newRequest()
		}
		tr := &s.Turns[len(s.Turns)-1]
		rq := &tr.Requests[len(tr.Requests)-1]
		c := ingest.Call{ID: fmt.Sprintf("c%d", i), Tool: fuzzTools[int(a)%len(fuzzTools)], Time: now, Line: line}
		c.SetArgs(fuzzArgs[int(b)%len(fuzzArgs)])
		if op&0x10 == 0 {
			c.Result = fuzzResults[int(a^b)%len(fuzzResults)]
			c.HasResult, c.ResultLine = true, line
			c.IsError = strings.HasPrefix(c.Result, "Error") && b&1 == 1
		}
		rq.Calls = append(rq.Calls, c)
	}
	return s
}

func FuzzReplay(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 3, 0, 0, 3, 0, 0, 3, 0, 0, 3, 0, 0, 3, 0, 0})                            // the same read, five times
	f.Add([]byte{0, 0, 0, 3, 0, 0, 3, 1, 1, 3, 0, 0, 3, 1, 1, 3, 0, 0, 3, 1, 1})                   // A-B-A-B
	f.Add([]byte{0, 0, 0, 3, 4, 3, 3, 4, 3, 3, 4, 3, 3, 4, 3, 1, 0, 0, 3, 4, 3})                   // a failing command, compaction
	f.Add([]byte{0, 0, 0, 3, 0, 0, 3, 3, 6, 3, 0, 0, 3, 0, 0, 0x13, 5, 4, 0xe3, 5, 4, 0xe3, 5, 4}) // write between reads; no results; time gaps
	counter, err := tokens.New(tokens.Chars4)
	if err != nil {
		f.Fatal(err)
	}
	var presets []*rules.Rules
	for _, name := range rules.PresetNames() {
		r, err := rules.Preset(name)
		if err != nil {
			f.Fatalf("preset %s: %v", name, err)
		}
		presets = append(presets, r)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 3*2000 {
			return // long streams add time, not new behaviour
		}
		s := fuzzSession(data)
		calls := s.NumCalls()
		for _, r := range presets {
			res, tools := Run(Prepare(s), r, NewTokenCache(counter))
			checkReplay(t, r.Name, calls, &res, tools)
			again, _ := Run(Prepare(s), r, NewTokenCache(counter))
			a, _ := json.Marshal(res)
			b, _ := json.Marshal(again)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: two replays of one session differ", r.Name)
			}
		}
	})
}

// checkReplay asserts the accounting a report relies on.
func checkReplay(t *testing.T, preset string, calls int, res *SessionResult, tools []ToolStat) {
	t.Helper()
	fail := func(format string, a ...any) {
		t.Helper()
		t.Fatalf("%s: %s", preset, fmt.Sprintf(format, a...))
	}
	if res.Calls != calls || len([]rune(strings.ReplaceAll(res.Timeline, string(TurnSeparator), ""))) != calls {
		fail("%d calls, timeline %q, want %d calls", res.Calls, res.Timeline, calls)
	}
	stopped := res.Blocked + res.Deduped
	if res.Steered+stopped+res.Halted > calls || res.Harmful > stopped || res.RedundantStopped > res.Redundant ||
		res.RedundantStopped > stopped || res.Redundant >= max(calls, 1) {
		fail("counts do not add up: %+v", res)
	}
	if res.TokensSaved < 0 || res.ContextTokensSaved < 0 || res.SteerTokens < 0 {
		fail("negative tokens: saved %d, context %d, steer %d", res.TokensSaved, res.ContextTokensSaved, res.SteerTokens)
	}
	p, rc := PrecisionRecall(stopped, res.Harmful, res.RedundantStopped, res.Redundant)
	if (p != nil && (*p < 0 || *p > 1)) || (rc != nil && (*rc < 0 || *rc > 1)) {
		fail("precision %v recall %v out of [0, 1]", p, rc)
	}
	prev := 0
	var saved int64
	counts := map[guard.Action]int{}
	for _, d := range res.Decisions {
		if d.Call <= prev || d.Call > calls || d.Turn < 1 {
			fail("decision for call %d (turn %d) after call %d of %d", d.Call, d.Turn, prev, calls)
		}
		prev = d.Call
		if d.Action.String() == "unknown" || (d.Action != guard.Allow && d.Detector == "" && d.Action != guard.Halt) {
			fail("call %d: action %v with detector %q", d.Call, d.Action, d.Detector)
		}
		if d.Harmful && !d.Action.Stops() {
			fail("call %d is harmful but was not stopped (%v)", d.Call, d.Action)
		}
		if d.Call == 1 && d.Action.Stops() {
			fail("the first call of the session was stopped (%v by %s)", d.Action, d.Detector)
		}
		if d.Native == "" {
			counts[d.Action]++
		}
		saved += d.TokensSaved
	}
	if counts[guard.Steer] != res.Steered || counts[guard.Block] != res.Blocked || counts[guard.Dedup] != res.Deduped {
		fail("decisions list %v, totals say steered %d blocked %d deduped %d", counts, res.Steered, res.Blocked, res.Deduped)
	}
	if saved != res.TokensSaved {
		fail("decisions save %d tokens, the total says %d", saved, res.TokensSaved)
	}
	n := 0
	for _, ts := range tools {
		n += ts.Calls
	}
	if n != calls {
		fail("tool table counts %d calls, want %d", n, calls)
	}
}

// gateErrorPrefix: a gate file error starts with "FILE:LINE: ".
var gateErrorPrefix = regexp.MustCompile(`^[^\n]*fuzz\.gate\.yaml:[0-9]+: \S`)

func FuzzGateFile(f *testing.F) {
	dir := filepath.Join("..", "fixtures", "gate")
	files, _ := filepath.Glob(filepath.Join(dir, "*.gate.yaml"))
	more, _ := filepath.Glob(filepath.Join(dir, "invalid", "*.gate.yaml"))
	golden, _ := filepath.Glob(filepath.Join("..", "fixtures", "golden", "*.gate.yaml"))
	for _, p := range append(append(files, more...), golden...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("cases: &c [*c]\n"))
	f.Add([]byte("cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect: {blocked: \"<= 1e400\"}\n"))
	path := filepath.Join(dir, "fuzz.gate.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		done := make(chan struct{})
		var g *Gate
		var err error
		go func() {
			defer close(done)
			g, err = ParseGate(data, path)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			panic("ParseGate ran longer than 20s: a hang")
		}
		if err != nil {
			if !gateErrorPrefix.MatchString(err.Error()) {
				t.Fatalf("error does not start with FILE:LINE: %q", err)
			}
			return
		}
		if len(g.Cases) == 0 {
			t.Fatal("a gate with no case loaded")
		}
		for i, c := range g.Cases {
			if c.Index != i+1 || c.Name == "" || c.Line < 1 || len(c.Files) == 0 || c.Rules == nil {
				t.Fatalf("case %d loaded incomplete: index %d, name %q, line %d, %d files, rules %v", i+1, c.Index, c.Name, c.Line, len(c.Files), c.Rules != nil)
			}
			for _, e := range c.Expect {
				if !strings.Contains("== != >= <= > <", e.Op) || e.Op == "" || (e.Value == nil && e.Op != "==" && e.Op != "!=") {
					t.Fatalf("case %d: expectation %q has op %q value %v", i+1, e.Text, e.Op, e.Value)
				}
			}
		}
	})
}

// TestHostileGateYAML: each hostile gate file is an error naming the file
// and a line, in bounded time. (FuzzParseGate in gate_test.go and
// FuzzGateFile above cover random text; these are the named attacks.)
func TestHostileGateYAML(t *testing.T) {
	laughs := "lol0: &l0 [a, a, a, a, a, a, a, a, a]\n"
	for i := 1; i <= 9; i++ {
		laughs += fmt.Sprintf("lol%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	// The bomb inside what the loader walks: every case is an alias of a
	// list nine times larger than the one before.
	caseBomb := "x0: &c0 {transcript: ../golden/loops/read-loop.jsonl, snapshot: false, expect: {blocked: 4}}\n"
	for i := 1; i <= 9; i++ {
		caseBomb += fmt.Sprintf("x%d: &c%d [*c%d, *c%d, *c%d, *c%d, *c%d, *c%d, *c%d, *c%d, *c%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	caseBomb += "cases: *c9\n"
	read := "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n"
	cases := []struct {
		name, text string
		line       int
		word       string
	}{
		{"empty", "", 1, "empty"},
		{"only a comment", "# nothing\n", 1, "empty"},
		{"billion laughs", laughs, 6, "more than 100000 YAML nodes once its aliases are expanded"},
		{"alias bomb as the cases", caseBomb, 6, "more than 100000 YAML nodes once its aliases are expanded"},
		{"self alias", "cases: &a [*a]\n", 1, ""},
		{"unknown key", read + "    expected: {blocked: 4}\n", 3, "unknown key"},
		{"wrong type", read + "    expect: [1, 2]\n", 3, "mapping"},
		{"huge call number", read + "    calls: [{call: 99999999999999999999999, action: block}]\n", 3, "whole number"},
		{"huge expected number", read + "    expect: {blocked: 1e400}\n", 3, ""},
		{"huge comparison", read + "    expect: {blocked: \">= 1e400\"}\n", 3, ""},
		{"not a mapping", "- a\n- b\n", 1, "mapping"},
		{"deep nesting", "cases: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", 1, ""},
		{"binary", "\x00\x01\x02\xff\xfe", 1, ""},
		{"no cases", "preset: nanobot\n", 1, "cases"},
	}
	path := filepath.Join("..", "fixtures", "gate", "hostile.gate.yaml")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				g   *Gate
				err error
			}
			done := make(chan result, 1)
			go func() {
				g, err := ParseGate([]byte(tc.text), path)
				done <- result{g, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("ParseGate did not return within 20s")
			}
			if res.err == nil {
				t.Fatalf("loaded %d cases; want an error", len(res.g.Cases))
			}
			msg := res.err.Error()
			prefix := fmt.Sprintf("%s:%d:", path, tc.line)
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.word) {
				t.Errorf("error %.300q; want it to start with %q and hold %q", msg, prefix, tc.word)
			}
			if len(msg) > 1000 {
				t.Errorf("error is %d bytes long; it should not echo the file", len(msg))
			}
		})
	}
}
