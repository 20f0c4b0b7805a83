package shellcmd

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestClassifyMemo: a command read again (from the memo) reads as it did
// the first time and as an unremembered reading does, and a caller that
// appends to what it was given does not change what the next caller gets.
func TestClassifyMemo(t *testing.T) {
	long := "cat " + strings.Repeat("a", memoMaxCommand) + " > out.txt"
	cases := []struct{ cmd, cwd string }{
		{"cat README.md", ""},
		{"cat README.md", "/w/repo"}, // the same command in another directory
		{"echo x > a.txt; cp a.txt b.txt", ""},
		{"cd src && grep -rn foo .", "/w"},
		{"bash -c 'rm -f x; cat y'", ""},
		{"make build", ""},
		{long, ""}, // too long to remember: read each time
	}
	for _, c := range cases {
		want := classify(c.cmd, c.cwd)
		first := Classify(c.cmd, c.cwd)
		first.Writes = append(first.Writes, "appended")
		first.Reads = append(first.Reads, "appended")
		again := Classify(c.cmd, c.cwd)
		if !reflect.DeepEqual(again, want) {
			t.Errorf("Classify(%.40q, %q) again = %+v, want %+v", c.cmd, c.cwd, again, want)
		}
	}
}

// TestMemoGenerations: a full generation becomes the previous one, whose
// commands are still found (and moved back into the current one), and the
// one before that is dropped, so the memo stays bounded.
func TestMemoGenerations(t *testing.T) {
	var m memoTable
	key := func(i int) string { return "cat " + strconv.Itoa(i) }
	m.put(key(0), "", Command{Acts: true})
	for i := 1; i < memoEntries; i++ { // fills the first generation
		m.put(key(i), "", Command{})
	}
	m.put("next", "", Command{}) // starts the second
	if len(m.cur) != 1 || len(m.old) != memoEntries {
		t.Fatalf("after %d commands: current %d, previous %d; want 1 and %d", memoEntries+1, len(m.cur), len(m.old), memoEntries)
	}
	if c, ok := m.get(key(0), ""); !ok || !c.Acts {
		t.Fatalf("the first command, in the previous generation: %+v, %v", c, ok)
	}
	if _, ok := m.cur[memoKey{key(0), ""}]; !ok {
		t.Error("a command found in the previous generation is not moved into the current one")
	}
	for i := 0; i < memoEntries; i++ { // fills the second: the first is dropped
		m.put("second "+key(i), "", Command{})
	}
	if _, ok := m.get(key(1), ""); ok {
		t.Error("a command two generations old is still found")
	}
	if len(m.cur)+len(m.old) > 2*memoEntries {
		t.Errorf("the memo holds %d commands, more than two generations", len(m.cur)+len(m.old))
	}
}
