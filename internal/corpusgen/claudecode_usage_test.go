package corpusgen_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

// TestClaudeCodeRecordsShareUsage: the records of one Claude Code message
// carry the same input and cache counts, and an output that never shrinks,
// as in real files (87 of 94 multi-record messages in the third-party
// samples repeat the whole usage object; in the others output grows).
func TestClaudeCodeRecordsShareUsage(t *testing.T) {
	dir, m := generate(t, corpusgen.Config{Seed: testSeed(4), TotalBytes: 1 << 20, MaxFileBytes: 256 << 10, MaxResultBytes: 16 << 10, Formats: []string{corpusgen.FormatClaudeCode}})
	type usage struct {
		Input       int `json:"input_tokens"`
		CacheCreate int `json:"cache_creation_input_tokens"`
		CacheRead   int `json:"cache_read_input_tokens"`
		Output      int `json:"output_tokens"`
	}
	multi, grew := 0, 0
	for _, f := range m.Files {
		fh, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		first := map[string]usage{}
		last := map[string]usage{}
		repeated := map[string]bool{}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var rec struct {
				Type      string `json:"type"`
				RequestID string `json:"requestId"`
				Message   struct {
					ID    string `json:"id"`
					Usage *usage `json:"usage"`
				} `json:"message"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Type != "assistant" || rec.Message.Usage == nil {
				continue
			}
			key, u := rec.Message.ID+":"+rec.RequestID, *rec.Message.Usage
			f0, seen := first[key]
			if !seen {
				first[key], last[key] = u, u
				continue
			}
			if !repeated[key] {
				repeated[key] = true
				multi++
			}
			if u.Input != f0.Input || u.CacheCreate != f0.CacheCreate || u.CacheRead != f0.CacheRead {
				t.Errorf("%s: message %s: records carry different input or cache counts: %+v then %+v", f.Path, key, f0, u)
			}
			if u.Output < last[key].Output {
				t.Errorf("%s: message %s: output shrinks from %d to %d", f.Path, key, last[key].Output, u.Output)
			}
			if u.Output > last[key].Output {
				grew++
			}
			last[key] = u
		}
		fh.Close()
		if err := sc.Err(); err != nil && !strings.Contains(err.Error(), "EOF") {
			t.Fatal(err)
		}
	}
	if multi == 0 {
		t.Fatal("no message written over several records: the test checks nothing")
	}
	t.Logf("%d multi-record messages checked, %d with a growing output", multi, grew)
}
