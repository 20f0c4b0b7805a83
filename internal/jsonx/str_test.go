package jsonx

import (
	"strings"
	"testing"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

var stringCases = []struct {
	in string
	ok bool // DecodeString answers itself
}{
	{`""`, true},
	{`"plain text"`, true},
	{` "spaced" ` + "\n", true},
	{`"line\nbreak \"quoted\" back\\slash \/ \b\f\r\t"`, true},
	{`"\u00e9\u4e2d\u0000"`, true},
	{`"é and 中"`, true},
	{`"\ud83d\ude00"`, true},
	{`"\uD800 lone"`, true},
	{`"\udc00\ud800"`, true},
	{`"\ud800\u0041"`, true},
	{`"\ud800\\u0041"`, true},
	{`"x\ud83d"`, true},
	{`"\ud83d\ud83d\ude00"`, true},
	{`"\ud800\udbff"`, true},
	{"\"bad \xff byte\"", false},
	{`"unterminated`, false},
	{`"a" "b"`, false},
	{`"bad \x escape"`, false},
	{"\"control \x01\"", false},
	{`null`, false},
	{`12`, false},
	{`["a"]`, false},
	{``, false},
	{`"`, false},
	{"\f\"\"", false},
}

func TestDecodeStringMatchesUnmarshal(t *testing.T) {
	for _, tc := range stringCases {
		s, ok := DecodeString([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("DecodeString(%q) ok = %v, want %v", tc.in, ok, tc.ok)
		}
		if !ok {
			continue
		}
		var want string
		if err := gojson.Unmarshal([]byte(tc.in), &want); err != nil {
			t.Errorf("DecodeString(%q) read what Unmarshal rejects: %v", tc.in, err)
		} else if s != want {
			t.Errorf("DecodeString(%q) = %q, Unmarshal = %q", tc.in, s, want)
		}
	}
}

// TestDecodeStringAt: each string DecodeString reads, placed inside a
// record, decodes the same and ends where it ends; each it rejects is
// rejected at its start too (but for trailing garbage, which
// DecodeStringAt does not look at).
func TestDecodeStringAt(t *testing.T) {
	for _, tc := range stringCases {
		trimmed := strings.Trim(tc.in, " \t\r\n")
		if !tc.ok {
			s, end, ok := DecodeStringAt([]byte(trimmed), 0)
			if tc.in == `"a" "b"` {
				if !ok || s != "a" || end != 3 {
					t.Errorf("DecodeStringAt(%q) = %q, %d, %v; want \"a\", 3, true", trimmed, s, end, ok)
				}
			} else if ok {
				t.Errorf("DecodeStringAt(%q) read %q, which DecodeString rejects", trimmed, s)
			}
			continue
		}
		rec := `{"k": ` + trimmed + `, "n": 1}`
		s, end, ok := DecodeStringAt([]byte(rec), 6)
		want, _ := DecodeString([]byte(tc.in))
		if !ok || s != want || end != 6+len(trimmed) {
			t.Errorf("DecodeStringAt(%q) = %q to %d, %v; want %q to %d", rec, s, end, ok, want, 6+len(trimmed))
		}
	}
	for _, pos := range []int{-1, 0, 99} {
		if _, _, ok := DecodeStringAt([]byte(`{"k": "v"}`), pos); ok {
			t.Errorf("DecodeStringAt at %d read a string", pos)
		}
	}
}

// FuzzDecodeString: when DecodeString answers, Unmarshal gives the same.
func FuzzDecodeString(f *testing.F) {
	for _, tc := range stringCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, end, ok := DecodeStringAt(data, 0); ok {
			if !utf8.Valid(data[:end]) {
				t.Fatalf("DecodeStringAt(%q) read a string that is not valid UTF-8", data)
			}
			var want string
			if err := gojson.Unmarshal(data[:end], &want); err != nil || s != want {
				t.Fatalf("DecodeStringAt(%q) = %q to %d; Unmarshal of that = %q, %v", data, s, end, want, err)
			}
		}
		s, ok := DecodeString(data)
		if !ok {
			return
		}
		var want string
		if err := gojson.Unmarshal(data, &want); err != nil {
			t.Fatalf("DecodeString(%q) = %q, which Unmarshal rejects: %v", data, s, err)
		}
		if s != want {
			t.Fatalf("DecodeString(%q) = %q, Unmarshal = %q", data, s, want)
		}
	})
}

// TestStringOrValueAt: a string is decoded, any other value (and a string
// with invalid UTF-8) is returned raw, a syntax error declines.
func TestStringOrValueAt(t *testing.T) {
	for _, tc := range []struct {
		in       string
		s, raw   string
		isString bool
		ok       bool
	}{
		{`"a\nb" ,`, "a\nb", `"a\nb"`, true, true},
		{`[1, {"x": 2}] ,`, "", `[1, {"x": 2}]`, false, true},
		{`null}`, "", `null`, false, true},
		{"\"bad \xff\"", "", "\"bad \xff\"", false, true},
		{"\"a\\nbad \xff\" ,", "", "\"a\\nbad \xff\"", false, true},
		{"\"a\\n\\tbad\\u00e9 \xc3\" ,", "", "\"a\\n\\tbad\\u00e9 \xc3\"", false, true},
		{"\"caf\xc3\xa9\\n\" ,", "caf\u00e9\n", "\"caf\xc3\xa9\\n\"", true, true},
		{`[1,`, "", "", false, false},
	} {
		s, raw, isString, end, ok := StringOrValueAt([]byte(tc.in), 0, 0)
		if s != tc.s || string(raw) != tc.raw || isString != tc.isString || ok != tc.ok || (ok && end != len(tc.raw)) {
			t.Errorf("%q: got %q %q %v %d %v, want %q %q %v %v", tc.in, s, raw, isString, end, ok, tc.s, tc.raw, tc.isString, tc.ok)
		}
	}
}

// TestPlainStringEnd: the closing quote of plain ASCII content, and -1
// for an escape, a control byte, a byte outside ASCII or no quote, before
// and past the first two words (where the scan changes its stride).
func TestPlainStringEnd(t *testing.T) {
	long := strings.Repeat("x", 50)
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`"abc": 1`, 4},
		{`"": 1`, 1},
		{`"` + long + `": 1`, 51},
		{`"ab\"c": 1`, -1},
		{`"` + long + `\n": 1`, -1},
		{"\"ab\x01c\": 1", -1},
		{"\"" + long + "\x1f\": 1", -1},
		{`"café": 1`, -1},
		{`"` + long + `é": 1`, -1},
		{`"abc`, -1},
		{`"` + long, -1},
	} {
		if got := PlainStringEnd([]byte(tc.in), 1); got != tc.want {
			t.Errorf("PlainStringEnd(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if got := PlainStringEnd([]byte(`"a"`), 9); got != -1 {
		t.Errorf("past the end: %d", got)
	}
}
