package ingest

import (
	"sync"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Decoding the lines of a large JSONL file on several cores.
//
// Why: a Claude Code file is one session, and a corpus of them is a few
// files of tens of megabytes among many small ones. Read line by line on
// one goroutine, such a file keeps one core busy while the others wait for
// it. Decoding a line into its record is about half of a reader's work and
// needs nothing of the lines before it; what the reader then does with the
// record (scopes, requests, joining results to calls) does, and stays on
// the reading goroutine, in the file's order.
//
// So, past aheadAfter bytes, eachRecord reads the lines on a goroutine of
// its own, copies them into batches, has the batches decoded on workers,
// and applies the records on the caller's goroutine in the file's order.
// Everything the line reader reports (a line over --max-record, a line
// with invalid UTF-8) is recorded with the line it came before and said
// when that line's turn comes, so the problems come out in the same order
// as from a reading on one goroutine: the report is the same byte for
// byte, whatever the number of workers.

// aheadAfter is how much of a file is read on the caller's goroutine
// before its lines are decoded ahead: a small file is not worth the
// goroutines, and most files of a corpus are small. (Tests set
// Options.aheadAfter to decode all but a file's first line ahead.)
const aheadAfter = 2 << 20

// Lines are handed to the workers in batches of about aheadBatchBytes (or
// aheadLines lines), and aheadDepth batches per worker may be read ahead
// of the caller: memory stays a few megabytes per file.
const (
	aheadBatchBytes = 256 << 10
	aheadLines      = 512
	aheadDepth      = 2
)

// eachRecord reads the records next gives, decodes each into a record of
// type R (decode) and applies it (apply), in order. decode must not touch
// anything but its line, its record and the line reader it is given: it
// may run on another goroutine. It is given the record it decoded into
// before, to reuse what that holds. Both get the line reader to report
// the line with (Sink.BadLine): the reader itself, or, once lines are
// decoded ahead, a view of it as it was when the line was read (a
// report of invalid UTF-8 that decode withdraws, apply does not see).
//
// lr is nil for the records of a document (they are decoded in turn);
// with fewer than two workers (h.workers) every line is decoded in turn
// too.
func eachRecord[R any](next func() ([]byte, int, bool), lr *LineReader, h *Head, decode, apply func(lines *LineReader, line []byte, n int, rec *R)) {
	workers, after := h.workers, aheadAfter
	if h.aheadAfter > 0 {
		after = h.aheadAfter
	}
	var rec R
	read := 0
	for lr == nil || workers < 2 || read < after {
		line, n, ok := next()
		if !ok {
			return
		}
		read += len(line)
		if lr != nil && lr.scratch != nil {
			lr.scratch.Reset() // the line before was applied
		}
		decode(lr, line, n, &rec)
		apply(lr, line, n, &rec)
	}
	decodeAhead(lr, workers, decode, apply)
}

// aheadLine is one line read ahead, with what the line reader said of it.
type aheadLine[R any] struct {
	n          int
	start, end int // of the line in its batch's buf
	truncated  bool
	badUTF8    bool
	err        error // the reader's error once the line was read
	// taken: decode withdrew the line's report of invalid UTF-8 to say
	// it in a problem of its own (Sink.BadLine).
	taken bool
	// oversize are the lines over --max-record skipped just before it.
	oversize []oversizeLine
	rec      R
}

type oversizeLine struct {
	n    int
	size int64
}

// aheadBatch is a run of lines read ahead, decoded by one worker.
type aheadBatch[R any] struct {
	buf   []byte
	lines []aheadLine[R]
	// tail are the lines over --max-record skipped after the last line
	// of the file (in its last batch).
	tail []oversizeLine
	// decoded is closed once the worker has decoded every line; panicked
	// is then what a decoder panicked with, if it did.
	decoded  chan struct{}
	panicked any
	// scratch is the batch's LineReader.scratch, when the reader has one:
	// its lines' texts live until the batch is applied.
	scratch jsonx.Scratch
}

// decodeAhead is eachRecord's reading ahead (see the top of this file).
func decodeAhead[R any](lr *LineReader, workers int, decode, apply func(lines *LineReader, line []byte, n int, rec *R)) {
	// The line reader is the producer's until it is done: it reports
	// into the batches instead of to the sink. Whatever the caller's turn
	// left pending is said first, as the next call to Next would.
	lr.flushBadUTF8()
	restoreOversize := lr.onOversize
	onOversize, onBadUTF8 := lr.onOversize, lr.onBadUTF8
	if onOversize == nil { // a reader without a record limit
		onOversize = func(int, int64) {}
	}
	var oversize []oversizeLine
	lr.onOversize = func(n int, size int64) { oversize = append(oversize, oversizeLine{n, size}) }
	lr.onBadUTF8 = nil
	withScratch := lr.scratch != nil

	depth := aheadDepth * workers
	inOrder := make(chan *aheadBatch[R], depth)
	toDecode := make(chan *aheadBatch[R], depth)
	free := make(chan *aheadBatch[R], depth+workers+1)
	quit := make(chan struct{})
	var producerPanic any
	var wg sync.WaitGroup

	wg.Add(1)
	go func() { // the producer: reads the lines into batches
		defer wg.Done()
		defer close(toDecode)
		defer close(inOrder)
		defer func() {
			if p := recover(); p != nil {
				producerPanic = p
			}
		}()
		for done := false; !done; {
			var b *aheadBatch[R]
			select {
			case <-quit:
				return
			case b = <-free:
			default:
				b = newAheadBatch[R]()
			}
			b.buf, b.lines, b.tail = b.buf[:0], b.lines[:0], nil
			b.decoded, b.panicked = make(chan struct{}), nil
			for len(b.buf) < aheadBatchBytes && len(b.lines) < aheadLines {
				line, n, ok := lr.Next()
				if !ok {
					done = true
					break
				}
				start := len(b.buf)
				b.buf = append(b.buf, line...)
				if len(b.lines) < cap(b.lines) {
					// Keep the record the line's slot decoded before:
					// its slices are reused.
					b.lines = b.lines[:len(b.lines)+1]
				} else {
					b.lines = append(b.lines, aheadLine[R]{})
				}
				l := &b.lines[len(b.lines)-1]
				l.n, l.start, l.end = n, start, len(b.buf)
				l.truncated, l.badUTF8, l.err = lr.Truncated(), lr.BadUTF8(), lr.err
				l.oversize, oversize = oversize, nil
			}
			b.tail, oversize = oversize, nil
			select {
			case inOrder <- b:
			case <-quit:
				return
			}
			toDecode <- b // never blocks for long: as deep as inOrder
		}
	}()
	for range workers {
		wg.Add(1)
		go func() { // a worker: decodes batches
			defer wg.Done()
			for b := range toDecode {
				decodeBatch(b, onBadUTF8 != nil, withScratch, decode)
			}
		}()
	}

	// The caller's goroutine applies the records in order. view is the
	// line reader as it was when each line was read, for BadLine.
	view := &LineReader{onBadUTF8: onBadUTF8}
	defer func() {
		close(quit)
		for range inOrder { // let the producer see quit
		}
		wg.Wait()
		lr.onOversize, lr.onBadUTF8 = restoreOversize, onBadUTF8
		if producerPanic != nil {
			panic(producerPanic)
		}
		for len(free) > 0 {
			keepAheadBatch(<-free)
		}
	}()
	for b := range inOrder {
		<-b.decoded
		if b.panicked != nil {
			panic(b.panicked)
		}
		for i := range b.lines {
			l := &b.lines[i]
			for _, o := range l.oversize {
				onOversize(o.n, o.size)
			}
			view.n, view.truncated, view.badUTF8, view.err = l.n, l.truncated, l.badUTF8, l.err
			if l.badUTF8 && onBadUTF8 != nil && !l.taken {
				view.badPending = l.n
			}
			apply(view, b.buf[l.start:l.end], l.n, &l.rec)
			view.flushBadUTF8()
		}
		for _, o := range b.tail {
			onOversize(o.n, o.size)
		}
		select {
		case free <- b:
		default:
		}
	}
}

// aheadBatches keeps the batches of the files read before for the next
// one: a corpus is read a file after another, and without it each large
// file allocated its batches anew, growing each buffer by doubling (a
// fifth of the bytes a replay of a Claude Code corpus allocated, which
// set how often the collector ran). It holds batches of any record type;
// one of another type is dropped.
var aheadBatches sync.Pool

// maxKeptBatchBytes bounds the buffer of a batch kept in aheadBatches: a
// batch that held a line of many megabytes is let go.
const maxKeptBatchBytes = 4 * aheadBatchBytes

func newAheadBatch[R any]() *aheadBatch[R] {
	if b, ok := aheadBatches.Get().(*aheadBatch[R]); ok {
		return b
	}
	// Room for a batch's bytes and the line that ends it.
	return &aheadBatch[R]{buf: make([]byte, 0, aheadBatchBytes+aheadBatchBytes/2)}
}

func keepAheadBatch[R any](b *aheadBatch[R]) {
	b.scratch.Reset() // lets go of one outgrown by a line of many megabytes
	if cap(b.buf) <= maxKeptBatchBytes {
		aheadBatches.Put(b)
	}
}

// decodeBatch decodes a batch's lines, each with a view of the line
// reader as it was when the line was read (reportBadUTF8: the reader
// reports invalid UTF-8), and the batch's scratch when withScratch (the
// reader has one, LineReader.scratch). A decoder's panic is kept for the
// caller's goroutine, where Read turns it into a problem of the file.
func decodeBatch[R any](b *aheadBatch[R], reportBadUTF8, withScratch bool, decode func(lines *LineReader, line []byte, n int, rec *R)) {
	defer close(b.decoded)
	defer func() { b.panicked = recover() }()
	var view LineReader
	if withScratch {
		// The batch's lines decoded before were applied before the batch
		// was read into again.
		b.scratch.Reset()
		b.scratch.Above = CutAbove
		view.scratch = &b.scratch
	}
	for i := range b.lines {
		l := &b.lines[i]
		view.n, view.truncated, view.badUTF8, view.err, view.badPending = l.n, l.truncated, l.badUTF8, l.err, 0
		if l.badUTF8 && reportBadUTF8 {
			view.badPending = l.n
		}
		decode(&view, b.buf[l.start:l.end], l.n, &l.rec)
		l.taken = view.badPending == 0 && l.badUTF8 && reportBadUTF8
	}
}

// eachSelfContainedLine reads a file whose every line is a record of its
// own, a whole session (hermes trajectories and exports, OpenHands
// evaluation output): parse reads one line as it would in turn, and what
// it hands its sink is passed on to out in the file's order. Past
// aheadAfter, parse runs on other cores (eachRecord), so it must touch
// nothing but its line, the head (read only) and the sink and line reader
// it is given.
func eachSelfContainedLine(lr *LineReader, h *Head, out *Sink, parse func(line []byte, n int, lines *LineReader, out *Sink)) {
	eachRecord(lr.Next, lr, h, func(lines *LineReader, line []byte, n int, rec *sinkRecording) {
		rec.events = rec.events[:0]
		parse(line, n, lines, &Sink{File: out.File, OnSession: rec.session, OnProblem: rec.problem, KeepText: out.KeepText})
	}, func(_ *LineReader, _ []byte, _ int, rec *sinkRecording) {
		for _, e := range rec.events {
			if e.session != nil {
				out.Session(e.session)
			} else {
				out.problem(e.problem)
			}
		}
		clear(rec.events) // the sessions are out's now
	})
}

// sinkRecording keeps what a Sink was handed, in order.
type sinkRecording struct {
	events []sinkEvent
}

type sinkEvent struct {
	session *Session // or else:
	problem Problem
}

func (r *sinkRecording) session(s *Session) { r.events = append(r.events, sinkEvent{session: s}) }
func (r *sinkRecording) problem(p Problem)  { r.events = append(r.events, sinkEvent{problem: p}) }
