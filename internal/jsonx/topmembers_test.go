package jsonx

import (
	"reflect"
	"strings"
	"testing"
)

// TestTopMembers: every member TopMembers reads, parsed by
// ParseMemberShared, equals the member of the object parsed whole (the
// first of its name), and TopMembers declines what it must leave to the
// whole parse.
func TestTopMembers(t *testing.T) {
	cases := []struct {
		s  string
		ok bool
	}{
		{`{}`, true},
		{`{"command":"ls -la","description":"list"}`, true},
		{`{"file_path":"/a/b.go","content":"x\ny\t\"z\"","n":12.5e3,"b":true,"z":null}`, true},
		{`{"paths":["a","b\u00e9"],"o":{"k":[1,{"x":"y"}]}}`, true},
		{` {"a" : 1 , "a" : 2 } `, true},
		{`{"a":1}x`, false},
		{`{"a":1`, false},
		{`[1,2]`, false},
		{`"text"`, false},
		{`{"a\u0062":1}`, false},
		{`{"a":1,"b":2,"c":3}`, true},
	}
	for _, c := range cases {
		var buf [8]RawMember
		top, ok := TopMembers(c.s, buf[:])
		if ok != c.ok {
			t.Errorf("TopMembers(%q) ok = %v, want %v", c.s, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		whole, err := ParseString(c.s)
		if err != nil {
			t.Fatalf("ParseString(%q): %v", c.s, err)
		}
		if len(top) != len(whole.Obj) {
			t.Errorf("TopMembers(%q) read %d members, the parse %d", c.s, len(top), len(whole.Obj))
		}
		for _, m := range top {
			got, err := ParseMemberShared(m.Val)
			want, _ := whole.Get(m.Key)
			if err != nil || !reflect.DeepEqual(got, want) && !firstOfDuplicate(whole, m) {
				t.Errorf("%q: member %q = %#v (%v), the parse's %#v", c.s, m.Key, got, err, want)
			}
		}
	}
	var small [2]RawMember
	if _, ok := TopMembers(`{"a":1,"b":2,"c":3}`, small[:]); ok {
		t.Error("TopMembers read 3 members into room for 2")
	}
	// A member nested as deep as the whole parse allows inside its object
	// parses alone; one level deeper fails alone as in the object.
	for _, n := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		_, errWhole := ParseString(`{"k":` + deep + `}`)
		_, errMember := ParseMemberShared(deep)
		if (errWhole == nil) != (errMember == nil) {
			t.Errorf("%d nested arrays: the object's parse says %v, ParseMemberShared %v", n, errWhole, errMember)
		}
	}
}

// firstOfDuplicate: m is a later member of a name the object repeats (Get
// gives the first).
func firstOfDuplicate(v Value, m RawMember) bool {
	for _, x := range v.Obj {
		if x.Key == m.Key {
			return string(x.Val.String()) != m.Val
		}
	}
	return false
}
