package jsonx

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// cursorSplit is SplitObject written with a Cursor, descending into
// arrays as the ingesters do (an array member is walked element by
// element, each skipped): the walk FuzzSplit holds to SplitObject.
func cursorSplit(data []byte) (map[string]RawMessage, bool) {
	c := NewCursor(data)
	if c.Peek() == 'n' {
		return nil, false // SplitObject's null case is not the Cursor's
	}
	empty, ok := c.OpenObject()
	if !ok {
		return nil, false
	}
	members := map[string]RawMessage{}
	for !empty {
		key, escaped, ok := c.Key()
		if !ok || escaped || !utf8.Valid(key) {
			return nil, false
		}
		start := c.Pos()
		if c.Peek() == '[' {
			arrEmpty, ok := c.OpenArray()
			if !ok {
				return nil, false
			}
			for !arrEmpty {
				if _, ok := c.Skip(); !ok {
					return nil, false
				}
				more, ok := c.Next(']')
				if !ok {
					return nil, false
				}
				arrEmpty = !more
			}
		} else if _, ok := c.Skip(); !ok {
			return nil, false
		}
		members[string(key)] = c.Data()[start:c.Pos():c.Pos()]
		more, ok := c.Next('}')
		if !ok {
			return nil, false
		}
		empty = !more
	}
	return members, c.AtEnd()
}

// TestCursor: a walk with the Cursor finds what SplitObject finds, and
// declines what it declines (but null, which it leaves to its caller).
func TestCursor(t *testing.T) {
	cases := append([]string{`{"a": [1, [2, {"b": 3}], "x"], "c": []}`, `{"a": [1,,2]}`, `{"a": [1 2]}`}, func() (in []string) {
		for _, tc := range splitCases {
			in = append(in, tc.in)
		}
		return in
	}()...)
	for _, in := range cases {
		got, ok := cursorSplit([]byte(in))
		want, wantOK := SplitObject([]byte(in))
		if wantOK && want == nil {
			continue // null
		}
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: cursor %q %v, SplitObject %q %v", in, got, ok, want, wantOK)
		}
	}
}

// OpenArray is OpenObject for an array: the test walks arrays element by
// element with it (production code walks them with DecodeArrayEach).
func (c *Cursor) OpenArray() (empty, ok bool) { return c.p.open('[', ']') }

// TestMemberKeyFastPath: a key read within its first two words (memberKey's
// fast path) is the key scanString reads, for keys of every length up to
// 24 with an escape, a control byte or a byte outside ASCII at each place.
func TestMemberKeyFastPath(t *testing.T) {
	for n := 0; n <= 24; n++ {
		for at := -1; at < n; at++ {
			for _, odd := range []string{`\"`, `\n`, "\x01", "é"} {
				key := strings.Repeat("k", n)
				if at >= 0 {
					key = key[:at] + odd + key[at:]
				}
				data := []byte(`"` + key + `": 1, "tail": "` + strings.Repeat("t", 40) + `"}`)
				wantEnd, wantEscaped, err := scanString(data, 1)
				c := NewCursor(data)
				got, escaped, ok := c.Key()
				if ok != (err == nil && data[wantEnd+1] == ':') {
					t.Fatalf("%q: ok %v, scanString error %v", data, ok, err)
				}
				if ok && (string(got) != string(data[1:wantEnd]) || escaped != wantEscaped) {
					t.Fatalf("%q: key %q escaped %v, want %q %v", data, got, escaped, data[1:wantEnd], wantEscaped)
				}
			}
		}
	}
}
