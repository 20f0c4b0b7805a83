package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopgate/loopgate/ingest"
)

// inOrderLog writes an OpenAI chat log of n one-line sessions (session k
// with 1 + k%3 calls) followed by junk lines, and returns its path.
func inOrderLog(t *testing.T, dir, name string, n, junk int) string {
	t.Helper()
	var b strings.Builder
	for k := range n {
		fmt.Fprintf(&b, `{"metadata":{"session_id":"%s-%d"},"messages":[{"role":"user","content":"go"}`, name, k)
		for c := range 1 + k%3 {
			fmt.Fprintf(&b, `,{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f%d\"}"}}]}`, c, k)
			fmt.Fprintf(&b, `,{"role":"tool","tool_call_id":"c%d","content":"text"}`, c)
		}
		b.WriteString("]}\n")
	}
	for range junk {
		b.WriteString("not json\n")
	}
	p := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// inOrderItem is what the test's convert keeps of a session.
func inOrderItem(s *ingest.Session) string {
	return fmt.Sprintf("%s %s %d", filepath.Base(s.File), s.ID, s.NumCalls())
}

// TestReadInOrder: whatever the number of jobs and however small the
// bounds, ReadInOrder hands on what one reader going through the files in
// order finds, sessions and problems alike, and never holds more than its
// bounds allow between converting a session and emitting it.
func TestReadInOrder(t *testing.T) {
	dir := t.TempDir()
	// The first file is the longest and is emitted slowly, so that the
	// workers of the later files run ahead of it.
	files := []string{
		inOrderLog(t, dir, "a", 40, 0),
		inOrderLog(t, dir, "b", 60, 0),
		inOrderLog(t, dir, "empty", 0, 0),
		inOrderLog(t, dir, "c", 60, 2),
		inOrderLog(t, dir, "junk", 3, 1500), // more problems than are listed
		filepath.Join(dir, "missing.jsonl"),
		inOrderLog(t, dir, "d", 1, 0),
		inOrderLog(t, dir, "e", 60, 0),
	}

	// What one reader finds, file by file.
	var want, wantProblems []string
	wantCount := 0
	for _, f := range files {
		var fp FileProblems
		ingest.ReadFile(f, ingest.Options{}, &ingest.Sink{
			OnSession: func(s *ingest.Session) { want = append(want, inOrderItem(s)) },
			OnProblem: fp.Add,
		})
		fp.Close(f)
		for _, p := range fp.List {
			wantProblems = append(wantProblems, fmt.Sprintf("%s:%d %s", filepath.Base(p.File), p.Line, p.Message))
		}
		wantCount += fp.Count()
	}
	if len(want) != 224 || wantCount != 1504 {
		t.Fatalf("the reference reading found %d sessions and %d problems, want 224 and 1504:\n%s", len(want), wantCount, strings.Join(wantProblems, "\n"))
	}

	tests := []struct {
		name                  string
		jobs                  int
		limit, ahead, window  int
		slowFirst, checkBound bool
	}{
		{"one job, defaults", 1, 1024, 1 << 16, 512, false, false},
		{"two jobs, defaults", 2, 1024, 1 << 16, 512, true, false},
		{"two jobs, small bounds", 2, 2, 5, 3, true, true},
		{"three jobs, small bounds", 3, 3, 4, 2, true, true},
		{"eight jobs, window of one", 8, 1, 1, 1, true, true},
		{"cores, small bounds", 0, 2, 6, 4, false, true},
		{"two jobs, a memory budget of one byte", 2, 1024, 1 << 16, 512, true, false},
		{"eight jobs, small bounds, a memory budget of one byte", 8, 2, 5, 3, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func(l, a, w int, g int64) {
				inOrderLimit, inOrderAhead, inOrderWindow, aheadSessionBytes = l, a, w, g
			}(inOrderLimit, inOrderAhead, inOrderWindow, aheadSessionBytes)
			inOrderLimit, inOrderAhead, inOrderWindow = tt.limit, tt.ahead, tt.window
			if strings.Contains(tt.name, "memory budget") {
				aheadSessionBytes = 1 // every read of a file but the oldest waits
			}
			var converted, emitted, most atomic.Int64
			var got, gotProblems []string
			var files0 int
			count := 0
			finished := make(chan struct{})
			go func() {
				defer close(finished)
				ReadInOrder(files, tt.jobs, ingest.Options{}, func(s *ingest.Session) string {
					// emitted only grows: a late read can only make
					// the difference smaller, never fail a good run.
					if d := converted.Add(1) - emitted.Load(); d > most.Load() {
						most.Store(d)
					}
					return inOrderItem(s)
				}, func(item string) {
					if tt.slowFirst && strings.HasPrefix(item, "a.jsonl") {
						time.Sleep(200 * time.Microsecond)
					}
					got = append(got, item)
					emitted.Add(1)
				}, func(i int, fp *FileProblems) {
					if i != files0 {
						t.Errorf("fileDone(%d) after %d files", i, files0)
					}
					files0++
					for _, p := range fp.List {
						gotProblems = append(gotProblems, fmt.Sprintf("%s:%d %s", filepath.Base(p.File), p.Line, p.Message))
					}
					count += fp.Count()
				})
			}()
			select {
			case <-finished:
			case <-time.After(30 * time.Second):
				t.Fatalf("ReadInOrder did not finish: %d converted, %d emitted", converted.Load(), emitted.Load())
			}
			if d := diffLines(want, got); d != "" {
				t.Errorf("sessions differ from one reader's:\n%s", d)
			}
			if d := diffLines(wantProblems, gotProblems); d != "" {
				t.Errorf("problems differ from one reader's:\n%s", d)
			}
			if count != wantCount || files0 != len(files) {
				t.Errorf("%d problems counted in %d files, want %d in %d", count, files0, wantCount, len(files))
			}
			if tt.checkBound {
				// Waiting for the caller: the file in turn's items and
				// the batch being emitted (inOrderLimit each), the
				// files ahead (below inOrderAhead before the last one
				// added, of at most 4 sessions and calls), and one
				// session being converted per worker.
				jobs := tt.jobs
				if jobs == 0 {
					jobs = 64
				}
				bound := int64(2*tt.limit + tt.ahead + 4 + jobs)
				if m := most.Load(); m > bound {
					t.Errorf("up to %d sessions were converted and not emitted, bound %d", m, bound)
				}
			}
		})
	}
}

// diffLines says where two lists of lines first differ ("" when equal).
func diffLines(want, got []string) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d lines, want %d", len(got), len(want))
	}
	return ""
}
