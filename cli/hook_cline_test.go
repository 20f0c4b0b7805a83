package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/internal/decisionlog"
)

// TestHookReadsClineOutcomes: the hook command hands ingest's reading of
// the Cline CLI's per-item outcomes to the live hook, so a failed command
// of run_commands is logged as the failure replay reads, with the item's
// error as its result, not the outcomes' JSON.
func TestHookReadsClineOutcomes(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "decisions.jsonl")
	events := []string{
		`{"hookName":"tool_call","taskId":"s","tool_call":{"id":"c1","name":"run_commands","input":{"commands":["cat m"]}},"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"cat m\"]"}}}`,
		`{"hookName":"tool_result","taskId":"s","tool_result":{"id":"c1","name":"run_commands","input":{"commands":["cat m"]}},"postToolUse":{"toolName":"run_commands","result":"[{\"query\":\"cat m\",\"result\":\"\",\"error\":\"cat: m: No such file\",\"success\":false}]","success":true}}`,
	}
	stdin := os.Stdin
	defer func() { os.Stdin = stdin }()
	for i, ev := range events {
		in := filepath.Join(dir, "event.json")
		if err := os.WriteFile(in, []byte(ev), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		os.Stdin = f
		var out, errOut bytes.Buffer
		code := run([]string{"loopgate", "hook", "--agent", "cline", "--preset", "loopgate", "--state-dir", dir, "--log", logFile}, &out, &errOut)
		f.Close()
		if code != 0 {
			t.Fatalf("event %d: exit %d: %s", i, code, errOut.String())
		}
	}
	f, err := os.Open(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r, err := decisionlog.Decode(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if r.Event != "result" {
			continue
		}
		found = true
		if !r.IsError || r.Result == nil || *r.Result != "cat: m: No such file" {
			res := "<nil>"
			if r.Result != nil {
				res = *r.Result
			}
			t.Errorf("the result is logged as %q, error %v; want the item's error, a failure", res, r.IsError)
		}
	}
	if !found {
		t.Error("no result line in the decision log")
	}
}
