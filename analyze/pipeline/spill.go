package pipeline

import (
	"bufio"
	"fmt"
	"os"
)

// Codec says how items of type T wait on disk: their encoding, and when
// the items waiting in memory are written out.
type Codec[T any] struct {
	// Encode appends an item to b; Decode reads one from the start of b
	// into item and returns the rest of b.
	Encode func(b []byte, item *T) []byte
	Decode func(b []byte, item *T) ([]byte, error)
	// Chunk is how many items waiting in memory are written at once;
	// Weight also ends a chunk, however few items it holds (an item's
	// weight is what the caller says it holds in memory, in bytes).
	Chunk  int
	Weight int
}

// SpillFile is a temporary file of items, in the order written. A chunk
// of items is written whole or not at all: after a write error the file
// is left as it is and every later item stays in memory (nothing is lost;
// only memory is not bounded), and Err says why.
type SpillFile[T any] struct {
	codec  *Codec[T]
	f      *os.File
	path   string // "" once removed (the open file stays readable)
	chunks []spilledChunk
	n      int           // items written
	size   int64         // bytes written in whole chunks
	w      *bufio.Writer // writes the file, from its start
	buf    []byte        // one item's encoding
	failed bool          // making or writing the file failed: spill no more
	err    error
	// waiting is the weight of the items waiting in memory to be written.
	waiting int
}

type spilledChunk struct {
	off, len int64
	n        int // items
}

// NewSpillFile returns a spill file of items encoded by codec; the file
// itself is made by the first write.
func NewSpillFile[T any](codec *Codec[T]) *SpillFile[T] { return &SpillFile[T]{codec: codec} }

// Len is the number of items written.
func (sp *SpillFile[T]) Len() int { return sp.n }

// Err says why items could not be written (they stayed in memory), nil
// when they could.
func (sp *SpillFile[T]) Err() error { return sp.err }

// Due notes an item of the given weight, the nth now waiting in memory,
// and reports whether the waiting ones should be written (Flush).
func (sp *SpillFile[T]) Due(weight, n int) bool {
	sp.waiting += weight
	return n >= sp.codec.Chunk || sp.waiting >= sp.codec.Weight
}

// Flush writes the waiting items and returns what stays in memory: nothing
// once they are written, all of them when they could not be.
func (sp *SpillFile[T]) Flush(waiting []T) []T {
	if !sp.write(waiting) {
		return waiting
	}
	clear(waiting)
	sp.waiting = 0
	return waiting[:0]
}

// write appends items to the file and reports whether it did (false: keep
// them in memory).
func (sp *SpillFile[T]) write(items []T) bool {
	if sp.failed {
		return false
	}
	if sp.f == nil {
		f, err := os.CreateTemp("", "loopgate-sessions-*.bin")
		if err != nil {
			sp.failed, sp.err = true, err
			return false
		}
		sp.f, sp.path = f, f.Name()
		// Where the system allows it the name goes at once, so that
		// nothing is left behind if the run is killed; the open file
		// stays readable (elsewhere, Close removes it).
		if os.Remove(f.Name()) == nil {
			sp.path = ""
		}
	}
	// Each item is encoded on its own and written through a small
	// buffer: a chunk encoded whole took a buffer of several MB, made
	// anew for every chunk, and its page faults cost more system time
	// than the writing.
	if sp.w == nil {
		sp.w = bufio.NewWriterSize(sp.f, 64<<10)
	}
	var n int64
	for i := range items {
		sp.buf = sp.codec.Encode(sp.buf[:0], &items[i])
		if _, err := sp.w.Write(sp.buf); err != nil {
			sp.failed, sp.err = true, err
			return false
		}
		n += int64(len(sp.buf))
	}
	if cap(sp.buf) > 1<<20 {
		sp.buf = nil // a huge item does not keep its buffer
	}
	// The chunk counts as written once it is all in the file; on an
	// error the file is not used again (failed), so what part of the
	// chunk reached it does not matter.
	if err := sp.w.Flush(); err != nil {
		sp.failed, sp.err = true, err
		return false
	}
	sp.chunks = append(sp.chunks, spilledChunk{off: sp.size, len: n, n: len(items)})
	sp.size += n
	sp.n += len(items)
	return true
}

// Each calls f with every item written, in order, reading the file back
// one chunk at a time; it stops at f's first error or a read error.
func (sp *SpillFile[T]) Each(f func(*T) error) error {
	var buf []byte
	for _, c := range sp.chunks {
		if int64(cap(buf)) < c.len {
			buf = make([]byte, c.len)
		}
		buf = buf[:c.len]
		if _, err := sp.f.ReadAt(buf, c.off); err != nil {
			return fmt.Errorf("reading back the sessions kept on disk: %w", err)
		}
		rest := buf
		for range c.n {
			var item T
			var err error
			if rest, err = sp.codec.Decode(rest, &item); err != nil {
				return fmt.Errorf("reading back the sessions kept on disk: %w", err)
			}
			if err := f(&item); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close closes and removes the file, if one was made.
func (sp *SpillFile[T]) Close() error {
	if sp.f == nil {
		return nil
	}
	err := sp.f.Close()
	if sp.path != "" {
		if rerr := os.Remove(sp.path); err == nil {
			err = rerr
		}
	}
	sp.f, sp.chunks, sp.n = nil, nil, 0
	return err
}
