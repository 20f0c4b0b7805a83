package jsonx

import (
	"strings"
	"testing"
)

// styledCases are JSON texts for AppendStyled, written compact by the test
// (Value.String) before they are restyled.
var styledCases = []string{
	`{}`, `[]`, `1`, `"x"`, `null`, `true`,
	`{"b":1,"a":2}`,
	`{"a":2,"b":1}`,
	`{"file_path":"/a.go","content":"line\n\t\"q\"\\ \u0001 é"}`,
	`{"b":{"d":1,"c":[{"f":1,"e":2},3]},"a":[]}`,
	`[{"b":1,"a":2},{"d":{"y":1,"x":2}}]`,
	`{"a":1,"a":0,"A":2,"":3}`,       // repeated keys keep their order
	`{"é":1,"e":2,"z":3,"\u00e9":4}`, // keys outside ASCII, one escaped in the input only
	`{"k":-1.50e+3,"j":1E2,"i":0}`,   // numbers as they stand
	`{"b\"":1,"a":2}`,                // a key with an escape: declined
	`{"b":{"a\n":1},"a":0}`,          // a nested key with an escape
	`[{"b\\":1}]`,
	`{"x":{"z":{"y":{"b":1,"a":2}}}}`,
	`"a string with \" and \\ and \n"`,
	`{"b":"\\\\\"\\\\","a":"\\","c":"\"\"\\\"x"}`, // runs of backslashes before quotes
	`{"big":"` + strings.Repeat(`word \n`, 400) + `","a":1}`,
}

// checkStyled holds AppendStyled of v's compact text to v.Append in every
// style. It must take the text unless a key the style would sort holds a
// byte AppendQuoted escapes.
func checkStyled(t *testing.T, v Value) {
	t.Helper()
	compact := v.String()
	for _, style := range []Style{Compact, Sorted, SortedTop} {
		want := string(v.Append([]byte("p"), style))
		got, ok := AppendStyled([]byte("p"), compact, style, nil)
		if !ok {
			if string(got) != "p" {
				t.Errorf("AppendStyled(%q, %d) declined but wrote %q", compact, style, got)
			}
			if !escapedKey(v, style, 0) {
				t.Errorf("AppendStyled(%q, %d) declined a text with no escaped key", compact, style)
			}
			continue
		}
		if string(got) != want {
			t.Errorf("AppendStyled(%q, %d) = %q, want %q", compact, style, got, want)
		}
	}
}

// escapedKey reports whether an object that style sorts in v has a key
// that AppendQuoted writes with an escape.
func escapedKey(v Value, style Style, depth int) bool {
	switch v.Kind {
	case Array:
		for _, e := range v.Arr {
			if escapedKey(e, style, depth+1) {
				return true
			}
		}
	case Object:
		if style == Compact || (style == SortedTop && depth > 0) {
			return false
		}
		for _, m := range v.Obj {
			if string(AppendQuoted(nil, m.Key)) != `"`+m.Key+`"` || escapedKey(m.Val, style, depth+1) {
				return true
			}
		}
	}
	return false
}

func TestAppendStyled(t *testing.T) {
	for _, c := range styledCases {
		v, err := ParseString(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		checkStyled(t, v)
	}
	// What the guard would sort is moved, and nothing else.
	for _, c := range []struct {
		in    string
		style Style
		want  string
	}{
		{`{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}`, Sorted, `{"a":[{"e":2,"f":1}],"b":{"c":2,"d":1}}`},
		{`{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}`, SortedTop, `{"a":[{"f":1,"e":2}],"b":{"d":1,"c":2}}`},
		{`{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}`, Compact, `{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}`},
		{`[{"b":1,"a":2}]`, SortedTop, `[{"b":1,"a":2}]`},
	} {
		if got, ok := AppendStyled(nil, c.in, c.style, nil); !ok || string(got) != c.want {
			t.Errorf("AppendStyled(%s, %d) = %s, %v; want %s", c.in, c.style, got, ok, c.want)
		}
	}
	// Texts seen not to be one compact value are declined, buf untouched.
	for _, in := range []string{``, `{`, `{"a":1`, `{"a":1}x`, `{"a":1} `, `{"a" :1}`, `{"a":1,}`, `{1:2}`, `{"a"}`, `{"a":}`, `{"a":1]`} {
		if got, ok := AppendStyled([]byte("p"), in, Sorted, nil); ok || string(got) != "p" {
			t.Errorf("AppendStyled(%q) = %q, %v; want it declined", in, got, ok)
		}
	}
	if _, ok := AppendStyled(nil, strings.Repeat("[", MaxDepth+2)+strings.Repeat("]", MaxDepth+2), Sorted, nil); ok {
		t.Errorf("a text deeper than MaxDepth was taken")
	}
	// Each kind of value, at the end of the text and before each kind of
	// end: skipCompact stops where Append's value ends.
	for _, v := range []string{`1`, `-2.5e3`, `true`, `null`, `"s\"t"`, `"é"`, `{}`, `[]`, `{"b":[1,{"d":"}","c":"]"}],"a":"{"}`, `[[],[{}]]`} {
		for _, in := range []string{v, `[` + v + `]`, `[` + v + `,` + v + `]`, `{"b":` + v + `,"a":` + v + `}`} {
			val, err := ParseString(in)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			checkStyled(t, val)
		}
	}
}

// TestAppendStyledKeep: keep is asked about the top-level keys alone, in
// every style, and one it refuses declines the text.
func TestAppendStyledKeep(t *testing.T) {
	noTimeout := func(k string) bool { return k != "timeout" }
	for _, style := range []Style{Compact, Sorted, SortedTop} {
		for _, c := range []struct {
			in   string
			take bool
		}{
			{`{"command":"ls","timeout":30}`, false},
			{`{"timeout":30}`, false},
			{`{"command":"ls","opts":{"timeout":30}}`, true},
			{`[{"timeout":30}]`, true},
			{`"timeout"`, true},
			{`{}`, true},
			{`{"c":1,"b\n":2}`, false}, // a top-level key with an escape is not asked about
		} {
			v, err := ParseString(c.in)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := AppendStyled([]byte("p"), c.in, style, noTimeout)
			if ok != c.take {
				t.Errorf("AppendStyled(%s, %d) with keep: ok %v, want %v", c.in, style, ok, c.take)
			}
			if want := string(v.Append([]byte("p"), style)); ok && string(got) != want || !ok && string(got) != "p" {
				t.Errorf("AppendStyled(%s, %d) with keep = %q, %v; want %q", c.in, style, got, ok, want)
			}
		}
	}
}

// FuzzAppendStyled holds AppendStyled to Value.Append on the compact text
// of anything that parses, and to no panic on any text at all.
func FuzzAppendStyled(f *testing.F) {
	for _, c := range styledCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, err := Parse(data); err == nil {
			checkStyled(t, v)
		}
		for _, style := range []Style{Compact, Sorted, SortedTop} {
			AppendStyled(nil, string(data), style, nil)
			AppendStyled(nil, string(data), style, func(k string) bool { return k != "a" })
		}
	})
}
