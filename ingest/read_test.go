package ingest

import (
	"bytes"
	"strings"
	"testing"
)

// TestLineReaderLongAndOddLines covers what bufio.Scanner gets wrong: lines
// longer than any buffer, CRLF endings, blank lines, a last line with no
// newline, and invalid UTF-8.
func TestLineReaderLongAndOddLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	input := "a\r\n\n  \n" + long + "\n\xff\xfeb\nlast"
	lr := NewLineReader(strings.NewReader(input))
	type line struct {
		text      string
		n         int
		truncated bool
		bad       bool
	}
	want := []line{{"a", 1, false, false}, {long, 4, false, false}, {"\uFFFDb", 5, false, true}, {"last", 6, true, false}}
	for i, w := range want {
		got, n, ok := lr.Next()
		if !ok {
			t.Fatalf("line %d: reader ended early", i)
		}
		if string(got) != w.text || n != w.n || lr.Truncated() != w.truncated || lr.BadUTF8() != w.bad {
			t.Errorf("line %d: got (%.20q, %d, truncated=%v, bad=%v), want (%.20q, %d, %v, %v)", i, got, n, lr.Truncated(), lr.BadUTF8(), w.text, w.n, w.truncated, w.bad)
		}
	}
	if _, _, ok := lr.Next(); ok {
		t.Error("reader yielded a line after the last")
	}
	if lr.Err() != nil {
		t.Errorf("clean end reported error %v", lr.Err())
	}
}

// TestDetectionKeepsFirstLine is the regression test for a detection bug:
// peeking at the second line overwrote the first line's buffer, so a small
// file whose last line has no newline was sniffed by its second line.
func TestDetectionKeepsFirstLine(t *testing.T) {
	first := `{"_type": "metadata", "key": "cli:direct", "created_at": "2026-03-01T10:00:00", "updated_at": "2026-03-01T10:00:00", "metadata": {}, "last_consolidated": 0}`
	second := `{"role": "user", "content": "hi", "timestamp": "2026-03-01T10:00:00"}`
	for _, tail := range []string{"", "\n"} {
		var formatSeen string
		out := &Sink{OnSession: func(s *Session) { formatSeen = s.Format }}
		Read(bytes.NewReader([]byte(first+"\n"+second+tail)), "x.jsonl", Options{}, out)
		if formatSeen != "nanobot" {
			t.Errorf("tail %q: detected %q, want nanobot", tail, formatSeen)
		}
	}
}
