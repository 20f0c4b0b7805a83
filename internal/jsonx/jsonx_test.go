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
