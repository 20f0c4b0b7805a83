package jsonx

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
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

// TestNextSpecialMatchesNaive checks the 8-bytes-at-a-time scan against a
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
		}
	}
}
