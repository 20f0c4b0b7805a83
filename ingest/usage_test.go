package ingest

import (
	"math"
	"strings"
	"testing"
)

// TestUsageNumbers: each bad usage number (negative, a fraction or an
// exponent, too large for an int64) is one problem at its line naming the
// member, and that usage is not counted; good usage, near the int64
// maximum included, is read as written.
func TestUsageNumbers(t *testing.T) {
	chat := func(usage string) string {
		return `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"response":{"choices":[{"message":{"role":"assistant","content":"ok"}}],"usage":` + usage + `}}` + "\n"
	}
	for _, c := range []struct {
		name, usage, problem string
		input                int64
	}{
		{"plain", `{"prompt_tokens": 120, "completion_tokens": 7}`, "", 120},
		{"near the int64 maximum", `{"prompt_tokens": 9223372036854775807, "completion_tokens": 7}`, "", math.MaxInt64},
		{"negative", `{"prompt_tokens": -5, "completion_tokens": 7}`, "usage prompt_tokens is -5, a negative token count", 0},
		{"1e308", `{"prompt_tokens": 1e308, "completion_tokens": 7}`, "usage prompt_tokens is 1e308, not a whole number of tokens", 0},
		{"fraction", `{"prompt_tokens": 12, "completion_tokens": 7.5}`, "usage completion_tokens is 7.5, not a whole number", 0},
		{"40 digits", `{"prompt_tokens": 1234567890123456789012345678901234567890}`, "usage prompt_tokens is 12345678901234567890… (40 characters), too large for a token count", 0},
		{"nested", `{"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": -1}}`, "usage prompt_tokens_details.cached_tokens is -1", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := chat(c.usage)
			sessions, problems := readWith([]byte(text), "log.jsonl", Options{})
			if len(sessions) != 1 {
				t.Fatalf("%d sessions, problems %v", len(sessions), problems)
			}
			var usage *Usage
			for _, tr := range sessions[0].Turns {
				for _, r := range tr.Requests {
					if r.Usage != nil {
						usage = r.Usage
					}
				}
			}
			if c.problem == "" {
				if len(problems) != 0 || usage == nil || usage.Input != c.input {
					t.Errorf("problems %v, usage %+v; want input %d", problems, usage, c.input)
				}
				return
			}
			if len(problems) != 1 || problems[0].Line != 1 || !strings.Contains(problems[0].Message, c.problem) {
				t.Errorf("problems %+v, want one at line 1 saying %q", problems, c.problem)
			}
			if usage != nil {
				t.Errorf("the bad usage was counted: %+v", usage)
			}
		})
	}
}

func TestSaturatingAdd(t *testing.T) {
	for _, c := range [][3]int64{
		{1, 2, 3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 - 5, math.MaxInt64 - 5, math.MaxInt64},
		{math.MinInt64, -1, math.MinInt64},
		{math.MaxInt64, math.MinInt64, -1},
		{-5, 3, -2},
	} {
		if got := SaturatingAdd(c[0], c[1]); got != c[2] {
			t.Errorf("SaturatingAdd(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

// TestCodexNegativeUsage: a Codex token count written negative is one
// problem at its line and no usage; a good one beside it is read.
func TestCodexNegativeUsage(t *testing.T) {
	userEvent := cx("event_msg", `{"type":"user_message","message":"go"}`)
	call := cx("response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}`)
	output := cx("response_item", `{"type":"function_call_output","call_id":"c1","output":"ok"}`)
	lines := []string{userEvent, call, cxTokens(tok(100, 0, 10), tok(-5, 0, 10)), output}
	sessions, problems := readText(t, "rollout.jsonl", strings.Join(lines, "\n")+"\n")
	if len(sessions) != 1 || len(problems) != 1 || problems[0].Line != 3 || !strings.Contains(problems[0].Message, "negative count (input -5") {
		t.Fatalf("%d sessions, problems %+v", len(sessions), problems)
	}
	for _, tr := range sessions[0].Turns {
		for _, r := range tr.Requests {
			if r.Usage != nil {
				t.Errorf("the negative usage was counted: %+v", r.Usage)
			}
		}
	}
}
