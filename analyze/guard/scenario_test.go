package guard

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// step is one event of a hand-built call stream. A step with a tool is a
// call; want says what the guard must do with it as "action",
// "action:detector" or "action:detector:count" (the strongest of the
// Before, After and, when round is set, EndRequest verdicts).
type step struct {
	user       bool   // a genuine user message comes before this step
	prompt     string // ... whose text is this (UserPrompt)
	compaction bool   // a context compaction comes before this step
	tool       string
	args       string
	other      bool // the call is another agent's of the session (OtherAgentCall)
	result     string
	failed     bool
	noResult   bool          // the call never returned (CallEvent.NoResult)
	at         time.Duration // time since the stream's start (0: no time)
	round      bool          // EndRequest after this call
	want       string
	msg        string // the message must equal this (when set)
	msgHas     string // or contain this
}

var t0 = time.Date(2026, 5, 20, 14, 0, 0, 0, time.UTC)

func hashResult(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// outcome is what the guard did with one call.
type outcome struct {
	before, after, end Verdict
}

func (o outcome) strongest() Verdict {
	best := o.before
	for _, v := range []Verdict{o.after, o.end} {
		if rank(v.Action) > rank(best.Action) {
			best = v
		}
	}
	return best
}

func (o outcome) String() string {
	v := o.strongest()
	if v.Action == Allow {
		return "allow"
	}
	return fmt.Sprintf("%s:%s:%d", v.Action, v.Detector, v.Count)
}

// run replays steps through a Guard the way replay does.
func run(t *testing.T, r *rules.Rules, steps []step) []outcome {
	t.Helper()
	g := NewGuard(r)
	var out []outcome
	for i, s := range steps {
		if o := applyStep(g, r, i, s); o != nil {
			out = append(out, *o)
		}
	}
	return out
}

// check runs the steps and compares every call's outcome with its want.
func check(t *testing.T, r *rules.Rules, steps []step) []outcome {
	t.Helper()
	outs := run(t, r, steps)
	// Every scenario is also a proof that a snapshot restores exactly
	// (snapshot_test.go).
	checkSnapshots(t, t.Name(), r, steps, 1)
	n := 0
	for i, s := range steps {
		if s.tool == "" || s.other {
			continue
		}
		o := outs[n]
		n++
		got := o.String()
		want := s.want
		if want == "" {
			want = "allow"
		}
		if got != want && !strings.HasPrefix(got, want+":") {
			t.Errorf("step %d (%s %s): got %s, want %s", i+1, s.tool, s.args, got, want)
		}
		msg := o.strongest().Message
		if s.msg != "" && msg != s.msg {
			t.Errorf("step %d (%s): message\n got %q\nwant %q", i+1, s.tool, msg, s.msg)
		}
		if s.msgHas != "" && !strings.Contains(msg, s.msgHas) {
			t.Errorf("step %d (%s): message %q does not contain %q", i+1, s.tool, msg, s.msgHas)
		}
	}
	return outs
}

func preset(t *testing.T, name string) *rules.Rules {
	t.Helper()
	r, err := rules.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const piBlock4 = "LoopGuard: fetch_content called 4 times with identical args this turn. Prior result is in context. Use it instead of re-calling."

// piSteer and piBlock are pi-tools-loop-guard's texts (guards.md §3.11);
// args is the raw input as JSON.stringify writes it.
func piSteer(tool string, count int, args string) string {
	return fmt.Sprintf("LoopGuard: %s called %d times with identical args (%s). The result from the first call is still in your context. Do not call %s with these args again — the next call in this turn will be blocked. Use the prior result instead. If you're sure that LoopGuard's signal is false positive, then you may call bash with command: echo '/loopguard reset'.", tool, count, args, tool)
}

func piBlock(tool string, count int) string {
	return fmt.Sprintf("LoopGuard: %s called %d times with identical args this turn. Prior result is in context. Use it instead of re-calling.", tool, count)
}

// TestPiWorkedExample replays guards.md §3.13 on the same call ordinals.
func TestPiWorkedExample(t *testing.T) {
	r := preset(t, "pi-loopguard")
	A, B := `{"url":"https://a.example/x"}`, `{"url":"https://b.example/y"}`
	outs := check(t, r, []step{
		{user: true, tool: "fetch_content", args: A},
		{tool: "fetch_content", args: B},
		{tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A, want: "steer:repeat:3",
			msg: "LoopGuard: fetch_content called 3 times with identical args ({\"url\":\"https://a.example/x\"}). The result from the first call is still in your context. Do not call fetch_content with these args again — the next call in this turn will be blocked. Use the prior result instead. If you're sure that LoopGuard's signal is false positive, then you may call bash with command: echo '/loopguard reset'."},
		{tool: "fetch_content", args: A, want: "block:repeat:4", msg: piBlock4},
		{tool: "fetch_content", args: A, want: "block:repeat:4", msg: piBlock4},
		{user: true, tool: "fetch_content", args: A},
	})
	// Blocked calls 5 and 6 are "the same call" as 1, 3 and 4: same key and
	// scope. After the user message the scope is new.
	if outs[4].before.Key != outs[0].before.Key || outs[4].before.Scope != outs[0].before.Scope {
		t.Errorf("block not in the same key/scope as the first call: %+v vs %+v", outs[4].before, outs[0].before)
	}
	if outs[6].before.Scope == outs[0].before.Scope {
		t.Errorf("scope did not change at the user message")
	}
}

func TestPiABAB(t *testing.T) {
	r := preset(t, "pi-loopguard")
	A, B := `{"url":"A"}`, `{"url":"B"}`
	check(t, r, []step{
		{user: true, tool: "fetch_content", args: A},
		{tool: "fetch_content", args: B},
		{tool: "fetch_content", args: A},
		{tool: "fetch_content", args: B},
		{tool: "fetch_content", args: A, want: "steer:repeat:3", msg: piSteer("fetch_content", 3, A)},
		{tool: "fetch_content", args: B, want: "steer:repeat:3", msg: piSteer("fetch_content", 3, B)},
		{tool: "fetch_content", args: A, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
		{tool: "fetch_content", args: B, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
		// Not steered twice: every later call of either key is blocked.
		{tool: "fetch_content", args: A, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
		{tool: "fetch_content", args: B, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
	})
}

// TestPiWriteClearsReads: a write to a path re-allows reads of it; the key
// stays steered, so the next block comes at T+2 with no second steer (§3.7).
func TestPiWriteClearsReads(t *testing.T) {
	r := preset(t, "pi-loopguard")
	read := `{"path":"/src/a.ts"}`
	other := `{"path":"/src/b.ts"}`
	outs := check(t, r, []step{
		{user: true, tool: "read", args: read},
		{tool: "read", args: other},
		{tool: "read", args: read},
		{tool: "read", args: read},
		{tool: "read", args: other},
		{tool: "read", args: read, want: "steer:repeat:4", msg: piSteer("read", 4, read)},
		{tool: "read", args: read, want: "block:repeat:5", msg: piBlock("read", 5)},
		{tool: "edit", args: `{"path":"/src/a.ts","edits":[{"oldText":"x","newText":"y"}]}`},
		{tool: "read", args: read},
		{tool: "read", args: read},
		{tool: "read", args: read},
		{tool: "read", args: read}, // 4th: already steered, no second steer
		{tool: "read", args: read, want: "block:repeat:5", msg: piBlock("read", 5)},
		{tool: "read", args: other},
		{tool: "read", args: other, want: "steer:repeat:4"}, // b.ts was not cleared
		// A raw substring test: writing "a.ts" also clears "/src/a.ts".
		{tool: "write", args: `{"path":"a.ts","content":"z"}`},
		{tool: "read", args: read},
	})
	if outs[16].before.Scope == outs[12].before.Scope {
		t.Errorf("a write to the path did not start a new epoch for its reads")
	}
	if outs[8].before.Scope == outs[6].before.Scope {
		t.Errorf("the edit did not start a new epoch for the reads of its path")
	}
}

func TestPiEditKeyDropsNewText(t *testing.T) {
	r := preset(t, "pi-loopguard")
	edit := func(newText string) string {
		return `{"path":"/src/App.ts","edits":[{"oldText":"foo","newText":"` + newText + `"}]}`
	}
	check(t, r, []step{
		{user: true, tool: "edit", args: edit("a")},
		{tool: "edit", args: edit("b")},
		{tool: "edit", args: edit("c"), want: "steer:repeat:3"},
		{tool: "edit", args: `{"path":"/src/App.ts","edits":[{"oldText":"bar","newText":"c"}]}`},
		{tool: "edit", args: edit("d"), want: "block:repeat:4"},
	})
	k1, _ := callKey(r, "edit", mustParse(t, edit("a")), true, "")
	if k1 != `edit::{"edits":[{"oldText":"foo"}],"path":"/src/App.ts"}` {
		t.Errorf("edit key = %s", k1)
	}
	k2, _ := callKey(r, "bash", mustParse(t, `{"command":"ls","timeout":30,"toolCallId":"abc-123"}`), true, "")
	if k2 != `bash::{"command":"ls"}` {
		t.Errorf("bash key = %s", k2)
	}
}

func mustParse(t *testing.T, s string) jsonx.Value {
	t.Helper()
	v, err := jsonx.ParseString(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mustArgs is mustParse for a CallEvent's Args.
func mustArgs(t *testing.T, s string) *jsonx.Value {
	t.Helper()
	v := mustParse(t, s)
	return &v
}

func TestPiWindow(t *testing.T) {
	r := preset(t, "pi-loopguard")
	A := `{"url":"A"}`
	check(t, r, []step{
		{user: true, tool: "fetch_content", args: A, at: time.Second},
		{tool: "fetch_content", args: A, at: 10 * time.Second},
		{tool: "fetch_content", args: A, at: 20 * time.Second, want: "steer:repeat:3", msg: piSteer("fetch_content", 3, A)},
		{tool: "fetch_content", args: A, at: 30 * time.Second, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
		// 2 minutes after the timer started (at the first call): all
		// cleared, and as a key had been steered, the reset is announced:
		// "If there were steered keys (repeated calls), a steering message
		// announces the reset; otherwise it happens silently" (README).
		{tool: "fetch_content", args: A, at: 121 * time.Second, want: "steer:scope", msgHas: "all repeat counters were reset"},
		{tool: "fetch_content", args: A, at: 130 * time.Second},
		{tool: "fetch_content", args: A, at: 140 * time.Second, want: "steer:repeat:3", msg: piSteer("fetch_content", 3, A)},
		// 119 s after the restart: not yet.
		{tool: "fetch_content", args: A, at: 240 * time.Second, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
	})
}

func TestPiManualReset(t *testing.T) {
	r := preset(t, "pi-loopguard")
	A := `{"url":"A"}`
	check(t, r, []step{
		{user: true, tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A, want: "steer:repeat:3", msg: piSteer("fetch_content", 3, A)},
		{tool: "fetch_content", args: A, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
		{tool: "bash", args: `{"command":"  ECHO '/loopguard reset' "}`},
		{tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A},
		// The steered key was cleared too: steered again, then blocked.
		{tool: "fetch_content", args: A, want: "steer:repeat:3", msg: piSteer("fetch_content", 3, A)},
		{tool: "fetch_content", args: A, want: "block:repeat:4", msg: piBlock("fetch_content", 4)},
		// The reset command itself is never counted.
		{tool: "bash", args: `{"command":"echo \"/loopguard reset\""}`},
		{tool: "bash", args: `{"command":"echo \"/loopguard reset\""}`},
		{tool: "bash", args: `{"command":"echo \"/loopguard reset\""}`},
		{tool: "bash", args: `{"command":"echo \"/loopguard reset\""}`},
		{tool: "bash", args: `{"command":"echo \"/loopguard reset\""}`},
		{tool: "bash", args: `{"command":"echo \"/loopguard reset\""}`},
		{tool: "bash", args: `{"command":"echo \"/loopguard reset\""}`},
	})
}

// TestPiTravels: pi's thresholds reach hermes' tools through classes.
func TestPiTravels(t *testing.T) {
	r := preset(t, "pi-loopguard")
	var steps []step
	for i := 1; i <= 5; i++ {
		s := step{tool: "read_file", args: `{"path":"/x"}`}
		switch i {
		case 4:
			s.want = "steer:repeat:4"
		case 5:
			s.want = "block:repeat:5"
		}
		steps = append(steps, s)
	}
	for i := 1; i <= 7; i++ {
		s := step{tool: "terminal", args: `{"command":"make"}`}
		switch i {
		case 6:
			s.want = "steer:repeat:6"
		case 7:
			s.want = "block:repeat:7"
		}
		steps = append(steps, s)
	}
	for i := 1; i <= 4; i++ {
		s := step{tool: "patch", args: `{"path":"/x","old_string":"a","new_string":"b"}`}
		switch i {
		case 3:
			s.want = "steer:repeat:3"
		case 4:
			s.want = "block:repeat:4"
		}
		steps = append(steps, s)
	}
	steps[0].user = true
	check(t, r, steps)
}

const nanobotLookup = "Error: repeated external lookup blocked. Use the results you already have to answer, or try a meaningfully different source.\n\n[Analyze the error above and try a different approach.]"
const nanobotLocal = "Error: repeated identical tool call blocked. Use the prior result or choose a different tool.\n\n[Analyze the error above and try a different approach.]"

func TestNanobot(t *testing.T) {
	r := preset(t, "nanobot")
	check(t, r, []step{
		{user: true, tool: "web_search", args: `{"query":"Example 2.4 release date"}`},
		{tool: "web_search", args: `{"query":"example 2.4 release date ","count":5}`},
		{tool: "web_search", args: `{"query":"Example 2.4 Release Date"}`, want: "block:repeat:3", msg: nanobotLookup},
		// Blocked attempts count: the 4th is blocked too, with count 4.
		{tool: "web_search", args: `{"search_term":"EXAMPLE 2.4 RELEASE DATE"}`, want: "block:repeat:4", msg: nanobotLookup},
		{tool: "web_fetch", args: `{"url":"https://Example.com/A"}`},
		{tool: "web_fetch", args: `{"url":" https://example.com/a","maxChars":100}`},
		{tool: "web_fetch", args: `{"url":"https://example.com/a/"}`}, // trailing "/" differs
		{tool: "web_fetch", args: `{"url":"HTTPS://EXAMPLE.COM/A"}`, want: "block:repeat:3", msg: nanobotLookup},
		{tool: "web_search", args: `{"query":""}`}, // no signature: never counted
		{tool: "web_search", args: `{"query":""}`},
		{tool: "web_search", args: `{"query":""}`},
		{tool: "read_file", args: `{"path":"a.txt","offset":1}`},
		{tool: "read_file", args: `{"offset":1,"path":"a.txt"}`},
		{tool: "read_file", args: `{"path":"a.txt","offset":1}`, want: "block:repeat:3", msg: nanobotLocal},
		{tool: "read_file", args: `{"path":"A.txt","offset":1}`}, // no folding for local calls
		{tool: "grep", args: `{"pattern":"x"}`},
		{tool: "grep", args: `{"pattern":"x"}`},
		{tool: "grep", args: `{"pattern":"x"}`, want: "block:repeat:3"},
		// Tools PR #3701 does not list are never blocked.
		{tool: "find_files", args: `{"pattern":"*.go"}`},
		{tool: "find_files", args: `{"pattern":"*.go"}`},
		{tool: "find_files", args: `{"pattern":"*.go"}`},
		{tool: "exec", args: `{"command":"ls"}`},
		{tool: "exec", args: `{"command":"ls"}`},
		{tool: "exec", args: `{"command":"ls"}`},
		// A new run starts afresh.
		{user: true, tool: "web_search", args: `{"query":"Example 2.4 release date"}`},
		{tool: "web_search", args: `{"query":"Example 2.4 release date"}`},
	})
}

// TestNanobotWebsocketSample replays the web_search calls of the nanobot
// sample that guards.md §1.1 cites, and checks that our block is the
// call nanobot blocked, with nanobot's exact text.
func TestNanobotWebsocketSample(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "samples", "nanobot", "synthetic",
		"F4_v0.1.4.post3-v0.2.2_full_turns", "v0.2.0", "websocket_5f0c2a.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("sample not available (%v)", err)
	}
	defer f.Close()
	type call struct{ args, result string }
	var calls []call
	byID := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var rec struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    any    `json:"content"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		for _, tc := range rec.ToolCalls {
			if tc.Function.Name == "web_search" {
				byID[tc.ID] = len(calls)
				calls = append(calls, call{args: tc.Function.Arguments})
			}
		}
		if i, ok := byID[rec.ToolCallID]; ok && rec.Role == "tool" {
			calls[i].result, _ = rec.Content.(string)
		}
	}
	if len(calls) < 3 {
		t.Fatalf("expected at least 3 web_search calls in the sample, found %d", len(calls))
	}
	r := preset(t, "nanobot")
	var steps []step
	for i, c := range calls[:3] {
		s := step{tool: "web_search", args: c.args, result: c.result}
		if i == 0 {
			s.user = true
		}
		if i == 2 {
			s.want, s.msg = "block:repeat:3", c.result
		}
		steps = append(steps, s)
	}
	check(t, r, steps)
}

const attractorText = "Loop detected: the last 10 tool calls follow a repeating pattern. Try a different approach."

func attractorSteps(pattern []string, n int) []step {
	var steps []step
	for i := 0; i < n; i++ {
		steps = append(steps, step{tool: "read_file", args: `{"path":"` + pattern[i%len(pattern)] + `"}`, round: true})
	}
	steps[0].user = true
	return steps
}

// TestAttractor follows coding-agent-loop-spec.md §2.10 (fb57a55ed973):
//
//	FOR pattern_len IN [1, 2, 3]:
//	    IF window_size % pattern_len != 0: CONTINUE
//
// checked after each round ("-- 8. Loop detection", after the tool calls
// ran and the steering queue was drained) over session.history, with the
// warning "Loop detected: the last " + loop_detection_window + " tool calls
// follow a repeating pattern. Try a different approach."
func TestAttractor(t *testing.T) {
	r := preset(t, "attractor")
	t.Run("ten identical calls", func(t *testing.T) {
		steps := attractorSteps([]string{"a"}, 12)
		for i := 9; i < 12; i++ { // warned again after every round while periodic
			steps[i].want, steps[i].msg = "steer:cycle:10", attractorText
		}
		check(t, r, steps)
	})
	t.Run("five times AB", func(t *testing.T) {
		steps := attractorSteps([]string{"a", "b"}, 10)
		steps[9].want, steps[9].msg = "steer:cycle:10", attractorText
		check(t, r, steps)
	})
	t.Run("ABC never caught with window 10", func(t *testing.T) {
		check(t, r, attractorSteps([]string{"a", "b", "c"}, 30))
	})
	t.Run("ABC caught with window 9", func(t *testing.T) {
		r := r.Clone()
		if err := r.Set("detectors.cycle.window", "9"); err != nil {
			t.Fatal(err)
		}
		steps := attractorSteps([]string{"a", "b", "c"}, 9)
		steps[8].want, steps[8].msg = "steer:cycle:9", "Loop detected: the last 9 tool calls follow a repeating pattern. Try a different approach."
		check(t, r, steps)
	})
	t.Run("no reset on a user message", func(t *testing.T) {
		steps := attractorSteps([]string{"a"}, 10)
		steps[5].user = true
		steps[9].want = "steer:cycle:10"
		check(t, r, steps)
	})
	t.Run("checked after the round, not per call", func(t *testing.T) {
		steps := attractorSteps([]string{"a"}, 11)
		steps[9].round = false // calls 10 and 11 are one response
		steps[10].want = "steer:cycle:10"
		check(t, r, steps)
	})
}

func hermesWarn(code string, n int, text string) string {
	return fmt.Sprintf("[Tool loop warning: %s; count=%d; %s]", code, n, text)
}

func TestHermesGuardrails(t *testing.T) {
	r := preset(t, "hermes-2026-06")
	exact := func(tool string, n int) string {
		return hermesWarn("repeated_exact_failure_warning", n, fmt.Sprintf("%s has failed %d times with identical arguments. This looks like a loop; inspect the error and change strategy instead of retrying it unchanged.", tool, n))
	}
	same := func(tool string, n int) string {
		return hermesWarn("same_tool_failure_warning", n, fmt.Sprintf("%s has failed %d times this turn. This looks like a loop. Do not switch to text-only replies; keep using tools, but diagnose before retrying. First inspect the latest error/output and verify your assumptions. Try different arguments, a narrower query/path, an absolute path when relevant, or a different tool that can make progress. If the blocker is external, report the blocker after one diagnostic attempt instead of repeating the same failing path.", tool, n))
	}
	noProgress := func(tool string, n int) string {
		return hermesWarn("idempotent_no_progress_warning", n, fmt.Sprintf("%s returned the same result %d times. Use the result already provided or change the query instead of repeating it unchanged.", tool, n))
	}
	sameTerminal := func(tool string, n int) string {
		return hermesWarn("same_tool_failure_warning", n, fmt.Sprintf("%s has failed %d times this turn. This looks like a loop. Do not switch to text-only replies; keep using tools, but diagnose before retrying. First inspect the latest error/output and verify your assumptions. For terminal failures, run a small diagnostic such as `pwd && ls -la` in the same tool, then try an absolute path, a simpler command, a different working directory, or a different tool such as read_file/write_file/patch.", tool, n))
	}
	check(t, r, []step{
		{user: true, tool: "skill_manage", args: `{"name":"a"}`, result: `{"error":"no"}`, failed: true},
		{tool: "skill_manage", args: `{"name":"a"}`, result: `{"error":"no"}`, failed: true, want: "steer:failure:2", msg: exact("skill_manage", 2)},
		{tool: "skill_manage", args: `{"name":"b"}`, result: `{"error":"no"}`, failed: true, want: "steer:tool_failure:3", msg: same("skill_manage", 3)},
		// Exact failure wins over same-tool failure on the same call.
		{tool: "skill_manage", args: `{"name":"a"}`, result: `{"error":"no"}`, failed: true, want: "steer:failure:3", msg: exact("skill_manage", 3)},
		// A success clears both counts.
		{tool: "skill_manage", args: `{"name":"a"}`, result: `ok`},
		{tool: "skill_manage", args: `{"name":"a"}`, result: `{"error":"no"}`, failed: true},
		// Idempotent no-progress: the same result twice, not necessarily in a row.
		{tool: "web_search", args: `{"query":"q"}`, result: "R"},
		{tool: "memory", args: `{"op":"x"}`, result: "ok"},
		{tool: "web_search", args: `{"query":"q"}`, result: "R", want: "steer:no_progress:2", msg: noProgress("web_search", 2)},
		{tool: "web_search", args: `{"query":"q"}`, result: "R", want: "steer:no_progress:3", msg: noProgress("web_search", 3)},
		// A different result starts the count again at 1.
		{tool: "web_search", args: `{"query":"q"}`, result: "R2"},
		{tool: "web_search", args: `{"query":"q"}`, result: "R2", want: "steer:no_progress:2", msg: noProgress("web_search", 2)},
		// Non-idempotent tools never get no-progress warnings.
		{tool: "todo", args: `{}`, result: "same"},
		{tool: "todo", args: `{}`, result: "same"},
		// Terminal gets its own recovery hint.
		{tool: "terminal", args: `{"command":"a"}`, failed: true},
		{tool: "terminal", args: `{"command":"b"}`, failed: true},
		{tool: "terminal", args: `{"command":"c"}`, failed: true, want: "steer:tool_failure:3", msg: sameTerminal("terminal", 3)},
		{tool: "terminal", args: `{"command":"d"}`, failed: true, want: "steer:tool_failure:4", msg: sameTerminal("terminal", 4)},
		// The hint travels to other shells, but hermes' execute_code gets
		// the generic one ("terminal: ... | others: ...").
		{tool: "bash", args: `{"command":"a"}`, failed: true},
		{tool: "bash", args: `{"command":"b"}`, failed: true},
		{tool: "bash", args: `{"command":"c"}`, failed: true, want: "steer:tool_failure:3", msg: sameTerminal("bash", 3)},
		{tool: "execute_code", args: `{"code":"a"}`, failed: true},
		{tool: "execute_code", args: `{"code":"b"}`, failed: true},
		{tool: "execute_code", args: `{"code":"c"}`, failed: true, want: "steer:tool_failure:3", msg: same("execute_code", 3)},
		// Per turn: a new user message clears the counts.
		{user: true, tool: "skill_manage", args: `{"name":"a"}`, result: `{"error":"no"}`, failed: true},
	})
}

func TestHermesReadSearchGuard(t *testing.T) {
	r := preset(t, "hermes-2026-06")
	read := `{"path":"/a.py","offset":1,"limit":500}`
	check(t, r, []step{
		{user: true, tool: "read_file", args: read, result: "content"},
		{tool: "read_file", args: read, result: "content", want: "steer:no_progress:2"},
		{tool: "read_file", args: read, result: "content", want: "steer:consecutive:3",
			msg: "You have read this exact file region 3 times consecutively. The content has not changed since your last read. Use the information you already have. If you are stuck in a loop, stop reading and proceed with writing or responding."},
		{tool: "read_file", args: read, result: "content", want: "block:consecutive:4",
			msg: `{"error": "BLOCKED: You have read this exact file region 4 times in a row. The content has NOT changed. You already have this information. STOP re-reading and proceed with your task.", "path": "/a.py", "already_read": 4}`},
		// The June build counts its own BLOCKED refusal as a failure: the
		// second refusal gets the exact-failure warning on top.
		{tool: "read_file", args: read, result: "content", want: "block:consecutive:5"},
		// Any other tool breaks the streak.
		{tool: "terminal", args: `{"command":"ls"}`, result: "x"},
		// The refusals were failures, which cleared the no-progress count:
		// the same result again is not a repeat.
		{tool: "read_file", args: read, result: "content"},
		{tool: "search_files", args: `{"pattern":"foo"}`, result: "m"},
		{tool: "search_files", args: `{"pattern":"foo"}`, result: "m", want: "steer:no_progress:2"},
		// The streak spans user messages (per task_id), unlike tool_guardrails.
		{user: true, tool: "search_files", args: `{"pattern":"foo"}`, result: "m", want: "steer:consecutive:3", msgHas: "You have run this exact search 3 times consecutively."},
		{tool: "search_files", args: `{"pattern":"foo"}`, result: "m", want: "block:consecutive:4",
			msg: `{"error": "BLOCKED: You have run this exact search 4 times in a row. The results have NOT changed. You already have this information. STOP re-searching and proceed with your task.", "pattern": "foo", "already_searched": 4}`},
	})
	// The 2nd refusal is counted as the 2nd failure of that call.
	outs := run(t, r, []step{
		{user: true, tool: "read_file", args: read}, {tool: "read_file", args: read},
		{tool: "read_file", args: read}, {tool: "read_file", args: read}, {tool: "read_file", args: read},
	})
	if a := outs[4].after; a.Action != Steer || a.Detector != "failure" || a.Count != 2 {
		t.Errorf("second BLOCKED refusal: after verdict %+v, want a failure steer with count 2", a)
	}
}

func TestHermesStrict(t *testing.T) {
	r := preset(t, "hermes-strict-2026-06")
	fail := step{tool: "skill_manage", args: `{"name":"a"}`, result: `{"error":"no"}`, failed: true}
	var steps []step
	for i := 1; i <= 6; i++ {
		s := fail
		if i >= 2 {
			s.want = fmt.Sprintf("steer:failure:%d", i)
		}
		steps = append(steps, s)
	}
	steps[0].user = true
	// Failed 5 times: the 6th identical call is blocked before it runs,
	// with the count of failures so far.
	steps[5].want = "block:failure:5"
	steps[5].msg = hermesBlock("skill_manage", "repeated_exact_failure_block", 5, "Blocked skill_manage: the same tool call failed 5 times with identical arguments. Stop retrying it unchanged; change strategy or explain the blocker.", `{"name":"a"}`)
	// A guardrail block never reaches after_call: it is not a 6th failure.
	steps = append(steps, step{tool: fail.tool, args: fail.args, failed: true, want: "block:failure:5"})
	check(t, r, steps)

	// Same tool failing 8 times with different arguments: halt at 8.
	steps = nil
	for i := 1; i <= 8; i++ {
		s := step{tool: "skill_manage", args: fmt.Sprintf(`{"name":"n%d"}`, i), failed: true}
		if i >= 3 {
			s.want = fmt.Sprintf("steer:tool_failure:%d", i)
		}
		steps = append(steps, s)
	}
	steps[0].user = true
	steps[7].want = "halt:tool_failure:8"
	steps[7].msg = "[Tool loop hard stop: same_tool_failure_halt; count=8; Stopped skill_manage: it failed 8 times this turn. Stop retrying the same failing tool path and choose a different approach.]"
	check(t, r, steps)

	// An idempotent call returning the same result 5 times: the 6th is blocked.
	steps = nil
	for i := 1; i <= 6; i++ {
		s := step{tool: "web_search", args: `{"query":"q"}`, result: "R"}
		if i >= 2 {
			s.want = fmt.Sprintf("steer:no_progress:%d", i)
		}
		steps = append(steps, s)
	}
	steps[0].user = true
	steps[5].want = "block:no_progress:5"
	steps[5].msg = hermesBlock("web_search", "idempotent_no_progress_block", 5, "Blocked web_search: this read-only call returned the same result 5 times. Stop repeating it unchanged; use the result already provided or try a different query.", `{"query":"q"}`)
	check(t, r, steps)

	// The plain hermes preset never blocks these.
	plain := preset(t, "hermes-2026-06")
	for _, o := range run(t, plain, steps) {
		if o.before.Action.Stops() {
			t.Errorf("hermes (hard stop off) blocked: %+v", o.before)
		}
	}
}

func TestHermesBreaker(t *testing.T) {
	r := preset(t, "hermes-breaker")
	call := step{tool: "terminal", args: `{"command":"make test"}`, result: "FAIL"}
	var steps []step
	for i := 1; i <= 6; i++ {
		s := call
		if i == 3 || i == 6 {
			s.want, s.msg = "block:consecutive:3", breakerRepeat("terminal", 3)
		}
		steps = append(steps, s)
	}
	steps[0].user = true
	// The breaker spans turns (agent lifetime); a different call breaks the streak.
	steps = append(steps,
		step{user: true, tool: "terminal", args: `{"command":"make test"}`, result: "FAIL"},
		step{tool: "terminal", args: `{"command":"ls"}`, result: "Makefile"},
		step{tool: "terminal", args: `{"command":"make test"}`, result: "FAIL"},
		step{tool: "terminal", args: `{"command":"make test"}`, result: "FAIL"},
		step{tool: "terminal", args: `{"command":"make test"}`, result: "FAIL", want: "block:consecutive:3", msg: breakerRepeat("terminal", 3)},
	)
	check(t, r, steps)

	// Tool failures: the 3rd consecutive failure of one tool (any
	// arguments) trips the breaker on that result itself (guards.md §2.5:
	// "at the threshold the call returns an error that forces a change of
	// strategy"): the call ran, the breaker's error comes with its result,
	// the counter resets, and the next call, with new arguments, runs.
	check(t, r, []step{
		{user: true, tool: "read_file", args: `{"path":"a"}`, failed: true},
		{tool: "read_file", args: `{"path":"b"}`, failed: true},
		{tool: "read_file", args: `{"path":"c"}`, failed: true, want: "steer:tool_failure:3", msg: breakerFailure("read_file", 3)},
		{tool: "read_file", args: `{"path":"d"}`, result: "text"},
		{tool: "read_file", args: `{"path":"e"}`, failed: true},
		{tool: "read_file", args: `{"path":"f"}`, failed: true},
		{tool: "read_file", args: `{"path":"g"}`, result: "text"}, // a success resets
		{tool: "read_file", args: `{"path":"h"}`, failed: true},
		{tool: "read_file", args: `{"path":"i"}`, result: "text"},
		// An empty result is a failure too.
		{tool: "read_file", args: `{"path":"j"}`, result: " "},
		{tool: "read_file", args: `{"path":"k"}`, result: ""},
		{tool: "read_file", args: `{"path":"l"}`, result: "", want: "steer:tool_failure:3", msg: breakerFailure("read_file", 3)},
		{tool: "read_file", args: `{"path":"m"}`, result: "text"},
	})
}

func TestHermesDedup(t *testing.T) {
	r := preset(t, "hermes-dedup")
	check(t, r, []step{
		{user: true, tool: "terminal", args: `{"command":"git log --oneline"}`, result: "7 commits"},
		{tool: "terminal", args: `{"command":"git log --oneline"}`, result: "7 commits", want: "dedup:dedup:2",
			msg: "Note: This tool call was already executed in this turn with identical arguments. Result was:\n7 commits"},
		// Same tool, different arguments, same output: flagged at the 3rd.
		{tool: "terminal", args: `{"command":"git log --all --oneline"}`, result: "7 commits"},
		{tool: "terminal", args: `{"command":"git log --oneline --all"}`, result: "7 commits", want: "steer:no_progress:3",
			msg: "Note: terminal has returned this same output 3 times in this turn; this call brought no new information. Use the result you already have or change approach. (loopgate wording: PR #18075 quotes no text)"},
		// Pollers are exempt.
		{tool: "process", args: `{"action":"poll"}`, result: "running"},
		{tool: "process", args: `{"action":"poll"}`, result: "running"},
		{tool: "process", args: `{"action":"poll"}`, result: "running"},
		// Per turn.
		{user: true, tool: "terminal", args: `{"command":"git log --oneline"}`, result: "7 commits"},
	})
}

// TestLoopgatePreset walks the measured default (rules/presets/loopgate.yaml,
// docs/tuning.md) through each of its rules.
func TestLoopgatePreset(t *testing.T) {
	r := preset(t, "loopgate")
	read := `{"path":"/a.go"}`
	build := `{"command":"make"}`
	check(t, r, []step{
		{user: true, tool: "read_file", args: read, result: "v1"},
		// It already ran and succeeded, nothing changed since: answered
		// with a pointer to the earlier result (still in the context), and
		// again (an answered call does not run, so nothing changes).
		{tool: "read_file", args: read, result: "v1", want: "dedup:dedup:2", msgHas: "its result is above in your context"},
		{tool: "read_file", args: read, result: "v1", want: "dedup:dedup"},
		// Key order and volatile arguments do not make a call new.
		{tool: "read_file", args: `{"timeout":5,"path":"/a.go"}`, result: "v1", want: "dedup:dedup"},
		// A write naming the path clears its reads.
		{tool: "write_file", args: `{"path":"/a.go","content":"x"}`, result: "ok"},
		{tool: "read_file", args: read, result: "v2"},
		// A write to another path leaves them (invalidate: path).
		{tool: "write_file", args: `{"path":"/b.go","content":"x"}`, result: "ok"},
		{tool: "read_file", args: read, result: "v2", want: "dedup:dedup"},
		// A shell command whose reach is unknown may change any file: it
		// clears every read.
		{tool: "terminal", args: build, result: "Error: build failed", failed: true},
		{tool: "read_file", args: read, result: "v2"},
		// Failures never count as "the same result": a retry may work. The
		// second identical failure is steered.
		{tool: "terminal", args: build, result: "Error: build failed", failed: true, want: "steer:failure:2"},
		{tool: "terminal", args: build, result: "ok"},
		// A command that acts is never answered, however often it succeeded.
		{tool: "terminal", args: build, result: "ok"},
		// A shell command that only reads is answered like a read, and
		// cleared by a shell command that writes its path...
		{tool: "terminal", args: `{"command":"cat /a.go"}`, result: "v2"},
		{tool: "terminal", args: `{"command":"cat /a.go"}`, result: "v2", want: "dedup:dedup"},
		{tool: "terminal", args: `{"command":"echo x > /a.go"}`, result: ""},
		{tool: "terminal", args: `{"command":"cat /a.go"}`, result: "x"},
		// ...and by apply_patch naming it, not by one naming another file.
		{tool: "apply_patch", args: `{"input":"*** Begin Patch\n*** Update File: /c.go\n*** End Patch"}`, result: "ok"},
		{tool: "terminal", args: `{"command":"cat /a.go"}`, result: "x", want: "dedup:dedup"},
		{tool: "apply_patch", args: `{"input":"*** Begin Patch\n*** Update File: a.go\n*** End Patch"}`, result: "ok"},
		{tool: "terminal", args: `{"command":"cat /a.go"}`, result: "y"},
		// Pollers repeat by design and are never stopped.
		{tool: "process", args: `{"action":"poll","id":"7"}`, result: "running"},
		{tool: "process", args: `{"action":"poll","id":"7"}`, result: "running"},
		{tool: "process", args: `{"action":"poll","id":"7"}`, result: "running"},
		// Nor are tools of unknown effect ("other" class).
		{tool: "send_message", args: `{"text":"hi"}`, result: "sent"},
		{tool: "send_message", args: `{"text":"hi"}`, result: "sent"},
		// A new user message resets the counters, and so does a compaction.
		{user: true, tool: "read_file", args: read, result: "v2"},
		{compaction: true, tool: "read_file", args: read, result: "v2"},
		{tool: "read_file", args: read, result: "v2", want: "dedup:dedup"},
	})
}

// hermesBlock is hermes' tool_guardrails block result (guards.md §2.2);
// sortedArgs is the sorted compact JSON whose sha256 is the args_hash.
func hermesBlock(tool, code string, n int, message, sortedArgs string) string {
	sum := sha256.Sum256([]byte(sortedArgs))
	return fmt.Sprintf(`{"error": "%s", "guardrail": {"action": "block", "code": "%s", "message": "%s", "tool_name": "%s", "count": %d, "signature": {"tool_name": "%s", "args_hash": "%s"}}}`,
		message, code, message, tool, n, tool, hex.EncodeToString(sum[:]))
}

// breakerRepeat and breakerFailure are the hermes-breaker preset's texts
// (PR #14059 quotes none; the preset's own wording).
func breakerRepeat(tool string, n int) string {
	return fmt.Sprintf("Error: circuit breaker tripped: %s was called %d times in a row with identical arguments. The call was not executed. Try a different strategy.\n💡 Suggestion: step back, re-read the task and the results you already have, and try a different tool or different arguments. (loopgate wording: PR #14059 quotes no text)", tool, n)
}

func breakerFailure(tool string, n int) string {
	return fmt.Sprintf("Error: circuit breaker tripped: %s failed %d times in a row. Change strategy instead of retrying this tool.\n💡 Suggestion: inspect the last error, then try different arguments or a different tool. (loopgate wording: PR #14059 quotes no text)", tool, n)
}

// TestPiThresholdTable replays guards.md §3.4 row by row: with T the
// tool's allowed calls, calls 1..T run, call T+1 is steered, and calls T+2
// and T+3 are blocked, both saying "T+2 times" (a blocked call is not
// recorded, §3.5).
func TestPiThresholdTable(t *testing.T) {
	r := preset(t, "pi-loopguard")
	for _, c := range []struct {
		tool, args string
		T          int
	}{
		{"fetch_content", `{"url":"https://x.example/"}`, 2},
		{"web_search", `{"query":"q"}`, 2},
		{"code_search", `{"query":"q"}`, 2},
		{"edit", `{"path":"/src/a.ts","edits":[{"oldText":"a","newText":"b"}]}`, 2},
		{"read", `{"path":"/src/a.ts"}`, 3},
		{"ctx_read", `{"path":"/src/a.ts"}`, 3},
		{"ctx_grep", `{"pattern":"x"}`, 3},
		{"ctx_find", `{"pattern":"x"}`, 3},
		{"bash", `{"command":"make"}`, 5},
		// "default 3: any other tool, including write" - and pi's own
		// ctx_shell, although it is in the shell class.
		{"write", `{"path":"/src/a.ts","content":"x"}`, 3},
		{"ctx_shell", `{"command":"make"}`, 3},
		{"some_tool", `{"x":1}`, 3},
	} {
		t.Run(c.tool, func(t *testing.T) {
			var steps []step
			for i := 1; i <= c.T+3; i++ {
				s := step{tool: c.tool, args: c.args}
				switch {
				case i == c.T+1:
					s.want, s.msg = fmt.Sprintf("steer:repeat:%d", i), piSteer(c.tool, i, c.args)
				case i > c.T+1:
					s.want, s.msg = fmt.Sprintf("block:repeat:%d", c.T+2), piBlock(c.tool, c.T+2)
				}
				steps = append(steps, s)
			}
			steps[0].user = true
			check(t, r, steps)
		})
	}
}

// TestPiKeys replays the key facts of guards.md §3.3 that pi's tests pin.
func TestPiKeys(t *testing.T) {
	r := preset(t, "pi-loopguard")
	key := func(tool, args string) string {
		t.Helper()
		k, ok := callKey(r, tool, mustParse(t, args), true, args)
		if !ok {
			t.Fatalf("no key for %s %s", tool, args)
		}
		return k
	}
	for _, c := range []struct {
		name       string
		tool, a, b string
		same       bool
	}{
		{"volatile keys", "bash", `{"command":"ls","timeout":30,"toolCallId":"abc-123"}`, `{"command":"ls"}`, true},
		{"top level sorted", "read", `{"path":"a","offset":1}`, `{"offset":1,"path":"a"}`, true},
		{"nested order kept", "read", `{"path":"a","o":{"x":1,"y":2}}`, `{"path":"a","o":{"y":2,"x":1}}`, false},
		{"nested volatile kept", "read", `{"path":"a","o":{"id":1}}`, `{"path":"a","o":{"id":2}}`, false},
		{"edit newText", "edit", `{"path":"/p","edits":[{"oldText":"a","newText":"1"}]}`, `{"path":"/p","edits":[{"oldText":"a","newText":"2"}]}`, true},
		{"edit oldText", "edit", `{"path":"/p","edits":[{"oldText":"a","newText":"1"}]}`, `{"path":"/p","edits":[{"oldText":"b","newText":"1"}]}`, false},
		{"edit path", "edit", `{"path":"/p","edits":[{"oldText":"a","newText":"1"}]}`, `{"path":"/q","edits":[{"oldText":"a","newText":"1"}]}`, false},
		{"multi-edit element by element", "edit",
			`{"path":"/p","edits":[{"oldText":"a","newText":"1"},{"oldText":"b","newText":"2"}]}`,
			`{"path":"/p","edits":[{"oldText":"a","newText":"3"},{"oldText":"b","newText":"4"}]}`, true},
		{"flat newText stays (latest strips edits[] only)", "edit", `{"path":"/p","oldText":"a","newText":"1"}`, `{"path":"/p","oldText":"a","newText":"2"}`, false},
	} {
		if got := key(c.tool, c.a) == key(c.tool, c.b); got != c.same {
			t.Errorf("%s: same key = %v, want %v (%s vs %s)", c.name, got, c.same, key(c.tool, c.a), key(c.tool, c.b))
		}
	}
	for args, want := range map[string]string{
		`{"edits":[{"oldText":"foo","newText":"x"}],"path":"/src/App.ts"}`: `edit::{"edits":[{"oldText":"foo"}],"path":"/src/App.ts"}`,
	} {
		if got := key("edit", args); got != want {
			t.Errorf("key %s, want %s", got, want)
		}
	}
	for args, want := range map[string]string{`null`: `bash::null`, `"just-a-string"`: `bash::"just-a-string"`} {
		if got := key("bash", args); got != want {
			t.Errorf("key %s, want %s", got, want)
		}
	}
}

// TestPiScopeEvents: the scope rules of guards.md §3.7-§3.9 that the
// worked example does not reach.
func TestPiScopeEvents(t *testing.T) {
	r := preset(t, "pi-loopguard")
	A := `{"url":"A"}`
	cases := []struct {
		name  string
		steps []step
	}{
		{"§3.7 only read and ctx_read keys are cleared, not ctx_grep", []step{
			{user: true, tool: "ctx_grep", args: `{"pattern":"x","path":"/src/a.ts"}`},
			{tool: "ctx_grep", args: `{"pattern":"x","path":"/src/a.ts"}`},
			{tool: "ctx_grep", args: `{"pattern":"x","path":"/src/a.ts"}`},
			{tool: "ctx_read", args: `{"path":"/src/a.ts"}`},
			{tool: "ctx_read", args: `{"path":"/src/a.ts"}`},
			{tool: "ctx_read", args: `{"path":"/src/a.ts"}`},
			{tool: "write", args: `{"path":"/src/a.ts","content":"z"}`},
			{tool: "ctx_grep", args: `{"pattern":"x","path":"/src/a.ts"}`, want: "steer:repeat:4", msg: piSteer("ctx_grep", 4, `{"pattern":"x","path":"/src/a.ts"}`)},
			{tool: "ctx_read", args: `{"path":"/src/a.ts"}`},
		}},
		{"§3.7 raw substring: a.ts clears data.tsx", []step{
			{user: true, tool: "read", args: `{"path":"data.tsx"}`},
			{tool: "read", args: `{"path":"data.tsx"}`},
			{tool: "read", args: `{"path":"data.tsx"}`},
			{tool: "edit", args: `{"path":"a.ts","edits":[{"oldText":"x","newText":"y"}]}`},
			{tool: "read", args: `{"path":"data.tsx"}`},
		}},
		{"§3.7 a blocked edit clears nothing", []step{
			{user: true, tool: "edit", args: `{"path":"/b","edits":[{"oldText":"x","newText":"1"}]}`},
			{tool: "edit", args: `{"path":"/b","edits":[{"oldText":"x","newText":"2"}]}`},
			{tool: "edit", args: `{"path":"/b","edits":[{"oldText":"x","newText":"3"}]}`, want: "steer:repeat:3"},
			{tool: "read", args: `{"path":"/b"}`},
			{tool: "read", args: `{"path":"/b"}`},
			{tool: "read", args: `{"path":"/b"}`},
			{tool: "edit", args: `{"path":"/b","edits":[{"oldText":"x","newText":"4"}]}`, want: "block:repeat:4"},
			{tool: "read", args: `{"path":"/b"}`, want: "steer:repeat:4"},
		}},
		{"§3.8 the window clears at exactly 120 s", []step{
			{user: true, tool: "fetch_content", args: A, at: time.Second},
			{tool: "fetch_content", args: A, at: 2 * time.Second},
			{tool: "fetch_content", args: A, at: 121 * time.Second},
			{tool: "fetch_content", args: A, at: 122 * time.Second},
			{tool: "fetch_content", args: A, at: 123 * time.Second, want: "steer:repeat:3"},
		}},
		{"§3.8 the timer restarts at a user message", []step{
			{user: true, tool: "fetch_content", args: A, at: time.Second},
			{user: true, tool: "fetch_content", args: A, at: 100 * time.Second},
			{tool: "fetch_content", args: A, at: 130 * time.Second},
			{tool: "fetch_content", args: A, at: 140 * time.Second, want: "steer:repeat:3"},
		}},
		{"§3.9 the manual reset restarts the timer", []step{
			{user: true, tool: "fetch_content", args: A, at: time.Second},
			{tool: "fetch_content", args: A, at: 10 * time.Second},
			{tool: "bash", args: `{"command":"echo '/loopguard reset'"}`, at: 100 * time.Second},
			{tool: "fetch_content", args: A, at: 110 * time.Second},
			// 129 s after the first call but 30 s after the reset: no clear.
			{tool: "fetch_content", args: A, at: 130 * time.Second},
			{tool: "fetch_content", args: A, at: 140 * time.Second, want: "steer:repeat:3"},
		}},
		{"§3.9 the reset command is bash's only, not ctx_shell's", []step{
			{user: true, tool: "fetch_content", args: A},
			{tool: "fetch_content", args: A},
			{tool: "fetch_content", args: A, want: "steer:repeat:3"},
			{tool: "ctx_shell", args: `{"command":"echo '/loopguard reset'"}`},
			{tool: "fetch_content", args: A, want: "block:repeat:4"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, r, c.steps) })
	}
}

// TestNanobotParallelLookups: guards.md §1.1 "Three identical web_search
// calls in a single response: the third is blocked": every call of the
// response is checked before any of them runs.
func TestNanobotParallelLookups(t *testing.T) {
	r := preset(t, "nanobot")
	g := NewGuard(r)
	g.UserTurn(t0)
	var evs []*CallEvent
	var vs []Verdict
	for _, q := range []string{"Example 2.4 release date", "example 2.4 release date ", "Example 2.4 Release Date"} {
		args := `{"query":` + jsonx.Quote(q) + `}`
		ev := &CallEvent{Tool: "web_search", Class: "web_search", args: mustArgs(t, args), argsGiven: true, ArgsOK: true, ArgsRaw: args}
		evs = append(evs, ev)
		vs = append(vs, g.Before(ev))
	}
	for i, ev := range evs {
		g.After(ev, vs[i])
	}
	if vs[0].Action != Allow || vs[1].Action != Allow {
		t.Errorf("first two lookups: %+v %+v", vs[0], vs[1])
	}
	if v := vs[2]; v.Action != Block || v.Detector != "repeat" || v.Count != 3 || v.Message != nanobotLookup {
		t.Errorf("third lookup of the response: %+v", v)
	}
}

// TestNanobotLocalCalls: the local-call guard of PR #3701 (guards.md §1.3).
func TestNanobotLocalCalls(t *testing.T) {
	r := preset(t, "nanobot")
	var steps []step
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path":"a.txt"}`},
		{"list_dir", `{"path":"."}`},
		{"glob", `{"pattern":"*.py"}`},
		{"grep", `{"pattern":"def","path":"."}`},
		// Non-dict arguments are wrapped, not dropped: still one key.
		{"read_file", `"a.txt"`},
	} {
		steps = append(steps,
			step{tool: c.tool, args: c.args},
			step{tool: c.tool, args: c.args},
			step{tool: c.tool, args: c.args, want: "block:repeat:3", msg: nanobotLocal},
			step{tool: c.tool, args: c.args, want: "block:repeat:4", msg: nanobotLocal},
		)
	}
	// No folding for local calls: case and spaces differ.
	steps = append(steps,
		step{tool: "grep", args: `{"pattern":"DEF","path":"."}`},
		step{tool: "grep", args: `{"pattern":" def","path":"."}`},
		// Tools outside the guard: never blocked.
		step{tool: "write_file", args: `{"path":"a","content":"x"}`},
		step{tool: "write_file", args: `{"path":"a","content":"x"}`},
		step{tool: "write_file", args: `{"path":"a","content":"x"}`},
	)
	steps[0].user = true
	check(t, r, steps)
}

// TestHermesToolSets: which hermes tools each layer covers (guards.md §2.1
// read_file/search_files only; §2.2 IDEMPOTENT_TOOL_NAMES of June 2026),
// and how the classes carry them to other harnesses.
func TestHermesToolSets(t *testing.T) {
	r := preset(t, "hermes-2026-06")
	for _, c := range []struct {
		tool, args         string
		streak, noProgress bool
	}{
		{"read_file", `{"path":"/a"}`, true, true},
		{"search_files", `{"pattern":"x"}`, true, true},
		{"Read", `{"file_path":"/a"}`, true, true},
		{"Grep", `{"pattern":"x"}`, true, true},
		{"skill_view", `{"name":"s"}`, false, false},
		{"session_search", `{"query":"q"}`, false, true},
		{"mcp_filesystem_read_file", `{"path":"/a"}`, false, true},
		{"mcp_filesystem_search_files", `{"pattern":"x"}`, false, true},
		{"mcp_filesystem_list_directory", `{"path":"/"}`, false, true},
		{"mcp_filesystem_get_file_info", `{"path":"/a"}`, false, true},
		{"web_search", `{"query":"q"}`, false, true},
		{"web_extract", `{"urls":["u"]}`, false, true},
		{"browser_snapshot", `{}`, false, true},
		{"terminal", `{"command":"ls"}`, false, false},
		{"todo", `{}`, false, false},
		{"skills_list", `{}`, false, false},
	} {
		t.Run(c.tool, func(t *testing.T) {
			// Different results: only the streak can fire.
			var steps []step
			for i := 1; i <= 4; i++ {
				steps = append(steps, step{tool: c.tool, args: c.args, result: fmt.Sprint("r", i)})
			}
			steps[0].user = true
			if c.streak {
				steps[2].want = "steer:consecutive:3"
				steps[3].want = "block:consecutive:4"
			}
			check(t, r, steps)
			// The same result twice, with another tool between (no streak).
			outs := run(t, r, []step{
				{user: true, tool: c.tool, args: c.args, result: "R"},
				{tool: "memory", args: `{"op":"x"}`, result: "ok"},
				{tool: c.tool, args: c.args, result: "R"},
			})
			got := outs[2].after
			if c.noProgress != (got.Action == Steer && got.Detector == "no_progress" && got.Count == 2) {
				t.Errorf("no_progress after the 2nd identical result: %+v, want a warning: %v", got, c.noProgress)
			}
		})
	}
}

// TestHermesStrictStreakSkipsGuardrailBlocks: a call tool_guardrails
// blocks is not executed, so hermes' read/search guard never sees it: it
// neither breaks nor extends the read/search streak (guards.md §2.1: the
// streak is reset only by another tool's call reaching
// handle_function_call).
func TestHermesStrictStreakSkipsGuardrailBlocks(t *testing.T) {
	r := preset(t, "hermes-strict-2026-06")
	A, B := `{"path":"/a"}`, `{"path":"/b"}`
	var steps []step
	// A returns the same result 5 times, never twice in a row.
	for i := 1; i <= 5; i++ {
		s := step{tool: "read_file", args: A, result: "RA"}
		if i >= 2 {
			s.want = fmt.Sprintf("steer:no_progress:%d", i)
		}
		steps = append(steps, s, step{tool: "read_file", args: fmt.Sprintf(`{"path":"/c%d"}`, i), result: "c"})
	}
	steps[0].user = true
	blockA := step{tool: "read_file", args: A, want: "block:no_progress:5",
		msg: hermesBlock("read_file", "idempotent_no_progress_block", 5, "Blocked read_file: this read-only call returned the same result 5 times. Stop repeating it unchanged; use the result already provided or try a different query.", A)}
	steps = append(steps,
		step{tool: "read_file", args: B, result: "b1"},
		blockA,
		step{tool: "read_file", args: B, result: "b2"},
		blockA,
		// B's 3rd in a row: the blocked A calls in between did not count.
		step{tool: "read_file", args: B, result: "b3", want: "steer:consecutive:3"},
		blockA,
		step{tool: "read_file", args: B, result: "b4", want: "block:consecutive:4",
			msg: `{"error": "BLOCKED: You have read this exact file region 4 times in a row. The content has NOT changed. You already have this information. STOP re-reading and proceed with your task.", "path": "/b", "already_read": 4}`},
	)
	check(t, r, steps)
}
