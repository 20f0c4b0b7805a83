package live

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// FuzzHandle: any bytes on stdin, for any agent, are answered without a
// panic, and an answer that denies only ever comes for a well-formed call.
func FuzzHandle(f *testing.F) {
	f.Add("claude-code", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_use_id":"t"}`)
	f.Add("gemini", `{"hook_event_name":"AfterTool","session_id":"../x","tool_name":"read_file","tool_response":{"llmContent":[1,{"a":null}]}}`)
	f.Add("cline", `{"hookName":"PreToolUse","taskId":"t","preToolUse":{"toolName":"x","parameters":"\u0000"}}`)
	f.Add("cursor", `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","tool_name":"m","tool_input":"{\"a\":1}"}`)
	f.Add("hermes", `{"hook_event_name":"post_tool_call","session_id":"s","tool_name":"t","extra":{"result":{"x":1}}}`)
	f.Add("openhands", `not json`)
	r, err := rules.Preset("nanobot")
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, agent, input string) {
		p := Lookup(agent)
		if p == nil {
			p = Protocols["claude-code"]
		}
		cfg := Config{Protocol: p, Rules: r, StateDir: filepath.Join(dir, "state"), Log: filepath.Join(dir, "log.jsonl")}
		reply := Handle(cfg, []byte(input))
		if reply.Exit != 0 {
			t.Fatalf("exit %d", reply.Exit)
		}
		if strings.Contains(reply.Stderr, "internal error") {
			t.Fatalf("panic: %s", reply.Stderr)
		}
	})
}

// FuzzDecodeRecord: a state log line of any bytes is read or refused,
// never a panic, and a record read back encodes to a line that reads the
// same.
func FuzzDecodeRecord(f *testing.F) {
	f.Add("B\tid\t0\treq\tRead\t1\t{\"a\":1}")
	f.Add("A\tid\tff\tfb\tres\\n")
	f.Add("P")
	f.Add("O\tWrite\t1\t{\"file_path\":\"/w/a\"}")
	f.Fuzz(func(t *testing.T, line string) {
		r, err := decodeRecord(line)
		if err != nil {
			return
		}
		again, err := decodeRecord(strings.TrimSuffix(string(r.encode(nil)), "\n"))
		if err != nil || again != r {
			t.Fatalf("%q: %+v, then %+v %v", line, r, again, err)
		}
	})
}
