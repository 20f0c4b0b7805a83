package jsonx

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// packedCases are strings around the sizes where packing changes its way
// (a block, or an allocation of their own) and its vector stride, with the
// escapes that end the vector loop (\u, pairs, lone surrogates), invalid
// UTF-8 (rewritten elsewhere) and errors.
func packedCases() []string {
	cases := []string{}
	for _, tc := range stringCases {
		cases = append(cases, strings.Trim(tc.in, " \t\r\n"))
	}
	for _, n := range []int{1, 7, 8, 31, 32, 33, 63, 64, 65, 1000, maxPackedInBlock - 40, maxPackedInBlock - 1,
		maxPackedInBlock, maxPackedInBlock + 1, packBlockSize - 100, packBlockSize + 10, 3 * packBlockSize} {
		body := strings.Repeat("a", n)
		cases = append(cases,
			`"`+body+`\n"`,
			`"\n`+body+`"`,
			`"`+body[:n/2]+`\"\\\u00e9\ud83d\ude00`+body[n/2:]+`"`,
			`"`+strings.Repeat(`line\n`, n/6+1)+`"`,
			`"`+strings.Repeat(`\\`, n/2+1)+`"`,
			`"`+strings.Repeat(`\u4e2d`, n/6+1)+`"`,
			`"`+strings.Repeat(`é\t`, n/3+1)+`"`,
			`"`+body+"\\n\xff"+`"`,
			`"`+body+`\n`, // unterminated
			`"`+body+`\n\q"`,
			`"`+body+"\\n\x01"+`"`,
			`"`+body+`\"`, // the closing quote escaped
		)
	}
	return cases
}

// TestDecodeStringAtPacked: a packed string is what DecodeStringAt reads,
// ending at the same place, and stays so while many more are decoded
// after it into the same blocks (a string written over would show).
func TestDecodeStringAtPacked(t *testing.T) {
	type kept struct {
		in, s, want string
	}
	var all []kept
	for round := 0; round < 3; round++ {
		for _, in := range packedCases() {
			rec := []byte(`{"k": ` + in + `, "n": 1}`)
			want, wantEnd, wantOK := DecodeStringAt(rec, 6)
			s, end, ok := DecodeStringAtPacked(rec, 6)
			if s != want || end != wantEnd || ok != wantOK {
				t.Fatalf("DecodeStringAtPacked(%.80q) = %.40q to %d, %v; DecodeStringAt: %.40q to %d, %v", rec, s, end, ok, want, wantEnd, wantOK)
			}
			// The record is reused: a string must not be a view of it.
			clear(rec)
			all = append(all, kept{in, s, want})
		}
	}
	for _, k := range all {
		if k.s != k.want {
			t.Fatalf("packed string of %.80q changed to %.40q after more were decoded; want %.40q", k.in, k.s, k.want)
		}
	}
}

// TestPackedShareBlocks: short strings with escapes are decoded one after
// another into a shared block, with nothing between them; a long one has
// memory of its own. (The pool may drop the block between two calls, in
// a collection: the test then says so and passes.)
func TestPackedShareBlocks(t *testing.T) {
	rec := []byte(`"first\nstring""second\tstring"`)
	a, end, ok := DecodeStringAtPacked(rec, 0)
	b, _, ok2 := DecodeStringAtPacked(rec, end)
	if !ok || !ok2 || a != "first\nstring" || b != "second\tstring" {
		t.Fatalf("decoded %q, %q (%v %v)", a, b, ok, ok2)
	}
	if unsafe.StringData(b) != (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(a)), len(a))) {
		t.Skip("the two strings are not side by side: the pool dropped its block between them (a collection ran)")
	}
	long := []byte(`"` + strings.Repeat(`x\n`, maxPackedInBlock) + `"`)
	c, _, ok := DecodeStringAtPacked(long, 0)
	if !ok || len(c) != 2*maxPackedInBlock {
		t.Fatalf("long string: %d bytes, %v", len(c), ok)
	}
	next, _, _ := DecodeStringAtPacked([]byte(`"third\n"`), 0)
	if unsafe.StringData(next) != (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(b)), len(b))) {
		t.Skip("the pool dropped its block (a collection ran)")
	}
}

// FuzzDecodeStringAtPacked: packed or not, the same string to the same
// end; and a packed string stays what it was while more are decoded.
func FuzzDecodeStringAtPacked(f *testing.F) {
	for _, in := range packedCases() {
		if len(in) < 300 {
			f.Add([]byte(in), uint8(3))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, repeat uint8) {
		var kept []string
		var wants []string
		for i := 0; i < int(repeat%8)+1; i++ {
			rec := append([]byte(nil), data...)
			want, wantEnd, wantOK := DecodeStringAt(rec, 0)
			s, end, ok := DecodeStringAtPacked(rec, 0)
			if s != want || end != wantEnd || ok != wantOK {
				t.Fatalf("DecodeStringAtPacked(%q) = %q to %d, %v; DecodeStringAt: %q to %d, %v", data, s, end, ok, want, wantEnd, wantOK)
			}
			clear(rec)
			kept, wants = append(kept, s), append(wants, want)
		}
		for i := range kept {
			if kept[i] != wants[i] {
				t.Fatalf("packed string %d of %q changed to %q", i, data, kept[i])
			}
		}
	})
}

func BenchmarkDecodeStringAtPacked(b *testing.B) {
	for _, n := range []int{200, 2000, 40000} {
		rec := []byte(`"` + strings.Repeat(`a line of a tool's output\n`, n/27+1) + `"`)
		for _, packed := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dB/packed=%v", len(rec), packed), func(b *testing.B) {
				b.SetBytes(int64(len(rec)))
				for b.Loop() {
					if packed {
						DecodeStringAtPacked(rec, 0)
					} else {
						DecodeStringAt(rec, 0)
					}
				}
			})
		}
	}
}
