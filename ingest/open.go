package ingest

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Options control reading.
type Options struct {
	// Format forces a format id instead of detecting one per file.
	Format string
	// BytesRead, when set, has the bytes read from each file added to it
	// as they are read (as stored: a gzip file's compressed bytes), for a
	// progress line that moves within a large file, not only between
	// files. Once ReadFile is done with a file, the file's whole size has
	// been added, read or not (a file of no known format is left after
	// its first lines). Readers of several files at once may share it.
	BytesRead *atomic.Int64
	// OnRead, when set, is called with the size of each chunk the line
	// reader takes in (as decoded: a gzip file's uncompressed bytes), on
	// the reading goroutine, before the chunk is parsed. The replay uses
	// it to bound what sessions not yet replayed hold across files
	// (the memory budget of analyze/pipeline); it may block.
	OnRead func(n int)
	// MaxRecord bounds the size of one record: a JSONL line, or a whole
	// JSON document (0: DefaultMaxRecord). A larger one is one problem
	// naming its line, and is not held: the reader skips to the next line
	// (a document is not read at all). The command line's --max-record.
	MaxRecord int64
	// Keep, when set, chooses the sessions passed on (--since, --session,
	// --tool); the others are read and dropped.
	Keep func(*Session) bool
	// ProblemsLeftOut, when set, is called with the number of problems
	// of a file whose every session Keep left out: they are not passed
	// on, as the file's sessions are not.
	ProblemsLeftOut func(n int)
	// Workers is how many cores may decode the lines of one large JSONL
	// file ahead of its reader (ahead.go); below 2, a file is read on
	// the calling goroutine alone. The report is the same either way.
	// OnRead is then called from the goroutine that reads the lines.
	Workers int
	// KeepText asks the readers that record a response's visible text
	// (Format.Text) to keep it in Request.Text; Session.TextKept then says
	// they did. Off, no text is held: only the guards that read the
	// model's text need it.
	KeepText bool
	// CutResult, when set, is called with each call as its result is
	// joined to it, by the readers that support it (resultcut.go: Claude
	// Code, in a plain file), with the session's format; it may keep the
	// head of the result alone (Call.CutResult). Other readers ignore it.
	CutResult func(format string, c *Call)

	// noLineReuse turns off the OpenAI log reader's cache of decoded
	// elements (lineReuse), which must not change what is read: tests read
	// each log with and without it and compare.
	noLineReuse bool
	// aheadAfter, when above 0, is the bytes of a file read before its
	// lines are decoded ahead (ahead.go) instead of the default: tests
	// compare reading ahead after one line with reading in turn.
	aheadAfter int

	// sizeHint is the file's size when ReadFile knows it: a whole-file
	// document's buffer is made that large at once instead of doubling
	// its way there (a tenth of the reading of hermes snapshots).
	sizeHint int64
}

// readHook calls on with the size of every read.
type readHook struct {
	r  io.Reader
	on func(n int)
}

func (h readHook) Read(p []byte) (int, error) {
	k, err := h.r.Read(p)
	if k > 0 {
		h.on(k)
	}
	return k, err
}

// countingReader adds what it reads to n, and to own when set.
type countingReader struct {
	r   io.Reader
	n   *atomic.Int64
	own *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	if c.own != nil {
		*c.own += int64(k)
	}
	return k, err
}

// DefaultMaxRecord is Options.MaxRecord when none is given: well above any
// record seen in real transcripts (tool results of tens of MiB), well below
// what makes a few copies of one line exhaust a machine.
const DefaultMaxRecord = 256 << 20

// maxRecord is opt.MaxRecord or its default, as an int.
func (opt Options) maxRecord() int {
	if opt.MaxRecord <= 0 {
		return DefaultMaxRecord
	}
	return int(min(opt.MaxRecord, int64(math.MaxInt32)*4))
}

// FormatSize writes a byte count for a message: "256 MiB", "1.5 GiB",
// "300 bytes".
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return strconv.FormatInt(n/u.size, 10) + " " + u.name
			}
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ReadFile reads one file ("-" for standard input) and sends its sessions
// and problems to out. It never panics on bad input: a parser that panics
// costs the rest of its file, reported as a problem, not the run.
func ReadFile(path string, opt Options, out *Sink) {
	out.File = path
	var r io.Reader
	if path == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			out.Problemf(0, "cannot open file: %v", errorText(err))
			return
		}
		defer f.Close()
		r = f
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			opt.sizeHint = st.Size()
		}
		if counter := opt.BytesRead; counter != nil {
			var read int64
			r, opt.BytesRead = countingReader{f, counter, &read}, nil
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				// What was not read counts as done too.
				defer func() { counter.Add(max(st.Size()-read, 0)) }()
			}
		}
		// A database is read by path, not as a stream (database.go).
		var magic [16]byte
		if k, _ := f.ReadAt(magic[:], 0); isSQLite(magic[:k]) {
			readDatabase(path, opt, out)
			return
		}
	}
	Read(r, path, opt, out)
}

// headReaders keeps the 64 KiB buffered readers of finished files for the
// next ones (see bufReaders).
var headReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// openMaybeGzip wraps r in a gzip reader when it starts with the gzip magic.
func openMaybeGzip(r *bufio.Reader) (io.Reader, bool, error) {
	magic, err := r.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, true, fmt.Errorf("not a readable gzip file: %v", err)
		}
		return zr, true, nil
	}
	return r, false, nil
}

func readErrorText(err error, gz bool) string {
	if gz && (err == io.ErrUnexpectedEOF || strings.Contains(err.Error(), "unexpected EOF")) {
		return "gzip data ends early (the file was cut short)"
	}
	return errorText(err)
}

func errorText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// stream is a file opened for reading: its lines, decompressed when the
// file is gzip, with the record limit set.
type stream struct {
	lr   *LineReader
	gz   bool
	path string // as given to Read
	name string // the base name, without .gz
	br   *bufio.Reader
}

// openStream opens r for reading: the bytes counted (Options.BytesRead,
// OnRead), an SQLite database refused (databases are read by path),
// gzip decompressed, and lines over the record limit reported and
// skipped. ok is false, the problem reported, when it cannot be read.
// The caller closes the stream when done with it and every line it gave.
func openStream(r io.Reader, name string, opt Options, out *Sink) (in *stream, ok bool) {
	// Two buffered readers stacked: br only sniffs the gzip magic (and
	// feeds the gzip reader), the line reader's own buffer holds the lines.
	if opt.BytesRead != nil {
		r = countingReader{r, opt.BytesRead, nil}
	}
	br := headReaders.Get().(*bufio.Reader)
	br.Reset(r)
	in = &stream{br: br, path: name}
	if head, _ := br.Peek(len(sqliteMagic)); isSQLite(head) {
		out.Problemf(0, "file is an SQLite database: loopgate reads databases by their path, not from standard input or a stream")
		in.close()
		return nil, false
	}
	rr, gz, err := openMaybeGzip(br)
	if err != nil {
		out.Problemf(0, "%v", err)
		in.close()
		return nil, false
	}
	in.gz = gz
	in.name = filepath.Base(name)
	if gz {
		in.name = strings.TrimSuffix(in.name, ".gz")
	}
	if opt.OnRead != nil {
		rr = readHook{rr, opt.OnRead}
	}
	in.lr = newPooledLineReader(rr)
	maxRecord := opt.maxRecord()
	in.lr.max = maxRecord
	in.lr.onOversize = func(n int, size int64) {
		out.Problemf(n, "record is %s, over the --max-record limit of %s: it is skipped", FormatSize(size), FormatSize(int64(maxRecord)))
	}
	return in, true
}

// close gives the stream's buffers back for the next file.
func (in *stream) close() {
	if in.lr != nil {
		in.lr.release()
	}
	in.br.Reset(nil)
	headReaders.Put(in.br)
}
