package analyze

// Fuzz targets for the engine; the gate file's are in analyze/gate.
//
// FuzzReplay decodes the fuzzer's bytes into a stream of turns, requests,
// compactions and calls drawn from small sets of tools, arguments and
// results (so that repeats, loops, failures and changed results are
// common), and replays it under every preset. Beyond "no panic" it checks
// the accounting a report relies on and that a replay is deterministic.

import (
	"bytes"
	"encoding/json"
	"fmt"
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
