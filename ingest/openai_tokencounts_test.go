package ingest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenCounts: a converted export's meta.token_counts gives each model
// message the usage of the response written at its time. The fixture holds
// a response split over two lines (same input and cache, growing output:
// one response, its last line counted), an event repeating the running
// total (counted once), Unix milliseconds, Anthropic's split of cached and
// input (the cache added to the input), and an event dated before every
// message, which is reported, not counted.
func TestTokenCounts(t *testing.T) {
	sessions, problems := readAll(t, filepath.Join("..", "fixtures", "ingest", "openai", "chat-converted-token-counts.json"), Options{})
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	type use struct{ in, out, cached int64 }
	var got []use
	for _, tr := range sessions[0].Turns {
		for _, r := range tr.Requests {
			if r.Usage != nil {
				got = append(got, use{r.Usage.Input, r.Usage.Output, r.Usage.CacheRead})
			} else {
				got = append(got, use{-1, -1, -1})
			}
		}
	}
	want := []use{{-1, -1, -1}, {1003, 50, 1000}, {1300, 10, 1100}}
	if len(got) != len(want) {
		t.Fatalf("requests' usage %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: usage %v, want %v", i, got[i], want[i])
		}
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "the usage of 1 responses is dated before every model message") {
		t.Errorf("problems %v, want the one undated response", problems)
	}
}
