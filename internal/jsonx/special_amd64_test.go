package jsonx

import (
	"bytes"
	"math/rand/v2"
	"testing"

	gojson "github.com/goccy/go-json"
)

// naiveSpecial is nextSpecialHigh byte by byte.
func naiveSpecial(data []byte, i int) (int, bool) {
	high := false
	for ; i < len(data); i++ {
		c := data[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		high = high || c >= 0x80
	}
	return i, high
}

// TestVectorScan: nextSpecial and nextSpecialHigh, with the vector scan
// and without it, agree with a byte-by-byte scan, for every special byte
// placed at every offset of strings of up to 160 bytes, with a byte
// outside ASCII before, after or at no place, from every start.
func TestVectorScan(t *testing.T) {
	if !useVector {
		t.Skip("no AVX2 and BMI2 here: the vector scan is not used")
	}
	defer func(v bool) { useVector = v }(useVector)
	rng := rand.New(rand.NewPCG(1, 2))
	specialBytes := []byte{'"', '\\', 0x00, 0x1f, '\n'}
	for n := 0; n <= 160; n++ {
		for trial := 0; trial < 6; trial++ {
			data := bytes.Repeat([]byte{'a'}, n)
			for k := range data {
				data[k] = byte(0x20 + rng.IntN(0x5f)) // printable ASCII...
				if data[k] == '"' || data[k] == '\\' {
					data[k] = 'x' // ...but no special byte
				}
			}
			if n > 0 && trial%3 != 0 {
				data[rng.IntN(n)] = 0x80 + byte(rng.IntN(0x80))
			}
			for p := -1; p < n; p++ {
				d := bytes.Clone(data)
				if p >= 0 {
					d[p] = specialBytes[(p+trial)%len(specialBytes)]
				}
				for _, start := range []int{0, 1, 7, 8, 9, 17} {
					if start > n {
						continue
					}
					want, wantHigh := naiveSpecial(d, start)
					for _, vector := range []bool{true, false} {
						useVector = vector
						if got := nextSpecial(d, start); got != want {
							t.Fatalf("vector %v: nextSpecial(%q, %d) = %d, want %d", vector, d, start, got, want)
						}
						if got, high := nextSpecialHigh(d, start); got != want || high != wantHigh {
							t.Fatalf("vector %v: nextSpecialHigh(%q, %d) = %d, %v, want %d, %v", vector, d, start, got, high, want, wantHigh)
						}
					}
				}
			}
		}
	}
}

// TestVectorStr: strings decoded with the vector copy (str's escape path)
// are those decoded a word at a time, and those goccy's Unmarshal
// decodes, for runs of every length up to 100 bytes around escapes,
// bytes outside ASCII (valid and not) and control bytes, in buffers that
// start empty and buffers that are nearly full.
func TestVectorStr(t *testing.T) {
	if !useVector {
		t.Skip("no AVX2 and BMI2 here: the vector copy is not used")
	}
	defer func(v bool) { useVector = v }(useVector)
	rng := rand.New(rand.NewPCG(3, 4))
	// Every escape of one byte (decoded inside the vector loop), runs of
	// them, \u escapes and a bad escape (which stop it), bytes outside
	// ASCII and a control byte.
	pieces := []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\t`, "é", "\xff", "\x01", `\/`,
		`\r`, `\b`, `\f`, `\n\n\t\t`, `\\\"`, `\q`}
	for trial := 0; trial < 6000; trial++ {
		var b bytes.Buffer
		b.WriteByte('"')
		for range 1 + rng.IntN(6) {
			for range rng.IntN(100) {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		for range rng.IntN(70) {
			b.WriteByte(byte('A' + rng.IntN(26)))
		}
		// What follows the string, outside ASCII or not, is not its own.
		b.WriteString([]string{`", "next": 1}`, `", "né": "ü"}`}[trial%2])
		data := b.Bytes()
		end := bytes.Index(data, []byte(`", "n`)) + 1
		wantHigh := bytes.ContainsFunc(data[1:end-1], func(r rune) bool { return r >= 0x80 })
		var results [2]string
		var oks [2]bool
		for k, vector := range []bool{true, false} {
			useVector = vector
			p := parser{data: data}
			if trial%3 != 0 {
				// A pooled parser's own scratch buffer, of any room (else
				// a buffer is lent, as to the parsers made on the stack).
				p.keys, p.buf = new([256]string), make([]byte, 0, rng.IntN(40))
			}
			s, err := p.str()
			results[k], oks[k] = s, err == nil
			if err == nil && p.high != wantHigh {
				t.Fatalf("%q: vector %v: high %v, want %v", data, vector, p.high, wantHigh)
			}
		}
		if results[0] != results[1] || oks[0] != oks[1] {
			t.Fatalf("%q: vector %q (%v), word at a time %q (%v)", data, results[0], oks[0], results[1], oks[1])
		}
		var want string
		if err := gojson.Unmarshal(data[:end], &want); (err == nil) != oks[0] || (oks[0] && want != results[0]) {
			t.Fatalf("%q: str %q (%v), Unmarshal %q (%v)", data, results[0], oks[0], want, err)
		}
	}
}
