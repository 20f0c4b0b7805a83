package analyze

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
)

func TestNativeIntervention(t *testing.T) {
	big := strings.Repeat("x", 20000)
	cases := []struct {
		result, name string
		stops        bool
	}{
		{"Error: repeated external lookup blocked. Use the results you already have to answer, or try a meaningfully different source.\n\n[Analyze the error above and try a different approach.]", "nanobot-block", true},
		{"Error: repeated identical tool call blocked. Use the prior result or choose a different tool.", "nanobot-block", true},
		{"[File unchanged since last read: logs/worker.log]", "nanobot-dedup", true},
		{"<identical to result [r9] from your Bash call earlier — refer to that output>", "claude-code-dedup", true},
		{"Wasted call — file unchanged since your last Read. Refer to that earlier tool_result instead.", "claude-code-dedup", true},
		{"File unchanged since last read. The content from the earlier Read tool_result in this conversation is still current — refer to that instead of re-reading.", "claude-code-dedup", true},
		{`{"error": "BLOCKED: You have read this exact file region 4 times in a row.", "path": "a", "already_read": 4}`, "hermes-block", true},
		{`{"status": "unchanged", "message": "File unchanged since last read.", "path": "a", "dedup": true, "content_returned": false}`, "hermes-dedup", true},
		{`{"error": "Blocked terminal: ...", "guardrail": {"action": "block", "code": "repeated_exact_failure_block"}}`, "hermes-block", true},
		{"LoopGuard: fetch_content called 4 times with identical args this turn. Prior result is in context. Use it instead of re-calling.", "pi-block", true},
		{"total 4\n" + big + "\n\n[Tool loop warning: repeated_exact_failure_warning; count=2; terminal has failed 2 times]", "hermes-warning", false},
		{"ok\n\n[Tool loop hard stop: same_tool_failure_halt; count=8; Stopped terminal]", "hermes-halt", false},
		// One case per marker (truth.go's nativeMarkers), texts as guards.md
		// and formats-*.md quote them.
		{"Error: refusing repeated workspace-bypass attempts.\nYou have tried to access '/etc' (or an equivalent path) 3 times in this turn.", "nanobot-block", true},
		{"Error: repeated identical call to 'exec' blocked after 2 attempts. Use the prior result.", "nanobot-block", true},
		{"Error: repetitive tool-call loop detected. Change strategy.", "nanobot-block", true},
		{`{"error": "BLOCKED: You have run this exact search 4 times in a row. The results have NOT changed.", "already_searched": 4}`, "hermes-block", true},
		{`{"error": "BLOCKED: You have called read_file on this exact region 2 times and the file has NOT changed. STOP calling read_file", "already_read": 2}`, "hermes-block", true},
		{`{"error":"Blocked web_search: this read-only call returned the same result 5 times.","guardrail":{"action":"block","code":"idempotent_no_progress_block"}}`, "hermes-block", true},
		// hermes-dedup preset's design (PR #18075): the duplicate is not run.
		{"Note: This tool call was already executed in this turn with identical arguments. Result was: 12 passed", "hermes-dedup", true},
		{"12 passed\n\nNote: This tool call was already executed in this turn with identical arguments. Result was: ...", "hermes-dedup", true},
		{"[hermes note: this result is byte-identical to the read_file result earlier this turn (tool_call_id call_1). Refer to that result; it has not changed. Args: {\"path\": \"a\"}]", "hermes-stub", true},
		{"out\n\n[hermes note: this is the 3rd consecutive identical call to terminal with identical arguments returning the same result. Do not repeat it — change arguments, use a different tool, or proceed with what you have.]", "hermes-note", false},
		{"out\n\n[hermes note: the last 3 rounds repeated the same cycle of 2 tool calls (ending with read_file)]", "hermes-note", false},
		{`{"content": "a", "path": "a", "_warning": "You have read this exact file region 3 times consecutively. The content has not changed since your last read. Use the information you already have. If you are stuck in a loop, stop reading and proceed with writing or responding."}`, "hermes-warning", false},
		{`{"matches": [], "_warning": "You have run this exact search 3 times consecutively. The results have not changed. Use the information you already have."}`, "hermes-warning", false},
		{"a\n\n[Repeated read_file result: this exact output has already been returned in this turn. Use the existing evidence, or change the tool input if you need new information.]", "nanobot-note", false},
		{"The tool execution failed with the following error:\n<error>\nTool call repetition limit reached for read_file. Please try a different approach.\n</error>", "roo-block", true},
		{"Tool 'shell' has exceeded maximum repetitions", "goose-block", true},
		{"CRITICAL: Called exec with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops.", "openclaw-block", true},
		{"WARNING: You have called exec 10 times with identical arguments. If this is not making progress, stop retrying and report the task as failed.", "openclaw-warning", false},
		{"WARNING: You are alternating between repeated tool-call patterns (10 consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.", "openclaw-warning", false},
		{"plain result that mentions Error: in the middle", "", false},
		// A file read whose content quotes a warning (escaped in the JSON).
		{`{"content": "x = {\"_warning\": \"You have read\"}"}`, "", false},
		{"", "", false},
		// A marker deep inside a large result is content, not a guard note.
		{big + "[Tool loop warning: x]" + big, "", false},
	}
	for _, tc := range cases {
		name, stops := NativeIntervention(tc.result)
		if name != tc.name || stops != tc.stops {
			t.Errorf("%.60q: got (%q, %v), want (%q, %v)", tc.result, name, stops, tc.name, tc.stops)
		}
	}
}

// TestPrepareTruth: redundant calls and the requests left in the context.
func TestPrepareTruth(t *testing.T) {
	call := func(tool, args, result string) ingest.Call {
		c := ingest.Call{Tool: tool, Result: result, HasResult: true}
		c.SetArgs(args)
		return c
	}
	s := &ingest.Session{Turns: []ingest.Turn{
		{Requests: []ingest.Request{
			{Calls: []ingest.Call{call("read_file", `{"path":"a","limit":5}`, "A")}},
			// Same arguments in another key order, same result: redundant.
			{Calls: []ingest.Call{call("read_file", `{"limit":5,"path":"a"}`, "A\n\n[Tool loop warning: x; count=2; y]")}},
			// Same call, new result: not redundant.
			{Calls: []ingest.Call{call("read_file", `{"path":"a","limit":5}`, "B")}},
			{},
		}},
		{CompactedBefore: true, Requests: []ingest.Request{
			// After a compaction the model has forgotten: not redundant.
			{Calls: []ingest.Call{call("read_file", `{"path":"a","limit":5}`, "B")}},
			{Calls: []ingest.Call{call("read_file", `{"path":"a","limit":5}`, "B"), call("web_search", `{"query":"q"}`, "Error: repeated external lookup blocked.")}},
		}},
	}}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s.Turns[1].Time = t0.Add(time.Hour)
	s.Turns[0].Requests[1].Calls[0].Time = t0
	s.Turns[1].Requests[1].Calls[0].Time = t0.Add(2 * time.Hour)
	p := Prepare(s)
	if !p.StartedAt.Equal(t0) || !p.EndedAt.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("session span %v to %v, want %v to %v", p.StartedAt, p.EndedAt, t0, t0.Add(2*time.Hour))
	}
	wantSame := []bool{false, true, false, false, true, false}
	// The first call each one repeats with the same result (in its context).
	wantRepeats := []int{0, 1, 0, 0, 4, 0}
	// Requests: 1,2,3,4 (context 1) then 5,6 (context 2).
	wantLater := []int{3, 2, 1, 1, 0, 0}
	wantRequestInTurn := []int{1, 2, 3, 1, 2, 2}
	if len(p.Calls) != 6 || p.Requests != 6 {
		t.Fatalf("%d calls, %d requests; want 6, 6", len(p.Calls), p.Requests)
	}
	for i, c := range p.Calls {
		if c.Repeats != wantRepeats[i] {
			t.Errorf("call %d repeats %d, want %d", i+1, c.Repeats, wantRepeats[i])
		}
		if c.SameResult != wantSame[i] || c.LaterRequests != wantLater[i] || c.Event.Request != wantRequestInTurn[i] {
			t.Errorf("call %d: same result %v later %d request %d; want %v %d %d", i+1, c.SameResult, c.LaterRequests, c.Event.Request, wantSame[i], wantLater[i], wantRequestInTurn[i])
		}
	}
	if !p.Calls[5].NativeStops || p.Calls[5].Native != "nanobot-block" {
		t.Errorf("call 6 native = %q/%v, want nanobot-block/true", p.Calls[5].Native, p.Calls[5].NativeStops)
	}
	if p.Calls[4].EndOfRequest || !p.Calls[5].EndOfRequest {
		t.Errorf("end of request marks: call 5 %v, call 6 %v; want false, true", p.Calls[4].EndOfRequest, p.Calls[5].EndOfRequest)
	}
}

// signatureCalls are calls whose signatures must differ or agree: key
// orders, repeated keys, nesting, numbers written differently, escapes,
// argument text that is or is not JSON, and tool names that run into
// their arguments.
var signatureCalls = []struct{ tool, raw string }{
	{"read_file", `{"path":"a","limit":5}`},
	{"read_file", `{"limit":5,"path":"a"}`},
	{"read_file", `{"path":"a","limit":6}`},
	{"read_file", `{"path":"a","limit":5.0}`},
	{"read_file", `{"path":"a","limit":"5"}`},
	{"read_file", `{"path":"a"}`},
	{"read_fil", `e{"path":"a"}`},
	{"read_file", `{"path":"a","path":"b"}`},
	{"read_file", `{"path":"b","path":"a"}`},
	{"edit", `{"e":[{"b":1,"a":[true,null,"x"]}],"z":{}}`},
	{"edit", `{"z":{},"e":[{"a":[true,null,"x"],"b":1}]}`},
	{"edit", `{"z":{},"e":[{"a":[true,null,"x"],"b":1,"c":[]}]}`},
	{"edit", `{"z":[],"e":[{"a":[true,null,"x"],"b":1}]}`},
	{"edit", `{"s":"\u00e9\n\"q\""}`},
	{"edit", `{"s":"é\n\"q\""}`},
	{"edit", `{"s":"é\n\"q\"","t":""}`},
	{"edit", `["a","b"]`},
	{"edit", `["ab"]`},
	{"edit", `["x\"y","z"]`},
	{"edit", `["x","y\"z"]`},
	{"edit", `{"a":"b"}`},
	{"edit", `{"ab":""}`},
	{"bash", `ls -la`},
	{"bash", `"ls -la"`},
	{"bash", `"ls -la`},
	{"bash", ``},
	{"bash", `null`},
	{"bash", `{}`},
	{"", `{}`},
}

// TestSignatureDigest: Prepare's signature encodings, and their digests,
// are equal exactly when the signatures are, and appendSignature appends
// to what the buffer holds.
func TestSignatureDigest(t *testing.T) {
	for i, a := range signatureCalls {
		av, err := jsonx.ParseString(a.raw)
		sa := signatureText(a.tool, av, err == nil, a.raw)
		buf := appendSignature([]byte("prefix"), sigCall(a.tool, a.raw, 0))
		if !strings.HasPrefix(string(buf), "prefix") {
			t.Errorf("appendSignature overwrote the buffer: %q", buf)
		}
		ea := string(buf[len("prefix"):])
		da := sigDigest(buf[len("prefix"):])
		for _, b := range signatureCalls[i:] {
			bv, err := jsonx.ParseString(b.raw)
			sb := signatureText(b.tool, bv, err == nil, b.raw)
			for form := range sigForms {
				eb := appendSignature(nil, sigCall(b.tool, b.raw, form))
				if (sa == sb) != (ea == string(eb)) || (sa == sb) != (da == sigDigest(eb)) {
					t.Errorf("%q and %q (form %d): equal signatures %v, equal encodings %v, equal digests %v", sa, sb, form, sa == sb, ea == string(eb), da == sigDigest(eb))
				}
			}
		}
	}
}

// sigForms is how many ways sigCall holds a call's arguments.
const sigForms = 3

// sigCall is a call with the arguments raw, held in one of the ways a
// reader leaves them: 0 parsed from the text as written (SetArgs), 1
// parsed and written compact (SetArgsValue), 2 written compact and not
// parsed (ArgsPending, as the Claude Code reader leaves them). Each must
// give the same signature.
func sigCall(tool, raw string, form int) *ingest.Call {
	c := &ingest.Call{Tool: tool}
	c.SetArgs(raw)
	if form > 0 && c.ArgsOK {
		c.SetArgsValue(*c.Args)
		if form == 2 {
			c.Args, c.ArgsPending = nil, true
		}
	}
	return c
}

// FuzzSignature: two calls' signature encodings are equal exactly when
// their signatures (sorted JSON text, or the raw text) are.
func FuzzSignature(f *testing.F) {
	for i, a := range signatureCalls {
		b := signatureCalls[(i+1)%len(signatureCalls)]
		f.Add(a.tool, a.raw, b.tool, b.raw)
		f.Add(a.tool, a.raw, a.tool, a.raw)
	}
	f.Fuzz(func(t *testing.T, toolA, rawA, toolB, rawB string) {
		if strings.Contains(toolA, "\x00") || strings.Contains(toolB, "\x00") {
			// Signature's text joins the tool and the arguments with a
			// NUL, so a tool name holding one is ambiguous there ("a\x00"
			// with "b", "a" with "\x00b"); the encoding, which writes
			// lengths, is not.
			return
		}
		av, errA := jsonx.ParseString(rawA)
		bv, errB := jsonx.ParseString(rawB)
		sa := signatureText(toolA, av, errA == nil, rawA)
		sb := signatureText(toolB, bv, errB == nil, rawB)
		ea := appendSignature(nil, sigCall(toolA, rawA, 0))
		for form := range sigForms {
			eb := appendSignature(nil, sigCall(toolB, rawB, form))
			if (sa == sb) != (string(ea) == string(eb)) {
				t.Fatalf("%q and %q (form %d): equal signatures %v, equal encodings %v", sa, sb, form, sa == sb, string(ea) == string(eb))
			}
		}
	})
}

// signatureText is the text of a call's signature (appendSignature):
// tool name plus arguments with keys sorted at every level (or the raw text
// when the arguments are not JSON). Prepare keeps a digest of an encoding
// of it (appendSignature, sigDigest), not its text.
func signatureText(tool string, args jsonx.Value, argsOK bool, raw string) string {
	buf := append([]byte(tool), 0)
	if argsOK {
		return string(args.Append(buf, jsonx.Sorted))
	}
	return string(append(buf, raw...))
}

// TestSeenResultsTable runs Prepare's table of signatures and results
// against a map on keys drawn from a small set, many placed in the same
// slot (equal first words and hashes, or ones that cancel), with clears.
func TestSeenResultsTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 200 {
		n := 1 + rng.IntN(300)
		var tab seenResultsTable
		tab.init(n)
		want := map[seenKey]int{}
		for call := 1; call <= n; call++ {
			if rng.IntN(50) == 0 {
				tab.clear()
				clear(want)
			}
			// Few distinct words, so that keys repeat and collide.
			w := func() uint64 { return uint64(rng.IntN(6)) << (rng.IntN(2) * 40) }
			k := seenKey{SigDigest{w(), w()}, w()}
			got := tab.swap(k, call)
			if got != want[k] {
				t.Fatalf("round %d, call %d: swap(%v) = %d, want %d", round, call, k, got, want[k])
			}
			want[k] = call
		}
	}
}
