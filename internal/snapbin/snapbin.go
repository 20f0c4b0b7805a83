// Package snapbin is the small binary encoding of saved state (the guard's
// saved state, the live hook's session checkpoint): unsigned and signed varints,
// length-prefixed strings and fixed 64-bit words, written by appending to a
// byte slice and read back by a Reader that keeps its first error, so that
// a decoder reads field after field and checks once at the end. A corrupt
// or cut input gives an error, never a panic, and never a length larger
// than the input itself.
package snapbin

import (
	"encoding/binary"
	"errors"
	"math"
	"unsafe"
)

// Writer appends encoded values to B.
type Writer struct {
	B []byte
}

// Uint appends an unsigned varint.
func (w *Writer) Uint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }

// Int appends a signed varint.
func (w *Writer) Int(v int64) { w.B = binary.AppendVarint(w.B, v) }

// Bool appends one byte, 0 or 1.
func (w *Writer) Bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	w.B = append(w.B, b)
}

// Word appends a fixed 64-bit word (hashes: a varint of a random 64-bit
// value is longer than 8 bytes).
func (w *Writer) Word(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

// String appends a length-prefixed string.
func (w *Writer) String(s string) {
	w.Uint(uint64(len(s)))
	w.B = append(w.B, s...)
}

// ErrCorrupt is the error of an input that is not a valid encoding.
var ErrCorrupt = errors.New("snapshot corrupt")

// Reader reads values a Writer wrote. After the first error every read
// returns a zero value; Err reports it.
type Reader struct {
	b   []byte
	err error
}

// NewReader reads b. The strings and bytes read are b's own memory, not
// copies (a saved state holds thousands of strings): b must not change
// while they are in use.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err is the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Fail records err (the first one stays) for a decoder that found a value
// out of range.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

// Rest is the number of bytes not read yet.
func (r *Reader) Rest() int { return len(r.b) }

// Uint reads an unsigned varint.
func (r *Reader) Uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.Fail(ErrCorrupt)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Int reads a signed varint.
func (r *Reader) Int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.Fail(ErrCorrupt)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Int32 reads a signed varint that must fit an int32.
func (r *Reader) Int32() int32 {
	v := r.Int()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.Fail(ErrCorrupt)
		return 0
	}
	return int32(v)
}

// Uint32 reads an unsigned varint that must fit a uint32.
func (r *Reader) Uint32() uint32 {
	v := r.Uint()
	if v > math.MaxUint32 {
		r.Fail(ErrCorrupt)
		return 0
	}
	return uint32(v)
}

// Len reads a count of items that each take at least one byte: a count
// larger than what is left is corrupt (so a decoder never allocates more
// than its input's size).
func (r *Reader) Len() int {
	v := r.Uint()
	if v > uint64(len(r.b)) {
		r.Fail(ErrCorrupt)
		return 0
	}
	return int(v)
}

// Bool reads one byte, 0 or 1.
func (r *Reader) Bool() bool {
	if len(r.b) == 0 || r.b[0] > 1 {
		r.Fail(ErrCorrupt)
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// Word reads a fixed 64-bit word.
func (r *Reader) Word() uint64 {
	if len(r.b) < 8 {
		r.Fail(ErrCorrupt)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// Bytes reads a length-prefixed string as bytes (b's own).
func (r *Reader) Bytes() []byte {
	n := r.Len()
	if r.err != nil {
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

// String reads a length-prefixed string (b's own memory).
func (r *Reader) String() string {
	b := r.Bytes()
	return unsafe.String(unsafe.SliceData(b), len(b))
}
