package live

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// TestDedupAnswer: under the loopgate preset a repeated Read is denied
// with a reason that answers it: a pointer to the earlier result while it
// is close in the model's context, else the earlier result itself, which
// the hook kept in the session's state between its processes.
func TestDedupAnswer(t *testing.T) {
	result := strings.Repeat("the file's text ", 8) // 128 bytes
	cases := []struct {
		name string
		// pointerWithin replaces the preset's pointer_within ("": the
		// preset's own).
		pointerWithin string
		want          string
	}{
		{"close: a pointer", "", "its result is above in your context"},
		{"far: the earlier result", "5", "Its result, unchanged:\n" + result},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "claude-code", "loopgate")
			defer func() {
				// The log kept the result's text: it is within the
				// preset's max_result_bytes.
				if b, err := os.ReadFile(logOf(t, cfg)); err != nil || !strings.Contains(string(b), "the file's text") {
					t.Errorf("the session's log lacks the result's text (%v)", err)
				}
			}()
			if tc.pointerWithin != "" {
				y, err := cfg.Rules.YAML()
				if err != nil {
					t.Fatal(err)
				}
				text := strings.Replace(string(y), "pointer_within: 20000", "pointer_within: "+tc.pointerWithin, 1)
				if text == string(y) {
					t.Fatal("the preset has no pointer_within: 20000")
				}
				if cfg.Rules, err = rules.Parse([]byte(text), "loopgate-far.yaml"); err != nil {
					t.Fatal(err)
				}
			}
			if pre := Handle(cfg, preRead("s1", "t1", "/a")); len(pre.Stdout) != 0 {
				t.Fatalf("first read: want no answer, got %s", pre.Stdout)
			}
			Handle(cfg, postRead("s1", "t1", "/a", result))
			// Another call's result between: 128 bytes, 32 tokens.
			Handle(cfg, claudeEvent("PreToolUse", "s1", `,"tool_name":"Grep","tool_input":{"pattern":"x"},"tool_use_id":"g1"`))
			Handle(cfg, claudeEvent("PostToolUse", "s1", `,"tool_name":"Grep","tool_input":{"pattern":"x"},"tool_use_id":"g1","tool_response":"`+result+`"`))
			pre := Handle(cfg, preRead("s1", "t2", "/a"))
			var out struct {
				HSO struct {
					Decision string `json:"permissionDecision"`
					Reason   string `json:"permissionDecisionReason"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(pre.Stdout, &out); err != nil {
				t.Fatalf("second read: %v: %q", err, pre.Stdout)
			}
			if out.HSO.Decision != "deny" || !strings.Contains(out.HSO.Reason, tc.want) {
				t.Errorf("second read: got %s, want a deny whose reason has %q", pre.Stdout, tc.want)
			}
			// A write to the file between: the read runs.
			Handle(cfg, claudeEvent("PreToolUse", "s1", `,"tool_name":"Write","tool_input":{"file_path":"/a","content":"x"},"tool_use_id":"t3"`))
			Handle(cfg, claudeEvent("PostToolUse", "s1", `,"tool_name":"Write","tool_input":{"file_path":"/a","content":"x"},"tool_use_id":"t3","tool_response":"ok"`))
			if pre := Handle(cfg, preRead("s1", "t4", "/a")); len(pre.Stdout) != 0 {
				t.Errorf("read after a write to it: want no answer, got %s", pre.Stdout)
			}
		})
	}
}

// TestDedupLongResult: a result longer than the preset's max_result_bytes
// is kept in the hook's log as its length only, pointed at while it is
// close, and run again once it is far (it cannot be repeated).
func TestDedupLongResult(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 4097) // 65,552 bytes: over 64 KiB
	cfg := testConfig(t, "claude-code", "loopgate")
	Handle(cfg, preRead("s1", "t1", "/a"))
	Handle(cfg, postRead("s1", "t1", "/a", long))
	pre := Handle(cfg, preRead("s1", "t2", "/a"))
	if !strings.Contains(string(pre.Stdout), "its result is above in your context") {
		t.Errorf("a close repeat: want the pointer, got %s", pre.Stdout)
	}
	b, err := os.ReadFile(logOf(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "0123456789abcdef") || !strings.Contains(string(b), "c65552") {
		t.Errorf("the log should keep the long result's length, not its text:\n%.400s", b)
	}
	// Two more long results between: 32,776 tokens, past pointer_within.
	for _, id := range []string{"g1", "g2"} {
		Handle(cfg, claudeEvent("PreToolUse", "s1", `,"tool_name":"Grep","tool_input":{"pattern":"`+id+`"},"tool_use_id":"`+id+`"`))
		Handle(cfg, claudeEvent("PostToolUse", "s1", `,"tool_name":"Grep","tool_input":{"pattern":"`+id+`"},"tool_use_id":"`+id+`","tool_response":"`+long+`"`))
	}
	if pre := Handle(cfg, preRead("s1", "t3", "/a")); len(pre.Stdout) != 0 {
		t.Errorf("a far repeat of a result not kept: want it run, got %.300s", pre.Stdout)
	}
}

// logOf is the event log of session s1's main scope.
func logOf(t *testing.T, cfg Config) string {
	t.Helper()
	return filesOf(cfg.StateDir, "s1").log("main")
}

// TestDedupAnswersMissingFile: under the loopgate preset the hook keeps a
// Read that failed because the file does not exist (Claude Code's
// PostToolUseFailure carries the error) and answers the same Read from it,
// as a replay does; a failure of another kind, or a write to the path in
// between, lets the Read run.
func TestDedupAnswersMissingFile(t *testing.T) {
	write := `,"tool_name":"Write","tool_input":{"file_path":"/a","content":"x"},"tool_use_id":"w1"`
	cases := []struct {
		name    string
		err     string
		between bool // a Write to the path between the two Reads
		deny    bool
	}{
		{"missing, nothing between: answered", "File does not exist.", false, true},
		{"missing, a write to it between: runs", "File does not exist.", true, false},
		{"another failure: runs", "EACCES: permission denied, open '/a'", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "claude-code", "loopgate")
			read := `,"tool_name":"Read","tool_input":{"file_path":"/a"},"tool_use_id":"t1"`
			if pre := Handle(cfg, claudeEvent("PreToolUse", "s1", read)); len(pre.Stdout) != 0 {
				t.Fatalf("first read: want no answer, got %s", pre.Stdout)
			}
			Handle(cfg, claudeEvent("PostToolUseFailure", "s1", read+`,"error":"`+tc.err+`"`))
			if tc.between {
				Handle(cfg, claudeEvent("PreToolUse", "s1", write))
				Handle(cfg, claudeEvent("PostToolUse", "s1", write+`,"tool_response":"ok"`))
			}
			pre := Handle(cfg, preRead("s1", "t2", "/a"))
			denied := strings.Contains(string(pre.Stdout), `"permissionDecision":"deny"`)
			if denied != tc.deny {
				t.Fatalf("second read: got %s, want deny %v", pre.Stdout, tc.deny)
			}
			if tc.deny && !strings.Contains(string(pre.Stdout), "nothing has changed since") {
				t.Errorf("second read: the answer is not the dedup's: %s", pre.Stdout)
			}
		})
	}
}
