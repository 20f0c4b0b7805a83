package jsonx

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	gojson "github.com/goccy/go-json"
)

// decodeTarget is the struct DecodeObject is compared with: one field of
// each kind, under the tags its Fields name.
type decodeTarget struct {
	Str     string     `json:"str"`
	Ptr     *string    `json:"ptr"`
	Raw     RawMessage `json:"raw"`
	Text    string     `json:"content"`
	Bool    bool       `json:"bool"`
	BoolPtr *bool      `json:"boolptr"`
	Int     int64      `json:"int"`
	IntPtr  *int64     `json:"intptr"`
}

// presetTarget is where both sides of a comparison start: Bool and Int
// set, so that a null that Unmarshal leaves alone must be left alone by
// DecodeObject too.
func presetTarget() decodeTarget { return decodeTarget{Bool: true, Int: 7} }

func (d *decodeTarget) fields() []Field {
	return []Field{{Name: "str", Str: &d.Str}, {Name: "ptr", Ptr: &d.Ptr}, {Name: "raw", Raw: &d.Raw}, {Name: "content", Str: &d.Text},
		{Name: "bool", Bool: &d.Bool}, {Name: "boolptr", BoolPtr: &d.BoolPtr}, {Name: "int", Int: &d.Int}, {Name: "intptr", IntPtr: &d.IntPtr}}
}

// viewFields is fields with View set on every field, which changes how
// Str and Raw hold their values, not what they read.
func viewFields(fields []Field) []Field {
	for i := range fields {
		fields[i].View = true
	}
	return fields
}

// checkViewDecode fails when decoding data with View fields, or through a
// FieldIndex, reads anything else than decoding it plainly (want, ok).
func checkViewDecode(t *testing.T, data []byte, want decodeTarget, ok bool) {
	t.Helper()
	got := presetTarget()
	if gotOK := DecodeObjectAll(data, viewFields(got.fields())); gotOK != ok || ok && !got.equal(want) {
		t.Errorf("%q with View: %v %+v; without: %v %+v", data, gotOK, got, ok, want)
	}
	// The same names found by a FieldIndex read the same.
	checkPredicted(t, &targetIndex, data)
}

// targetIndex is the FieldIndex of decodeTarget's fields.
var targetIndex FieldIndex

func samePtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func (d decodeTarget) equal(e decodeTarget) bool {
	if !samePtr(d.Ptr, e.Ptr) || !samePtr(d.BoolPtr, e.BoolPtr) || !samePtr(d.IntPtr, e.IntPtr) {
		return false
	}
	return d.Str == e.Str && d.Text == e.Text && bytes.Equal(d.Raw, e.Raw) && (d.Raw == nil) == (e.Raw == nil) &&
		d.Bool == e.Bool && d.Int == e.Int
}

// unmarshalTarget is what Unmarshal gives for in, starting from the same
// values fields() sets.
func unmarshalTarget(in []byte) (decodeTarget, error) {
	want := presetTarget()
	err := gojson.Unmarshal(in, &want)
	return want, err
}

var decodeCases = []struct {
	name string
	in   string
	ok   bool // DecodeObjectAll reads it itself
}{
	{"empty", `{}`, true},
	{"all kinds", `{"str": "a", "ptr": "b", "raw": {"x": [1, 2.5e3, true]}, "content": "c\n\"d\" \u00e9 \ud83d\ude00"}`, true},
	{"null string leaves it", `{"str": null, "content": null}`, true},
	{"null pointer", `{"ptr": null}`, true},
	{"null raw", `{"raw": null}`, true},
	{"raw keeps its spaces", `{"raw": [ 1 , {"a" : "b"} ]}`, true},
	{"unknown members skipped", `{"other": {"deep": [1, {"x": null}]}, "str": "s", "n": -1.5}`, true},
	{"white space around", " \n{ \"str\" : \"s\" } \t", true},
	{"invalid UTF-8 becomes U+FFFD", "{\"str\": \"a\xffb\", \"content\": \"\xc3\"}", true},
	{"lone surrogate", `{"str": "\ud800x"}`, true},
	// After an escape, plain bytes are copied a word at a time: an invalid
	// byte in a whole word, and one in the word that holds the next escape.
	{"invalid UTF-8 in a word after an escape", "{\"str\": \"\\n0123\xff4567890\", \"content\": \"\\t\xfe\\n\"}", true},
	{"invalid UTF-8 before the first escape", "{\"str\": \"ab\xffc\\n\"}", true},
	{"invalid UTF-8 before a second escape", "{\"str\": \"\\nabc\xffd\\tefghijklmnop\"}", true},
	{"repeated field: left to Unmarshal", `{"str": "1", "str": "2"}`, false},
	{"case-folded key: left to Unmarshal", `{"STR": "x"}`, false},
	{"escaped key: left to Unmarshal", `{"s\u0074r": "x"}`, false},
	{"non-ASCII key: left to Unmarshal", `{"ſtr": "x"}`, false},
	{"number for a string: an error", `{"str": 1}`, false},
	{"object for a pointer: an error", `{"ptr": {}}`, false},
	{"bad skipped value", `{"other": tru}`, false},
	{"bad raw", `{"raw": [1,]}`, false},
	{"trailing garbage", `{"str": "x"} x`, false},
	{"cut short", `{"str": "x"`, false},
	{"not an object", `["str"]`, false},
	{"null document: left to Unmarshal", `null`, false},
	{"control character", "{\"str\": \"a\x01\"}", false},
	{"booleans and integers", `{"bool": false, "boolptr": true, "int": -42, "intptr": 9223372036854775807}`, true},
	{"false pointer", `{"boolptr": false, "intptr": 0}`, true},
	{"null leaves bool and int, clears pointers", `{"bool": null, "int": null, "boolptr": null, "intptr": null}`, true},
	{"minus zero", `{"int": -0}`, true},
	{"string for a bool: an error", `{"bool": "true"}`, false},
	{"number for a bool: an error", `{"boolptr": 1}`, false},
	{"bool for an int: an error", `{"int": true}`, false},
	{"fraction for an int: left to Unmarshal", `{"int": 1.0}`, false},
	{"exponent for an int: left to Unmarshal", `{"intptr": 1e3}`, false},
	{"int64 overflow: left to Unmarshal", `{"int": 9223372036854775808}`, false},
	{"bool for a string: an error", `{"str": true}`, false},
	{"bad literal", `{"bool": tru}`, false},
	{"leading zero", `{"int": 01}`, false},
	{"bad escape", `{"str": "\x"}`, false},
}

// TestDecodeObject pins DecodeObject's promise: what it reads, it reads
// as Unmarshal into the matching struct does; what it declines is left to
// Unmarshal.
func TestDecodeObject(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			got := presetTarget()
			ok := DecodeObjectAll([]byte(tc.in), got.fields())
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			checkViewDecode(t, []byte(tc.in), got, ok)
			if ok {
				want, err := unmarshalTarget([]byte(tc.in))
				if err != nil {
					t.Fatalf("DecodeObject read what Unmarshal rejects: %v", err)
				}
				if !got.equal(want) {
					t.Errorf("DecodeObject = %+v, Unmarshal = %+v", got, want)
				}
			}
		})
	}
}

// TestDecodeObjectEnd checks the end DecodeObject returns, which callers
// use to walk an array of objects, and that it starts at pos.
func TestDecodeObjectEnd(t *testing.T) {
	data := []byte(`[{"str": "a"}, {"str": "b\"}"} ,{}]`)
	var d decodeTarget
	end, ok := DecodeObject(data, 1, d.fields())
	if !ok || end != 13 || d.Str != "a" {
		t.Fatalf("first: end %d ok %v str %q", end, ok, d.Str)
	}
	end, ok = DecodeObject(data, end+1, d.fields())
	if !ok || string(data[end:]) != ` ,{}]` || d.Str != `b"}` {
		t.Fatalf("second: rest %q ok %v str %q", data[end:], ok, d.Str)
	}
}

// TestDecodeObjectViewStrings: a Str field with View holds a string
// without escapes inside the input's memory, and one with escapes (or
// invalid UTF-8, which is replaced) outside it.
func TestDecodeObjectViewStrings(t *testing.T) {
	in := []byte(`{"str": "plain é", "content": "esc\"aped", "ptr": "p"}`)
	var d decodeTarget
	if !DecodeObjectAll(in, viewFields(d.fields())) || d.Str != "plain é" || d.Text != `esc"aped` {
		t.Fatalf("decoded %+v", d)
	}
	inside := func(s string, in []byte) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		base := uintptr(unsafe.Pointer(&in[0]))
		return p >= base && p < base+uintptr(len(in))
	}
	if !inside(d.Str, in) {
		t.Errorf("the plain string %q is a copy", d.Str)
	}
	if inside(d.Text, in) || inside(*d.Ptr, in) {
		t.Errorf("the escaped string %q, or the pointer's %q, shares the input", d.Text, *d.Ptr)
	}
	bad := []byte("{\"str\": \"x\xffy\"}")
	var b decodeTarget
	if !DecodeObjectAll(bad, viewFields(b.fields())) || b.Str != "x\uFFFDy" || inside(b.Str, bad) {
		t.Errorf("invalid UTF-8: %q", b.Str)
	}
}

// FuzzDecodeObject: whatever the input, DecodeObject either declines or
// agrees with Unmarshal, and never panics.
func FuzzDecodeObject(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := presetTarget()
		ok := DecodeObjectAll(data, got.fields())
		checkViewDecode(t, data, got, ok)
		if !ok {
			return
		}
		want, err := unmarshalTarget(data)
		if err != nil {
			t.Fatalf("DecodeObject read %q, which Unmarshal rejects: %v", data, err)
		}
		if !got.equal(want) {
			t.Fatalf("DecodeObject(%q) = %+v, Unmarshal = %+v", data, got, want)
		}
	})
}

// DecodeObject is DecodeObjectNested of a top-level object with no nested
// members: what the tests below hold to Unmarshal.
func DecodeObject(data []byte, pos int, fields []Field) (end int, ok bool) {
	return DecodeObjectNested(data, pos, 0, fields, nil)
}

// DecodeObjectAll is DecodeObject of all of data: one object with nothing
// but white space around it, as Unmarshal requires.
func DecodeObjectAll(data []byte, fields []Field) bool {
	end, ok := DecodeObject(data, 0, fields)
	return ok && AtEnd(data, end)
}

// TestFieldIndexFind: a FieldIndex finds every name, a key that names
// none, and a key that equals a name only with case folded, among names
// that share lengths, first and last bytes (and so collide in its table).
func TestFieldIndexFind(t *testing.T) {
	names := []string{"type", "Type", "tape", "uuid", "id", "ID", "sessionId", "timestamp", "requestId", "a", "", "content"}
	var fields []Field
	for _, n := range names[:len(names)-1] {
		fields = append(fields, Field{Name: n})
	}
	nested := []Nested{{Name: names[len(names)-1]}}
	var x FieldIndex
	x.build(fields, nested)
	if !x.serves(len(names)) {
		t.Fatal("names not indexed")
	}
	for i, n := range names {
		if got, _ := x.find([]byte(n)); got != i {
			t.Errorf("find(%q) = %d, want %d", n, got, i)
		}
	}
	for _, tc := range []struct {
		key    string
		folded bool
	}{
		{"TYPE", true}, {"tYpe", true}, {"Id", true}, {"SESSIONID", true}, {"CONTENT", true},
		{"typo", false}, {"types", false}, {"x", false}, {"sessionIds", false}, {"A", true},
	} {
		if got, folded := x.find([]byte(tc.key)); got != -1 || folded != tc.folded {
			t.Errorf("find(%q) = %d, %v, want -1, %v", tc.key, got, folded, tc.folded)
		}
	}
	// More names than a decoder takes are not indexed; the call site is
	// then read without the index.
	var big FieldIndex
	big.build(make([]Field, maxFields+1), nil)
	if big.serves(maxFields + 1) {
		t.Error("an index of more than maxFields names")
	}
}

// predictCases are pairs of objects decoded one after the other through
// one FieldIndex: the first teaches it an order of keys, and the second
// has, where a key is guessed, bytes that differ from the guess only just
// (one byte more or less, white space before the colon, case, an escape,
// the input cut short) or that match it at the very end of the input,
// where the guess is compared without word loads.
var predictCases = []struct{ teach, then string }{
	{`{"str":"a","content":"b"}`, `{"str":"a","content":"b"}`},
	{`{"str":"a","content":"b"}`, `{"str":"a","contentx":"b"}`},
	// The same, with enough input after the key for word loads.
	{`{"str":"a","content":"b","int":1}`, `{"str":"a","contentx":"b","int":1}`},
	{`{"str":"a","content":"b","int":1}`, `{"str":"a","content" :"b","int":1}`},
	{`{"str":"a","content":"b","int":1}`, `{"str":"a","conten":"b","int":1}`},
	{`{"str":"a","content":"b","int":1}`, `{"str":"a","contenT":"b","int":1}`},
	{`{"str":"a","content":"b"}`, `{"str":"a","conten":"b"}`},
	{`{"str":"a","content":"b"}`, `{"str":"a","content" :"b"}`},
	{`{"str":"a","content":"b"}`, `{"str":"a","CONTENT":"b"}`},
	{`{"str":"a","content":"b"}`, `{"str":"a","cont\u0065nt":"b"}`},
	{`{"str":"a","content":"b"}`, `{"str":"a","content":"b","content":"c"}`},
	{`{"str":"a","content":"b"}`, `{"str":"a","conte`},
	{`{"str":"a","content":"b"}`, `{"str":"a","content":`},
	{`{"str":"a","content":"b"}`, `{"str":"a","content":1}`},
	{`{"str":"a"}`, `{"str" : "a"}`},
	{`{"str":"a"}`, `{"str":`},
	{`{"str":"a"}`, `{"str"`},
	{`{"str":"a"}`, `{"STR":"a"}`},
	{`{"str":"a"}`, `{"st\u0072":"a"}`},
	// Keys that name no field are guessed too.
	{`{"other":1,"str":"a"}`, `{"other":1,"str":"a"}`},
	{`{"other":1,"str":"a"}`, `{"other":1,"STR":"a"}`},
	{`{"other":1,"str":"a"}`, `{"others":1,"str":"a"}`},
	{`{"other":1,"str":"a"}`, `{"oth\u0065r":1,"str":"a"}`},
	{`{"other":1,"ſtr":"a"}`, `{"other":1,"ſtr":"a"}`},
	{`{"a_key_longer_than_sixteen":1,"int":2}`, `{"a_key_longer_than_sixteen":1,"int":2}`},
	{`{"a_key_longer_than_sixteen":1,"int":2}`, `{"a_key_longer_than_sixteeN":1,"int":2}`},
	{`{"a_key_longer_than_sixteen":1,"int":2}`, `{"a_key_longer_than_sixteen" :1,"int":2}`},
	// A key learned after one member is guessed after it only.
	{`{"str":"a","int":1,"bool":true}`, `{"int":1,"str":"a","bool":true}`},
	{`{"str":"a","int":1,"bool":true}`, `{"bool":true,"int":1,"str":"a"}`},
}

// TestFieldIndexPredicts: objects decoded through a FieldIndex that has
// learned the order of other objects' keys read as they read without the
// index, and the keys of an object seen before are guessed.
func TestFieldIndexPredicts(t *testing.T) {
	for _, tc := range predictCases {
		var x FieldIndex
		for _, data := range []string{tc.teach, tc.then, tc.then} {
			checkPredicted(t, &x, []byte(data))
		}
	}
	// After an object, its keys are what the index guesses, in order,
	// whether they name a field or none.
	var x FieldIndex
	checkPredicted(t, &x, []byte(`{"str":"a","other":[1],"int":2}`))
	var order []string
	for k := x.guesses(nil)[0].Load(); k != nil && len(order) < 5; k = x.guesses(k)[0].Load() {
		order = append(order, k.written)
	}
	if want := []string{`"str":`, `"other":`, `"int":`}; strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("guessed keys %q, want %q", order, want)
	}
	// Objects of two kinds that alternate are both guessed: the two
	// guesses of the first key are their first keys, the one learned
	// last first (a hit on the other changes nothing).
	checkPredicted(t, &x, []byte(`{"int":1,"str":"a"}`))
	checkPredicted(t, &x, []byte(`{"str":"a","other":[1],"int":2}`))
	g := x.guesses(nil)
	if a, b := g[0].Load(), g[1].Load(); a == nil || b == nil || a.written != `"int":` || b.written != `"str":` {
		t.Errorf("guesses of the first key: %v, %v; want \"int\": then \"str\":", a, b)
	}
}

// checkPredicted fails when data decoded through x reads other than data
// decoded without an index.
func checkPredicted(t *testing.T, x *FieldIndex, data []byte) {
	t.Helper()
	want := presetTarget()
	ok := DecodeObjectAll(data, want.fields())
	got := presetTarget()
	end, gotOK := DecodeObjectIndexed(data, 0, 0, x, got.fields(), nil)
	if gotOK = gotOK && AtEnd(data, end); gotOK != ok || ok && !got.equal(want) {
		t.Errorf("%q after guesses: %v %+v; without an index: %v %+v", data, gotOK, got, ok, want)
	}
}

// TestFieldIndexGuessesConcurrently: two goroutines that decode objects of
// several kinds through one FieldIndex, as the read-ahead workers do, each
// learning and overwriting guesses the other uses, read every object as it
// reads without an index (run with -race to check the sharing itself).
func TestFieldIndexGuessesConcurrently(t *testing.T) {
	var objects [][]byte
	for _, tc := range predictCases {
		objects = append(objects, []byte(tc.teach), []byte(tc.then))
	}
	type reading struct {
		target decodeTarget
		ok     bool
	}
	want := make([]reading, len(objects))
	for i, data := range objects {
		want[i].target = presetTarget()
		want[i].ok = DecodeObjectAll(data, want[i].target.fields())
	}
	var x FieldIndex
	errs := make(chan string, 2)
	for g := range 2 {
		go func() {
			for round := range 200 {
				// The two goroutines walk the objects in different orders.
				for j := range objects {
					i := (j*(2*g+1) + round) % len(objects)
					got := presetTarget()
					end, ok := DecodeObjectIndexed(objects[i], 0, 0, &x, got.fields(), nil)
					ok = ok && AtEnd(objects[i], end)
					if ok != want[i].ok || ok && !got.equal(want[i].target) {
						errs <- fmt.Sprintf("%q: %v %+v; without an index: %v %+v", objects[i], ok, got, want[i].ok, want[i].target)
						return
					}
				}
			}
			errs <- ""
		}()
	}
	for range 2 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestFieldIndexBoundsWhatItLearns: an index learns a bounded number of
// keys that name no field, none longer than maxGuessedKey, whatever it
// reads (one object of many keys, a key of a megabyte), and reads such
// objects as without an index.
func TestFieldIndexBoundsWhatItLearns(t *testing.T) {
	var x FieldIndex
	var many strings.Builder
	many.WriteString(`{"str":"a"`)
	for i := range 3 * maxUnknownKeys {
		// Keys of one length and first and last bytes share a slot.
		fmt.Fprintf(&many, `,"k%07dz":%d`, i, i)
	}
	many.WriteString(`,"int":1}`)
	long := `{"` + strings.Repeat("k", 1<<20) + `":1,"str":"b"}`
	// The long key first: once the index has made all it may, it would
	// not be learned anyway.
	for _, data := range []string{long, long, many.String(), many.String(), `{"str":"c","int":2}`} {
		checkPredicted(t, &x, []byte(data))
	}
	// Every keySeen the index can still reach.
	reached := map[*keySeen]bool{}
	var walk func(g *guesses)
	walk = func(g *guesses) {
		for i := range g {
			if k := g[i].Load(); k != nil && !reached[k] {
				reached[k] = true
				walk(&k.next)
			}
		}
	}
	walk(&x.first)
	for i := range x.seen {
		walk(&x.seen[i].next)
	}
	for i := range x.others {
		if k := x.others[i].Load(); k != nil && !reached[k] {
			reached[k] = true
			walk(&k.next)
		}
	}
	unknown := 0
	for k := range reached {
		if k.f < 0 {
			unknown++
		}
		if len(k.written) > maxGuessedKey+3 {
			t.Errorf("a key of %d bytes is learned", len(k.written)-3)
		}
	}
	if unknown == 0 || unknown > maxUnknownKeys {
		t.Errorf("%d keys that name no field are held, want 1 to %d", unknown, maxUnknownKeys)
	}
	// Past the bound, the names are still guessed.
	if k := x.guesses(nil)[0].Load(); k == nil || k.written != `"str":` {
		t.Errorf("first key guessed after the bound: %v, want \"str\":", k)
	}
}

// FuzzFieldIndexPredicts: whatever order of keys a FieldIndex learned from
// one input, another decoded through it reads as without the index.
func FuzzFieldIndexPredicts(f *testing.F) {
	for _, tc := range predictCases {
		f.Add([]byte(tc.teach), []byte(tc.then))
	}
	f.Fuzz(func(t *testing.T, teach, then []byte) {
		var x FieldIndex
		checkPredicted(t, &x, teach)
		checkPredicted(t, &x, then)
		checkPredicted(t, &x, then)
	})
}

// TestAsciiKey: asciiKey is a byte-by-byte look for a byte of 0x80 or
// more, at every length and position around a word.
func TestAsciiKey(t *testing.T) {
	for n := 0; n <= 20; n++ {
		key := bytes.Repeat([]byte{'k'}, n)
		if !asciiKey(key) {
			t.Fatalf("asciiKey(%q) = false", key)
		}
		for i := 0; i < n; i++ {
			key[i] = 0x80
			if asciiKey(key) {
				t.Fatalf("asciiKey(%q) = true", key)
			}
			key[i] = 0x7f
			if !asciiKey(key) {
				t.Fatalf("asciiKey(%q) = false", key)
			}
			key[i] = 'k'
		}
	}
}

// TestEqualFoldASCII: for ASCII names and keys of a length, EqualFoldASCII
// is strings.EqualFold, on every pair of bytes.
func TestEqualFoldASCII(t *testing.T) {
	for a := 0; a < 0x80; a++ {
		for b := 0; b < 0x80; b++ {
			name, key := "x"+string(rune(a)), []byte{'X', byte(b)}
			if got, want := EqualFoldASCII(name, key), strings.EqualFold(name, string(key)); got != want {
				t.Fatalf("EqualFoldASCII(%q, %q) = %v, strings.EqualFold = %v", name, key, got, want)
			}
		}
	}
}
