package live

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/decisionlog"
	"github.com/loopgate/loopgate/rules"
)

// finalActions is each main call's last action in the decision log (the
// result's line where there is one), in call order.
func finalActions(t *testing.T, log string) []string {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l, err := decisionlog.Decode(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if (l.Event == "call" || l.Event == "result") && l.Call > 0 {
			for len(out) < l.Call {
				out = append(out, "")
			}
			out[l.Call-1] = l.Action
		}
	}
	return out
}

// geminiShell is a Gemini CLI BeforeTool or AfterTool event of
// run_shell_command (AfterTool with its llmContent).
func geminiShell(name, output string) []byte {
	ev := `{"hook_event_name":"` + name + `","session_id":"g1","cwd":"/","tool_name":"run_shell_command","tool_input":{"command":"echo x"}`
	if name == "AfterTool" {
		ev += `,"tool_response":{"llmContent":"` + strings.ReplaceAll(output, "\n", `\n`) + `","returnDisplay":"","error":null}`
	}
	return []byte(ev + "}")
}

// A reading as the readers' own, for the test: a trailing process line is
// envelope, an "Exit Code: N" line not 0 a failure.
var testReading = ResultReading{
	Envelope: func(format string) func(string) (string, string) {
		if format != "gemini-cli" {
			return nil
		}
		return func(r string) (string, string) {
			if i := strings.LastIndex(r, "\nProcess Group PGID: "); i >= 0 {
				return r[:i], r[i+1:]
			}
			return r, ""
		}
	},
	Failed: func(format, tool, result string) bool {
		return format == "gemini-cli" && tool == "run_shell_command" && strings.Contains(result, "\nExit Code: 1")
	},
}

// TestResultReading: the hook reads a result as replay's reader does: the
// envelope the format declares is left out when the rules strip it, and a
// failure the text reports is a failure (Gemini CLI 0.61.0's shell results
// end with the run's process group id and report a failed command as a
// success with its exit code).
func TestResultReading(t *testing.T) {
	// loopgate's rules with no_progress instead of dedup, shell commands
	// blocked only once two runs returned the same result: the results
	// are compared.
	twice, err := rules.Parse([]byte("extends: loopgate\nname: loopgate-twice\ndetectors:\n  dedup:\n    enabled: false\n  no_progress:\n    block_at: 1\ntools:\n  class:shell:\n    no_progress:\n      block_at: 2\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	pgids := []string{"Output: x\nProcess Group PGID: 11", "Output: x\nProcess Group PGID: 12", "Output: x\nProcess Group PGID: 13"}
	failing := []string{"Output: no such file\nExit Code: 1\nProcess Group PGID: 11", "Output: no such file\nExit Code: 1\nProcess Group PGID: 12"}
	cases := []struct {
		name    string
		reading ResultReading
		preset  string // "": the rules above
		outputs []string
		want    string // the last call's final action
	}{
		{"same output, another process id: the third is blocked", testReading, "", pgids, "block"},
		{"without the reading the process id makes each result new", ResultReading{}, "", pgids, "allow"},
		{"hermes keeps the envelope, as hermes-agent compares", testReading, "hermes", pgids, "allow"},
		{"a non-zero exit code is a failure: the second is steered", testReading, "loopgate", failing, "steer"},
		{"without the reading a failed command is a success: answered as unchanged", ResultReading{}, "loopgate", failing, "dedup"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "gemini-cli", "loopgate")
			if tc.preset == "" {
				cfg.Rules, cfg.RulesName = twice, "loopgate-twice"
			} else {
				cfg = testConfig(t, "gemini-cli", tc.preset)
			}
			cfg.Results = tc.reading
			events := [][]byte{[]byte(`{"hook_event_name":"BeforeAgent","session_id":"g1","cwd":"/","prompt":"go"}`)}
			for _, out := range tc.outputs {
				events = append(events, geminiShell("BeforeTool", ""), geminiShell("AfterTool", out))
			}
			for _, ev := range events {
				if r := Handle(cfg, ev); r.Stderr != "" {
					t.Fatal(r.Stderr)
				}
			}
			got := finalActions(t, cfg.Log)
			if len(got) != len(tc.outputs) || got[len(got)-1] != tc.want {
				t.Errorf("actions %v, want the last %q", got, tc.want)
			}
		})
	}
}

// TestQwenPromptPerRequest: Qwen Code 0.24.4 fires UserPromptSubmit before
// every model request, a tool-result continuation's with a blank prompt:
// that is no new turn, so a repeated call is answered from the earlier
// result (loopgate's dedup); a prompt with text is one, and clears the
// read of the file it names (scope.reset: mentioned).
func TestQwenPromptPerRequest(t *testing.T) {
	shell := func(name, id string) []byte {
		ev := `{"hook_event_name":"` + name + `","session_id":"q1","cwd":"/","tool_name":"run_shell_command","tool_input":{"command":"cat x.txt"},"tool_use_id":"` + id + `"`
		if name == "PostToolUse" {
			ev += `,"tool_response":{"llmContent":"x","returnDisplay":"x"}`
		}
		return []byte(ev + "}")
	}
	prompt := func(text string) []byte {
		return []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"q1","cwd":"/","prompt":"` + text + `","prompt_id":"p1"}`)
	}
	for _, tc := range []struct {
		name, between, want string
	}{
		{"a blank prompt between the calls (a tool-result request)", "", "dedup"},
		{"a prompt with text between the calls (the user's)", "I changed x.txt", "allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "qwen-code", "loopgate")
			for _, ev := range [][]byte{prompt("go"), shell("PreToolUse", "c1"), shell("PostToolUse", "c1"), prompt(tc.between), shell("PreToolUse", "c2")} {
				if r := Handle(cfg, ev); r.Stderr != "" {
					t.Fatal(r.Stderr)
				}
			}
			got := finalActions(t, cfg.Log)
			if len(got) < 2 || got[1] != tc.want {
				t.Errorf("actions %v, want the second %q", got, tc.want)
			}
		})
	}
}
