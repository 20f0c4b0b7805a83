package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"
)

func TestParseKeepsOrderAndEncodes(t *testing.T) {
	cases := []struct {
		in                         string
		compact, sorted, sortedTop string
	}{
		{`{"b":1,"a":{"d":true,"c":null}}`, `{"b":1,"a":{"d":true,"c":null}}`, `{"a":{"c":null,"d":true},"b":1}`, `{"a":{"d":true,"c":null},"b":1}`},
		{` [ 1.50 , -2e3, "x" ] `, `[1.50,-2e3,"x"]`, `[1.50,-2e3,"x"]`, `[1.50,-2e3,"x"]`},
		{`{"s":"a\"b\\c\n\u0001<>&\u2028é"}`, `{"s":"a\"b\\c\n\u0001<>&` + "\u2028" + `é"}`, `{"s":"a\"b\\c\n\u0001<>&` + "\u2028" + `é"}`, `{"s":"a\"b\\c\n\u0001<>&` + "\u2028" + `é"}`},
		{`{}`, `{}`, `{}`, `{}`},
		{`[]`, `[]`, `[]`, `[]`},
		{`"\ud83d\ude00"`, `"😀"`, `"😀"`, `"😀"`},
	}
	for _, tc := range cases {
		v, err := ParseString(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		for style, want := range map[Style]string{Compact: tc.compact, Sorted: tc.sorted, SortedTop: tc.sortedTop} {
			if got := string(v.Append(nil, style)); got != want {
				t.Errorf("%s style %d: got %s, want %s", tc.in, style, got, want)
			}
		}
		// Every encoding is valid JSON that means the same as the input.
		var a, b any
		json.Unmarshal([]byte(tc.in), &a)
		json.Unmarshal(v.Append(nil, Sorted), &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%s: re-encoding changed the value: %s vs %s", tc.in, ja, jb)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `tru`, `01x`, `"abc`, "\"a\x01\"", `{"a":1} x`, `-`, `1.`, `1e`} {
		if _, err := ParseString(in); err == nil {
			t.Errorf("%q parsed without error", in)
		}
	}
}

func TestParseDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	if _, err := ParseString(deep); !errors.Is(err, ErrTooDeep) {
		t.Errorf("100000-deep array: error %v, want ErrTooDeep", err)
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := ParseString(ok); err != nil {
		t.Errorf("%d-deep array: %v", MaxDepth, err)
	}
}

func TestGetAndText(t *testing.T) {
	v, _ := ParseString(`{"url":"https://x","n":3,"b":false,"o":{"k":[1]},"z":null}`)
	if s, ok := v.GetString("url"); !ok || s != "https://x" {
		t.Errorf("GetString url = %q, %v", s, ok)
	}
	if _, ok := v.GetString("n"); ok {
		t.Error("GetString on a number succeeded")
	}
	for key, want := range map[string]string{"n": "3", "b": "false", "o": `{"k":[1]}`, "z": "null", "url": "https://x"} {
		m, _ := v.Get(key)
		if m.Text() != want {
			t.Errorf("Text(%s) = %q, want %q", key, m.Text(), want)
		}
	}
}

func TestQuoteInvalidUTF8(t *testing.T) {
	got := Quote("a\xffb")
	if got != "\"a\uFFFDb\"" || !json.Valid([]byte(got)) {
		t.Errorf("Quote of invalid UTF-8 = %q", got)
	}
}

// TestStringsMatchEncodingJSON: the hand-written string decoder gives what
// encoding/json gives, escapes and bad surrogates included.
func TestStringsMatchEncodingJSON(t *testing.T) {
	inputs := []string{`"plain"`, `"tab\tnew\nline"`, `"\"q\" \\ \/"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00 pair"`,
		`"\ud83d lone high"`, `"\ude00 lone low"`, `"\ud83d\u0041 high then letter"`, `"é raw"`, `"\u0000nul"`, `"end\\"`}
	for _, in := range inputs {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: encoding/json: %v", in, err)
		}
		v, err := ParseString(in)
		if err != nil || v.Str != want {
			t.Errorf("%s: got %q, %v; want %q", in, v.Str, err, want)
		}
	}
	for _, bad := range []string{`"\x"`, `"\u12"`, `"\u12zz"`, `"abc\`} {
		if _, err := ParseString(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestValidMatchesEncodingJSON: the allocation-free validator agrees with
// encoding/json.
func TestValidMatchesEncodingJSON(t *testing.T) {
	inputs := []string{`{}`, `[]`, `{"a":[1,2,{"b":null}],"c":"x\"y"}`, ` 12.5e-3 `, `"s"`, `true`,
		``, `{`, `{"a":}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `"unterminated`, `{"a":1}}`, `[1 2]`, `nul`, "\"\x01\"", `{"a":"\q"}`}
	for _, in := range inputs {
		if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", in, got, want)
		}
	}
}

func TestTopLevel(t *testing.T) {
	doc := []byte(`{"output": "x \"error\": 1", "nested": {"exit_code": 9}, "exit_code": 2, "error": null}`)
	cases := map[string]string{"exit_code": "2", "error": "null", "output": `"x \"error\": 1"`, "missing": ""}
	for key, want := range cases {
		got, ok := TopLevel(doc, key)
		if string(got) != want || ok != (want != "") {
			t.Errorf("TopLevel(%s) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := TopLevel([]byte(`[1]`), "a"); ok {
		t.Error("TopLevel on an array found a key")
	}
}

// TestNextSpecialMatchesNaive checks the 8-bytes-at-a-time scans against a
// byte loop on random data over the whole byte range, at every offset.
func TestNextSpecialMatchesNaive(t *testing.T) {
	naive := func(data []byte, i int) int {
		for ; i < len(data); i++ {
			if c := data[i]; c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		return i
	}
	naiveQuote := func(data []byte, i int) int {
		for ; i < len(data); i++ {
			if c := data[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				return i
			}
		}
		return i
	}
	seed := uint64(12345)
	rnd := func() byte {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return byte(seed)
	}
	for n := 0; n < 2000; n++ {
		data := make([]byte, int(rnd())%40)
		for i := range data {
			// Mostly plain bytes, sometimes special ones and high bytes.
			switch r := rnd(); {
			case r < 8:
				data[i] = '"'
			case r < 16:
				data[i] = '\\'
			case r < 24:
				data[i] = rnd() % 0x20
			default:
				data[i] = 0x20 + rnd()%0xe0
				if data[i] == '"' || data[i] == '\\' {
					data[i] = 'x'
				}
			}
		}
		for i := 0; i <= len(data); i++ {
			if got, want := nextSpecial(data, i), naive(data, i); got != want {
				t.Fatalf("nextSpecial(%q, %d) = %d, want %d", data, i, got, want)
			}
			if got, want := nextQuoteSpecial(data, i), naiveQuote(data, i); got != want {
				t.Fatalf("nextQuoteSpecial(%q, %d) = %d, want %d", data, i, got, want)
			}
		}
	}
}

// TestParseErrorOffsets pins the errors of bad strings, which str reports
// while decoding them and Valid while only scanning them.
func TestParseErrorOffsets(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\"abc", "offset 4: unterminated string"},
		{"\"a\x01\"", "offset 2: control character in string"},
		{"\"\\x\"", "offset 1: invalid escape in string"},
		{"\"ab\\u12\"", "offset 3: invalid escape in string"},
		{"\"abc\\", "offset 5: unterminated string"},
		{"{\"k\\u00\":1}", "offset 3: invalid escape in string"},
		{"[\"ok\\n\", \"x\\ud83d\\uzzzz\"]", "offset 17: invalid escape in string"},
		{"{\"a\":\"\\t\n\"}", "offset 8: control character in string"},
		{"\"0123456789abcdef\\n0123456789abcdef\x1f", "offset 35: control character in string"},
		{"{\"abcdefghijkl\":1,\"abcdefghijkl\"", "offset 32: expected : after key"},
		{"[1,2,\"\\u0041\\", "offset 13: unterminated string"},
	} {
		if _, err := ParseString(tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("ParseString(%q): error %v, want %s", tc.in, err, tc.want)
		}
		if Valid([]byte(tc.in)) {
			t.Errorf("Valid(%q) = true", tc.in)
		}
	}
}

// TestParseAfterErrorAndManyKeys: the pooled parser state (stacks left
// filled by an error, the key cache with colliding slots) never leaks into
// the next value, also when parsing concurrently.
func TestParseAfterErrorAndManyKeys(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				if _, err := ParseString(`{"a":[1,{"b":[2,3`); err == nil {
					t.Error("truncated input parsed")
					return
				}
				var in strings.Builder
				in.WriteString("{")
				for k := 0; k < 40; k++ {
					fmt.Fprintf(&in, `"key%d_%d":[%d,"v"],`, k, (n+k)%7, k)
				}
				in.WriteString(`"last":{}}`)
				v, err := ParseString(in.String())
				if err != nil {
					t.Error(err)
					return
				}
				var ref map[string]any
				json.Unmarshal([]byte(in.String()), &ref)
				if len(v.Obj) != 41 || len(ref) != 41 {
					t.Errorf("%d members, want 41", len(v.Obj))
					return
				}
				for k, m := range v.Obj[:40] {
					if want := fmt.Sprintf("key%d_%d", k, (n+k)%7); m.Key != want || len(m.Val.Arr) != 2 || m.Val.Arr[0].Str != fmt.Sprint(k) {
						t.Errorf("member %d = %q %s, want key %q", k, m.Key, m.Val, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestParseStringShared: the same values as ParseString, with strings
// (escape-free ones and numbers) inside the input's memory.
func TestParseStringShared(t *testing.T) {
	for _, in := range []string{`{"command":"ls -la","n":12,"a":["x\ny",true,null,"\u00e9"],"k\u0041":{}}`, `"plain"`, "\"bad \xff utf8\"", `[]`, `{"a":}`, `7`} {
		want, wantErr := ParseString(in)
		got, err := ParseStringShared(in)
		if !reflect.DeepEqual(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("ParseStringShared(%q) = %v, %v; ParseString gives %v, %v", in, got, err, want, wantErr)
		}
	}
	in := `{"command":"ls -la","n":12}`
	v, _ := ParseStringShared(in)
	base := uintptr(unsafe.Pointer(unsafe.StringData(in)))
	for _, s := range []string{v.Obj[0].Val.Str, v.Obj[1].Val.Str} {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p < base || p >= base+uintptr(len(in)) {
			t.Errorf("%q is not a substring of the input", s)
		}
	}
}

// refAppend is the encoder Append replaced: members copied and sorted by
// sort.SliceStable, strings quoted a byte or rune at a time.
func refAppend(buf []byte, v Value, style Style, depth int) []byte {
	switch v.Kind {
	case String:
		return refQuote(buf, v.Str)
	case Array:
		buf = append(buf, '[')
		for i, e := range v.Arr {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = refAppend(buf, e, style, depth+1)
		}
		return append(buf, ']')
	case Object:
		members := v.Obj
		if style == Sorted || (style == SortedTop && depth == 0) {
			members = append([]Member(nil), members...)
			sort.SliceStable(members, func(i, j int) bool { return members[i].Key < members[j].Key })
		}
		buf = append(buf, '{')
		for i, m := range members {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = refQuote(buf, m.Key)
			buf = append(buf, ':')
			buf = refAppend(buf, m.Val, style, depth+1)
		}
		return append(buf, '}')
	}
	return v.appendDepth(buf, style, depth) // scalars
}

func refQuote(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			default:
				if c < 0x20 {
					buf = append(buf, fmt.Sprintf("\\u%04x", c)...)
				} else {
					buf = append(buf, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, "\ufffd"...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// FuzzAppend checks Append in every style and Quote against refAppend and
// refQuote.
func FuzzAppend(f *testing.F) {
	many := "{" + strings.Repeat(`"z":0,"b":1,"a":2,`, 15) + `"a":{"d":1,"c":[{"y":1,"x":2}]}}`
	for _, s := range []string{`{"b":1,"a":{"d":true,"c":null}}`, `{"b":1,"a":2,"b":0,"a":3}`, many,
		`["x\"y\\z\n\u0001\u001f\u007f", "é\u2028", {"k\t":"v"}]`, "\"\xff\xc3 ok \xe2\x82\"", `"` + strings.Repeat("abcdefg", 20) + `\"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if q, want := Quote(string(data)), string(refQuote(nil, string(data))); q != want {
			t.Fatalf("Quote(%q) = %q, want %q", data, q, want)
		}
		v, err := Parse(data)
		if err != nil {
			return
		}
		for _, style := range []Style{Compact, Sorted, SortedTop} {
			if got, want := v.Append([]byte("x"), style), refAppend([]byte("x"), v, style, 0); string(got) != string(want) {
				t.Fatalf("style %d: Append gives %s, want %s", style, got, want)
			}
		}
	})
}

// TestNextSpecialHigh: nextSpecialHigh stops where nextSpecial stops and
// reports a byte of 0x80 or more exactly when one lies in the run it
// passed, from every start in inputs that mix plain ASCII, specials and
// high bytes at every position of the eight-byte words.
func TestNextSpecialHigh(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pick := []byte{'a', 'b', ' ', '~', '"', '\\', '\n', 0x1f, 0x7f, 0x80, 0xc3, 0xa9, 0xff}
	for n := range 2000 {
		data := make([]byte, rng.IntN(40))
		for i := range data {
			if rng.IntN(4) == 0 {
				data[i] = pick[rng.IntN(len(pick))]
			} else {
				data[i] = 'a' + byte(rng.IntN(26))
			}
		}
		for start := 0; start <= len(data); start++ {
			end, high := nextSpecialHigh(data, start)
			want := nextSpecial(data, start)
			wantHigh := false
			for _, c := range data[start:want] {
				wantHigh = wantHigh || c >= 0x80
			}
			if end != want || high != wantHigh {
				t.Fatalf("input %d %q from %d: (%d, %v), want (%d, %v)", n, data, start, end, high, want, wantHigh)
			}
		}
	}
}

// TestSpecialsMatchesThreeTests: specials is the three zero-byte tests of
// nextSpecial's comment, each masked by its own operand, for any word.
func TestSpecialsMatchesThreeTests(t *testing.T) {
	three := func(x uint64) uint64 {
		q := x ^ (ones * '"')
		b := x ^ (ones * '\\')
		return (((q - ones) &^ q) | ((b - ones) &^ b) | ((x - ones*0x20) &^ x)) & highs
	}
	rng := rand.New(rand.NewPCG(3, 5))
	pick := []byte{0, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	for range 200000 {
		var x uint64
		for k := range 8 {
			c := byte(rng.Uint32())
			if rng.IntN(2) == 0 {
				c = pick[rng.IntN(len(pick))]
			}
			x |= uint64(c) << (8 * k)
		}
		if got, want := specials(x), three(x); got != want {
			t.Fatalf("specials(%#016x) = %#016x, want %#016x", x, got, want)
		}
	}
}
