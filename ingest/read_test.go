package ingest

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
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

// TestExpandSpecialFiles: a walked directory's entries that carry a
// transcript name but are not regular files (a named pipe, a link to a
// directory) are not read, and each is one problem, not a silent skip.
func TestExpandSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.jsonl")
	pipe := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "linked-dir.jsonl")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	var problems []Problem
	files := Expand([]string{dir}, func(p Problem) { problems = append(problems, p) })
	if len(files) != 1 || files[0] != ok {
		t.Errorf("files = %v, want only %s", files, ok)
	}
	want := map[string]string{pipe: "a named pipe, not a regular file", link: "a link to a directory"}
	if len(problems) != len(want) {
		t.Fatalf("problems = %+v, want one for each of %v", problems, want)
	}
	for _, p := range problems {
		if w, found := want[p.File]; !found || !strings.Contains(p.Message, w) {
			t.Errorf("problem %+v: want one for %s saying %q", p, p.File, w)
		}
	}
}

// TestReadCountsBytes: with Options.BytesRead, ReadFile adds every byte of
// the file as stored (a gzip file's compressed bytes), whether it is a
// transcript, junk that is left after its first lines, or empty; Read adds
// what it reads; readers may share the counter.
func TestReadCountsBytes(t *testing.T) {
	session := `{"metadata":{"session_id":"s0"},"messages":[{"role":"user","content":"hi"}]}` + "\n"
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write([]byte(strings.Repeat(session, 2000))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		// partly: Read itself leaves the file after its first lines.
		partly bool
	}{
		{"transcript", []byte(strings.Repeat(session, 2000)), false},
		{"gzip", gz.Bytes(), false},
		{"junk", bytes.Repeat([]byte("not json\n"), 100_000), true},
		{"empty", nil, false},
	}
	dir := t.TempDir()
	var shared atomic.Int64
	var total int64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".jsonl")
			if tt.name == "gzip" {
				path += ".gz"
			}
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var n atomic.Int64
			for _, c := range []*atomic.Int64{&n, &shared} {
				ReadFile(path, Options{BytesRead: c}, &Sink{})
			}
			if n.Load() != int64(len(tt.data)) {
				t.Errorf("ReadFile counted %d bytes, want %d", n.Load(), len(tt.data))
			}
			total += int64(len(tt.data))
			n.Store(0)
			Read(bytes.NewReader(tt.data), "log.jsonl", Options{BytesRead: &n}, &Sink{})
			if got := n.Load(); tt.partly && (got <= 0 || got >= int64(len(tt.data))) ||
				!tt.partly && got != int64(len(tt.data)) {
				t.Errorf("Read counted %d of %d bytes (partly: %v)", got, len(tt.data), tt.partly)
			}
		})
	}
	if shared.Load() != total {
		t.Errorf("the shared counter has %d bytes, want %d", shared.Load(), total)
	}
}

func TestCallsHint(t *testing.T) {
	for _, tc := range []struct {
		size int64
		want int
	}{
		{0, 0},    // unknown: maps start small
		{4095, 0}, // a small file: no table made larger
		{60 << 20, 15360},
		{1 << 40, 1 << 16}, // capped
	} {
		if got := callsHint(tc.size); got != tc.want {
			t.Errorf("callsHint(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}
