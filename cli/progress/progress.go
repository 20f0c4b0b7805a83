// Package progress draws the progress line of a run over files on standard
// error: files done, bytes read and throughput, on one line rewritten in
// place, only on a terminal and only for a run long enough to need it. It
// imports only the standard library, go-isatty and internal/periodic.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/loopgate/loopgate/internal/periodic"
)

// Line prints files done and throughput on standard error, on one
// line rewritten in place. It is shown only when standard error is a
// terminal (or --progress always), and only once a run has lasted
// progressDelay: a short run prints nothing at all, not even a line erased
// at once. The line is erased when the run ends.
//
// Update is called as each file is done. While Watch runs, the line also
// moves within files: the bytes read so far, from a counter the readers
// add to, and their share of the corpus; a single file of gigabytes is
// not a minute of silence.
type Line struct {
	enabled bool
	mu      sync.Mutex
	shown   bool // a line is on the screen
	start   time.Time
	last    time.Time
	now     func() time.Time
	w       io.Writer
	// done and total are the files done and in all; bytes is what the
	// files done hold; finished is set once done reaches total.
	done, total int
	bytes       int64
	finished    bool
	// live counts the bytes read so far, files in progress included, and
	// totalBytes is the corpus size (0: unknown), while Watch runs.
	live       *atomic.Int64
	totalBytes int64
}

const (
	progressDelay    = time.Second            // nothing before a run lasts this long
	progressInterval = 200 * time.Millisecond // at most one line per interval
)

// New is the progress line of a run that starts now, for --progress mode
// (auto, always or never), drawn on w with the clock now.
func New(mode string, w io.Writer, now func() time.Time) *Line {
	on := mode == "always" || (mode == "auto" && IsTerminal(w))
	return &Line{enabled: on, start: now(), now: now, w: w}
}

// Enabled reports whether the line is drawn at all.
func (p *Line) Enabled() bool { return p.enabled }

// IsTerminal reports whether w is a terminal: an *os.File on a TTY. Any
// other writer (a pipe, a file, a buffer) is not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Watch starts redrawing the line every progressInterval for a run over
// files, and returns the counter for the readers to add to
// (ingest.Options.BytesRead) and a function that stops the redrawing and
// erases the line. Disabled, it returns nil and a function that does
// nothing: the readers count nothing.
func (p *Line) Watch(files []string) (*atomic.Int64, func()) {
	if !p.enabled {
		return nil, func() {}
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil && f != "-" {
			continue // not read at all: a problem, no bytes
		}
		if err != nil || !st.Mode().IsRegular() {
			total = -1 // standard input or a pipe: the size is not known
			break
		}
		total += st.Size()
	}
	live := new(atomic.Int64)
	p.mu.Lock()
	p.live, p.totalBytes, p.total = live, max(total, 0), len(files)
	p.mu.Unlock()
	stopTicks := periodic.Every(progressInterval, func() bool { p.tick(); return true })
	return live, func() {
		stopTicks()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.finished = true
		p.erase()
	}
}

// Update notes that done of total files are done, holding bytes.
func (p *Line) Update(done, total int, bytes int64) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total, p.bytes = done, total, bytes
	if done >= total {
		p.finished = true
		p.erase()
		return
	}
	p.draw()
}

// Erasing returns w with the line erased before each write to it and not
// redrawn until the write is done: a report streamed to standard output
// (jsonl) on the terminal that shows the line would otherwise start its
// lines after it. The next tick draws the line again. Disabled, it
// returns w.
func (p *Line) Erasing(w io.Writer) io.Writer {
	if !p.enabled {
		return w
	}
	return erasingWriter{p, w}
}

// ErasingOnTerminal is Erasing when w is a terminal, where the line is
// drawn too; a file or a pipe is left as it is: erasing the line for
// writes that do not reach the screen would only make it flicker.
func (p *Line) ErasingOnTerminal(w io.Writer) io.Writer {
	if !IsTerminal(w) {
		return w
	}
	return p.Erasing(w)
}

type erasingWriter struct {
	p *Line
	w io.Writer
}

func (e erasingWriter) Write(b []byte) (int, error) {
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	e.p.erase()
	return e.w.Write(b)
}

// tick redraws the line with the bytes read so far.
func (p *Line) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.finished {
		p.draw()
	}
}

// erase removes the line, if one is shown (p.mu held).
func (p *Line) erase() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// draw writes the line, unless the run is too young or the last line too
// recent (p.mu held).
func (p *Line) draw() {
	now := p.now()
	if now.Sub(p.start) < progressDelay || (p.shown && now.Sub(p.last) < progressInterval) {
		return
	}
	bytes := p.bytes
	if p.live != nil {
		bytes = max(bytes, p.live.Load())
	}
	p.last, p.shown = now, true
	if bytes <= 0 {
		fmt.Fprintf(p.w, "\r%d/%d files ", p.done, p.total)
		return
	}
	mbs := float64(bytes) / 1e6 / now.Sub(p.start).Seconds()
	if p.totalBytes > 0 {
		share := min(100*float64(bytes)/float64(p.totalBytes), 100)
		fmt.Fprintf(p.w, "\r%d/%d files, %.1f of %.1f MB (%.0f%%), %.0f MB/s \033[K", p.done, p.total,
			float64(bytes)/1e6, float64(p.totalBytes)/1e6, share, mbs)
		return
	}
	fmt.Fprintf(p.w, "\r%d/%d files, %.1f MB, %.0f MB/s ", p.done, p.total, float64(bytes)/1e6, mbs)
}
