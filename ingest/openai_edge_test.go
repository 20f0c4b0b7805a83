package ingest

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

// readBoth reads data with the OpenAI log reader's reuse of decoded
// elements (lineReuse) on, then off, and returns both readings as JSON.
func readBoth(data []byte, name, format string) (on, off string) {
	dump := func(opt Options) string {
		sessions, problems := readBytesWith(data, name, opt)
		out, err := json.MarshalIndent(map[string]any{"sessions": sessions, "problems": problems}, "", " ")
		if err != nil {
			return err.Error()
		}
		return string(out)
	}
	return dump(Options{Format: format}), dump(Options{Format: format, noLineReuse: true})
}

// directInputs are the fixtures, the shared samples (when present; not under
// -short) and a generated corpus of every format, plus extra, by path. The
// tests that use it only read the inputs, so these are read and generated
// once per test binary (89 MB; four tests each did it again).
func directInputs(t *testing.T, extra map[string][]byte) map[string][]byte {
	t.Helper()
	directOnce.Do(func() { directBase, directErr = readDirectInputs() })
	if directErr != nil {
		t.Fatal(directErr)
	}
	inputs := maps.Clone(directBase)
	maps.Copy(inputs, extra)
	return inputs
}

var (
	directOnce sync.Once
	directBase map[string][]byte
	directErr  error
)

// readDirectInputs reads and generates directInputs' inputs.
func readDirectInputs() (map[string][]byte, error) {
	inputs := readFixtureTranscripts()
	if len(inputs) == 0 {
		return nil, errors.New("no transcripts found under fixtures/")
	}
	samples := filepath.Join("..", "..", "shared", "samples")
	if testing.Short() {
		samples = "" // -short: the fixtures and the generated corpus stand for the samples
	}
	_ = filepath.WalkDir(samples, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && IsTranscriptName(d.Name()) {
			if data, err := os.ReadFile(p); err == nil {
				inputs[p] = data
			}
		}
		return nil
	})
	files, err := corpusgen.GenerateInMemory(256<<10, 128<<10)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		inputs["gen/"+f.Path] = f.Data
	}
	return inputs, nil
}

// oaEdgeRecords are OpenAI records whose members are not all strings where
// the one-pass reading expects them, or repeat (TestEdgeGolden).
var oaEdgeRecords = []string{
	`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"part one"},{"type":"image_url"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"typed"}]},{"role":"assistant","content":"ok","content":null}]}`,
	`{"messages":[{"role":"user","content":""},{"role":"assistant","content":"x"},{"role":"user","content":null},{"role":"user","content":"next"}]}`,
	`{"input":[{"type":"message","role":"user","content":""},{"type":"function_call","call_id":"k1","name":"ls","arguments":"{}"},{"type":"function_call_output","call_id":"k1","output":""}]}`,
	`{"messages":[{"role":"user","content":"x","content":5},{"role":"assistant","content":7}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"c9","content":"r","Content":"R"}]}`,
	`{"input":[{"type":"message","role":"user","content":"go"},{"type":"function_call","call_id":"k1","name":"grep","arguments":"{\"q\":1}"},{"type":"function_call_output","call_id":"k1","output":[{"type":"output_text","text":"found"}]}],"output":[{"type":"function_call","call_id":"k2","name":"grep","arguments":{"q":2}}]}`,
	`{"input":[{"type":"function_call","call_id":"k1","name":"ls","arguments":null},{"type":"function_call_output","call_id":"k1","output":null},{"type":"function_call_output","call_id":"k1","output":"a","output":3}]}`,
	`{"output":[{"type":"mcp_call","name":"m","arguments":"{}","output":"done","error":null},{"type":"function_call","call_id":"k3","name":"x","arguments":5}]}`,
	// splitRecord: repeated item arrays (the last wins), an array then a
	// string, elements it decodes mixed with ones it leaves raw.
	`{"input":[{"type":"message","role":"user","content":"a"}],"input":[{"type":"message","role":"user","content":"b"}]}`,
	`{"input":[{"type":"message","role":"user","content":"a"}],"input":"typed"}`,
	`{"messages":[{"role":"user","content":"a"} , 5, {"role":"user","content":[{"type":"text","text":"p"}]}, {"role":"tool"}],"output":[]}`,
	`{"input":[],"output":[{"type":"function_call","call_id":"k1","name":"ls","arguments":"{}","arguments":"{\"a\":1}"}, {"Type":"message"}]}`,
	`{"request":{"input":[{"type":"message","role":"user","content":"req"}]},"input":[{"type":"message","role":"user","content":"top"}]}`,
	// splitRecord's wrappers: request, body and response objects whose
	// item arrays it decodes too; a key with an escape (the wrapper is
	// then read by Unmarshal), repeated wrappers and arrays, a wrapper
	// that is not an object the second time.
	`{"request":{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]},"response":{"output":[{"type":"function_call","call_id":"k1","name":"ls","arguments":"{}"}]}}`,
	`{"body":{"messages":[{"role":"user","content":"a"}],"messages":5},"body":{"messages":[{"role":"user","content":"b"}]}}`,
	`{"request":{"mess\u0061ges":[{"role":"user","content":"escaped"}],"messages":[{"role":"user","content":"plain"}]}}`,
	`{"request":{"messages":[{"role":"user","content":"first"}]},"request":{"messages":[{"role":"user","content":"second"}],"messages":[{"role":"user","content":"third"}]}}`,
	`{"request":{"messages":[{"role":"user","content":"a"}]},"request":5,"messages":[{"role":"user","content":"top"}]}`,
	`{"request":{"input":[{"type":"message","role":"user","content":"go"}]},"response":{"body":{"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}]},"output":[{"type":"function_call","call_id":"k9","name":"ls","arguments":"{}"}]}}`,
	// Tool calls of every shape, for any reading of them where they lie
	// (two were measured and dropped, docs/performance.md): null, empty, a
	// null or non-object element, a null function, arguments null or an
	// object, repeated and case-folded keys, a custom call, two calls,
	// unknown members; a call with both a function and a custom member,
	// one with neither, a function that is a string, an id that is a
	// number, escaped names and arguments.
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":null},{"role":"assistant","tool_calls":[]},{"role":"assistant","tool_calls":[null,{"id":"c1","function":{"name":"ls","arguments":"{}"}}]}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":null}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"ls","arguments":null}},{"id":"c2","function":{"name":"cat","arguments":{"path":"x"},"extra":1},"index":0}]},{"role":"tool","tool_call_id":"c2","content":"r"}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","id":"c2","function":{"name":"ls","Name":"LS","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c2","content":"r"}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"custom","custom":{"name":"patch","input":"*** x"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"ls","arguments":"{}"}}],"tool_calls":[{"id":"c3","function":{"name":"cat","arguments":"{}"}}]},{"role":"assistant","tool_calls":"x"},{"role":"assistant","tool_calls":[5]}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"custom","function":{"name":"ls","arguments":"{}"},"custom":{"name":"patch","input":"x"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function"},{"id":"c2","function":"ls"},{"id":7,"function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
	`{"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c\u0031","type":"function","function":{"name":"read\tfile","arguments":"{\"path\":\"a\\nb\u00e9\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
}

func FuzzOpenAIEdge(f *testing.F) {
	for _, rec := range oaEdgeRecords {
		f.Add([]byte(rec), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, responses bool) {
		format := "openai-chat"
		if responses {
			format = "openai-responses"
		}
		checkEdgeRead(t, data, "log.jsonl", format)
	})
}
