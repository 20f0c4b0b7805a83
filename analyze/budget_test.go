package analyze

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestReplayMemoryBudgetSameReport: with a budget of a few bytes, so that
// nearly every read of a file that is not the oldest waits, the replay of
// files of one long session each finishes, at any number of jobs, with the
// report it gives with the default budget.
func TestReplayMemoryBudgetSameReport(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 12 {
		var b strings.Builder
		b.WriteString(`{"_type": "metadata", "key": "cli:s` + strconv.Itoa(i) + `", "created_at": "2026-01-01T00:00:00", "updated_at": "2026-01-01T00:00:00", "metadata": {}, "last_consolidated": 0}` + "\n")
		for k := range 40 + 30*i {
			b.WriteString(`{"role": "user", "content": "look ` + strconv.Itoa(k) + `", "timestamp": "2026-01-01T00:00:01"}` + "\n")
			b.WriteString(`{"role": "assistant", "content": "", "tool_calls": [{"id": "c` + strconv.Itoa(k) + `", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"f` + strconv.Itoa(k%7) + `\"}"}}], "timestamp": "2026-01-01T00:00:02"}` + "\n")
			b.WriteString(`{"role": "tool", "tool_call_id": "c` + strconv.Itoa(k) + `", "name": "read_file", "content": "` + strings.Repeat("text ", 50) + `", "timestamp": "2026-01-01T00:00:03"}` + "\n")
		}
		p := filepath.Join(dir, "s"+strconv.Itoa(i)+".jsonl")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	replay := func(jobs int) string {
		rep := Replay(files, Options{Rules: r, Tokens: counter, Jobs: jobs, Ingest: ingest.Options{}})
		defer rep.Close()
		if rep.Summary.Sessions != len(files) || rep.Summary.Problems != 0 || rep.Summary.Redundant == 0 {
			t.Fatalf("jobs %d: %d sessions, %d problems, %d redundant calls", jobs, rep.Summary.Sessions, rep.Summary.Problems, rep.Summary.Redundant)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := replay(2)
	defer func(b int64) { aheadSessionBytes = b }(aheadSessionBytes)
	aheadSessionBytes = 8
	for _, jobs := range []int{1, 2, 4} {
		got := make(chan string, 1)
		go func() { got <- replay(jobs) }()
		var rep string
		select {
		case rep = <-got:
		case <-time.After(30 * time.Second):
			t.Fatalf("jobs %d: the replay did not finish with a budget of 8 bytes", jobs)
		}
		if rep != want {
			t.Errorf("jobs %d: the report with a budget of 8 bytes differs", jobs)
		}
	}
}
