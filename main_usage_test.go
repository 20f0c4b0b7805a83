package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestUsageTotalsSaturate: usage near the int64 maximum in two sessions
// makes totals that stop at the maximum instead of wrapping negative, and a
// negative or non-integer count is a problem, not a silent zero.
func TestUsageTotalsSaturate(t *testing.T) {
	line := func(id, usage string) string {
		return `{"id":"` + id + `","model":"gpt","messages":[{"role":"user","content":"hi ` + id + `"}],"response":{"choices":[{"message":{"role":"assistant","content":"ok"}}],"usage":` + usage + `}}`
	}
	file := filepath.Join(t.TempDir(), "usage.jsonl")
	text := strings.Join([]string{
		line("a", `{"prompt_tokens": 9223372036854775000, "completion_tokens": 9223372036854775000}`),
		line("b", `{"prompt_tokens": 9223372036854775000, "completion_tokens": 9223372036854775000}`),
		line("c", `{"prompt_tokens": -40, "completion_tokens": 1}`),
		line("d", `{"prompt_tokens": 1e308, "completion_tokens": 1}`),
	}, "\n") + "\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := loopgate(t, "replay", "--format", "json", "--tokenizer", "chars4", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Tokens struct {
			In  int64 `json:"recorded_input_tokens"`
			Out int64 `json:"recorded_output_tokens"`
		} `json:"tokens"`
		Problems []struct {
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tokens.In != math.MaxInt64 || rep.Tokens.Out != math.MaxInt64 {
		t.Errorf("totals %d in, %d out; want both saturated at %d", rep.Tokens.In, rep.Tokens.Out, int64(math.MaxInt64))
	}
	if len(rep.Problems) != 2 || rep.Problems[0].Line != 3 || rep.Problems[1].Line != 4 ||
		!strings.Contains(rep.Problems[0].Message, "negative") || !strings.Contains(rep.Problems[1].Message, "not a whole number") {
		t.Errorf("problems %+v, want the negative and the 1e308 counts", rep.Problems)
	}
}

// TestColorModeChecked: --color takes only the modes report.ColorEnabled
// knows; anything else is a usage error, for every command that colors.
func TestColorModeChecked(t *testing.T) {
	for _, args := range [][]string{
		{"replay", "--color", "sometimes", "fixtures/replay"},
		{"compare", "--color", "sometimes", "fixtures/replay"},
		{"inspect", "--color", "yes", "fixtures/replay"},
	} {
		_, stderr, code := loopgate(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "--color must be auto, always or never, not "+strconv.Quote(args[2])) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the modes", args, code, stderr)
		}
	}
	for _, mode := range []string{"auto", "always", "never"} {
		if _, stderr, code := loopgate(t, "replay", "--color", mode, "--format", "json", "fixtures/replay"); code != exitOK {
			t.Errorf("--color %s: exit %d, %q", mode, code, stderr)
		}
	}
}
