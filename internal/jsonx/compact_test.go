package jsonx

import (
	"strings"
	"testing"
)

// compactCases are JSON texts for AppendCompact: every escape AppendQuoted
// writes and several it does not (a slash, upper-case hex, \u for a byte
// with a short escape or for a printable one, surrogates), invalid UTF-8 in
// values and keys, repeated keys, numbers of every shape, nesting, white
// space, and invalid texts.
var compactCases = []string{
	`{}`, `[]`, `""`, `"s"`, `12.5e-3`, `-0`, `1E+9`, `true`, `false`, `null`,
	` { "a" : [ 1 , 2 , { } ] , "b" : "x" } `,
	`{"output": "line\nnext\ttab \"q\" back\\slash", "exit_code": 0, "error": null}`,
	`{"s": "\/ slash \u00e9 \u4e2d \ud83d\ude00 \ud83d lone \u001b \u001B \u000a \u007f"}`,
	`["\u001b", "\u001B", "\u000a", "\u0000", "\u001f", "\u0020", "\u0041", "\u00e9", "\/"]`,
	"{\"raw\": \"\xff bad \xed\xa0\x80 é\", \"k\xfe\": 1}",
	"[\"é中😀 long enough to take a whole word of high bytes \xc3\"]",
	`{"a": 1, "a": 2, "\u0061": 3, "err\"or": "x", "error": "", "error": "second"}`,
	`{"n": [-0.5, 1E+9, 0, -12], "t": [true, false, null], "deep": [[[{"x": [{}]}]]]}`,
	`{"b": "\b\f\r\u0000\u001f\u0008\u000c"}`, `{"e": "ends with \\"}`, `{"q": "\\\"\\"}`,
	`{"x": {"error": "nested", "a": 0}, "error": {"m": [1]}, "a\/c": 1, "a/c": 2, "q\"": 3, "exit_code": -1}`,
	"[1,\n\t2\r ]", `"` + strings.Repeat(`0123456789\n`, 30) + `"`,
	// Invalid: AppendCompact must decline each.
	``, ` `, `{`, `[1,]`, `{"a" 1}`, `{"a":}`, `{a:1}`, `[1 2]`, `"unterminated`, `"bad \x"`,
	"\"ctl \x01\"", `"\u12"`, `"\uZZZZ"`, `012`, `-`, `1.`, `1e`, `tru`, `nul`, `nulL`, `+1`, `}`,
	`{"a":1,}`, `[` + strings.Repeat(`"\n"`, 3),
}

// TestAppendCompact: AppendCompact accepts exactly the values Parse
// accepts, writes the text Value.String gives, and ends just past the
// value whatever follows it.
func TestAppendCompact(t *testing.T) {
	for _, in := range compactCases {
		for _, suffix := range []string{"", " , 1"} {
			checkAppendCompact(t, []byte(in+suffix), len(in))
		}
		// A valid value inside a record, after a key: depth 1.
		if _, err := Parse([]byte(in)); err != nil {
			continue
		}
		data := []byte(`{"k": ` + in + `}`)
		v, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		val, _ := v.Get("k")
		got, end, ok := AppendCompact([]byte("x"), data, len(`{"k":`), 1)
		if !ok || string(got) != "x"+val.String() || !AtEnd(data[:len(data)-1], end) {
			t.Errorf("%s: AppendCompact = %s, %v ending at %d, want x%s", data, got, ok, end, val.String())
		}
	}
}

// checkAppendCompact compares AppendCompact of data with Parse of its
// first n bytes (the value alone).
func checkAppendCompact(t *testing.T, data []byte, n int) {
	t.Helper()
	got, end, ok := AppendCompact([]byte("x"), data, 0, 0)
	if s, e, sok := CompactString(data, 0, 0); sok != ok || sok && ("x"+s != string(got) || e != end) {
		t.Errorf("CompactString(%q) = %q, %d, %v; AppendCompact %q, %d, %v", data, s, e, sok, got, end, ok)
	}
	v, err := Parse(data[:n])
	if ok != (err == nil) {
		t.Errorf("AppendCompact(%q): ok %v, Parse: %v", data, ok, err)
		return
	}
	if !ok {
		return
	}
	if want := "x" + v.String(); string(got) != want {
		t.Errorf("AppendCompact(%q) = %q, want %q", data, got, want)
	}
	checkCompactStringMembers(t, data)
	if !AtEnd(data[:n], end) || end > n {
		t.Errorf("AppendCompact(%q) ends at %d, the value ends at %d", data, end, n)
	}
}

// memberKeys are the keys checkCompactStringMembers asks for: keys the
// cases have at the top level, nested only, written with an escape, and
// not at all.
var memberKeys = []string{"a", "error", "exit_code", "output", "x", "a/c", `q"`, "missing"}

// checkCompactStringMembers holds CompactStringMembers to CompactString
// and TopLevelFields of its text.
func checkCompactStringMembers(t *testing.T, data []byte) {
	t.Helper()
	raw := make([]string, len(memberKeys))
	s, end, ok := CompactStringMembers(data, 0, 0, memberKeys, raw)
	ws, wend, wok := CompactString(data, 0, 0)
	if s != ws || end != wend || ok != wok {
		t.Errorf("CompactStringMembers(%q) = %q, %d, %v; CompactString %q, %d, %v", data, s, end, ok, ws, wend, wok)
	}
	if !ok {
		return
	}
	want := TopLevelFields(ws, memberKeys...)
	for i, k := range memberKeys {
		if raw[i] != want[i] {
			t.Errorf("CompactStringMembers(%q): member %q = %q, TopLevelFields %q", data, k, raw[i], want[i])
		}
	}
}

// TestCompactStringMembersArguments: a raw of the wrong length, or more
// keys than it notes, is declined rather than half filled.
func TestCompactStringMembersArguments(t *testing.T) {
	data := []byte(`{"a": 1}`)
	if _, _, ok := CompactStringMembers(data, 0, 0, []string{"a"}, nil); ok {
		t.Error("raw shorter than keys taken")
	}
	many := make([]string, maxMemberKeys+1)
	if _, _, ok := CompactStringMembers(data, 0, 0, many, make([]string, len(many))); ok {
		t.Error("more keys than maxMemberKeys taken")
	}
	raw := []string{"stale"}
	if _, _, ok := CompactStringMembers([]byte(`{"a": 1`), 0, 0, []string{"a"}, raw); ok || raw[0] != "stale" {
		t.Errorf("invalid text: ok %v, raw %q", ok, raw)
	}
	if s, _, ok := CompactStringMembers(data, 0, 0, []string{"a"}, raw); !ok || s != `{"a":1}` || raw[0] != "1" {
		t.Errorf("got %q, %v, raw %q", s, ok, raw)
	}
}

// TestAppendCompactDepth: the deepest value Parse takes is taken, one
// level more is declined, and depth counts from where the value lies.
func TestAppendCompactDepth(t *testing.T) {
	nest := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	if _, _, ok := AppendCompact(nil, nest(MaxDepth+1), 0, 0); !ok {
		t.Errorf("%d levels declined; Parse takes them", MaxDepth+1)
	}
	if _, err := Parse(nest(MaxDepth + 2)); err == nil {
		t.Fatalf("Parse takes %d levels; the test's bound is wrong", MaxDepth+2)
	}
	if _, _, ok := AppendCompact(nil, nest(MaxDepth+2), 0, 0); ok {
		t.Errorf("%d levels taken; Parse declines them", MaxDepth+2)
	}
	if _, _, ok := AppendCompact(nil, nest(MaxDepth), 0, 2); ok {
		t.Errorf("%d levels taken at depth 2", MaxDepth)
	}
	if _, _, ok := AppendCompact(nil, []byte("[]"), 5, 0); ok {
		t.Errorf("a start past the end was taken")
	}
}

// FuzzAppendCompact holds AppendCompact to Parse and Value.String on any
// input.
func FuzzAppendCompact(f *testing.F) {
	for _, c := range compactCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCompactStringMembers(t, data)
		got, end, ok := AppendCompact(nil, data, 0, 0)
		v, err := Parse(data)
		if err == nil {
			if !ok || !AtEnd(data, end) {
				t.Fatalf("AppendCompact(%q): ok %v, end %d; Parse takes it", data, ok, end)
			}
			if want := v.String(); string(got) != want {
				t.Fatalf("AppendCompact(%q) = %q, want %q", data, got, want)
			}
			return
		}
		if !ok {
			return
		}
		// Taken with something after the value: the value alone parses
		// to the same text.
		if AtEnd(data, end) {
			t.Fatalf("AppendCompact(%q) takes what Parse rejects: %v", data, err)
		}
		v, err = Parse(data[:end])
		if err != nil || v.String() != string(got) {
			t.Fatalf("AppendCompact(%q) = %q up to %d; Parse of that: %v", data, got, end, err)
		}
	})
}
