package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

func loopgatePreset(t *testing.T) *rules.Rules {
	t.Helper()
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestProgressCountsFilesAsTheyFinish: files are read largest first, so
// with a small first file a progress counted in the files' order stayed at
// 0 files until nearly the end. Progress must count each file as it is
// done, before the first file's sessions are emitted.
func TestProgressCountsFilesAsTheyFinish(t *testing.T) {
	dir := t.TempDir()
	line := func(i int) string {
		return fmt.Sprintf(`{"metadata":{"session_id":"s%d"},"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"done"}]}`, i) + "\n"
	}
	var files []string
	for f := range 6 {
		n := 1
		if f > 0 {
			n = 50 // the later files are larger, so they are read first
		}
		var b strings.Builder
		for i := range n {
			b.WriteString(line(f*100 + i))
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.jsonl", f))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	var mu sync.Mutex
	var events []string
	emitted := 0
	rep := Replay(files, Options{Rules: loopgatePreset(t), Jobs: 1,
		Progress: func(done, total int, bytes int64) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, fmt.Sprintf("progress %d/%d", done, total))
		},
		OnSession: func(*SessionResult) {
			mu.Lock()
			defer mu.Unlock()
			if emitted == 0 {
				events = append(events, "first session")
			}
			emitted++
		},
		FileEmitted: func() {},
	})
	defer rep.Close()
	want := []string{"progress 1/6", "progress 2/6", "progress 3/6", "progress 4/6", "progress 5/6", "progress 6/6", "first session"}
	if strings.Join(events, ", ") != strings.Join(want, ", ") {
		t.Errorf("events %v\nwant %v (every file counted as it finished, the small first file last)", events, want)
	}
}
