package analyze

import (
	"strings"
	"testing"

	"github.com/loopgate/loopgate/ingest"
)

// TestCalibrate: a session whose recorded prompts grow by exactly the
// results in between, at 4 bytes per token, calibrates to 4.0; too little
// evidence, a compaction, or an implausible ratio leave the tokenizer in
// charge.
func TestCalibrate(t *testing.T) {
	result := strings.Repeat("x", 400) // 400 bytes = 100 tokens at 4 bytes/token
	req := func(input, output int64, results int) ingest.Request {
		r := ingest.Request{Usage: &ingest.Usage{Input: input, Output: output}}
		for i := 0; i < results; i++ {
			r.Calls = append(r.Calls, ingest.Call{Tool: "read_file", Result: result, HasResult: true})
		}
		return r
	}
	// Prompt k+1 = prompt k + output k (10) + 100 tokens per result.
	grow := []ingest.Request{req(1000, 10, 1), req(1110, 10, 1), req(1220, 10, 1), req(1330, 10, 0)}
	cases := []struct {
		name  string
		turns []ingest.Turn
		want  float64
	}{
		{"exact growth", []ingest.Turn{{Requests: grow}}, 4.0},
		{"too little evidence", []ingest.Turn{{Requests: grow[:2]}}, 0},
		// Without the compaction, 1110 -> 1220 would be a second pair and
		// reach the evidence threshold; across a compaction it is no pair.
		{"a compaction cuts the pairs", []ingest.Turn{{Requests: grow[:2]}, {CompactedBefore: true, Requests: []ingest.Request{req(1220, 10, 0)}}}, 0},
		{"the same without a compaction", []ingest.Turn{{Requests: grow[:2]}, {Requests: []ingest.Request{req(1220, 10, 0)}}}, 4.0},
		{"no usage", []ingest.Turn{{Requests: []ingest.Request{{Calls: grow[0].Calls}, {Calls: grow[1].Calls}}}}, 0},
		// Prompts growing by 1 token per 400 bytes: not a tokenizer.
		{"implausible ratio", []ingest.Turn{{Requests: []ingest.Request{req(1000, 0, 3), req(1003, 0, 3), req(1006, 0, 3), req(1009, 0, 0)}}}, 0},
	}
	for _, tc := range cases {
		if got := calibrate(&ingest.Session{Turns: tc.turns}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// The calibrated ratio is what the session's savings use.
	st := sessionTokens{bytesPerToken: 4}
	if n := st.count(result); n != 100 {
		t.Errorf("400 bytes at 4 bytes/token = %d tokens, want 100", n)
	}
}

// calibrate returns the session's bytes per token from its recorded usage,
// or 0 when the usage does not allow it.
func calibrate(s *ingest.Session) float64 {
	ratio, _ := calibration(s)
	return ratio
}
