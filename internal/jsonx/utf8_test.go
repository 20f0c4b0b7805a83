package jsonx

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// TestValidUTF8: ValidUTF8 agrees with utf8.Valid on ASCII of every length
// up to 200 bytes with, at every place, a byte outside ASCII that is valid
// or not (a lone continuation byte, a character cut short, an overlong
// form, a surrogate). Where the machine has no vector scan, ValidUTF8 is
// utf8.Valid and the test holds trivially.
func TestValidUTF8(t *testing.T) {
	if !useVector {
		t.Log("no AVX2 and BMI2 here: ValidUTF8 is utf8.Valid")
	}
	inserts := []struct {
		name  string
		bytes []byte
	}{
		{"two-byte character", []byte("é")},
		{"three-byte character", []byte("€")},
		{"lone continuation byte", []byte{0x80}},
		{"cut-short character", []byte{0xe2, 0x82}},
		{"overlong slash", []byte{0xc0, 0xaf}},
		{"surrogate", []byte{0xed, 0xa0, 0x80}},
	}
	for n := 0; n <= 200; n++ {
		ascii := bytes.Repeat([]byte{'a'}, n)
		if !ValidUTF8(ascii) {
			t.Fatalf("ValidUTF8 of %d ASCII bytes = false", n)
		}
		for p := 0; p <= n; p++ {
			for _, in := range inserts {
				d := append(append(bytes.Clone(ascii[:p]), in.bytes...), ascii[p:]...)
				if got, want := ValidUTF8(d), utf8.Valid(d); got != want {
					t.Fatalf("%s at %d of %d ASCII bytes: ValidUTF8 = %v, utf8.Valid %v", in.name, p, n, got, want)
				}
			}
		}
	}
}

// FuzzValidUTF8 holds ValidUTF8 to utf8.Valid on any input.
func FuzzValidUTF8(f *testing.F) {
	f.Add([]byte("plain ASCII, more than sixty-four bytes of it, so that the vector scan runs"))
	f.Add(append(bytes.Repeat([]byte{'x'}, 70), 0xff))
	f.Add(append(bytes.Repeat([]byte{'x'}, 63), "é and more text after it"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := ValidUTF8(data), utf8.Valid(data); got != want {
			t.Fatalf("ValidUTF8(%q) = %v, utf8.Valid %v", data, got, want)
		}
	})
}
