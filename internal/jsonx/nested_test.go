package jsonx

import (
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
)

// nestedTarget is the struct DecodeObjectNested is compared with: the
// fields of decodeTarget plus a list of them, read as a nested member.
type nestedTarget struct {
	decodeTarget
	List []decodeTarget `json:"list"`
}

// decodeNested reads data into d: the list element by element, each
// element with DecodeObjectNested. Only lists of objects are read; null
// and other elements decline, as a caller that wants them raw would.
func (d *nestedTarget) decodeNested(data []byte) bool {
	return d.decodeWith(data, nil, nil)
}

// decodeIndexed is decodeNested with the names of the object and of its
// list's elements found through FieldIndexes (DecodeObjectIndexed).
func (d *nestedTarget) decodeIndexed(data []byte) bool {
	return d.decodeWith(data, &nestedTopIndex, &nestedElemIndex)
}

var nestedTopIndex, nestedElemIndex FieldIndex

// decodeWith is decodeNested, through top and elem when they are set.
func (d *nestedTarget) decodeWith(data []byte, top, elem *FieldIndex) bool {
	decode := func(data []byte, pos, depth int, x *FieldIndex, fields []Field, nested []Nested) (int, bool) {
		if x == nil {
			return DecodeObjectNested(data, pos, depth, fields, nested)
		}
		return DecodeObjectIndexed(data, pos, depth, x, fields, nested)
	}
	readList := func(data []byte, pos, depth int) (int, bool) {
		d.List = []decodeTarget{}
		return DecodeArrayEach(data, pos, depth, func(data []byte, pos, depth int) (int, bool) {
			var e decodeTarget
			end, ok := decode(data, pos, depth, elem, e.fields(), nil)
			d.List = append(d.List, e)
			return end, ok
		})
	}
	nested := []Nested{{Name: "list", Read: readList}}
	end, ok := decode(data, 0, 0, top, d.fields(), nested)
	return ok && AtEnd(data, end)
}

// checkIndexedNested fails when the indexed reading of data differs from
// the plain one (got, ok).
func checkIndexedNested(t *testing.T, data []byte, got nestedTarget, ok bool) {
	t.Helper()
	var indexed nestedTarget
	if iok := indexed.decodeIndexed(data); iok != ok || ok && !indexed.equal(got) {
		t.Errorf("%q through FieldIndexes: %v %+v; without: %v %+v", data, iok, indexed, ok, got)
	}
}

func (d nestedTarget) equal(e nestedTarget) bool {
	if !d.decodeTarget.equal(e.decodeTarget) || len(d.List) != len(e.List) || (d.List == nil) != (e.List == nil) {
		return false
	}
	for i := range d.List {
		if !d.List[i].equal(e.List[i]) {
			return false
		}
	}
	return true
}

var nestedCases = []struct {
	name string
	in   string
	ok   bool
}{
	{"no list", `{"str": "a"}`, true},
	{"empty list", `{"list": [], "str": "a"}`, true},
	{"list of objects", `{"list": [{"str": "x", "raw": [1]}, {}, {"ptr": null, "content": "c"}], "ptr": "p"}`, true},
	{"white space", " { \"list\" : [ { \"str\" : \"x\" } , { } ] } ", true},
	{"null list: left to the caller", `{"list": null}`, false},
	{"element not an object", `{"list": [{"str": "x"}, 5]}`, false},
	{"repeated list", `{"list": [], "list": []}`, false},
	{"case-folded list", `{"List": []}`, false},
	{"element with a repeated field", `{"list": [{"str": "1", "str": "2"}]}`, false},
	{"missing comma", `{"list": [{} {}]}`, false},
	{"trailing comma", `{"list": [{},]}`, false},
	{"cut short", `{"list": [{}`, false},
	{"trailing garbage", `{"list": []} x`, false},
}

// TestDecodeObjectNested: read with nested members, an object gives what
// Unmarshal gives, or is declined.
func TestDecodeObjectNested(t *testing.T) {
	for _, tc := range nestedCases {
		t.Run(tc.name, func(t *testing.T) {
			var got nestedTarget
			ok := got.decodeNested([]byte(tc.in))
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			checkIndexedNested(t, []byte(tc.in), got, ok)
			if ok {
				var want nestedTarget
				if err := gojson.Unmarshal([]byte(tc.in), &want); err != nil {
					t.Fatalf("read what Unmarshal rejects: %v", err)
				}
				if !got.equal(want) {
					t.Errorf("got %+v, Unmarshal %+v", got, want)
				}
			}
		})
	}
}

// TestDecodeObjectNestedIsDecodeObject: without nested members, at depth
// 0, it is DecodeObject.
func TestDecodeObjectNestedIsDecodeObject(t *testing.T) {
	for _, tc := range decodeCases {
		var a, b decodeTarget
		data := []byte(tc.in)
		endA, okA := DecodeObject(data, 0, a.fields())
		endB, okB := DecodeObjectNested(data, 0, 0, b.fields(), nil)
		if okA != okB || okA && (endA != endB || !a.equal(b)) {
			t.Errorf("%s: DecodeObject %d %v %+v, DecodeObjectNested %d %v %+v", tc.name, endA, okA, a, endB, okB, b)
		}
	}
}

// TestNestedDepth: a value nested deeper than Valid takes is declined,
// wherever it is; one just within the limit is read.
func TestNestedDepth(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, n := range []int{MaxDepth - 3, MaxDepth - 2, MaxDepth - 1, MaxDepth} {
		for _, in := range []string{
			`{"list": [{"raw": ` + deep(n) + `}]}`,
			`{"list": [{"other": ` + deep(n) + `}]}`,
		} {
			var got nestedTarget
			if ok, valid := got.decodeNested([]byte(in)), Valid([]byte(in)); ok != valid {
				t.Errorf("depth %d: read %v, Valid %v", n, ok, valid)
			}
		}
	}
}

// TestNestedDepthOfStrings: a string member too deep for Valid is
// declined too, though strings are decoded, not skipped.
func TestNestedDepthOfStrings(t *testing.T) {
	for _, depth := range []int{MaxDepth - 1, MaxDepth} {
		for _, obj := range []string{`{}`, `{"str": "x"}`, `{"other": "x"}`} {
			in := strings.Repeat("[", depth) + obj + strings.Repeat("]", depth)
			var d decodeTarget
			_, ok := DecodeObjectNested([]byte(in), depth, depth, d.fields(), nil)
			if valid := Valid([]byte(in)); ok != valid {
				t.Errorf("%s at depth %d: read %v, Valid %v", obj, depth, ok, valid)
			}
		}
	}
}

// TestSkipValue checks the range SkipValue gives and that it checks what
// it skips.
func TestSkipValue(t *testing.T) {
	data := []byte(`[ {"a": [1, "x\"]"]} , 2]`)
	start, end, ok := SkipValue(data, 1, 1)
	if !ok || string(data[start:end]) != `{"a": [1, "x\"]"]}` {
		t.Fatalf("SkipValue = %q, %v", data[start:end], ok)
	}
	if _, _, ok := SkipValue([]byte(`{"a": tru}`), 0, 0); ok {
		t.Error("SkipValue accepted a bad literal")
	}
}

// FuzzDecodeObjectNested: whatever the input, the nested reading either
// declines or agrees with Unmarshal and with Valid, and never panics.
func FuzzDecodeObjectNested(f *testing.F) {
	for _, tc := range nestedCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got nestedTarget
		ok := got.decodeNested(data)
		checkIndexedNested(t, data, got, ok)
		if !ok {
			return
		}
		if !Valid(data) {
			t.Fatalf("read %q, which is not valid", data)
		}
		var want nestedTarget
		if err := gojson.Unmarshal(data, &want); err != nil {
			t.Fatalf("read %q, which Unmarshal rejects: %v", data, err)
		}
		if !got.equal(want) {
			t.Fatalf("%q: got %+v, Unmarshal %+v", data, got, want)
		}
	})
}
