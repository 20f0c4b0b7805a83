package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestProgressWithinFiles: while watch runs, the line gives the bytes the
// readers have counted and their share of the corpus, before any file is
// done; stopping erases the line and nothing is drawn after it. Without a
// terminal nothing is counted at all.
func TestProgressWithinFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, make([]byte, 2_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	// The clock is read by the watcher's goroutine too.
	var clock atomic.Int64
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"a file of known size", []string{big}, "\r0/1 files, 0.5 of 2.0 MB (25%), 0 MB/s \x1b[K"},
		{"a missing file adds nothing", []string{big, filepath.Join(dir, "missing.jsonl")}, "\r0/2 files, 0.5 of 2.0 MB (25%), 0 MB/s \x1b[K"},
		{"standard input: no total", []string{big, "-"}, "\r0/2 files, 0.5 MB, 0 MB/s "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf lockedBuffer
			clock.Store(0)
			p := New("always", &buf, now)
			read, stop := p.Watch(tt.files)
			if read == nil {
				t.Fatal("watch gave no counter")
			}
			// Counted before the clock passes progressDelay: the watcher
			// may draw first, and must draw the same line.
			read.Add(500_000)
			clock.Store(int64(2 * time.Hour))
			p.tick()
			if got := buf.String(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("line = %q, want %q", got, tt.want)
			}
			stop()
			if got := buf.String(); !strings.HasSuffix(got, "\r\x1b[K") {
				t.Errorf("the line was not erased at the end: %q", got)
			}
			n := len(buf.String())
			clock.Store(int64(3 * time.Hour))
			p.tick()
			if len(buf.String()) != n {
				t.Errorf("a line was drawn after the end: %q", buf.String()[n:])
			}
		})
	}
	var buf bytes.Buffer
	if read, stop := New("auto", &buf, now).Watch([]string{big}); read != nil {
		stop()
		t.Error("watch counts bytes with progress off")
	}
}

// lockedBuffer is a bytes.Buffer safe for the watcher's goroutine and the
// test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProgressErasedForOutput: what replay streams to standard output
// (jsonl) on the terminal that shows the progress line starts on a line of
// its own: the line is erased before each write, and drawn again after.
func TestProgressErasedForOutput(t *testing.T) {
	var screen bytes.Buffer // standard output and error on one terminal
	clock := time.Unix(0, 0)
	p := New("always", &screen, func() time.Time { return clock })
	out := p.Erasing(&screen)
	clock = clock.Add(2 * time.Second)
	p.Update(1, 3, 1<<20)
	line := screen.String()
	if !strings.HasPrefix(line, "\r1/3 files") {
		t.Fatalf("no progress line drawn: %q", line)
	}
	fmt.Fprint(out, "{\"session\":1}\n")
	fmt.Fprint(out, "{\"session\":2}\n") // no line shown: nothing to erase
	if got, want := screen.String(), line+"\r\x1b[K{\"session\":1}\n{\"session\":2}\n"; got != want {
		t.Errorf("screen = %q, want %q", got, want)
	}
	clock = clock.Add(time.Second)
	p.tick()
	if got := screen.String(); !strings.HasSuffix(got, "}\n\r1/3 files, 1.0 MB, 0 MB/s ") {
		t.Errorf("the line was not drawn again after the output: %q", got)
	}
	// Standard output that is not a terminal (a file, a pipe, here a
	// buffer) is left as it is: erasing for it would make the line flicker.
	if w := p.ErasingOnTerminal(&screen); w != io.Writer(&screen) {
		t.Errorf("output that is not a terminal was wrapped in a %T", w)
	}
	// Off, standard output is left as it is.
	var plain bytes.Buffer
	if w := New("never", &plain, time.Now).Erasing(&plain); w != io.Writer(&plain) {
		t.Errorf("progress off wrapped the output in a %T", w)
	}
}

// TestProgress: the progress line is for a terminal, and only for a run
// long enough to need it.
func TestProgress(t *testing.T) {
	// Standard error that is not a terminal (a buffer, a file) gets nothing
	// under auto, however long the run.
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []io.Writer{&bytes.Buffer{}, f} {
		clock := time.Unix(0, 0)
		p := New("auto", w, func() time.Time { return clock })
		for i := 1; i <= 10; i++ {
			clock = clock.Add(time.Second)
			p.Update(i, 10, int64(i)<<20)
		}
		if p.enabled {
			t.Errorf("progress enabled on a %T", w)
		}
	}
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Errorf("progress wrote %d bytes to a file", st.Size())
	}
	// Forced on: a short run (under a second) prints nothing at all, not
	// even a line erased at once.
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := New("always", &buf, func() time.Time { return clock })
	for i := 1; i <= 3; i++ {
		clock = clock.Add(100 * time.Millisecond)
		p.Update(i, 3, 1<<20)
	}
	if buf.Len() != 0 {
		t.Errorf("a 0.3 s run printed progress: %q", buf.String())
	}
	// A long run: a line after the first second, at most one per 200 ms,
	// and the line erased at the end.
	buf.Reset()
	clock = time.Unix(0, 0)
	p = New("always", &buf, func() time.Time { return clock })
	for i := 1; i <= 30; i++ {
		clock = clock.Add(100 * time.Millisecond)
		p.Update(i, 30, int64(i)*1e6)
	}
	got := buf.String()
	if strings.Count(got, "\r") < 5 || strings.Count(got, "files") > 11 || !strings.HasSuffix(got, "\r\x1b[K") ||
		!strings.HasPrefix(got, "\r10/30 files") {
		t.Errorf("long run progress = %q", got)
	}
}
