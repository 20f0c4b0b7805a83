package ingest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// replayingLog turns each line of an OpenAI JSONL log whose messages or
// input is an array into the requests that built it up, as a logging proxy
// records them: one line per prefix of the array that a request can end
// with (before each run of the model's messages and items, and the whole
// array), the line's other members unchanged. Other lines are kept as they
// are.
func replayingLog(data []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\n")
		if len(line) == 0 {
			continue
		}
		var arr []byte
		for _, obj := range [][]byte{line, topLevel(line, "request"), topLevel(line, "body")} {
			for _, key := range []string{"messages", "input"} {
				if v := topLevel(obj, key); len(v) > 0 && v[0] == '[' && arr == nil {
					arr = v
				}
			}
		}
		elems, ok := jsonx.SplitArray(arr)
		if arr == nil || !ok {
			out.Write(line)
			out.WriteByte('\n')
			continue
		}
		at := cap(line) - cap(arr) // arr's offset in line (jsonx.Members)
		for k := 1; k <= len(elems); k++ {
			if k < len(elems) && (!modelMade(elems[k]) || modelMade(elems[k-1])) {
				continue
			}
			out.Write(line[:at])
			out.WriteByte('[')
			for i, e := range elems[:k] {
				if i > 0 {
					out.WriteByte(',')
				}
				out.Write(e)
			}
			out.WriteByte(']')
			out.Write(line[at+len(arr):])
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// topLevel is jsonx.TopLevel's value, nil when absent. Its capacity runs
// to the end of data, as jsonx.Members says, so that a value's offset in a
// line is cap(line)-cap(value) however deep it was found.
func topLevel(data []byte, key string) []byte {
	v, _ := jsonx.TopLevel(data, key)
	return v
}

// asProxyLog wraps each line of a log as a proxy records it: the request
// body as "request", with a response object after it.
func asProxyLog(data []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		fmt.Fprintf(&out, "{\"request\":%s,\"response\":{\"id\":\"resp\"}}\n", line)
	}
	return out.Bytes()
}

// modelMade tells whether a chat message or Responses item is the model's
// (an assistant message, a call, reasoning): what a request ends before.
func modelMade(elem []byte) bool {
	var role, typ string
	if v, ok := jsonx.TopLevel(elem, "role"); ok {
		_ = jsonx.Unmarshal(v, &role)
	}
	if v, ok := jsonx.TopLevel(elem, "type"); ok {
		_ = jsonx.Unmarshal(v, &typ)
	}
	switch {
	case role == "assistant":
		return true
	case role != "":
		return false
	}
	return typ == "reasoning" || strings.HasSuffix(typ, "_call")
}

// oaReuseLogs are request logs made to test lineReuse at its edges: lines
// that share a prefix ending inside an element, an element that makes a
// problem on every line it is on, elements the one-pass decoding declines,
// a broken line between two that share everything, interleaved
// conversations, and Responses items of every kind that lineReuse keeps.
var oaReuseLogs = []string{
	// The last message edited (a retry): the prefix ends inside it.
	`{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"A"}]}
{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"AB"}]}
{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"b\"}"}}]}]}
`,
	// A message that is a problem on every line, one the one-pass
	// decoding declines (content parts), an unknown role, a system message.
	`{"messages":[{"role":"system","content":"s"},{"role":"tool","content":"no id"},{"role":"user","content":[{"type":"text","text":"parts"}]},{"role":"critic","content":"x"}]}
{"messages":[{"role":"system","content":"s"},{"role":"tool","content":"no id"},{"role":"user","content":[{"type":"text","text":"parts"}]},{"role":"critic","content":"x"},{"role":"assistant","content":"ok"}]}
{"messages":[{"role":"system","content":"s"},{"role":"tool","content":"no id"},{"role":"user","content":[{"type":"text","text":"parts"}]},{"role":"critic","content":"x"},{"role":"assistant","content":"ok"}]}
`,
	// A broken line between two identical ones, then the same line again.
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}
{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}
{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}
{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}
`,
	// Two conversations interleaved, sharing their first message.
	`{"metadata":{"session_id":"x"},"messages":[{"role":"user","content":"same"},{"role":"assistant","content":null,"tool_calls":[{"id":"x1","type":"function","function":{"name":"ls","arguments":"{}"}}]}]}
{"metadata":{"session_id":"y"},"messages":[{"role":"user","content":"same"},{"role":"assistant","content":null,"tool_calls":[{"id":"y1","type":"function","function":{"name":"ls","arguments":"{}"}}]}]}
{"metadata":{"session_id":"x"},"messages":[{"role":"user","content":"same"},{"role":"assistant","content":null,"tool_calls":[{"id":"x1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"x1","content":"r"}]}
{"metadata":{"session_id":"x"},"messages":[{"role":"user","content":"same"},{"role":"assistant","content":null,"tool_calls":[{"id":"x1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"x1","content":"r"}],"response":{"choices":[{"message":{"role":"assistant","content":"done"}}]}}
`,
	// A request that shares its first messages with the line before, byte
	// for byte, but is not its continuation: a new session, whose first
	// items were made on the line before and must carry this line.
	`{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}
{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"assistant","content":"other"}]}
`,
	`{"input":[{"type":"message","role":"user","content":"go"},{"type":"function_call","call_id":"k1","name":"ls","arguments":"{}"},{"type":"function_call_output","call_id":"k1","output":"r"}]}
{"input":[{"type":"message","role":"user","content":"go"},{"type":"function_call","call_id":"k1","name":"ls","arguments":"{}"},{"type":"message","role":"user","content":"other"}]}
`,
	// Responses: every item kind responseItems keeps something of, a call
	// without call_id (a problem on each line), and a repeated key.
	`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},{"type":"function_call","name":"ls","arguments":"{}"},{"type":"function_call","call_id":"k1","name":"grep","arguments":"{\"q\":1}"},{"type":"custom_tool_call","call_id":"k2","name":"patch","input":"diff"},{"type":"local_shell_call","call_id":"k3","action":{"command":["ls"]}},{"type":"mcp_call","name":"m","arguments":"{}","output":"done","error":null}]}
{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},{"type":"function_call","name":"ls","arguments":"{}"},{"type":"function_call","call_id":"k1","name":"grep","arguments":"{\"q\":1}"},{"type":"custom_tool_call","call_id":"k2","name":"patch","input":"diff"},{"type":"local_shell_call","call_id":"k3","action":{"command":["ls"]}},{"type":"mcp_call","name":"m","arguments":"{}","output":"done","error":null},{"type":"function_call_output","call_id":"k1","output":"found"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}]}
{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},{"type":"function_call","name":"ls","arguments":"{}"},{"type":"function_call","call_id":"k1","name":"grep","arguments":"{\"q\":1}"},{"type":"custom_tool_call","call_id":"k2","name":"patch","input":"diff"},{"type":"local_shell_call","call_id":"k3","action":{"command":["ls"]}},{"type":"mcp_call","name":"m","arguments":"{}","output":"done","error":null},{"type":"function_call_output","call_id":"k1","output":"found"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}],"input":[{"type":"message","role":"user","content":"other"}]}
`,
}

// TestOpenAIReuseMatchesPlain: a log read with lineReuse gives the sessions
// and problems it gives without, for the edge logs above and for every
// OpenAI JSONL input of directInputs turned into a replaying log.
func TestOpenAIReuseMatchesPlain(t *testing.T) {
	t.Parallel() // a reader's pure function of its inputs: beside the package's other long tests
	inputs := map[string][]byte{}
	for i, log := range oaReuseLogs {
		inputs[fmt.Sprintf("edge/reuse_%d.jsonl", i)] = []byte(log)
	}
	replaying := 0
	for p, data := range directInputs(t, nil) {
		if !strings.HasSuffix(p, ".jsonl") {
			continue
		}
		if _, ok := jsonx.TopLevel(bytes.SplitN(data, []byte("\n"), 2)[0], "messages"); !ok {
			if _, ok := jsonx.TopLevel(bytes.SplitN(data, []byte("\n"), 2)[0], "input"); !ok {
				continue
			}
		}
		inputs[p+".replaying.jsonl"] = replayingLog(data)
		inputs[p+".proxy.jsonl"] = replayingLog(asProxyLog(data))
		replaying++
	}
	if replaying < 2 {
		t.Fatalf("only %d OpenAI logs to replay: the generated corpus should give both APIs", replaying)
	}
	for p, data := range inputs {
		for _, format := range []string{"", "openai-chat", "openai-responses"} {
			if on, off := readBoth(data, filepath.Base(p), format); on != off {
				t.Errorf("%s as %q: the reading with lineReuse differs:\n%s", p, format, firstDiff(off, on))
			}
		}
	}
}

// TestReplayingLogReusesElements checks that the test above exercises
// lineReuse: on a replaying log, most elements are taken, not decoded.
func TestReplayingLogReusesElements(t *testing.T) {
	files, err := corpusgen.GenerateInMemory(256<<10, 128<<10)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".jsonl") || !strings.Contains(f.Path, "openai") {
			continue
		}
		for _, log := range [][]byte{replayingLog(f.Data), replayingLog(asProxyLog(f.Data))} {
			total, fresh, prev := 0, 0, 0
			reuse := readWithReuse(log, func(r *lineReuse) {
				// A line longer than the one before continues its
				// conversation, whose elements it repeats; a shorter one
				// starts the next.
				k := len(r.recent[0].elems)
				total += k
				if k > prev {
					fresh += k - prev
				} else {
					fresh += k
				}
				prev = k
			})
			if reuse.taken < total-fresh || total <= fresh {
				t.Errorf("%s: %d of %d elements taken from earlier lines; want the %d that were on them", f.Path, reuse.taken, total, total-fresh)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no generated OpenAI JSONL log")
	}
}

// interleave merges logs line by line, as a proxy serving several
// conversations at once writes them.
func interleave(logs ...[]byte) []byte {
	var lines [][][]byte
	for _, l := range logs {
		lines = append(lines, bytes.SplitAfter(bytes.TrimSpace(l), []byte("\n")))
	}
	var out bytes.Buffer
	for i := 0; ; i++ {
		wrote := false
		for _, ls := range lines {
			if i < len(ls) {
				out.Write(bytes.TrimSpace(ls[i]))
				out.WriteByte('\n')
				wrote = true
			}
		}
		if !wrote {
			return out.Bytes()
		}
	}
}

// readWithReuse reads a log with lineReuse, calling afterLine (when not
// nil) after each line, and returns the lineReuse.
func readWithReuse(log []byte, afterLine func(*lineReuse)) *lineReuse {
	r := &oaReader{h: &Head{Name: "log.jsonl"}, out: &Sink{}, reuse: &lineReuse{}}
	lr := NewLineReader(bytes.NewReader(log))
	for {
		line, n, ok := lr.Next()
		if !ok {
			return r.reuse
		}
		r.logLine(lr, line, n)
		if afterLine != nil {
			afterLine(r.reuse)
		}
	}
}

// TestInterleavedLogReusesElements: conversations logged line by line in
// turn still take their elements from their own earlier lines.
func TestInterleavedLogReusesElements(t *testing.T) {
	files, err := corpusgen.GenerateInMemory(256<<10, 128<<10)
	if err != nil {
		t.Fatal(err)
	}
	var logs [][]byte
	alone := 0
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".jsonl") && strings.Contains(f.Path, "openai/chat") {
			log := replayingLog(f.Data)
			logs = append(logs, log)
			alone += readWithReuse(log, nil).taken
		}
	}
	if len(logs) < 3 || alone == 0 {
		t.Fatalf("%d generated chat logs, %d elements taken: too few to interleave", len(logs), alone)
	}
	mixed := interleave(logs...)
	if got := readWithReuse(mixed, nil).taken; got < alone {
		t.Errorf("interleaving %d logs: %d elements taken, want the %d taken reading each alone", len(logs), got, alone)
	}
	for _, format := range []string{"", "openai-chat"} {
		if on, off := readBoth(mixed, "mixed.jsonl", format); on != off {
			t.Errorf("interleaved logs as %q: the reading with lineReuse differs:\n%s", format, firstDiff(off, on))
		}
	}
}

// TestCommonPrefix checks commonPrefix against a byte-by-byte count,
// around its block and word sizes.
func TestCommonPrefix(t *testing.T) {
	base := bytes.Repeat([]byte("abcdefghij"), 100)
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 263, 264, 265, 511, 512, 513, 999, 1000} {
		for _, tail := range []string{"", "X"} {
			b := append(append([]byte(nil), base[:n]...), tail...)
			want := 0
			for want < len(base) && want < len(b) && base[want] == b[want] {
				want++
			}
			if got := commonPrefix(base, b); got != want {
				t.Errorf("commonPrefix(base, base[:%d]+%q) = %d, want %d", n, tail, got, want)
			}
			if got := commonPrefix(b, base); got != want {
				t.Errorf("commonPrefix(base[:%d]+%q, base) = %d, want %d", n, tail, got, want)
			}
		}
	}
}

// FuzzOpenAIReuse holds lineReuse to the plain reading on logs whose lines
// share prefixes of every length: a, then a cut anywhere and continued
// with b, then a and b again.
func FuzzOpenAIReuse(f *testing.F) {
	for _, log := range oaReuseLogs {
		lines := strings.Split(strings.TrimSpace(log), "\n")
		f.Add([]byte(lines[0]), []byte(lines[len(lines)-1]), uint16(len(lines[0])/2), false)
	}
	f.Add([]byte(oaEdgeRecords[6]), []byte(oaEdgeRecords[7]), uint16(40), true)
	f.Fuzz(func(t *testing.T, a, b []byte, cut uint16, responses bool) {
		if bytes.ContainsAny(a, "\n\r") || bytes.ContainsAny(b, "\n\r") {
			return
		}
		c := int(cut) % (len(a) + 1)
		var log []byte
		for _, line := range [][]byte{a, append(a[:c:c], b...), a, a, b} {
			log = append(append(log, line...), '\n')
		}
		format := "openai-chat"
		if responses {
			format = "openai-responses"
		}
		if on, off := readBoth(log, "log.jsonl", format); on != off {
			t.Errorf("%q as %s: the reading with lineReuse differs:\n%s", log, format, firstDiff(off, on))
		}
	})
}

// TestColdLogKeepsFewLines: a log whose lines share nothing (one line per
// conversation) stops being kept line by line after coldAfter lines, but
// for one line in probeEvery; a replaying conversation that follows is
// found again, and takes at least half of what it takes read alone.
func TestColdLogKeepsFewLines(t *testing.T) {
	files, err := corpusgen.GenerateInMemory(256<<10, 128<<10)
	if err != nil {
		t.Fatal(err)
	}
	var cold [][]byte
	var replaying []byte
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".jsonl") || !strings.Contains(f.Path, "openai/chat") {
			continue
		}
		for _, line := range bytes.Split(bytes.TrimSpace(f.Data), []byte("\n")) {
			cold = append(cold, line)
		}
		if replaying == nil {
			replaying = replayingLog(f.Data)
		}
	}
	if len(cold) == 0 || replaying == nil {
		t.Fatal("no generated chat log")
	}
	// 64 lines, each the generated line with a number of its own first,
	// so that no two share more than a few bytes.
	var coldLog []byte
	for i := range 64 {
		line := cold[i%len(cold)]
		coldLog = fmt.Appendf(coldLog, `{"seq":%d,%s`+"\n", i, line[1:])
	}
	cold = bytes.Split(bytes.TrimSpace(coldLog), []byte("\n"))
	r := readWithReuse(coldLog, nil)
	if most := coldAfter + len(cold)/probeEvery + 1; r.taken != 0 || r.kept > most {
		t.Errorf("%d lines sharing nothing: %d kept (want at most %d), %d elements taken (want 0)", len(cold), r.kept, most, r.taken)
	}
	alone := readWithReuse(replaying, nil).taken
	after := readWithReuse(append(coldLog, replaying...), nil).taken
	if alone == 0 || 2*after < alone {
		t.Errorf("a replaying log after %d cold lines: %d elements taken, read alone %d", len(cold), after, alone)
	}
	if on, off := readBoth(append(coldLog, replaying...), "cold.jsonl", ""); on != off {
		t.Errorf("the reading with lineReuse differs:\n%s", firstDiff(off, on))
	}
}
