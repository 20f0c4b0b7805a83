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

// TestDecodePacked: a packed string (decodeStringAt packed, as
// StringOrValueAtPacked reads a tool result) is what DecodeStringAt reads,
// ending at the same place, and stays so while many more are decoded
// after it into the same blocks (a string written over would show).
func TestDecodePacked(t *testing.T) {
	type kept struct {
		in, s, want string
	}
	var all []kept
	for round := 0; round < 3; round++ {
		for _, in := range packedCases() {
			rec := []byte(`{"k": ` + in + `, "n": 1}`)
			want, wantEnd, wantOK := DecodeStringAt(rec, 6)
			s, end, ok := decodeStringAt(rec, 6, true)
			if s != want || end != wantEnd || ok != wantOK {
				t.Fatalf("packed decodeStringAt(%.80q) = %.40q to %d, %v; DecodeStringAt: %.40q to %d, %v", rec, s, end, ok, want, wantEnd, wantOK)
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

// TestStringBlock: strings with escapes are decoded into a block one
// right after another; one that does not fit in what is left starts a new
// block; a failed decoding takes nothing; a string with invalid UTF-8 is
// rewritten elsewhere and takes nothing either.
func TestStringBlock(t *testing.T) {
	var b stringBlock
	decode := func(in string) (string, error) {
		data := []byte(in)
		p := parser{data: data}
		i, high := nextSpecialHigh(data, 1)
		end := closingQuote(data, 1)
		return b.decode(&p, 1, i, high, end-1+packSlack)
	}
	at := func(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

	first, err := decode(`"first\nstring"`)
	if err != nil || first != "first\nstring" || len(b.buf) != len(first) || cap(b.buf) != packBlockSize {
		t.Fatalf("first: %q, %v; block %d of %d", first, err, len(b.buf), cap(b.buf))
	}
	second, _ := decode(`"second\tstring"`)
	if second != "second\tstring" || at(second) != at(first)+uintptr(len(first)) {
		t.Fatalf("second: %q at +%d, want right after the first", second, at(second)-at(first))
	}
	if _, err := decode(`"bad \q escape"`); err == nil || len(b.buf) != len(first)+len(second) {
		t.Fatalf("a bad escape: error %v, block %d bytes taken", err, len(b.buf))
	}
	if s, _ := decode("\"bad \\n \xff\""); s != "bad \n \uFFFD" || len(b.buf) != len(first)+len(second) {
		t.Fatalf("invalid UTF-8: %q, block %d bytes taken", s, len(b.buf))
	}
	third, _ := decode(`"third\n"`)
	if at(third) != at(second)+uintptr(len(second)) {
		t.Fatal("the third string is not right after the second")
	}
	// One byte short of what the next string needs: its 6 escaped bytes
	// and packSlack.
	b.buf = b.buf[:cap(b.buf)-(6+packSlack-1)]
	fourth, _ := decode(`"\t1234"`)
	if fourth != "\t1234" || len(b.buf) != len(fourth) {
		t.Fatalf("fourth: %q, block %d bytes taken; want a new block", fourth, len(b.buf))
	}
}

// TestDecodeScratch: StringOrValueAtScratch reads what
// StringOrValueAtPacked reads; a long string it decodes (escaped content
// over Scratch.Above, by default maxPackedInBlock; valid) lies in the scratch, and stays what it was
// while more are decoded into it, until Reset, after which the scratch's
// memory is used again; a shorter one is packed, as before.
func TestDecodeScratch(t *testing.T) {
	var sc Scratch
	type kept struct{ in, s, want string }
	for round := 0; round < 4; round++ {
		above := maxPackedInBlock
		if round == 3 {
			sc.Above, above = 40, 40
		}
		var held []kept
		for _, in := range packedCases() {
			rec := []byte(`{"k": ` + in + `, "n": 1}`)
			want, wantRaw, wantIs, wantEnd, wantOK := StringOrValueAtPacked(rec, 6, 1)
			wantRawText := string(wantRaw)
			s, raw, is, end, ok, h := StringOrValueAtScratch(rec, 6, 1, &sc)
			if s != want || string(raw) != wantRawText || is != wantIs || end != wantEnd || ok != wantOK {
				t.Fatalf("StringOrValueAtScratch(%.80q) = %.40q, %v to %d, %v; packed: %.40q, %v to %d, %v", rec, s, is, end, ok, want, wantIs, wantEnd, wantOK)
			}
			long := is && closingQuote([]byte(in), 1)-1 > above && !strings.Contains(in, "\xff") && !strings.ContainsRune(in, 0xff)
			if h != long {
				t.Fatalf("StringOrValueAtScratch(%.80q): held %v, want %v", rec, h, long)
			}
			if h {
				p := unsafe.StringData(s)
				inScratch := false
				base := unsafe.Pointer(unsafe.SliceData(sc.buf))
				if off := uintptr(unsafe.Pointer(p)) - uintptr(base); uintptr(unsafe.Pointer(p)) >= uintptr(base) && off+uintptr(len(s)) <= uintptr(len(sc.buf)) {
					inScratch = true
				}
				if !inScratch {
					t.Fatalf("held string of %.80q does not lie in the scratch's taken bytes", rec)
				}
				held = append(held, kept{in, s, want})
			}
			clear(rec) // a string must not be a view of the record
			if !h && s != want {
				t.Fatalf("string of %.80q is a view of its record", in)
			}
		}
		if len(held) == 0 {
			t.Fatal("no case was held in the scratch")
		}
		for _, k := range held {
			if k.s != k.want {
				t.Fatalf("held string of %.80q changed to %.40q before Reset", k.in, k.s)
			}
		}
		sc.Reset()
	}
	sc.Above = 0
	// After Reset the memory is used again, unless it grew past
	// maxKeptScratch.
	for _, n := range []int{maxPackedInBlock + 1, 100 << 10, maxKeptScratch / 2} {
		rec := []byte(`"` + strings.Repeat(`a\n`, n/3+1) + `"`)
		first, _, _, _, _, h1 := StringOrValueAtScratch(rec, 0, 0, &sc)
		sc.Reset()
		second, _, _, _, _, h2 := StringOrValueAtScratch(rec, 0, 0, &sc)
		if !h1 || !h2 || unsafe.StringData(first) != unsafe.StringData(second) {
			t.Fatalf("%d bytes: held %v, %v; the second string is not where the first was", len(rec), h1, h2)
		}
		sc.Reset()
	}
	big := []byte(`"` + strings.Repeat(`a\n`, maxKeptScratch/3+1) + `"`)
	StringOrValueAtScratch(big, 0, 0, &sc)
	// A second long string past the first takes what it needs, not twice
	// the first's memory.
	StringOrValueAtScratch(big, 0, 0, &sc)
	if c := cap(sc.buf); c >= 2*len(big) {
		t.Fatalf("the second of two strings of %d bytes took %d bytes", len(big), c)
	}
	if sc.Reset(); cap(sc.buf) != 0 {
		t.Fatalf("a scratch of %d bytes was kept", cap(sc.buf))
	}
}

// FuzzDecodePacked: packed or not, the same string to the same
// end; and a packed string stays what it was while more are decoded.
func FuzzDecodePacked(f *testing.F) {
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
			s, end, ok := decodeStringAt(rec, 0, true)
			if s != want || end != wantEnd || ok != wantOK {
				t.Fatalf("packed decodeStringAt(%q) = %q to %d, %v; DecodeStringAt: %q to %d, %v", data, s, end, ok, want, wantEnd, wantOK)
			}
			var sc Scratch
			ss, _, is, send, sok, _ := StringOrValueAtScratch(rec, 0, 0, &sc)
			if sok && is && (ss != want || send != wantEnd || !wantOK) {
				t.Fatalf("StringOrValueAtScratch(%q) = %q to %d; DecodeStringAt: %q to %d, %v", data, ss, send, want, wantEnd, wantOK)
			}
			if wantOK && (!sok || !is) {
				t.Fatalf("StringOrValueAtScratch(%q) declined a string DecodeStringAt reads", data)
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

func BenchmarkDecodePacked(b *testing.B) {
	for _, n := range []int{200, 2000, 40000} {
		rec := []byte(`"` + strings.Repeat(`a line of a tool's output\n`, n/27+1) + `"`)
		for _, packed := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dB/packed=%v", len(rec), packed), func(b *testing.B) {
				b.SetBytes(int64(len(rec)))
				for b.Loop() {
					if packed {
						decodeStringAt(rec, 0, true)
					} else {
						DecodeStringAt(rec, 0)
					}
				}
			})
		}
	}
}
