package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// OpenPartial opens a shard's report in a file for 'loopgate merge'. A
// replay report in JSON lines is not read whole: its summary line is read
// (all but its lists of files), and the returned part's Source reads the
// session lines and the lists of files from the file as the merge walks
// them, so that merging shards of millions of sessions holds a few lines
// of each at a time. Other reports are read whole (ReadPartialMax). close
// closes the file; call it once the merge is done.
func OpenPartial(name string, maxRecord int64) (rp *analyze.ReplayPart, tp *analyze.TuningPart, close func() error, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	var head [2]byte
	n, _ := io.ReadFull(f, head[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	if n < 2 || bytes.Equal(head[:], []byte("{\n")) {
		defer f.Close()
		rp, tp, err := ReadPartialMax(name, f, maxRecord)
		return rp, tp, nil, err
	}
	rp, err = openReplayPart(name, f, maxRecord)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return rp, nil, f.Close, nil
}

// fileSource is the analyze.PartSource of a replay report in a file: the
// session lines before the summary line, and the summary line's lists of
// files, each read from where it starts.
type fileSource struct {
	name      string
	f         *os.File
	maxRecord int64
	// summary is where the summary line starts and ends, summaryLine its
	// number; files and index are where its partial.files and
	// partial.file_index arrays start.
	summary, end, files, index int64
	summaryLine                int
}

// openReplayPart reads what a merge checks first from a replay report in
// JSON lines: its summary line, but for the lists of files.
func openReplayPart(name string, f *os.File, maxRecord int64) (*analyze.ReplayPart, error) {
	start, end, line, err := lastLine(name, f, maxRecord)
	if err != nil {
		return nil, err
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: no summary line: the report was cut short, or is not a replay report in --format jsonl", name)
	}
	src := &fileSource{name: name, f: f, maxRecord: maxRecord, summary: start, end: end, summaryLine: line, files: -1, index: -1}
	js := &jsonStream{r: bufio.NewReaderSize(io.NewSectionReader(f, start, end-start), 64<<10)}
	top, partial, hasSummary, hasPartial, err := src.walkSummary(js)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s:%d: not a JSON line of a replay report (%v)", name, line, err)
	case !hasSummary:
		return nil, fmt.Errorf("%s: no summary line: the report was cut short, or is not a replay report in --format jsonl", name)
	case !hasPartial:
		return nil, fmt.Errorf("%s:%d: the summary line has no \"partial\" member: make partial reports with --shard K/N", name, line)
	}
	var sum jsonlSummary
	var p analyze.Partial
	if e := jsonx.Unmarshal(top, &sum); e != nil {
		return nil, fmt.Errorf("%s:%d: summary line: %v", name, line, e)
	}
	if e := jsonx.Unmarshal(partial, &p); e != nil {
		return nil, fmt.Errorf("%s:%d: summary line: partial: %v", name, line, e)
	}
	return &analyze.ReplayPart{Name: name, Partial: p, Source: src,
		Report: &analyze.Report{Summary: sum.Summary, Rules: sum.Rules, Tokens: sum.Tokens, Tools: sum.Tools, Problems: sum.Problems}}, nil
}

// lastLine finds the last non-blank line of r: its start and end offsets
// and its number (0 when there is none), reading r once without holding
// its lines. A line over maxRecord bytes is an error naming it, as the
// merge would meet it.
func lastLine(name string, r io.Reader, maxRecord int64) (start, end int64, number int, err error) {
	buf := make([]byte, 1<<20)
	var off, lineStart, lineLen int64
	lines := 1
	blank := true
	finish := func(trimmed int64) error {
		if lineLen-trimmed > maxRecord {
			return fmt.Errorf("%s:%d: line of %s, over the --max-record limit of %s: not a line of a replay report (raise --max-record if it is one)", name, lines, ingest.FormatSize(lineLen-trimmed), ingest.FormatSize(maxRecord))
		}
		if !blank {
			start, end, number = lineStart, lineStart+lineLen, lines
		}
		return nil
	}
	prevCR := false
	for {
		n, rerr := r.Read(buf)
		b := buf[:n]
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			seg := b
			if i >= 0 {
				seg = b[:i]
			}
			if blank {
				for _, c := range seg {
					if c != ' ' && c != '\t' && c != '\r' {
						blank = false
						break
					}
				}
			}
			lineLen += int64(len(seg))
			if len(seg) > 0 {
				prevCR = seg[len(seg)-1] == '\r'
			}
			off += int64(len(seg))
			if i < 0 {
				break
			}
			trim := int64(0)
			if prevCR {
				trim = 1
			}
			if err := finish(trim); err != nil {
				return 0, 0, 0, err
			}
			off++
			lines++
			lineStart, lineLen, blank, prevCR = off, 0, true, false
			b = b[i+1:]
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, 0, 0, fmt.Errorf("%s: %v", name, rerr)
		}
	}
	if lineLen > 0 {
		if err := finish(0); err != nil {
			return 0, 0, 0, err
		}
	}
	return start, end, number, nil
}

// walkSummary reads the summary line: its members but "partial" as one
// JSON object (top), partial's members but its lists of files as another,
// and where those lists start (s.files, s.index).
func (s *fileSource) walkSummary(js *jsonStream) (top, partial []byte, hasSummary, hasPartial bool, err error) {
	top, partial = []byte{'{'}, []byte{'{'}
	err = js.object(func(key []byte) error {
		switch string(key) {
		case `"partial"`:
			hasPartial = true
			return js.object(func(k []byte) error {
				switch string(k) {
				case `"files"`:
					s.files = js.off
					return js.value(nil)
				case `"file_index"`:
					s.index = js.off
					return js.value(nil)
				}
				return member(&partial, k, js)
			})
		case `"summary"`:
			hasSummary = true
		}
		return member(&top, key, js)
	})
	top = append(bytes.TrimSuffix(top, []byte{','}), '}')
	partial = append(bytes.TrimSuffix(partial, []byte{','}), '}')
	return bytes.ToValidUTF8(top, []byte("\uFFFD")), bytes.ToValidUTF8(partial, []byte("\uFFFD")), hasSummary, hasPartial, err
}

// member appends a member (its raw key, then its value read from js) to
// the object being built in obj.
func member(obj *[]byte, key []byte, js *jsonStream) error {
	*obj = append(append(*obj, key...), ':')
	if err := js.value(obj); err != nil {
		return err
	}
	*obj = append(*obj, ',')
	return nil
}

// Files reads partial.files and partial.file_index side by side.
func (s *fileSource) Files() (analyze.Cursor[analyze.FilePlace], error) {
	switch {
	case s.files < 0 && s.index < 0:
		return cursor[analyze.FilePlace](func() (analyze.FilePlace, bool, error) { return analyze.FilePlace{}, false, nil }), nil
	case s.files < 0 || s.index < 0:
		return nil, fmt.Errorf("%s: its files and file_index differ in length", s.name)
	}
	files, err := s.array(s.files)
	if err != nil {
		return nil, err
	}
	index, err := s.array(s.index)
	if err != nil {
		return nil, err
	}
	j := -1
	var raw []byte
	return cursor[analyze.FilePlace](func() (analyze.FilePlace, bool, error) {
		j++
		var ok1, ok2 bool
		var err error
		raw, ok1, err = files.next(raw[:0])
		if err != nil {
			return analyze.FilePlace{}, false, s.arrayError("files", j, err)
		}
		if !ok1 {
			_, ok2, err = index.next(raw[:0])
			if err == nil && ok2 {
				err = fmt.Errorf("%s: its files and file_index differ in length", s.name)
			}
			return analyze.FilePlace{}, false, err
		}
		file, ok := jsonx.DecodeString(raw)
		if !ok {
			if e := jsonx.Unmarshal(bytes.ToValidUTF8(raw, []byte("\uFFFD")), &file); e != nil {
				return analyze.FilePlace{}, false, s.arrayError("files", j, e)
			}
		}
		raw, ok2, err = index.next(raw[:0])
		if err != nil {
			return analyze.FilePlace{}, false, s.arrayError("file_index", j, err)
		}
		if !ok2 {
			return analyze.FilePlace{}, false, fmt.Errorf("%s: its files and file_index differ in length", s.name)
		}
		i, e := strconv.Atoi(string(raw))
		if e != nil {
			return analyze.FilePlace{}, false, s.arrayError("file_index", j, fmt.Errorf("%s is not a whole number", raw))
		}
		return analyze.FilePlace{File: file, Index: i}, true, nil
	}), nil
}

func (s *fileSource) arrayError(member string, j int, err error) error {
	return fmt.Errorf("%s:%d: summary line: partial.%s[%d]: %v", s.name, s.summaryLine, member, j, err)
}

// array starts reading the summary line's array at offset at.
func (s *fileSource) array(at int64) (*jsonArray, error) {
	// Small buffers: a merge holds two per shard for its whole walk, and
	// the elements (a path, a number) are short.
	js := &jsonStream{r: bufio.NewReaderSize(io.NewSectionReader(s.f, s.summary+at, s.end-s.summary-at), 16<<10)}
	c, err := js.peek()
	if err == nil && c != '[' {
		err = fmt.Errorf("not an array")
	}
	if err != nil {
		return nil, fmt.Errorf("%s:%d: summary line: partial: %v", s.name, s.summaryLine, err)
	}
	js.r.ReadByte()
	return &jsonArray{js: js}, nil
}

// Sessions reads the session lines, which come before the summary line.
func (s *fileSource) Sessions() (analyze.Cursor[*analyze.SessionResult], error) {
	lr := ingest.NewLineReader(io.NewSectionReader(s.f, 0, s.summary))
	var over error
	lr.SetMax(int(min(s.maxRecord, 1<<40)), func(n int, size int64) {
		over = fmt.Errorf("%s:%d: line of %s, over the --max-record limit of %s: not a line of a replay report (raise --max-record if it is one)", s.name, n, ingest.FormatSize(size), ingest.FormatSize(s.maxRecord))
	})
	afterSummary := false
	return cursor[*analyze.SessionResult](func() (*analyze.SessionResult, bool, error) {
		line, n, ok := lr.Next()
		if over != nil {
			return nil, false, over
		}
		if !ok {
			if err := lr.Err(); err != nil {
				return nil, false, fmt.Errorf("%s: %v", s.name, err)
			}
			if afterSummary {
				return nil, false, fmt.Errorf("%s:%d: a line after the summary line: not one replay report", s.name, s.summaryLine)
			}
			return nil, false, nil
		}
		if afterSummary {
			return nil, false, fmt.Errorf("%s:%d: a line after the summary line: not one replay report", s.name, n)
		}
		if v, ok := jsonx.TopLevel(line, "summary"); ok && string(v) != "null" {
			// A second summary line: the report is two run together.
			afterSummary = true
			line, n, ok = lr.Next()
			if !ok {
				return nil, false, fmt.Errorf("%s:%d: a line after the summary line: not one replay report", s.name, s.summaryLine)
			}
			return nil, false, fmt.Errorf("%s:%d: a line after the summary line: not one replay report", s.name, n)
		}
		sr := new(analyze.SessionResult)
		if e := jsonx.Unmarshal(line, sr); e != nil {
			if !jsonx.Valid(line) {
				return nil, false, fmt.Errorf("%s:%d: not a JSON line of a replay report (%v)", s.name, n, e)
			}
			return nil, false, fmt.Errorf("%s:%d: session line: %v", s.name, n, e)
		}
		return sr, true, nil
	}), nil
}

// cursor is an analyze.Cursor whose file the fileSource's owner closes.
type cursor[T any] func() (T, bool, error)

func (c cursor[T]) Next() (T, bool, error) { return c() }
func (c cursor[T]) Close() error           { return nil }

// jsonStream reads JSON text from a reader a token at a time, for a line
// too long to hold (a summary line listing millions of files); off counts
// the bytes read.
type jsonStream struct {
	r   *bufio.Reader
	off int64
}

var errEnd = errors.New("unexpected end of the line")

// peek skips white space and returns the next byte without reading it.
func (js *jsonStream) peek() (byte, error) {
	for {
		c, err := js.r.ReadByte()
		if err != nil {
			return 0, errEnd
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			js.off++
			continue
		}
		js.r.UnreadByte()
		return c, nil
	}
}

// byte reads the next byte after white space, appending it to out when out
// is not nil.
func (js *jsonStream) byte(out *[]byte) (byte, error) {
	c, err := js.peek()
	if err != nil {
		return 0, err
	}
	js.r.ReadByte()
	js.off++
	if out != nil {
		*out = append(*out, c)
	}
	return c, nil
}

// str reads a string whose opening quote was read, appending its bytes
// to out when out is not nil.
func (js *jsonStream) str(out *[]byte) error {
	run := 0 // backslashes just before what comes next
	for {
		chunk, err := js.r.ReadSlice('"')
		js.off += int64(len(chunk))
		if out != nil {
			*out = append(*out, chunk...)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return errEnd
		}
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		t := len(body) - len(bytes.TrimRight(body, "\\"))
		if t == len(body) {
			run += t
		} else {
			run = t
		}
		if err == nil {
			// The quote ends the string unless an odd number of
			// backslashes escape it.
			if run%2 == 0 {
				return nil
			}
			run = 0
		}
	}
}

// value reads one JSON value, appending its text to out when out is not
// nil. It checks the nesting of brackets and braces, not every rule of
// JSON: what it keeps is decoded afterwards, which checks the rest.
func (js *jsonStream) value(out *[]byte) error {
	depth := 0
	for {
		c, err := js.byte(out)
		if err != nil {
			return err
		}
		switch c {
		case '"':
			if err := js.str(out); err != nil {
				return err
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return fmt.Errorf("unexpected %q", c)
			}
		case ',', ':':
			if depth == 0 {
				return fmt.Errorf("unexpected %q", c)
			}
		default:
			// A number or literal: read to its end.
			for {
				d, err := js.r.ReadByte()
				if err != nil {
					break
				}
				if bytes.IndexByte([]byte(" \t\r\n,]}:"), d) >= 0 {
					js.r.UnreadByte()
					break
				}
				js.off++
				if out != nil {
					*out = append(*out, d)
				}
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// object reads an object, calling member with each raw key (quotes
// included) once its colon is read; member reads the value.
func (js *jsonStream) object(member func(key []byte) error) error {
	if c, err := js.byte(nil); err != nil || c != '{' {
		return cmpErr(err, "not an object")
	}
	if c, err := js.peek(); err != nil {
		return err
	} else if c == '}' {
		js.byte(nil)
		return nil
	}
	var key []byte
	for {
		if c, err := js.byte(nil); err != nil || c != '"' {
			return cmpErr(err, "a member's key is not a string")
		}
		key = append(key[:0], '"')
		if err := js.str(&key); err != nil {
			return err
		}
		if c, err := js.byte(nil); err != nil || c != ':' {
			return cmpErr(err, "a key without a colon")
		}
		if err := member(key); err != nil {
			return err
		}
		c, err := js.byte(nil)
		if err != nil {
			return err
		}
		if c == '}' {
			return nil
		}
		if c != ',' {
			return fmt.Errorf("unexpected %q after a member", c)
		}
	}
}

func cmpErr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// jsonArray reads the elements of an array whose opening bracket was read.
type jsonArray struct {
	js    *jsonStream
	n     int
	ended bool
}

// next appends the next element's text to out; ok is false at the end.
func (a *jsonArray) next(out []byte) ([]byte, bool, error) {
	if a.ended {
		return out, false, nil
	}
	c, err := a.js.peek()
	if err != nil {
		return out, false, err
	}
	if a.n > 0 {
		a.js.byte(nil)
		switch c {
		case ']':
			a.ended = true
			return out, false, nil
		case ',':
		default:
			return out, false, fmt.Errorf("unexpected %q between elements", c)
		}
	} else if c == ']' {
		a.js.byte(nil)
		a.ended = true
		return out, false, nil
	}
	a.n++
	err = a.js.value(&out)
	return out, err == nil, err
}
