package ingest

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Codex lines of every shape the one-pass reading (decodeCodexLine) meets;
// TestEdgeGolden holds what is read of them.

// cxHead opens a Codex file: a session and a turn, so that the records
// after it have a request to join.
const cxHead = `{"timestamp":"2026-01-05T09:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w","source":"cli"}}
{"timestamp":"2026-01-05T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}
`

// cxEdgeRecords are Codex files (after cxHead) whose lines are not all of
// the shape the direct reading decodes where it lies: repeated, escaped or
// case-folded keys, null members, members of other kinds than the plain
// reading takes, contents and outputs of every kind, odd payloads.
var cxEdgeRecords = []string{
	// The common records, plain.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"think"},{"text":"more"}],"content":null,"encrypted_content":"gAAA"}}
{"timestamp":"2026-01-05T09:00:02.100Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}
{"timestamp":"2026-01-05T09:00:02.200Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":3},"last_token_usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":3,"reasoning_output_tokens":1,"total_tokens":13},"model_context_window":272000},"rate_limits":{"primary":{"used_percent":1.5}}}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a\nb \u00e9 \ud83d\ude00"}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}`,
	// Repeated keys: top level, payload, members (the last wins in Unmarshal).
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","type":"event_msg","payload":{"type":"user_message","message":"x"}}
{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"a","call_id":"c1"},"payload":{"type":"function_call","name":"b","call_id":"c2"}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","call_id":"c2","output":"one","output":"two"}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"text":"a","text":"b"}]}}`,
	// Null members.
	`{"timestamp":null,"type":"response_item","payload":{"type":"function_call","name":null,"arguments":null,"call_id":"c1"}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":null,"success":null}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":null}}
{"timestamp":"2026-01-05T09:00:05.000Z","type":"response_item","payload":{"type":"reasoning","summary":null}}
{"timestamp":"2026-01-05T09:00:06.000Z","type":"event_msg","payload":{"type":"token_count","info":null}}
{"timestamp":"2026-01-05T09:00:07.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":null,"last_token_usage":{"input_tokens":null,"output_tokens":4}}}}
{"timestamp":"2026-01-05T09:00:07.100Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":null}}}
{"timestamp":"2026-01-05T09:00:07.200Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":20,"output_tokens":5}}}}
{"timestamp":"2026-01-05T09:00:07.300Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":null,"last_token_usage":{"input_tokens":1,"output_tokens":1}}}}
{"timestamp":"2026-01-05T09:00:07.400Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":20,"output_tokens":5}}}}
{"timestamp":"2026-01-05T09:00:08.000Z","type":"event_msg","payload":{"type":"user_message","message":null}}
{"timestamp":"2026-01-05T09:00:09.000Z","type":null,"payload":null}
{"timestamp":"2026-01-05T09:00:10.000Z","type":"response_item","payload":null}`,
	// Members of other kinds: numbers where strings are expected, objects
	// and lists where the plain reading keeps raw values.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"ls","arguments":{"path":"a","n":1},"call_id":"c1"}}
{"timestamp":"2026-01-05T09:00:02.100Z","type":"response_item","payload":{"type":"function_call","name":"ls","arguments":["x",2],"call_id":"c2"}}
{"timestamp":"2026-01-05T09:00:02.200Z","type":"response_item","payload":{"type":"function_call","name":"ls","arguments":5,"call_id":7}}
{"timestamp":"2026-01-05T09:00:02.300Z","type":"response_item","payload":{"type":"function_call","name":true,"arguments":"{}","call_id":"c3"}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":{"content":"x","success":true},"success":"yes"}}
{"timestamp":"2026-01-05T09:00:03.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":12.5,"success":false}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"event_msg","payload":{"type":"user_message","message":["not","text"]}}
{"timestamp":"2026-01-05T09:00:05.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":{"patch":"x"},"call_id":"c4"}}
{"timestamp":"2026-01-05T09:00:06.000Z","type":"turn_context","payload":{"model":"gpt-5","summary":"auto","effort":"high"}}
{"timestamp":"2026-01-05T09:00:07.000Z","type":"response_item","payload":{"type":"reasoning","summary":[null,{"text":"x"}]}}
{"timestamp":"2026-01-05T09:00:07.100Z","type":"response_item","payload":{"type":"reasoning","summary":[{"text":5}]}}
{"timestamp":"2026-01-05T09:00:07.200Z","type":"response_item","payload":{"type":"reasoning","summary":{"text":"x"}}}
{"timestamp":"2026-01-05T09:00:08.000Z","type":"event_msg","payload":{"type":"token_count","info":"none"}}
{"timestamp":"2026-01-05T09:00:08.100Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1.0,"output_tokens":2}}}}
{"timestamp":"2026-01-05T09:00:08.200Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1e3,"output_tokens":2}}}}
{"timestamp":"2026-01-05T09:00:08.300Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":9223372036854775808}}}}
{"timestamp":"2026-01-05T09:00:08.400Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":"5"}}}}
{"timestamp":"2026-01-05T09:00:08.500Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-5,"output_tokens":-0}}}}
{"timestamp":5,"type":"response_item","payload":{"type":"message"}}
{"timestamp":"2026-01-05T09:00:09.000Z","type":["response_item"],"payload":{"type":"message"}}`,
	// Escaped, case-folded and non-ASCII keys.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"typ\u0065":"function_call","name":"ls","arguments":"{}","call_id":"c1"}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","Call_ID":"c1","output":"r"}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","Payload":{"type":"function_call","name":"ls","call_id":"c2"}}
{"timestamp":"2026-01-05T09:00:04.100Z","TYPE":"response_item","payload":{"type":"function_call","name":"ls","call_id":"c3"}}
{"timestamp":"2026-01-05T09:00:05.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":[{"type":"output_text","Text":"folded"}]}}
{"timestamp":"2026-01-05T09:00:06.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","te\u0078t":"escaped"}]}}
{"timestamp":"2026-01-05T09:00:07.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"Input_Tokens":4,"output_tokens":1}}}}
{"timestamp":"2026-01-05T09:00:08.000Z","type":"event_msg","payload":{"type":"token_count","info":{"Last_Token_Usage":{"input_tokens":4}}}}
{"timestamp":"2026-01-05T09:00:09.000Z","type":"response_item","payload":{"type":"function_call","naméx":"x","name":"ls","call_id":"c4"}}
{"timestamp":"2026-01-05T09:00:10.000Z","type":"response_item","payload":{"type":"function_call","name":"ls","call_id":"c5","ſummary":1}}`,
	// Outputs and contents of every kind: strings with escapes, lists of
	// parts (text, null text, other types, nested content, null and
	// non-object elements), objects, numbers.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"read","arguments":"{\"path\":\"a\\nb\u00e9\"}","call_id":"c1"}}
{"timestamp":"2026-01-05T09:00:02.100Z","type":"response_item","payload":{"type":"function_call","name":"read","arguments":"not json","call_id":"c2"}}
{"timestamp":"2026-01-05T09:00:02.200Z","type":"response_item","payload":{"type":"function_call","name":"read","arguments":"","call_id":"c3"}}
{"timestamp":"2026-01-05T09:00:02.300Z","type":"response_item","payload":{"type":"function_call","name":"read","arguments":"{}","call_id":"c4"}}
{"timestamp":"2026-01-05T09:00:02.400Z","type":"response_item","payload":{"type":"function_call","name":"read","arguments":"{}","call_id":"c5"}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"one"},{"type":"input_image","image_url":"data:"},{"type":"input_text","text":null},{"type":"wrap","content":[{"type":"t","text":"inner"}]},{"type":"input_text","text":""}]}}
{"timestamp":"2026-01-05T09:00:03.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":[null,{"type":"input_text","text":"after null"}]}}
{"timestamp":"2026-01-05T09:00:03.200Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":[5,"s"]}}
{"timestamp":"2026-01-05T09:00:03.300Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c4","output":[{"type":7,"text":"t"}]}}
{"timestamp":"2026-01-05T09:00:03.400Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c5","output":[{"type":"wrap","content":null},{"type":"wrap","content":"s"},{"type":"wrap","content":{"x":1}}],"success":false}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":"plain string"}}
{"timestamp":"2026-01-05T09:00:04.100Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"refusal"},{"type":"output_text","text":"a"},{"type":"output_text","text":"b"}]}}
{"timestamp":"2026-01-05T09:00:04.200Z","type":"response_item","payload":{"type":"message","role":"assistant","content":{"text":"object"}}}
{"timestamp":"2026-01-05T09:00:04.300Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}
{"timestamp":"2026-01-05T09:00:04.400Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"text":""},{"text":"x"}]}}
{"timestamp":"2026-01-05T09:00:05.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}`,
	// A file with no user_message events: the role-user items open turns.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first"},{"type":"input_text","text":"second"}]}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"message","role":"user","content":"  "}}`,
	// Custom and local shell calls, compaction, other item types.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"Done!"}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"c2","status":"completed","action":{"type":"exec","command":["ls","-la"]}}}
{"timestamp":"2026-01-05T09:00:05.000Z","type":"response_item","payload":{"type":"local_shell_call_output","call_id":"c2","output":"ok"}}
{"timestamp":"2026-01-05T09:00:05.100Z","type":"response_item","payload":{"type":"local_shell_call","status":"completed","action":"ls"}}
{"timestamp":"2026-01-05T09:00:06.000Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}}
{"timestamp":"2026-01-05T09:00:07.000Z","type":"compacted","payload":{"message":"summary","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"old"}]}]}}
{"timestamp":"2026-01-05T09:00:08.000Z","type":"event_msg","payload":{"type":"context_compacted"}}
{"timestamp":"2026-01-05T09:00:09.000Z","type":"response_item","payload":{"type":"compaction","encrypted_content":"x"}}
{"timestamp":"2026-01-05T09:00:10.000Z","type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}}
{"timestamp":"2026-01-05T09:00:11.000Z","type":"event_msg","payload":{"type":"user_message","message":"again","images":[]}}`,
	// Session metadata: a later session_meta (another thread's, embedded:
	// it relabels nothing), models.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"session_meta","payload":{"id":"s2","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p1","depth":1}}}}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"turn_context","payload":{"model":"gpt-5-codex","sandbox_policy":{"type":"workspace-write"}}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"turn_context","payload":{"model":"other"}}`,
	// Odd payloads and lines: unknown types with any payload or none, a
	// known type without one, a payload that is a list, a line that is
	// not an object, trailing bytes, white space, an empty payload.
	`{"timestamp":"2026-01-05T09:00:02.000Z","type":"newer_thing","payload":5}
{"timestamp":"2026-01-05T09:00:02.100Z","type":"newer_thing"}
{"timestamp":"2026-01-05T09:00:02.200Z","type":"newer_thing","payload":{"type":"x","output":{"deep":[1,2]}}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item"}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":[{"type":"message"}]}
{"timestamp":"2026-01-05T09:00:04.100Z","type":"event_msg","payload":"token_count"}
["timestamp","type","payload"]
{"timestamp":"2026-01-05T09:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"ls","call_id":"c9"}} x
{"timestamp":"2026-01-05T09:00:05.100Z","type":"response_item","payload":{"type":"function_call","name":"ls","call_id":"c9"}
  { "timestamp" : "2026-01-05T09:00:06.000Z" , "type" : "response_item" , "payload" : { "type" : "function_call_output" , "call_id" : "c9" , "output" : [ { "type" : "input_text" , "text" : "spaced" } ] } }  
{"timestamp":"2026-01-05T09:00:07.000Z","type":"response_item","payload":{}}
{"timestamp":"2026-01-05T09:00:08.000Z","type":"event_msg","payload":{"type":"token_count","info":{}}}
{}`,
	// Invalid UTF-8 in strings the direct reading decodes (output,
	// arguments, message, content parts, a key).
	"{\"timestamp\":\"2026-01-05T09:00:02.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"l\xffs\",\"arguments\":\"{\\\"a\\\":\\\"\xc3\\\"}\",\"call_id\":\"c1\"}}\n" +
		"{\"timestamp\":\"2026-01-05T09:00:03.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"bad \xed\xa0\x80 utf8\"}}\n" +
		"{\"timestamp\":\"2026-01-05T09:00:04.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"\xf0\x9f\"}]}}\n" +
		"{\"timestamp\":\"2026-01-05T09:00:05.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"\xff\\u00e9\"}}\n" +
		"{\"timestamp\":\"2026-01-05T09:00:06.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"mess\xffage\":\"x\"}}",
}

// cxEdgeFiles are cxEdgeRecords as files, with extra lines nested to
// jsonx.MaxDepth and one level past it (a line Valid rejects, so the direct
// reading must too), in the payload and in a content part.
func cxEdgeFiles() map[string][]byte {
	files := map[string][]byte{}
	for i, rec := range cxEdgeRecords {
		files[filepath.Join("edge", "rollout-edge-"+strconv.Itoa(i)+".jsonl")] = []byte(cxHead + rec + "\n")
	}
	// No user_message events (older builds): a role-user item opens the
	// turn, and an event with the same text after it does not open another.
	files[filepath.Join("edge", "rollout-items.jsonl")] = []byte(`{"timestamp":"2026-01-05T09:00:00.000Z","type":"session_meta","payload":{"id":"s3"}}
{"timestamp":"2026-01-05T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}
{"timestamp":"2026-01-05T09:00:01.100Z","type":"event_msg","payload":{"type":"user_message","message":"go"}}
{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}
{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"ls","arguments":"{}","call_id":"c1"}}
`)
	for _, n := range []int{jsonx.MaxDepth - 3, jsonx.MaxDepth - 2, jsonx.MaxDepth - 1} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		files[filepath.Join("edge", "rollout-deep-"+strconv.Itoa(n)+".jsonl")] = []byte(cxHead +
			`{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"ls","call_id":"c1","x":` + deep + "}}\n" +
			`{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":[{"type":"t","content":` + deep + "}]}}\n")
	}
	return files
}

// TestCodexDirectReads: the direct reading reads the common records
// itself rather than leaving them all to the plain one (which would pass
// the comparison trivially).
func TestCodexDirectReads(t *testing.T) {
	var l codexLine
	var p codexPayload
	for _, line := range strings.Split(strings.TrimSpace(cxHead+cxEdgeRecords[0]), "\n") {
		if !decodeCodexLine([]byte(line), &l, &p) {
			t.Errorf("declined: %s", line)
		}
	}
	if !decodeCodexLine([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"a"},{"type":"input_image"}]}}`), &l, &p) ||
		p.output != "a\n[input_image]" || p.CallID != "c1" {
		t.Errorf("output parts read as %q (call %q)", p.output, p.CallID)
	}
}

// TestCodexProblemTypes: the problems of a payload Unmarshal cannot read
// quote its error, which spells out the type of the member at fault, so
// the type the one-pass reading names (codexInfo) must stay the unnamed
// struct type the generic decoding quotes.
func TestCodexProblemTypes(t *testing.T) {
	data := []byte(cxHead + `{"timestamp":"2026-01-05T09:00:03.000Z","type":"event_msg","payload":{"type":"token_count","info":"none"}}
`)
	_, problems := readBytes(data, "rollout.jsonl", formatCodex)
	want := `of type struct { Total *ingest.codexTokens "json:\"total_token_usage\""; Last *ingest.codexTokens "json:\"last_token_usage\"" }`
	if len(problems) != 1 || !strings.Contains(problems[0].Message, want) {
		t.Fatalf("problems %v, want one naming the type %s", problems, want)
	}
}

// TestCodexSummaries: a turn_context's summary is the reasoning summary
// setting, a string, as Codex writes it (TurnContextItem.summary, a
// ReasoningSummaryConfig): it is no problem, and the model is read. A
// reasoning item's summary is a list of parts whose text counts; one of
// another shape is a problem of its own, and the item still opens its
// request. Both readings.
func TestCodexSummaries(t *testing.T) {
	data := []byte(cxHead + `{"timestamp":"2026-01-05T09:00:02.000Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write"},"model":"gpt-5-codex","effort":"high","summary":"auto"}}
{"timestamp":"2026-01-05T09:00:04.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"abc"},{"type":"summary_text","text":"de"}]}}
{"timestamp":"2026-01-05T09:00:05.000Z","type":"response_item","payload":{"type":"function_call","call_id":"c1","name":"shell","arguments":"{}"}}
{"timestamp":"2026-01-05T09:00:05.500Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}
{"timestamp":"2026-01-05T09:00:06.000Z","type":"response_item","payload":{"type":"reasoning","summary":"concise"}}
`)
	{
		sessions, problems := readBytes(data, "rollout.jsonl", formatCodex)
		if len(sessions) != 1 {
			t.Fatalf("%d sessions", len(sessions))
		}
		s := sessions[0]
		if s.Model != "gpt-5-codex" {
			t.Errorf("model %q, want the turn_context's", s.Model)
		}
		if len(problems) != 1 || problems[0].Line != 7 || !strings.Contains(problems[0].Message, "reasoning summary is not a list") {
			t.Errorf("problems %v, want one, for the reasoning summary on line 7", problems)
		}
		reqs := s.Turns[len(s.Turns)-1].Requests
		if len(reqs) != 2 || reqs[0].TextChars != 5 || reqs[0].Line != 4 || reqs[1].Line != 7 || reqs[1].TextChars != 0 {
			t.Errorf("requests %+v, want the summary's 5 characters on line 4 and a request opened on line 7", reqs)
		}
	}
}

func FuzzCodexEdge(f *testing.F) {
	for _, data := range cxEdgeFiles() {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEdgeRead(t, data, "rollout.jsonl", formatCodex)
	})
}

// TestCodexShellFailures: a result carries no success flag in a rollout;
// the exit code in a shell result's header (freeform, unified exec) or in
// its metadata (the structured output) says whether the command failed,
// and apply_patch's own words whether the patch was rejected.
func TestCodexShellFailures(t *testing.T) {
	tests := []struct {
		name   string
		output string // the output member, JSON
		failed bool
		tool   string // the call's name; shell when empty
	}{
		{"structured, exit 0", `"{\"output\":\"## main\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"`, false, ""},
		{"structured, timed out", `"{\"output\":\"command timed out after 1005 milliseconds\\n\",\"metadata\":{\"exit_code\":124,\"duration_seconds\":1.0}}"`, true, ""},
		{"freeform, exit 1", `"Exit code: 1\nWall time: 0.1 seconds\nOutput:\nfatal: not a git repository\n"`, true, ""},
		{"unified exec, exit 0", `"Chunk ID: ab12\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n## main\n"`, false, ""},
		{"plain text", `"## main\n"`, false, ""},
		// A patch that does not apply: an error to the model, in any
		// output item (a freeform apply_patch or a function one).
		{"apply_patch rejected", `"apply_patch verification failed: Failed to find expected lines in /w/a.md:\nx"`, true, ""},
		{"apply_patch applied", `"Success. Updated the following files:\nM a.md\n"`, false, ""},
		// A command with a newline in it, in the header of newer builds.
		{"unified exec, multi-line command, exit 1", `"Command: /bin/zsh -lc \"printf 'a\n' > f && false\"\nChunk ID: 2470cb\nWall time: 0.0946 seconds\nProcess exited with code 1\nOriginal token count: 1\nOutput:\nx\n"`, true, "exec_command"},
		// Codex's own answers when its handling of the call fails.
		{"unified exec could not start", `"exec_command failed for ` + "`/bin/zsh -lc pwd`" + `: CreateProcess { message: \"Codex(Sandbox(Denied { ... }))\" }"`, true, "exec_command"},
		{"unified exec could not start, older", `"exec_command failed: SandboxDenied { message: \"denied\" }"`, true, "exec_command"},
		{"stdin closed", `"write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"`, true, "write_stdin"},
		{"user declined", `"exec command rejected by user"`, true, "shell_command"},
		{"exec policy", `"` + "`/bin/zsh -lc \\\"rm -rf x\\\"` rejected: blocked by policy" + `"`, true, "shell_command"},
		{"execution error", `"execution error: Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })"`, true, "apply_patch"},
		{"sandbox, older", `"failed in sandbox MacosSeatbelt with execution error: Denied { ... }"`, true, ""},
		{"bad arguments", `"failed to parse function arguments: invalid type: integer ` + "`0`" + `, expected a string"`, true, ""},
		{"escalation refused", `"approval policy is Never; reject command — you should not ask for escalated permissions if the approval policy is Never"`, true, "shell_command"},
		{"interrupted shell", `"Wall time: 66.8 seconds\naborted by user"`, true, ""},
		{"interrupted tool", `"aborted by user after 3.0s"`, true, "update_plan"},
		{"question in a mode without it", `"request_user_input is unavailable in Code mode"`, true, "request_user_input"},
		// A code-mode script: its status leads the first of its parts.
		{"code-mode script failed", `[{"type":"input_text","text":"Script failed\nWall time 0.0 seconds\nOutput:\n"},{"type":"input_text","text":"Script error:\nexec cell 12 not found"}]`, true, "wait"},
		{"code-mode script completed", `[{"type":"input_text","text":"Script completed\nWall time 0.1 seconds\nOutput:\n"},{"type":"input_text","text":"Script failed\nWall time 1 seconds"}]`, false, "exec"},
		{"code-mode script running", `"Script running with cell ID 8\nWall time 11.8 seconds\nOutput:\n"`, false, "exec"},
		// The same words from an MCP tool are its own output; and such
		// words inside a command's output are output.
		{"MCP tool's text", `"execution error: none, all good"`, false, "mcp__notes__search"},
		{"words in output", `"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nexec command rejected by user\n"`, false, ""},
		{"interrupted words in output", `"Wall time: 1.0 seconds\naborted by user\nmore"`, false, ""},
	}
	for _, tc := range tests {
		tool := tc.tool
		if tool == "" {
			tool = "shell"
		}
		call := `{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"` + tool + `","arguments":"{\"command\":[\"bash\",\"-lc\",\"git status -sb\"],\"timeout_ms\":1000}","call_id":"c1"}}` + "\n"
		out := `{"timestamp":"2026-01-05T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + tc.output + `}}` + "\n"
		sessions, problems := readBytes([]byte(cxHead+call+out), "rollout.jsonl", formatCodex)
		if len(problems) != 0 || len(sessions) != 1 {
			t.Fatalf("%s: %d sessions, problems %v", tc.name, len(sessions), problems)
		}
		var calls []Call
		for _, tr := range sessions[0].Turns {
			for _, rq := range tr.Requests {
				calls = append(calls, rq.Calls...)
			}
		}
		if len(calls) != 1 || !calls[0].HasResult {
			t.Fatalf("%s: calls %+v, want one with its result", tc.name, calls)
		}
		if calls[0].IsError != tc.failed {
			t.Errorf("%s: IsError %v, want %v", tc.name, calls[0].IsError, tc.failed)
		}
	}
}

// TestCodexHistoryProblem: Codex's prompt history, named on the command
// line, is one problem saying what it is, not "of no known format".
func TestCodexHistoryProblem(t *testing.T) {
	data := []byte(`{"session_id":"019d021f-1244-77d2-b5aa-ba1d70f11e87","ts":1773857802,"text":"add a test"}
{"session_id":"019d021f-1244-77d2-b5aa-ba1d70f11e87","ts":1773857900,"text":"go on"}
`)
	sessions, problems := readBytes(data, "history.jsonl", "")
	if len(sessions) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Message, "Codex's prompt history") {
		t.Fatalf("%d sessions, problems %v; want none and one naming Codex's prompt history", len(sessions), problems)
	}
	// A record with more members is something else.
	_, problems = readBytes([]byte(`{"session_id":"s","ts":1,"text":"x","role":"user"}`+"\n"), "history.jsonl", "")
	if len(problems) != 1 || strings.Contains(problems[0].Message, "prompt history") {
		t.Errorf("problems %v; want one of no known format", problems)
	}
}

// TestCodexToolSearch: Codex's search of its deferred tools is a call of
// tool_search, its arguments an object, joined by call_id to its output,
// whose result is the list of tools found; a line the one-pass decoding
// declines (a repeated member) reads the same.
func TestCodexToolSearch(t *testing.T) {
	call := `{"timestamp":"2026-07-03T07:12:42.604Z","type":"response_item","payload":{"type":"tool_search_call","id":"tsc_1","call_id":"c1","status":"completed","execution":"client","arguments":{"query":"job status","limit":8}}}` + "\n"
	out := `{"timestamp":"2026-07-03T07:12:42.780Z","type":"response_item","payload":{"type":"tool_search_output","call_id":"c1","status":"completed","execution":"client","tools":[{"type":"function","name":"automation_update"}]}}` + "\n"
	repeated := strings.Replace(out, `"status":"completed",`, `"status":"completed","status":"completed",`, 1)
	for name, data := range map[string]string{"one pass": cxHead + call + out, "generic": cxHead + call + repeated} {
		sessions, problems := readBytes([]byte(data), "rollout.jsonl", formatCodex)
		if len(problems) != 0 || len(sessions) != 1 {
			t.Fatalf("%s: %d sessions, problems %v", name, len(sessions), problems)
		}
		var calls []Call
		for _, tr := range sessions[0].Turns {
			for _, rq := range tr.Requests {
				calls = append(calls, rq.Calls...)
			}
		}
		if len(calls) != 1 {
			t.Fatalf("%s: calls %+v, want one", name, calls)
		}
		c := calls[0]
		if c.Tool != "tool_search" || !c.HasResult || c.IsError || c.Result != `[{"type":"function","name":"automation_update"}]` ||
			!strings.Contains(c.ArgsRaw, `"query":"job status"`) {
			t.Errorf("%s: call %s args %s result %q (has %v, error %v); want tool_search with its query and the tools found", name, c.Tool, c.ArgsRaw, c.Result, c.HasResult, c.IsError)
		}
	}
}
