package jsonx

import (
	"reflect"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
)

var splitCases = []struct {
	name string
	in   string
	// arrayOK / objectOK: whether SplitArray / SplitObject read it
	// themselves (false: they hand it to Unmarshal).
	arrayOK, objectOK bool
}{
	{"empty array", `[]`, true, false},
	{"array", `[1, "two", {"three": [3]}, null, true, -4.5e1]`, true, false},
	{"array with space", " \n[ 1 ,\t[2 , 3] ]\r\n", true, false},
	{"null", `null`, true, true},
	{"null with space", "  null \n", true, true},
	{"empty object", `{}`, false, true},
	{"object", `{"a": 1, "b": "x", "c": {"d": [1, 2]}, "e": null}`, false, true},
	{"repeated key: the last wins", `{"a": 1, "a": 2}`, false, true},
	{"escaped key: left to Unmarshal", `{"a\u0062": 1}`, false, false},
	{"invalid UTF-8 key: left to Unmarshal", "{\"\xb1\": 0}", false, false},
	{"escaped values are kept raw", `{"a": "x\"y\\u00e9"}`, false, true},
	{"trailing garbage", `[1] x`, false, false},
	{"trailing comma", `[1,]`, false, false},
	{"object trailing comma", `{"a":1,}`, false, false},
	{"cut short", `[1, 2`, false, false},
	{"object cut short", `{"a": `, false, false},
	{"bad element", `[1, tru]`, false, false},
	{"nul", `nul`, false, false},
	{"null then more", `null 1`, false, false},
	{"string", `"[1]"`, false, false},
	{"number", `12`, false, false},
	{"unterminated string", `["abc]`, false, false},
	{"control character", "[\"a\x01b\"]", false, false},
	{"empty", ``, false, false},
}

// TestSplitMatchesUnmarshal pins what the split functions promise: when
// they read an input, they give exactly what Unmarshal gives; when they
// decline, nothing is lost (the caller asks Unmarshal).
func TestSplitMatchesUnmarshal(t *testing.T) {
	for _, tc := range splitCases {
		t.Run(tc.name, func(t *testing.T) {
			elems, ok := SplitArray([]byte(tc.in))
			if ok != tc.arrayOK {
				t.Errorf("SplitArray ok = %v, want %v", ok, tc.arrayOK)
			}
			if ok {
				var want []RawMessage
				if err := gojson.Unmarshal([]byte(tc.in), &want); err != nil {
					t.Fatalf("SplitArray read what Unmarshal rejects: %v", err)
				}
				if !reflect.DeepEqual(elems, want) {
					t.Errorf("SplitArray = %q, Unmarshal = %q", elems, want)
				}
			}
			members, ok := SplitObject([]byte(tc.in))
			if ok != tc.objectOK {
				t.Errorf("SplitObject ok = %v, want %v", ok, tc.objectOK)
			}
			if ok {
				var want map[string]RawMessage
				if err := gojson.Unmarshal([]byte(tc.in), &want); err != nil {
					t.Fatalf("SplitObject read what Unmarshal rejects: %v", err)
				}
				if !reflect.DeepEqual(members, want) {
					t.Errorf("SplitObject = %q, Unmarshal = %q", members, want)
				}
			}
		})
	}
}

// TestSplitDoesNotCopy checks the reason the functions exist: the pieces
// are views of the input, and appending to one cannot overwrite the next.
func TestSplitDoesNotCopy(t *testing.T) {
	data := []byte(`[10, 20]`)
	elems, ok := SplitArray(data)
	if !ok || len(elems) != 2 {
		t.Fatalf("SplitArray = %q, %v", elems, ok)
	}
	if &elems[0][0] != &data[1] {
		t.Error("the first element is a copy, not a view of the input")
	}
	_ = append(elems[0], 'x')
	if string(data) != `[10, 20]` {
		t.Errorf("appending to an element changed the input: %s", data)
	}
}

// FuzzSplit: whatever the input, a split that answers agrees with
// Unmarshal, and neither panics.
func FuzzSplit(f *testing.F) {
	for _, tc := range splitCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if elems, ok := SplitArray(data); ok {
			var want []RawMessage
			if err := gojson.Unmarshal(data, &want); err != nil {
				t.Fatalf("SplitArray read %q, which Unmarshal rejects: %v", data, err)
			}
			if !reflect.DeepEqual(elems, want) {
				t.Fatalf("SplitArray(%q) = %q, Unmarshal = %q", data, elems, want)
			}
		}
		if got, ok := cursorSplit(data); ok {
			if want, wantOK := SplitObject(data); !wantOK || !reflect.DeepEqual(got, want) {
				t.Fatalf("a Cursor walk of %q = %q, SplitObject = %q, %v", data, got, want, wantOK)
			}
		} else if want, wantOK := SplitObject(data); wantOK && want != nil {
			t.Fatalf("a Cursor walk of %q failed, SplitObject read it", data)
		}
		if members, ok := SplitObject(data); ok {
			var want map[string]RawMessage
			if err := gojson.Unmarshal(data, &want); err != nil {
				t.Fatalf("SplitObject read %q, which Unmarshal rejects: %v", data, err)
			}
			if !reflect.DeepEqual(members, want) {
				t.Fatalf("SplitObject(%q) = %q, Unmarshal = %q", data, members, want)
			}
		}
	})
}

// TestMembers pins what TopLevel, TopLevelFields, SplitObject and the
// hermes reader rely on: members in order as views of the input, the end
// of a complete object, and a stop at a syntax error or when fn says so.
func TestMembers(t *testing.T) {
	tests := []struct {
		in       string
		stopAt   string // fn returns false at this key
		want     string // key=value;... as fn saw them
		end      int
		complete bool
	}{
		{`{}`, "", "", 2, true},
		{` {"a": 1, "b\n": [2, {"c": 3}], "d":"x"} tail`, "", `a=1;b\n=[2, {"c": 3}];d="x";`, 40, true},
		{`{"a": 1, "b": 2}`, "a", "a=1;", 0, false},
		{`{"a": 1, "b": tru}`, "", "a=1;", 0, false},
		{`{"a": 1 "b": 2}`, "", "a=1;", 0, false},
		{`[1]`, "", "", 0, false},
	}
	for _, tc := range tests {
		var got strings.Builder
		end, complete := Members([]byte(tc.in), func(key []byte, escaped bool, val []byte) bool {
			got.WriteString(string(key) + "=" + string(val) + ";")
			return string(key) != tc.stopAt
		})
		if got.String() != tc.want || end != tc.end || complete != tc.complete {
			t.Errorf("Members(%q) saw %q, end %d, complete %v; want %q, %d, %v", tc.in, got.String(), end, complete, tc.want, tc.end, tc.complete)
		}
	}
}
