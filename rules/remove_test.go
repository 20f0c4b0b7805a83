package rules

import (
	"slices"
	"testing"
)

// TestRemove: remove returns the list without the name, in order, and
// never changes the list it was given (a class table's lists may be
// shared with the preset extended).
func TestRemove(t *testing.T) {
	cases := []struct {
		list []string
		name string
		want []string
	}{
		{nil, "a", nil},
		{[]string{}, "a", []string{}},
		{[]string{"b", "c"}, "a", []string{"b", "c"}},
		{[]string{"a"}, "a", []string{}},
		{[]string{"b", "a", "c"}, "a", []string{"b", "c"}},
		{[]string{"a", "b", "a", "c", "a"}, "a", []string{"b", "c"}},
	}
	for _, c := range cases {
		before := slices.Clone(c.list)
		got := remove(c.list, c.name)
		if !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("remove(%q, %q) = %#v, want %#v", c.list, c.name, got, c.want)
		}
		if !slices.Equal(c.list, before) {
			t.Errorf("remove(%q, %q) changed its list to %q", before, c.name, c.list)
		}
	}
}

// TestExtendingLeavesPreset: a rules file that extends a preset and
// classes tools anew changes its own table, not the preset's.
func TestExtendingLeavesPreset(t *testing.T) {
	before, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse([]byte("extends: loopgate\nclasses:\n  read: [my_reader, Grep]\n  search: [my_search]\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.Classes["read"], "my_reader") || slices.Contains(r.Classes["search"], "Grep") {
		t.Fatalf("the file's classes: read %q, search %q", r.Classes["read"], r.Classes["search"])
	}
	after, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	for c, list := range before.Classes {
		if !slices.Equal(after.Classes[c], list) {
			t.Errorf("class %s of the preset: %q, before the file %q", c, after.Classes[c], list)
		}
	}
}
