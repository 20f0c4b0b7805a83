package snapbin

import (
	"errors"
	"math"
	"testing"
)

// TestRoundTrip: every value written reads back, and the reader ends
// with nothing left and no error.
func TestRoundTrip(t *testing.T) {
	w := &Writer{}
	w.Uint(0)
	w.Uint(math.MaxUint64)
	w.Int(-1)
	w.Int(math.MinInt64)
	w.Bool(true)
	w.Bool(false)
	w.Word(0xdeadbeefcafef00d)
	w.String("")
	w.String("tab\there\x00nul")
	w.Uint(math.MaxUint32)
	w.Int(math.MaxInt32)
	r := NewReader(w.B)
	if r.Uint() != 0 || r.Uint() != math.MaxUint64 || r.Int() != -1 || r.Int() != math.MinInt64 ||
		!r.Bool() || r.Bool() || r.Word() != 0xdeadbeefcafef00d || r.String() != "" || r.String() != "tab\there\x00nul" ||
		r.Uint32() != math.MaxUint32 || r.Int32() != math.MaxInt32 {
		t.Fatal("a value did not read back")
	}
	if r.Err() != nil || r.Rest() != 0 {
		t.Fatalf("err %v, %d bytes left", r.Err(), r.Rest())
	}
}

// TestCorrupt: inputs that are not an encoding give ErrCorrupt and zero
// values, and a length never exceeds the input.
func TestCorrupt(t *testing.T) {
	big := (&Writer{}).B
	w := &Writer{B: big}
	w.Uint(1 << 40) // a string length far past the input
	cases := []struct {
		name string
		in   []byte
		read func(r *Reader) any
	}{
		{"empty uint", nil, func(r *Reader) any { return r.Uint() }},
		{"cut varint", []byte{0x80}, func(r *Reader) any { return r.Uint() }},
		{"bool 2", []byte{2}, func(r *Reader) any { return r.Bool() }},
		{"short word", []byte{1, 2, 3}, func(r *Reader) any { return r.Word() }},
		{"string past the end", w.B, func(r *Reader) any { return r.String() }},
		{"uint32 overflow", (&Writer{B: []byte{0x80, 0x80, 0x80, 0x80, 0x10}}).B, func(r *Reader) any { return r.Uint32() }},
	}
	for _, tc := range cases {
		r := NewReader(tc.in)
		got := tc.read(r)
		if !errors.Is(r.Err(), ErrCorrupt) {
			t.Errorf("%s: err %v, want ErrCorrupt", tc.name, r.Err())
		}
		if got != nil && got != uint64(0) && got != false && got != "" && got != uint32(0) {
			t.Errorf("%s: read %v, want a zero value", tc.name, got)
		}
		if r.Uint() != 0 || r.Err() == nil {
			t.Errorf("%s: a read after the error was not zero", tc.name)
		}
	}
}
