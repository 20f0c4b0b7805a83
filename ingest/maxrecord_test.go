package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readWith runs Read over data under opt and collects what it yields.
func readWith(data []byte, name string, opt Options) ([]*Session, []Problem) {
	var sessions []*Session
	var problems []Problem
	Read(bytes.NewReader(data), name, opt, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	return sessions, problems
}

// TestMaxRecord: a record over Options.MaxRecord is one problem naming its
// line, and the records around it are read; under the limit nothing changes.
func TestMaxRecord(t *testing.T) {
	session := func(id string) string {
		return `{"metadata":{"session_id":"` + id + `"},"messages":[{"role":"user","content":"hi ` + id + `"},{"role":"assistant","content":"done"}]}`
	}
	huge := session(strings.Repeat("x", 5000))
	text := session("a") + "\n" + huge + "\r\n" + session("b") + "\n"
	for _, c := range []struct {
		name     string
		max      int64
		sessions int
		problem  string
	}{
		{"under the limit", 1 << 20, 3, ""},
		{"over the limit", 1000, 2, "record is 9.9 KiB, over the --max-record limit of 1000 bytes: it is skipped"},
		{"limit smaller than the reader's buffer boundary", 300, 2, "over the --max-record limit of 300 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sessions, problems := readWith([]byte(text), "s.jsonl", Options{MaxRecord: c.max})
			if len(sessions) != c.sessions {
				t.Errorf("%d sessions, want %d", len(sessions), c.sessions)
			}
			if c.problem == "" {
				if len(problems) != 0 {
					t.Errorf("problems %v, want none", problems)
				}
				return
			}
			if len(problems) != 1 || problems[0].Line != 2 || !strings.Contains(problems[0].Message, c.problem) {
				t.Errorf("problems %+v, want one at line 2 saying %q", problems, c.problem)
			}
		})
	}
}

// TestMaxRecordNULs: a gzip file that is one line of NUL bytes many times
// the limit (the hostile .json.gz) is one problem at line 1, not "empty",
// and the reader holds no more than the limit (TestHugeLineMemory in the
// command's tests measures the process).
func TestMaxRecordNULs(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zeros := make([]byte, 1<<20)
	for range 8 {
		zw.Write(zeros)
	}
	zw.Close()
	sessions, problems := readWith(gz.Bytes(), "nul.json.gz", Options{MaxRecord: 1 << 20})
	if len(sessions) != 0 || len(problems) != 1 {
		t.Fatalf("%d sessions, problems %+v; want one problem", len(sessions), problems)
	}
	if p := problems[0]; p.Line != 1 || !strings.Contains(p.Message, "record is 8 MiB, over the --max-record limit of 1 MiB") {
		t.Errorf("problem %+v", p)
	}
}

// TestMaxRecordDocument: a pretty-printed document is one record; over the
// limit it is one problem at its first line, and it is not read.
func TestMaxRecordDocument(t *testing.T) {
	doc := "[\n" + strings.Repeat(`  {"role": "user", "content": "hello there"},`+"\n", 200) + `  {"role": "user", "content": "end"}` + "\n]\n"
	sessions, problems := readWith([]byte(doc), "chat.json", Options{MaxRecord: 2000})
	if len(sessions) != 0 || len(problems) != 1 || problems[0].Line != 1 ||
		!strings.Contains(problems[0].Message, "over the --max-record limit of 2.0 KiB") {
		t.Errorf("%d sessions, problems %+v", len(sessions), problems)
	}
	sessions, problems = readWith([]byte(doc), "chat.json", Options{})
	if len(sessions) != 1 || len(problems) != 0 {
		t.Errorf("under the default limit: %d sessions, problems %+v", len(sessions), problems)
	}
}

// TestLineReaderMax: the reader keeps no more than max bytes of a line it
// skips (its buffer stays small), and counts the line.
func TestLineReaderMax(t *testing.T) {
	text := "short\n" + strings.Repeat("y", 3<<20) + "\nlast\n"
	lr := NewLineReader(strings.NewReader(text))
	lr.max = 1024
	var skipped []int
	lr.onOversize = func(n int, size int64) {
		skipped = append(skipped, n)
		if size != 3<<20 {
			t.Errorf("size %d, want %d", size, 3<<20)
		}
	}
	var got []string
	for {
		line, _, ok := lr.Next()
		if !ok {
			break
		}
		got = append(got, string(line))
		if cap(lr.buf) > 1<<20 {
			t.Errorf("buffer grew to %d bytes", cap(lr.buf))
		}
	}
	if strings.Join(got, ",") != "short,last" || len(skipped) != 1 || skipped[0] != 2 {
		t.Errorf("lines %q, skipped %v", got, skipped)
	}
}

// TestCheckMatch: what a gate's glob matched is read as a walk reads it.
func TestCheckMatch(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write := func(p string) {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "in.jsonl"))
	write(filepath.Join(outside, "out.jsonl"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	links := map[string]string{
		"zero.jsonl":    "/dev/zero",
		"leaves.jsonl":  filepath.Join(outside, "out.jsonl"),
		"inside.jsonl":  filepath.Join(dir, "in.jsonl"),
		"dirlink.jsonl": filepath.Join(dir, "sub"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "in.jsonl"), ""},
		{filepath.Join(dir, "sub"), ""},
		{filepath.Join(dir, "inside.jsonl"), ""},
		{filepath.Join(dir, "zero.jsonl"), "not read: a link to a device, not to a regular file"},
		{filepath.Join(dir, "leaves.jsonl"), "not read: a link to a file outside " + dir},
		{filepath.Join(dir, "dirlink.jsonl"), "not read: a link to a directory"},
		{"/dev/zero", "not read: a device, not a regular file"},
		{filepath.Join(outside, "out.jsonl"), ""}, // a path, not a link: named as the user wrote it
	} {
		if got := CheckMatch(c.path, dir); !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("CheckMatch(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}

// FuzzLineReaderMax: with a bound, the reader yields what a plain split
// yields, except that each line over the bound is reported (its number and
// size) instead of returned; a read buffer of 16 bytes makes long lines
// span many reads.
func FuzzLineReaderMax(f *testing.F) {
	f.Add([]byte("short\nthis line is longer\r\n\nx\nlast line too long"), uint8(8))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb\n"), uint8(1))
	f.Add([]byte("   \n                         \n"), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		if max == 0 {
			return
		}
		lr := &LineReader{r: bufio.NewReaderSize(bytes.NewReader(data), 16), max: int(max)}
		type event struct {
			text []byte
			n    int
			size int64 // > 0: reported as over the bound
		}
		var got []event
		lr.onOversize = func(n int, size int64) { got = append(got, event{nil, n, size}) }
		for {
			line, n, ok := lr.Next()
			if !ok {
				break
			}
			got = append(got, event{append([]byte(nil), line...), n, 0})
		}
		raw := bytes.Split(data, []byte("\n"))
		if len(raw) > 0 && len(raw[len(raw)-1]) == 0 {
			raw = raw[:len(raw)-1]
		}
		var want []event
		for i, l := range raw {
			l = bytes.TrimRight(l, "\r\n")
			switch {
			case len(l) > int(max):
				want = append(want, event{nil, i + 1, int64(len(l))})
			case len(bytes.TrimSpace(l)) > 0:
				want = append(want, event{bytes.ToValidUTF8(l, []byte("\uFFFD")), i + 1, 0})
			}
		}
		if len(got) != len(want) {
			t.Fatalf("max %d: got %d events %+v, want %d %+v", max, len(got), got, len(want), want)
		}
		for i := range want {
			if got[i].n != want[i].n || got[i].size != want[i].size || !bytes.Equal(got[i].text, want[i].text) {
				t.Fatalf("max %d, event %d: got %+v, want %+v", max, i, got[i], want[i])
			}
		}
	})
}
