package analyze

import (
	"bufio"
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
	user       bool // a genuine user message comes before this step
	compaction bool // a context compaction comes before this step
	tool       string
	args       string
	result     string
	failed     bool
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
		if s.user {
			g.UserTurn(t0.Add(s.at))
		}
		if s.compaction {
			g.Compaction()
		}
		if s.tool == "" {
			continue
		}
		ev := &CallEvent{Index: i + 1, Tool: s.tool, Class: r.ClassOf(s.tool), ArgsRaw: s.args}
		if s.at > 0 {
			ev.Time = t0.Add(s.at)
		}
		if v, err := jsonx.ParseString(s.args); err == nil {
			ev.Args, ev.ArgsOK = v, true
		}
		var o outcome
		o.before = g.Before(ev)
		ev.Result, ev.ResultHash, ev.Failed = s.result, hashResult(s.result), s.failed
		o.after = g.After(ev, o.before)
		if s.round {
			o.end = g.EndRequest()
		}
		out = append(out, o)
	}
	return out
}

// check runs the steps and compares every call's outcome with its want.
func check(t *testing.T, r *rules.Rules, steps []step) []outcome {
	t.Helper()
	outs := run(t, r, steps)
	n := 0
	for i, s := range steps {
		if s.tool == "" {
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
		{tool: "fetch_content", args: A, want: "steer:repeat:3"},
		{tool: "fetch_content", args: B, want: "steer:repeat:3"},
		{tool: "fetch_content", args: A, want: "block:repeat:4"},
		{tool: "fetch_content", args: B, want: "block:repeat:4"},
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
		{tool: "read", args: read, want: "steer:repeat:4"},
		{tool: "read", args: read, want: "block:repeat:5"},
		{tool: "edit", args: `{"path":"/src/a.ts","edits":[{"oldText":"x","newText":"y"}]}`},
		{tool: "read", args: read},
		{tool: "read", args: read},
		{tool: "read", args: read},
		{tool: "read", args: read}, // 4th: already steered, no second steer
		{tool: "read", args: read, want: "block:repeat:5"},
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
	k1, _ := r.CallKey("edit", mustParse(t, edit("a")), true, "")
	if k1 != `edit::{"edits":[{"oldText":"foo"}],"path":"/src/App.ts"}` {
		t.Errorf("edit key = %s", k1)
	}
	k2, _ := r.CallKey("bash", mustParse(t, `{"command":"ls","timeout":30,"toolCallId":"abc-123"}`), true, "")
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

func TestPiWindow(t *testing.T) {
	r := preset(t, "pi-loopguard")
	A := `{"url":"A"}`
	check(t, r, []step{
		{user: true, tool: "fetch_content", args: A, at: time.Second},
		{tool: "fetch_content", args: A, at: 10 * time.Second},
		{tool: "fetch_content", args: A, at: 20 * time.Second, want: "steer:repeat:3"},
		{tool: "fetch_content", args: A, at: 30 * time.Second, want: "block:repeat:4"},
		// 2 minutes after the timer started (at the first call): all cleared.
		{tool: "fetch_content", args: A, at: 121 * time.Second},
		{tool: "fetch_content", args: A, at: 130 * time.Second},
		{tool: "fetch_content", args: A, at: 140 * time.Second, want: "steer:repeat:3"},
		// 119 s after the restart: not yet.
		{tool: "fetch_content", args: A, at: 240 * time.Second, want: "block:repeat:4"},
	})
}

func TestPiManualReset(t *testing.T) {
	r := preset(t, "pi-loopguard")
	A := `{"url":"A"}`
	check(t, r, []step{
		{user: true, tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A, want: "steer"},
		{tool: "fetch_content", args: A, want: "block"},
		{tool: "bash", args: `{"command":"  ECHO '/loopguard reset' "}`},
		{tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A},
		{tool: "fetch_content", args: A, want: "steer:repeat:3"},
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
	path := filepath.Join("..", "..", "shared", "samples", "nanobot", "synthetic",
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
	r := preset(t, "hermes")
	exact := func(tool string, n int) string {
		return hermesWarn("repeated_exact_failure_warning", n, fmt.Sprintf("%s has failed %d times with identical arguments. This looks like a loop; inspect the error and change strategy instead of retrying it unchanged.", tool, n))
	}
	same := func(tool string, n int) string {
		return hermesWarn("same_tool_failure_warning", n, fmt.Sprintf("%s has failed %d times this turn. This looks like a loop. Do not switch to text-only replies; keep using tools, but diagnose before retrying. First inspect the latest error/output and verify your assumptions. Try different arguments, a narrower query/path, an absolute path when relevant, or a different tool that can make progress. If the blocker is external, report the blocker after one diagnostic attempt instead of repeating the same failing path.", tool, n))
	}
	noProgress := func(tool string, n int) string {
		return hermesWarn("idempotent_no_progress_warning", n, fmt.Sprintf("%s returned the same result %d times. Use the result already provided or change the query instead of repeating it unchanged.", tool, n))
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
		{tool: "web_search", args: `{"query":"q"}`, result: "R2"},
		// Non-idempotent tools never get no-progress warnings.
		{tool: "todo", args: `{}`, result: "same"},
		{tool: "todo", args: `{}`, result: "same"},
		// Terminal gets its own recovery hint.
		{tool: "terminal", args: `{"command":"a"}`, failed: true},
		{tool: "terminal", args: `{"command":"b"}`, failed: true},
		{tool: "terminal", args: `{"command":"c"}`, failed: true, want: "steer:tool_failure:3", msgHas: "run a small diagnostic such as `pwd && ls -la`"},
		// Per turn: a new user message clears the counts.
		{user: true, tool: "skill_manage", args: `{"name":"a"}`, result: `{"error":"no"}`, failed: true},
	})
}

func TestHermesReadSearchGuard(t *testing.T) {
	r := preset(t, "hermes")
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
	r := preset(t, "hermes-strict")
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
	steps[5].msgHas = `{"error": "Blocked skill_manage: the same tool call failed 5 times with identical arguments. Stop retrying it unchanged; change strategy or explain the blocker.", "guardrail": {"action": "block", "code": "repeated_exact_failure_block"`
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
	steps[5].msgHas = "Blocked web_search: this read-only call returned the same result 5 times."
	check(t, r, steps)

	// The plain hermes preset never blocks these.
	plain := preset(t, "hermes")
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
			s.want = "block:consecutive:3"
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
		step{tool: "terminal", args: `{"command":"make test"}`, result: "FAIL", want: "block:consecutive:3"},
	)
	check(t, r, steps)

	// Tool failures: 3 consecutive failures of one tool (any arguments)
	// block its next call; the counter resets after it trips.
	check(t, r, []step{
		{user: true, tool: "read_file", args: `{"path":"a"}`, failed: true},
		{tool: "read_file", args: `{"path":"b"}`, failed: true},
		{tool: "read_file", args: `{"path":"c"}`, failed: true},
		{tool: "read_file", args: `{"path":"d"}`, want: "block:tool_failure:3", msgHas: "read_file failed 3 times in a row"},
		{tool: "read_file", args: `{"path":"e"}`, failed: true},
		{tool: "read_file", args: `{"path":"f"}`, failed: true},
		{tool: "read_file", args: `{"path":"g"}`, result: "text"}, // a success resets
		{tool: "read_file", args: `{"path":"h"}`, failed: true},
		{tool: "read_file", args: `{"path":"i"}`, result: "text"},
		// An empty result is a failure too.
		{tool: "read_file", args: `{"path":"j"}`, result: " "},
		{tool: "read_file", args: `{"path":"k"}`, result: ""},
		{tool: "read_file", args: `{"path":"l"}`, result: ""},
		{tool: "read_file", args: `{"path":"m"}`, result: "text", want: "block:tool_failure:3"},
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
		{tool: "terminal", args: `{"command":"git log --oneline --all"}`, result: "7 commits", want: "steer:no_progress:3"},
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
		// It already ran and succeeded, nothing changed since: blocked, and
		// blocked again (a blocked call does not run, so nothing changes).
		{tool: "read_file", args: read, result: "v1", want: "block:no_progress:1", msgHas: "nothing has changed since"},
		{tool: "read_file", args: read, result: "v1", want: "block:no_progress:1"},
		// Key order and volatile arguments do not make a call new.
		{tool: "read_file", args: `{"timeout":5,"path":"/a.go"}`, result: "v1", want: "block:no_progress:1"},
		// A write naming the path clears its reads.
		{tool: "write_file", args: `{"path":"/a.go","content":"x"}`, result: "ok"},
		{tool: "read_file", args: read, result: "v2"},
		// A shell command may change any file: it clears every read.
		{tool: "terminal", args: build, result: "Error: build failed", failed: true},
		{tool: "read_file", args: read, result: "v2"},
		// Failures never count as "the same result": a retry may work. The
		// second identical failure is steered.
		{tool: "terminal", args: build, result: "Error: build failed", failed: true, want: "steer:failure:2"},
		{tool: "terminal", args: build, result: "ok"},
		// A shell command that succeeded, run again with nothing changed.
		{tool: "terminal", args: build, result: "ok", want: "block:no_progress:1"},
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
		{tool: "read_file", args: read, result: "v2", want: "block:no_progress:1"},
	})
}
