package ingest

import (
	"bufio"
	"bytes"
	"io"
	"sync"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// LineReader yields the non-blank lines of a reader with their 1-based line
// numbers. Unlike bufio.Scanner it has no line-length limit: a transcript
// line holding a 50 MiB tool result is an ordinary line.
type LineReader struct {
	r         *bufio.Reader
	n         int
	buf       []byte
	err       error
	truncated bool
	badUTF8   bool
	pending   []pendingLine
	pooled    bool // r and buf come from lineBuffers (release)

	// onBadUTF8, when set, is told the number of each line returned that
	// held invalid UTF-8, once the caller is done with that line: at the
	// next call to Next (or flushBadUTF8). Deferring the report lets
	// Sink.BadLine fold it into its own problem when the line turns out not
	// to be JSON at all (one bad spot, one problem). badPending is the line
	// waiting to be reported, 0 for none.
	onBadUTF8  func(n int)
	badPending int

	// max bounds the bytes of a line the reader holds (0: no bound). A
	// longer line is not returned: the reader reads on to its end without
	// keeping it, tells onOversize its number and size, and goes on with
	// the next line. Memory then follows max, not the longest line (a
	// gzip file of NUL bytes is one line of gigabytes). skipped counts the
	// lines dropped so.
	max        int
	onOversize func(n int, size int64)
	skipped    int

	// parts hold a long line's first blocks (holdPart) until its end is
	// read: growing one buffer to a line of hundreds of megabytes held the
	// old buffer and the new one at once at every step, and left the old
	// ones to the collector.
	parts [][]byte

	// scratch, when set, is where a decoder (eachRecord's decode) may
	// decode a line's long texts that live no longer than the line's
	// application: eachRecord resets it for each line it decodes in turn;
	// the lines decoded ahead get their batch's own (aheadBatch.scratch).
	// A Claude Code reader whose results are cut sets it (parseClaudeCode).
	scratch *jsonx.Scratch
}

type pendingLine struct {
	line      []byte
	n         int
	truncated bool
	badUTF8   bool
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, lineReaderBuffer)}
}

// lineReaderBuffer is the read buffer of a LineReader: lines up to this
// size are returned without a copy.
const lineReaderBuffer = 256 << 10

// lineBuffers keeps the buffers of finished files for the next ones: a
// corpus is mostly small files, and a fresh 256 KiB read buffer per file,
// and the buffer that joins a line longer than it, were a good part of all
// the bytes a replay allocated (docs/performance.md, "Line buffers reused").
var lineBuffers = sync.Pool{New: func() any {
	return &pooledBuffers{r: bufio.NewReaderSize(nil, lineReaderBuffer)}
}}

// pooledBuffers are a LineReader's buffers between two files.
type pooledBuffers struct {
	r    *bufio.Reader
	long []byte // LineReader.buf
}

// maxPooledLine bounds the long-line buffer kept for the next file: one
// huge line does not keep its memory for the rest of the run.
const maxPooledLine = 4 << 20

// newPooledLineReader is NewLineReader with buffers from lineBuffers; the
// caller calls release when done with the reader and every line it gave.
func newPooledLineReader(r io.Reader) *LineReader {
	pb := lineBuffers.Get().(*pooledBuffers)
	pb.r.Reset(r)
	return &LineReader{r: pb.r, buf: pb.long[:0], pooled: true}
}

// release gives a pooled reader's buffers back. The reader must not be
// used again.
func (lr *LineReader) release() {
	if !lr.pooled {
		return
	}
	lr.pooled = false
	lr.r.Reset(nil)
	pb := &pooledBuffers{r: lr.r}
	if cap(lr.buf) <= maxPooledLine {
		pb.long = lr.buf[:0]
	}
	lineBuffers.Put(pb)
	lr.r, lr.buf = nil, nil
}

// Next returns the next non-blank line (without its line ending) and its
// line number. The returned slice is valid until the next call. Invalid
// UTF-8 is replaced by U+FFFD; BadUTF8 reports that it happened.
func (lr *LineReader) Next() (line []byte, n int, ok bool) {
	if lr.badPending > 0 {
		lr.flushBadUTF8()
	}
	if len(lr.pending) > 0 {
		p := lr.pending[0]
		lr.pending = lr.pending[1:]
		lr.truncated, lr.badUTF8 = p.truncated, p.badUTF8
		if p.badUTF8 && lr.onBadUTF8 != nil {
			lr.badPending = p.n
		}
		return p.line, p.n, true
	}
	for lr.err == nil {
		lr.buf = lr.buf[:0]
		var chunk []byte
		var err error
		var oversize int64 // > 0: the line is over max and not kept
		trail := 0         // line-ending bytes (\r, \n) ending what was read of the line
		held := 0          // bytes of the line in lr.parts and lr.buf
		for {
			chunk, err = lr.r.ReadSlice('\n')
			if t := len(chunk) - len(trimLineEnd(chunk)); t == len(chunk) {
				trail += t // a \r\n split over two reads
			} else {
				trail = t
			}
			if lr.max > 0 && (oversize > 0 || held+len(chunk)-trail > lr.max) {
				oversize += int64(held + len(chunk))
				lr.buf, lr.parts, held = lr.buf[:0], nil, 0
				if err == bufio.ErrBufferFull {
					continue
				}
				break
			}
			if err == bufio.ErrBufferFull {
				lr.holdPart(chunk)
				held += len(chunk)
				continue
			}
			break
		}
		if oversize > 0 {
			if err != nil {
				lr.err = err
			}
			lr.n++
			lr.skipped++
			if cap(lr.buf) > maxPooledLine {
				lr.buf = nil // the prefix held is not kept for the next lines
			}
			if lr.onOversize != nil {
				lr.onOversize(lr.n, oversize-int64(trail))
			}
			continue
		}
		if held > 0 {
			chunk = lr.joinParts(chunk, held)
		}
		if err != nil {
			lr.err = err
			if len(chunk) == 0 {
				break
			}
		}
		lr.n++
		lr.truncated = err != nil // no newline at the end
		chunk = trimLineEnd(chunk)
		if len(bytes.TrimSpace(chunk)) == 0 {
			continue
		}
		lr.badUTF8 = !jsonx.ValidUTF8(chunk)
		if lr.badUTF8 {
			chunk = bytes.ToValidUTF8(chunk, []byte("\uFFFD"))
			if lr.onBadUTF8 != nil {
				lr.badPending = lr.n
			}
		}
		return chunk, lr.n, true
	}
	return nil, lr.n, false
}

// trimLineEnd is b without the \r and \n bytes that end it:
// bytes.TrimRight(b, "\r\n"), without the set of bytes that call builds
// for every line.
func trimLineEnd(b []byte) []byte {
	n := len(b)
	for n > 0 && (b[n-1] == '\n' || b[n-1] == '\r') {
		n--
	}
	return b[:n]
}

// Unread pushes a copy of a line back so that the next call to Next returns
// it again (detection reads the first line, then hands the reader on).
func (lr *LineReader) Unread(line []byte, n int) {
	lr.pending = append([]pendingLine{{append([]byte(nil), line...), n, lr.truncated, lr.badUTF8}}, lr.pending...)
}

// reportBadUTF8 makes the reader report each line it returns from now on
// that held invalid UTF-8 as a problem of out (see onBadUTF8).
func (lr *LineReader) reportBadUTF8(out *Sink) {
	lr.onBadUTF8 = func(n int) { out.Problemf(n, "%s", badUTF8Message) }
}

// badUTF8Message is the problem of a line (or document line) that held
// invalid UTF-8. The record is still read.
const badUTF8Message = "line holds invalid UTF-8; the bad bytes are replaced with U+FFFD and the record is read"

// flushBadUTF8 reports the line waiting to be reported, if any.
func (lr *LineReader) flushBadUTF8() {
	if n := lr.badPending; n > 0 {
		lr.badPending = 0
		lr.onBadUTF8(n)
	}
}

// takeBadUTF8 withdraws the pending report of line n and says whether
// there was one: the caller reports that line in a problem of its own.
func (lr *LineReader) takeBadUTF8(n int) bool {
	if lr != nil && lr.badPending == n && n > 0 {
		lr.badPending = 0
		return true
	}
	return false
}

// Truncated reports whether the last line returned had no line ending:
// the last line of a file, possibly cut short by a crash.
func (lr *LineReader) Truncated() bool { return lr.truncated }

// BadUTF8 reports whether the last line returned held invalid UTF-8.
func (lr *LineReader) BadUTF8() bool { return lr.badUTF8 }

// Err returns the read error that ended the lines, or nil at a clean end.
func (lr *LineReader) Err() error {
	if lr.err == io.EOF {
		return nil
	}
	return lr.err
}

// SetMax bounds the lines returned to max bytes (see LineReader.max): a
// longer line is not returned, and oversize is told its number and size.
func (lr *LineReader) SetMax(max int, oversize func(n int, size int64)) {
	lr.max, lr.onOversize = max, oversize
}

// Lines returns the number of lines read so far (blank ones included).
func (lr *LineReader) Lines() int { return lr.n }

// partBlock is the size of the blocks a long line is held in.
const partBlock = 4 << 20

// holdPart keeps chunk, a piece of a line not yet ended: in lr.buf while
// the line is short, then in blocks of partBlock (lr.parts), none of
// which is copied again before the line ends.
func (lr *LineReader) holdPart(chunk []byte) {
	for len(chunk) > 0 {
		if len(lr.buf) == cap(lr.buf) && cap(lr.buf) >= partBlock {
			lr.parts = append(lr.parts, lr.buf)
			lr.buf = make([]byte, 0, partBlock)
		}
		if cap(lr.buf) < partBlock {
			lr.buf = append(lr.buf, chunk...)
			return
		}
		n := min(len(chunk), cap(lr.buf)-len(lr.buf))
		lr.buf = append(lr.buf, chunk[:n]...)
		chunk = chunk[n:]
	}
}

// joinParts returns the line held (held bytes) followed by its last
// chunk, in one buffer of exactly its size when it was held in blocks.
func (lr *LineReader) joinParts(last []byte, held int) []byte {
	if len(lr.parts) == 0 {
		lr.buf = append(lr.buf, last...)
		return lr.buf
	}
	line := make([]byte, 0, held+len(last))
	for _, p := range lr.parts {
		line = append(line, p...)
	}
	line = append(append(line, lr.buf...), last...)
	lr.parts, lr.buf = nil, line
	return line
}
