package ingest

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// The OpenHands one-pass reading (parseOpenHandsOnePass) decodes events
// where they lie and leaves the rare shapes to the generic decoding; the
// edge inputs here cover both (TestEdgeGolden).

// ohdUser is a user message, ohdCall an agent action with a tool call and
// ohdObs its observation: the common shapes, for the edge documents below
// to vary.
const (
	ohdUser = `{"id": 0, "timestamp": "2026-03-02T09:00:00", "source": "user", "message": "Fix it", "action": "message", "args": {"content": "Fix it"}}`
	ohdCall = `{"id": 1, "timestamp": "2026-03-02T09:00:01", "source": "agent", "message": "Running ls", "action": "run", "args": {"command": "ls", "thought": ""}, "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1", "total_calls_in_response": 1, "model_response": {"id": "r1", "object": "chat.completion", "model": "m1", "choices": [{"index": 0, "message": {"role": "assistant", "content": "let me look", "tool_calls": [{"index": 1, "id": "t1", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls -la\"}"}}]}}], "usage": {"completion_tokens": 43, "prompt_tokens": 150}}}}`
	ohdObs  = `{"id": 2, "timestamp": "2026-03-02T09:00:02", "source": "agent", "message": "Observed", "cause": 1, "observation": "run", "content": "a.go\nb.go", "extras": {}}`
)

// ohEdgeDocs are OpenHands trajectories (JSON arrays of events) whose
// events are not all of the shape the direct reading decodes, or repeat.
var ohEdgeDocs = []string{
	`[` + ohdUser + `,` + ohdCall + `,` + ohdObs + `]`,
	// Repeated keys: in an event, in its metadata, in the tool calls.
	`[` + ohdUser + `,{"id": 1, "id": 2, "source": "agent", "action": "run", "args": {}},{"id": 3, "source": "agent", "cause": 2, "observation": "run", "content": "x", "content": "y"}]`,
	`[{"id": 1, "source": "agent", "action": "run", "action": "read", "tool_call_metadata": {"function_name": "a", "function_name": "b", "tool_call_id": "t1"}}, {"id": 2, "source": "agent", "cause": 1, "observation": "run", "content": "ok"}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t1"}, "tool_call_metadata": {"tool_call_id": "t2"}}, {"id": 2, "source": "agent", "cause": 1, "observation": "run"}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t1", "model_response": {"id": "r", "choices": [{"message": {"tool_calls": [{"id": "t1", "id": "t2", "function": {"name": "x", "arguments": "{}"}}]}}]}}}]`,
	// Null members, at every level.
	`[{"id": null, "timestamp": null, "source": "agent", "message": null, "action": "run", "args": null, "content": null, "cause": null, "tool_call_metadata": null}, {"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"function_name": null, "tool_call_id": null, "model_response": null}}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t1", "model_response": {"id": null, "model": null, "usage": null, "choices": null}}}, {"id": 2, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t2", "model_response": {"id": "r", "choices": [null, {"message": null}, {"message": {"content": null, "tool_calls": null}}]}}}, {"id": 3, "cause": 2, "observation": "run", "content": null}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t1", "model_response": {"id": "r", "choices": [{"message": {"tool_calls": [null, {"id": "t1", "type": null, "function": null, "custom": null}, {"id": "t9", "function": {"name": null, "arguments": null}}]}}]}}}, {"id": 2, "cause": 1, "observation": "run", "content": "done"}]`,
	// Members of the wrong kind.
	`[{"id": "5", "source": "agent", "action": "run"}, {"id": 6, "source": 5, "action": "run"}, {"id": 7, "source": "agent", "action": "run", "args": "ls"}, {"id": 8, "source": "agent", "action": ["run"]}, {"id": 9, "cause": "7", "observation": "run"}, {"id": 10, "cause": 7, "observation": true}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": 5}, {"id": 2, "source": "agent", "action": "run", "tool_call_metadata": []}, {"id": 3, "source": "agent", "action": "run", "tool_call_metadata": "t"}, {"id": 4, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": 4}}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t1", "model_response": {"id": "r", "choices": {}}}}, {"id": 2, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t2", "model_response": {"id": 7}}}, {"id": 3, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t3", "model_response": {"id": "q", "choices": [5]}}}, {"id": 4, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t4", "model_response": "r"}}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t1", "model_response": {"id": "r", "usage": "lots", "choices": [{"message": {"tool_calls": "x"}}]}}}, {"id": 2, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t2", "model_response": {"id": "s", "choices": [{"message": {"tool_calls": [{"id": "t2", "function": "ls"}]}}]}}}, {"id": 3, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t3", "model_response": {"id": "u", "choices": [{"message": {"tool_calls": [{"id": "t3", "custom": 5}, {"id": 4}]}}]}}}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t1", "model_response": {"id": "r", "choices": [{"message": {"tool_calls": [{"id": "t1", "type": "custom", "custom": {"name": "patch", "input": "*** x"}}, {"id": "t2", "function": {"name": "ls", "arguments": {"path": "a"}}}, {"id": "t3", "function": {"name": "ls", "arguments": 5}}]}}]}}}, {"id": 2, "cause": 1, "observation": "run", "content": "ok"}]`,
	// Ids and causes as floats, exponents, out of range, negative.
	`[{"id": 1.0, "source": "agent", "action": "run"}, {"id": 2, "cause": 1.0, "observation": "run", "content": "a"}, {"id": 1e2, "source": "agent", "action": "run"}, {"id": 9223372036854775808, "source": "agent", "action": "run"}, {"id": -3, "source": "agent", "action": "run"}, {"id": 4, "cause": -3, "observation": "run", "content": "b"}, {"id": -0, "cause": 0, "observation": "run"}]`,
	// Causes missing, null, unknown, pointing at a user message.
	`[` + ohdUser + `, {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}}, {"id": 2, "observation": "run", "content": "no cause"}, {"id": 3, "cause": null, "observation": "run"}, {"id": 4, "cause": 99, "observation": "run"}, {"id": 5, "cause": 0, "observation": "recall"}, {"id": 6, "cause": 1, "observation": "error", "content": "boom"}]`,
	// tool_call_metadata empty or half there; choices empty.
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {}}, {"id": 2, "source": "agent", "action": "run", "tool_call_metadata": {"model_response": {}}}, {"id": 3, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t3", "model_response": {"id": "r", "choices": []}}}, {"id": 4, "source": "agent", "action": "finish", "tool_call_metadata": {"tool_call_id": "t4", "model_response": {"id": "r"}}}, {"id": 5, "cause": 3, "observation": "run", "content": "x"}]`,
	// Content as a list, a number, an object; the choice's content too.
	`[` + ohdCall + `, {"id": 2, "cause": 1, "observation": "run", "content": [{"type": "text", "text": "part"}, {"type": "image_url"}]}, {"id": 3, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t3", "model_response": {"id": "r3", "choices": [{"message": {"content": [{"type": "text", "text": "think"}]}}]}}}, {"id": 4, "cause": 3, "observation": "run", "content": 5}, {"id": 5, "source": "agent", "action": "run"}, {"id": 6, "cause": 5, "observation": "run", "content": {"a": 1}}]`,
	// Escaped, case-folded and non-ASCII keys.
	`[` + ohdCall + `, {"id": 2, "cause": 1, "obs\u0065rvation": "run", "content": "escaped"}, {"id": 3, "source": "agent", "Action": "run"}, {"ID": 4, "source": "agent", "action": "run"}, {"id": 5, "CAUSE": 1, "observation": "run"}, {"id": 6, "caus\u00e9": 1, "observation": "run"}]`,
	`[{"id": 1, "source": "agent", "action": "run", "tool_call_metadata": {"tool_c\u0061ll_id": "t1", "model_response": {"id": "r", "Choices": []}}}, {"id": 2, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t2", "model_response": {"id": "s", "choices": [{"message": {"Tool_Calls": [{"id": "t2"}]}}]}}}, {"id": 3, "source": "agent", "action": "run", "tool_call_metadata": {"tool_call_id": "t3", "model_response": {"id": "u", "choices": [{"message": {"tool_calls": [{"ID": "t3", "Function": {"name": "x"}}]}}]}}}]`,
	// Events that are not objects.
	`[5, null, "event", [], {}, ` + ohdUser + `, true]`,
	// Strings with escapes, a lone surrogate, a byte outside UTF-8.
	"[" + ohdCall + `, {"id": 2, "cause": 1, "observation": "run", "content": "tab\tline\n\u00e9 \ud800 \" end"}, {"id": 3, "source": "user", "action": "message", "message": "caf\u00e9", "args": {"content": ""}}, {"id": 4, "source": "agent", "action": "run"}, {"id": 5, "cause": 4, "observation": "run", "content": "bad ` + "\xff" + ` byte"}]`,
	// Condensation, a user message after it, a message action of the agent.
	`[` + ohdUser + `, {"id": 1, "source": "agent", "action": "condensation", "args": {}}, {"id": 2, "source": "user", "action": "message", "message": "again", "args": {"content": 7}}, {"id": 3, "source": "agent", "action": "message", "args": {"content": "done"}}, {"id": 4, "source": "agent", "action": "finish", "args": {"final_thought": "ok"}}]`,
	// Two actions of one model response (one request), and a tool call
	// whose arguments the model response does not hold.
	`[{"id": 1, "source": "agent", "action": "run", "args": {"command": "a"}, "tool_call_metadata": {"function_name": "bash", "tool_call_id": "t1", "model_response": {"id": "r", "model": "m", "choices": [{"message": {"content": "two", "tool_calls": [{"id": "t1", "function": {"name": "bash", "arguments": "{\"command\":\"a\"}"}}, {"id": "t2", "function": {"name": "bash", "arguments": "{\"command\":\"b\"}"}}]}}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}}}, {"id": 2, "source": "agent", "action": "run", "args": {"command": "b"}, "tool_call_metadata": {"function_name": "bash", "tool_call_id": "t2", "model_response": {"id": "r", "model": "m"}}}, {"id": 3, "source": "agent", "action": "read", "args": {"path": "x"}, "tool_call_metadata": {"function_name": "read", "tool_call_id": "t3", "model_response": {"id": "r2"}}}, {"id": 4, "cause": 1, "observation": "run", "content": "A"}, {"id": 5, "cause": 2, "observation": "run", "content": "B"}]`,
	// Not what the direct reading reads at all: a syntax error, a
	// trailing value, null, an object without history, an empty array.
	`[` + ohdUser + `, {"id": 1,}]`,
	`[` + ohdUser + `] [`,
	`null`,
	`[]`,
	`  [` + ohdUser + `]  `,
}

// ohEdgeRecords are OpenHands evaluation output records (JSONL lines).
var ohEdgeRecords = []string{
	`{"instance_id": "i1", "instruction": "x", "history": [` + ohdUser + `,` + ohdCall + `,` + ohdObs + `], "metrics": {}}`,
	`{"instance_id": 42, "history": [` + ohdUser + `]}`,
	`{"instance_id": null, "history": [` + ohdUser + `]}`,
	`{"instance_id": "", "history": []}`,
	`{"instance_id": {"a": 1}, "history": null}`,
	`{"history": [` + ohdCall + `]}`,
	`{"instance_id": "i1", "instance_id": "i2", "history": []}`,
	`{"instance_id": "i1", "history": [` + ohdUser + `], "history": [` + ohdCall + `]}`,
	`{"instance_id": "i1", "History": [` + ohdUser + `]}`,
	`{"instance_id": "i1", "hist\u006fry": [` + ohdUser + `]}`,
	`{"instance_id": "i\u0031", "history": 5}`,
	`{"instance_id": "i1", "history": "none"}`,
	`{"instance_id": "i1", "history": [` + ohdUser + `, 5, {"id": "x"}]}`,
	`{"instance_id": "i1", "history": [` + ohdUser + `]} x`,
	`{"instance_id": "i1", "history": [` + ohdUser + `,]}`,
	` {"instance_id": "i1", "history": [` + ohdUser + `]}`,
}

// ohEdgeInputs are the edge documents and records as files: each document
// on one line and pretty-printed (one event a line, so that problems name
// lines), each record alone, and the records together as one JSONL file,
// and one record as a pretty-printed .json document.
func ohEdgeInputs() map[string][]byte {
	inputs := map[string][]byte{}
	for i, doc := range ohEdgeDocs {
		name := filepath.Join("edge", "openhands_"+strconv.Itoa(i))
		inputs[name+".json"] = []byte(doc + "\n")
		inputs[name+"_pretty.json"] = []byte(ohPretty(doc))
	}
	for i, rec := range ohEdgeRecords {
		inputs[filepath.Join("edge", "openhands_output_"+strconv.Itoa(i)+".jsonl")] = []byte(rec + "\n")
	}
	inputs[filepath.Join("edge", "openhands_output_all.jsonl")] = []byte(strings.Join(ohEdgeRecords, "\n") + "\n")
	inputs[filepath.Join("edge", "openhands_output_pretty.json")] = []byte(strings.Replace(ohEdgeRecords[0], `"history": [`, "\n  \"history\": [\n", 1) + "\n")
	return inputs
}

// ohPretty puts each top-level event of doc on a line of its own.
func ohPretty(doc string) string {
	return strings.ReplaceAll(strings.ReplaceAll(doc, `}, {`, "},\n  {"), `},{`, "},\n{")
}

// TestOpenHandsDirectDecodes: the direct reading does read the OpenHands
// fixtures, samples and generated files itself, every event decoded where
// it lies: the generic decoding is for the rare shapes only.
func TestOpenHandsDirectDecodes(t *testing.T) {
	files := 0
	for p, data := range directInputs(t, nil) {
		if !strings.Contains(filepath.ToSlash(p), "openhands/") || !IsTranscriptName(filepath.Base(p)) {
			continue
		}
		// Other OpenHands formats (the V1 SDK events, resolver output)
		// live under openhands/ too; this reading is the trajectory one's.
		if f, told := detectedFormat(data, filepath.Base(p)); told && f != formatOpenHands {
			t.Logf("%s: read as %q, not %s; not this reading's file", p, f, formatOpenHands)
			continue
		}
		files++
		var records [][]byte
		if strings.HasSuffix(p, ".jsonl") {
			records = bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		} else {
			records = [][]byte{bytes.TrimSpace(data)}
		}
		for n, rec := range records {
			events := rec
			if rec[0] == '{' {
				var r struct {
					History jsonx.RawMessage `json:"history"`
				}
				if jsonx.Unmarshal(rec, &r) != nil || !rawIsArray(r.History) {
					continue // the fixtures hold broken records on purpose
				}
				events = r.History
			}
			elems, ok := jsonx.SplitArray(events)
			if !ok {
				continue
			}
			for i, raw := range elems {
				var e ohEvent
				if _, ok := e.decodeAt(raw, 0, 0); !ok && rawIsObject(raw) {
					t.Errorf("%s record %d: event %d is not decoded directly: %.200s", p, n+1, i+1, raw)
				}
			}
			if !parseOpenHandsOnePass(rec, 0, "x", nil, &Sink{}) {
				t.Errorf("%s record %d: the direct reading declines it", p, n+1)
			}
		}
	}
	if files < 3 {
		t.Fatalf("only %d OpenHands files found", files)
	}
	// And the edge records it must read: a well-formed one.
	if !parseOpenHandsOnePass([]byte(ohEdgeRecords[0]), 1, "x", nil, &Sink{}) {
		t.Error("the direct reading declines a well-formed record")
	}
}

// detectedFormat is the format detection picks for a file: the format of
// its sessions, or "" when it is of no known format. told is false when
// the reading does not tell (a file of broken records gives no session).
func detectedFormat(data []byte, name string) (id string, told bool) {
	sessions, problems := readBytes(data, name, "")
	for _, s := range sessions {
		return s.Format, true
	}
	for _, p := range problems {
		if strings.Contains(p.Message, "of no known format") {
			return "", true
		}
	}
	return "", false
}

func FuzzOpenHandsEdge(f *testing.F) {
	for _, doc := range ohEdgeDocs {
		f.Add([]byte(doc), false)
		f.Add([]byte(ohPretty(doc)), false)
	}
	for _, rec := range ohEdgeRecords {
		f.Add([]byte(rec), true)
	}
	f.Add([]byte(strings.Join(ohEdgeRecords[:4], "\n")), true)
	f.Fuzz(func(t *testing.T, data []byte, lines bool) {
		name := "trajectory.json"
		if lines {
			name = "output.jsonl"
		}
		checkEdgeRead(t, data, name, formatOpenHands)
	})
}

// TestOpenHandsProblemTypes: the problems of an event Unmarshal cannot
// read name the member at fault, the JSON type it holds and the one
// expected, and no Go type (the one-pass reading's types, ohMeta,
// ohModelResponse, ohChoice, must not change these texts).
func TestOpenHandsProblemTypes(t *testing.T) {
	data := []byte(`[
 {"id": 1, "source": "user", "action": "message", "message": "hi", "args": {"content": "hi"}},
 {"id": 2, "source": "agent", "action": "run", "args": {"command": "ls"}, "tool_call_metadata": "x"},
 {"id": 3, "source": "agent", "action": "run", "args": {"command": "ls"}, "tool_call_metadata": {"tool_call_id": "t1", "model_response": 5}},
 {"id": 4, "source": "agent", "action": "run", "args": {"command": "ls"}, "tool_call_metadata": {"tool_call_id": "t3", "model_response": {"id": "r", "choices": "no"}}}
]`)
	_, problems := readBytes(data, "trajectory.json", formatOpenHands)
	want := []string{
		"`tool_call_metadata` is a JSON string, not an object",
		"`tool_call_metadata.model_response` is a JSON number, not an object",
		"`tool_call_metadata.model_response.choices` is a JSON string, not an array",
	}
	if len(problems) != len(want) {
		t.Fatalf("got %d problems, want %d: %v", len(problems), len(want), problems)
	}
	for i, w := range want {
		if !strings.Contains(problems[i].Message, w) {
			t.Errorf("problem %d is %q, want it to name the member and the JSON expected: %s", i, problems[i].Message, w)
		}
	}
}
