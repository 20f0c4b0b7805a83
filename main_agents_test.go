package main

// The new agents' formats are listed, and pi's own sessions replay
// under pi's own guard with the tool names pi writes.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatsListsAgentFormats(t *testing.T) {
	out, stderr, code := loopgate(t, "formats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, id := range []string{"hermes-state", "pi", "gemini-cli", "cline", "copilot-cli", "kimi-cli", "opencode", "opencode-storage", "gemini-stream-json", "cline-ui", "kimi-code", "aider", "converted-text", "qwen-code"} {
		if !strings.Contains(out, id) {
			t.Errorf("loopgate formats does not list %s", id)
		}
	}
}

// TestPiLoopguardOnPiSession: a pi session that runs `bash` 7 times and
// `read` 5 times with the same arguments in one prompt. pi-tools-loop-guard
// allows T calls per key (bash 5, read 3), steers call T+1 and blocks the
// rest (rules/presets/pi-loopguard.yaml): bash is steered at 6 and blocked
// at 7, read steered at 4 and blocked at 5.
func TestPiLoopguardOnPiSession(t *testing.T) {
	t.Parallel()
	out, stderr, code := loopgate(t, "replay", "--preset", "pi-loopguard", "--format", "json", "--tokenizer", "chars4",
		filepath.Join("fixtures", "ingest", "pi", "loop"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Sessions []struct {
			Format    string `json:"format"`
			Decisions []struct {
				Tool, Action string
				Count        int
			} `json:"decisions"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Sessions {
		if s.Format != "pi" {
			t.Errorf("session read as %q, want pi", s.Format)
		}
		for _, d := range s.Decisions {
			if d.Action != "allow" {
				got = append(got, fmt.Sprintf("%s %s %d", d.Tool, d.Action, d.Count))
			}
		}
	}
	want := "[bash steer 6 bash block 7 read steer 4 read block 5]"
	if fmt.Sprint(got) != want {
		t.Errorf("interventions %v, want %s", got, want)
	}
}
