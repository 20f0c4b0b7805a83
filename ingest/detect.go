package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Format is one input format: what it reads, how it is recognized, and its
// parser. Each format file registers its formats in an init function.
type Format struct {
	// ID starts with the family: "openai-chat", "hermes-export", "nanobot".
	ID string
	// Family is "openai", "hermes", "nanobot", ...
	Family string
	// Reads says in a sentence what files this format is.
	Reads string
	// Detection says in a sentence how a file is recognized.
	Detection string
	// Priority orders detection: lower is tried first.
	Priority int
	// Sniff reports whether a file whose first record is h is this format.
	Sniff func(h *Head) bool
	// ParseLines parses a JSONL file. The reader starts at the first line.
	ParseLines func(lr *LineReader, h *Head, out *Sink)
	// ParseDoc parses a file that holds one JSON document (pretty-printed
	// over many lines, or a single line).
	ParseDoc func(doc []byte, h *Head, out *Sink)
	// ParseFile reads a file that is not a stream of records, by path: an
	// SQLite database (database.go), open in h.Database. Sniff is then
	// given a Head whose Database is set and whose Keys are nil.
	ParseFile func(h *Head, out *Sink)
}

// Head is what detection knows of a file before parsing it.
type Head struct {
	// Path and Name (base name, without .gz) of the file.
	Path, Name string
	// Doc is true when the file holds a single JSON document (pretty-printed
	// or on one line) rather than JSONL records.
	Doc bool
	// Array is true when the first record is a JSON array; Keys then
	// describe its first element.
	Array bool
	// Keys are the top-level members of the first record that is a JSON
	// object (or of the first array element).
	Keys map[string]jsonx.RawMessage
	// Line is the line number of that first record.
	Line int
	// Database is set, and the rest but Path and Name left empty, when the
	// file is an SQLite database (database.go).
	Database *Database
}

// Has reports whether the first record has all the named keys.
func (h *Head) Has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := h.Keys[k]; !ok {
			return false
		}
	}
	return true
}

// String returns the first record's member key as a string, or "".
func (h *Head) String(key string) string {
	var s string
	if raw, ok := h.Keys[key]; ok {
		_ = jsonx.Unmarshal(raw, &s)
	}
	return s
}

var formats []*Format

func register(f *Format) {
	formats = append(formats, f)
	sort.SliceStable(formats, func(i, j int) bool {
		if formats[i].Priority != formats[j].Priority {
			return formats[i].Priority < formats[j].Priority
		}
		return formats[i].ID < formats[j].ID
	})
}

// Formats lists the registered formats in detection order.
func Formats() []*Format { return formats }

// LookupFormat finds a format by id.
func LookupFormat(id string) *Format {
	for _, f := range formats {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// forcedFormat looks up an --input-format, reporting one that does not
// exist.
func forcedFormat(id string, out *Sink) *Format {
	f := LookupFormat(id)
	if f == nil {
		out.Problemf(0, "unknown input format %q (known: %s)", id, strings.Join(FormatIDs(), ", "))
	}
	return f
}

// FormatIDs lists the format ids, for error messages.
func FormatIDs() []string {
	ids := make([]string, len(formats))
	for i, f := range formats {
		ids[i] = f.ID
	}
	return ids
}

// Options control reading.
type Options struct {
	// Format forces a format id instead of detecting one per file.
	Format string
	// BytesRead, when set, has the bytes read from each file added to it
	// as they are read (as stored: a gzip file's compressed bytes), for a
	// progress line that moves within a large file, not only between
	// files. Once ReadFile is done with a file, the file's whole size has
	// been added, read or not (a file of no known format is left after
	// its first lines). Readers of several files at once may share it.
	BytesRead *atomic.Int64
	// OnRead, when set, is called with the size of each chunk the line
	// reader takes in (as decoded: a gzip file's uncompressed bytes), on
	// the reading goroutine, before the chunk is parsed. The replay uses
	// it to bound what sessions not yet replayed hold across files
	// (analyze's memory gate); it may block.
	OnRead func(n int)
	// MaxRecord bounds the size of one record: a JSONL line, or a whole
	// JSON document (0: DefaultMaxRecord). A larger one is one problem
	// naming its line, and is not held: the reader skips to the next line
	// (a document is not read at all). The command line's --max-record.
	MaxRecord int64
	// Keep, when set, chooses the sessions passed on (--since, --session,
	// --tool); the others are read and dropped.
	Keep func(*Session) bool

	// sizeHint is the file's size when ReadFile knows it: a whole-file
	// document's buffer is made that large at once instead of doubling
	// its way there (a tenth of the reading of hermes snapshots).
	sizeHint int64
}

// readHook calls on with the size of every read.
type readHook struct {
	r  io.Reader
	on func(n int)
}

func (h readHook) Read(p []byte) (int, error) {
	k, err := h.r.Read(p)
	if k > 0 {
		h.on(k)
	}
	return k, err
}

// countingReader adds what it reads to n, and to own when set.
type countingReader struct {
	r   io.Reader
	n   *atomic.Int64
	own *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	if c.own != nil {
		*c.own += int64(k)
	}
	return k, err
}

// DefaultMaxRecord is Options.MaxRecord when none is given: well above any
// record seen in real transcripts (tool results of tens of MiB), well below
// what makes a few copies of one line exhaust a machine.
const DefaultMaxRecord = 256 << 20

// maxRecord is opt.MaxRecord or its default, as an int.
func (opt Options) maxRecord() int {
	if opt.MaxRecord <= 0 {
		return DefaultMaxRecord
	}
	return int(min(opt.MaxRecord, int64(math.MaxInt32)*4))
}

// FormatSize writes a byte count for a message: "256 MiB", "1.5 GiB",
// "300 bytes".
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return strconv.FormatInt(n/u.size, 10) + " " + u.name
			}
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// sniffLines is how many lines detection looks at for a first valid record.
const sniffLines = 64

// sniffBytes bounds the bytes of those lines. Detection keeps the lines it
// looked at, to hand them to the parser; without a bound a file whose first
// lines are huge junk (eight 64 MiB lines) held them all at once, over a GB
// (issue 8). A file with no JSON record in its first 64 MiB is reported as
// of no known format.
const sniffBytes = 64 << 20

// ReadFile reads one file ("-" for standard input) and sends its sessions
// and problems to out. It never panics on bad input: a parser that panics
// costs the rest of its file, reported as a problem, not the run.
func ReadFile(path string, opt Options, out *Sink) {
	out.File = path
	var r io.Reader
	if path == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			out.Problemf(0, "cannot open file: %v", errorText(err))
			return
		}
		defer f.Close()
		r = f
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			opt.sizeHint = st.Size()
		}
		if counter := opt.BytesRead; counter != nil {
			var read int64
			r, opt.BytesRead = countingReader{f, counter, &read}, nil
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				// What was not read counts as done too.
				defer func() { counter.Add(max(st.Size()-read, 0)) }()
			}
		}
		// A database is read by path, not as a stream (database.go).
		var magic [16]byte
		if k, _ := f.ReadAt(magic[:], 0); isSQLite(magic[:k]) {
			readDatabase(path, opt, out)
			return
		}
	}
	Read(r, path, opt, out)
}

// Read is ReadFile over an open reader; name is used for detection (file
// name patterns) and in messages.
func Read(r io.Reader, name string, opt Options, out *Sink) {
	out.File = name
	defer func() {
		if p := recover(); p != nil {
			out.Problemf(0, "internal error while reading this file (please report it): %v", p)
		}
	}()
	// Two buffered readers stacked: br only sniffs the gzip magic (and
	// feeds the gzip reader), the line reader's own buffer holds the lines.
	if opt.BytesRead != nil {
		r = countingReader{r, opt.BytesRead, nil}
	}
	br := headReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		headReaders.Put(br)
	}()
	if head, _ := br.Peek(len(sqliteMagic)); isSQLite(head) {
		out.Problemf(0, "file is an SQLite database: loopgate reads databases by their path, not from standard input or a stream")
		return
	}
	rr, gz, err := openMaybeGzip(br)
	if err != nil {
		out.Problemf(0, "%v", err)
		return
	}
	base := filepath.Base(name)
	if gz {
		base = strings.TrimSuffix(base, ".gz")
	}
	if opt.OnRead != nil {
		rr = readHook{rr, opt.OnRead}
	}
	lr := newPooledLineReader(rr)
	defer lr.release()
	maxRecord := opt.maxRecord()
	lr.max = maxRecord
	lr.onOversize = func(n int, size int64) {
		out.Problemf(n, "record is %s, over the --max-record limit of %s: it is skipped", FormatSize(size), FormatSize(int64(maxRecord)))
	}
	h := &Head{Path: name, Name: base}

	first, n, ok := lr.Next()
	if !ok {
		if err := lr.Err(); err != nil {
			out.Problemf(0, "cannot read file: %v", readErrorText(err, gz))
		} else if lr.skipped > 0 {
			// Every line was over the limit: each is a problem already.
		} else {
			out.Problemf(0, "file is empty")
		}
		return
	}
	// The reader reuses its buffer: keep our own copy of the first line
	// before reading the next one.
	first = append([]byte(nil), first...)
	firstTruncated, firstBadUTF8 := lr.Truncated(), lr.BadUTF8()
	trimmed := bytes.TrimSpace(first)
	var doc []byte
	// docBadUTF8 lists the lines of a document that held invalid UTF-8:
	// they are reported when the document is parsed (JSONL lines are
	// reported by the line reader as the parser reads them).
	var docBadUTF8 []int
	switch {
	case jsonx.Valid(trimmed):
		// Is this a one-record file? Peek at the next line.
		if second, n2, ok2 := lr.Next(); ok2 {
			lr.Unread(second, n2)
			lr.pending = append([]pendingLine{{first, n, firstTruncated, firstBadUTF8}}, lr.pending...)
		} else {
			doc = append([]byte(nil), first...)
			h.Doc = true
			h.Line = n
			if firstBadUTF8 {
				docBadUTF8 = append(docBadUTF8, n)
			}
			// Issue 8: a gzip stream cut right after a complete first
			// line ended the file silently; the cut must be a problem.
			if err := lr.Err(); err != nil {
				defer out.Problemf(lr.Lines(), "file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, gz))
			}
		}
	case looksLikeDocumentStart(trimmed):
		var buf bytes.Buffer
		if !gz && opt.sizeHint > 0 {
			buf.Grow(int(min(opt.sizeHint, 1<<30, int64(maxRecord))) + 1)
		}
		buf.Write(first)
		buf.WriteByte('\n')
		if firstBadUTF8 {
			docBadUTF8 = append(docBadUTF8, n)
		}
		prev := n
		for {
			line, ln, ok := lr.Next()
			if !ok {
				break
			}
			// Keep the blank lines the reader skipped, so that a newline
			// count in the document gives the file line (docpos.go).
			for ; prev+1 < ln; prev++ {
				buf.WriteByte('\n')
			}
			prev = ln
			if lr.BadUTF8() {
				docBadUTF8 = append(docBadUTF8, ln)
			}
			if buf.Len()+len(line) > maxRecord {
				// A document is one record: past the limit it is not read.
				out.Problemf(n, "JSON document starting here is over the --max-record limit of %s (at line %d): it is not read", FormatSize(int64(maxRecord)), ln)
				return
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
		if err := lr.Err(); err != nil {
			// Issue 8: one problem for one bad spot. A document cut short
			// by the read error is not also reported as invalid JSON.
			out.Problemf(lr.Lines(), "file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, gz))
			return
		}
		doc = buf.Bytes()
		h.Doc = true
		h.Line = n
		if !jsonx.Valid(doc) {
			// Issue 2: name the line where the document goes wrong (the
			// parser's error offset), else the document's first line.
			_, err := jsonx.Parse(doc)
			if err == nil {
				err = fmt.Errorf("invalid JSON")
			}
			line, msg, _ := jsonErrorLine(doc, n, err)
			out.Problemf(line, "file is not valid JSON: %s (a JSON document that is cut short or corrupt; %d lines read)", msg, lr.Lines())
			return
		}
	default:
		lr.pending = append([]pendingLine{{first, n, firstTruncated, firstBadUTF8}}, lr.pending...)
	}

	if h.Doc {
		describeDoc(h, doc)
	} else {
		// Find the first line that is a JSON value; bad lines before it are
		// reported by the parser when it reads them again.
		var seen []pendingLine
		held := 0
		for i := 0; i < sniffLines && held < sniffBytes; i++ {
			line, ln, ok := lr.Next()
			if !ok {
				break
			}
			held += len(line)
			seen = append(seen, pendingLine{line: append([]byte(nil), line...), n: ln, truncated: lr.Truncated(), badUTF8: lr.BadUTF8()})
			if jsonx.Valid(line) {
				h.Line = ln
				describe(h, line)
				break
			}
		}
		lr.pending = append(seen, lr.pending...)
	}

	var f *Format
	if opt.Format != "" {
		if f = forcedFormat(opt.Format, out); f == nil {
			return
		}
	} else {
		for _, c := range formats {
			if h.Doc && c.ParseDoc == nil && c.ParseLines == nil {
				continue
			}
			if c.ParseDoc == nil && c.ParseLines == nil {
				continue // a database format (database.go)
			}
			if c.Sniff != nil && c.Sniff(h) {
				f = c
				break
			}
		}
	}
	if f == nil {
		// Issue 8: a gzip file cut before its first complete record was
		// reported as "of no known format"; the cut is the cause.
		if err := lr.Err(); err != nil {
			out.Problemf(lr.Lines(), "file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, gz))
			return
		}
		// Issue 2: the line of the first record detection looked at, else
		// (no line is a JSON value) the file's first line: always a line
		// of the file, never 0, which is kept for problems that have no
		// line (an empty or unreadable file).
		line := h.Line
		if line == 0 {
			line = n
		}
		out.Problemf(line, "file is of no known format (%s); name one with --input-format", headSummary(h))
		return
	}

	if opt.Keep != nil {
		kept, keep := out, opt.Keep
		out = &Sink{File: kept.File, OnProblem: kept.OnProblem, OnSession: func(s *Session) {
			if keep(s) {
				kept.Session(s)
			}
		}}
	}
	if opt.Format != "" {
		var forced *forcedSink
		forced, out = newForcedSink(out, f.ID)
		defer forced.finish()
	}
	oneLine := h.Doc && !bytes.Contains(bytes.TrimSpace(doc), []byte("\n"))
	if h.Doc && (f.ParseDoc != nil || (oneLine && f.ParseLines != nil)) {
		// The document is read: its lines that held invalid UTF-8 are one
		// problem each (issue 2), as JSONL lines are.
		for _, ln := range docBadUTF8 {
			out.Problemf(ln, "%s", badUTF8Message)
		}
	}
	switch {
	case h.Doc && f.ParseDoc != nil:
		f.ParseDoc(doc, h, out)
	case oneLine && f.ParseLines != nil:
		f.ParseLines(docLineReader(doc, h), h, out)
	case !h.Doc && f.ParseLines != nil:
		lr.reportBadUTF8(out)
		f.ParseLines(lr, h, out)
		lr.flushBadUTF8()
		if err := lr.Err(); err != nil {
			out.Problemf(lr.Lines(), "file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, gz))
		}
	case f.ParseFile != nil && f.ParseLines == nil && f.ParseDoc == nil:
		out.Problemf(0, "format %s reads SQLite databases by path; this file is not one", f.ID)
	default:
		out.Problemf(0, "format %s cannot read this file (it expects %s)", f.ID, map[bool]string{true: "JSONL records", false: "one JSON document"}[h.Doc])
	}
}

// headReaders keeps the 64 KiB buffered readers of finished files for the
// next ones (see bufReaders).
var headReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// docLineReader reads a document as lines numbered as in the file: the
// lines before the document's first line are given back as blank lines.
func docLineReader(doc []byte, h *Head) *LineReader {
	if h.Line <= 1 {
		return NewLineReader(bytes.NewReader(doc))
	}
	return NewLineReader(io.MultiReader(bytes.NewReader(bytes.Repeat([]byte{'\n'}, h.Line-1)), bytes.NewReader(doc)))
}

// looksLikeDocumentStart tells a pretty-printed JSON document's first line
// ("{", "[", `{"messages": [`) from a corrupt JSONL line.
func looksLikeDocumentStart(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	if len(line) == 1 && (line[0] == '{' || line[0] == '[') {
		return true
	}
	last := line[len(line)-1]
	return (line[0] == '{' || line[0] == '[') && (last == '{' || last == '[' || last == ',')
}

// describeDoc is describe for a whole-file document, whose buffer stays as
// it is while the file is read: the members are views of it, not copies.
// describe copied every top-level member of the document (for a snapshot
// of 27 MB, all of it: a second copy alive for as long as the file was
// read) to learn its keys. A key that describe would read differently
// (escaped, or with bytes outside ASCII) sends it to describe.
func describeDoc(h *Head, doc []byte) {
	value := bytes.TrimSpace(doc)
	if len(value) > 0 && value[0] == '[' {
		h.Array = true
		elems, ok := jsonx.SplitArray(value)
		if !ok {
			return // describe's Unmarshal fails too: no keys
		}
		for _, e := range elems {
			if bytes.HasPrefix(bytes.TrimSpace(e), []byte("{")) {
				describeObjectView(h, e)
				break
			}
		}
		return
	}
	describeObjectView(h, value)
}

// describeObjectView fills h.Keys with views of the object's members, or
// falls back to describe's decoding when a key needs decoding.
func describeObjectView(h *Head, obj []byte) {
	keys := map[string]jsonx.RawMessage{}
	plain := true
	_, complete := jsonx.Members(obj, func(k []byte, escaped bool, v []byte) bool {
		for _, c := range k {
			if c >= 0x80 {
				escaped = true
			}
		}
		if escaped {
			plain = false
			return false
		}
		keys[string(k)] = v
		return true
	})
	if !plain || !complete {
		describe(h, obj)
		return
	}
	h.Keys = keys
}

func describe(h *Head, value []byte) {
	value = bytes.TrimSpace(value)
	if len(value) > 0 && value[0] == '[' {
		h.Array = true
		var elems []jsonx.RawMessage
		if jsonx.Unmarshal(value, &elems) == nil {
			for _, e := range elems {
				if bytes.HasPrefix(bytes.TrimSpace(e), []byte("{")) {
					_ = jsonx.Unmarshal(e, &h.Keys)
					break
				}
			}
		}
		return
	}
	_ = jsonx.Unmarshal(value, &h.Keys)
}

// sortedKeys lists a map's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sortedNames lists a map's keys sorted, the first 8 and "..." for more.
func sortedNames[V any](m map[string]V) []string {
	keys := sortedKeys(m)
	if len(keys) > 8 {
		keys = append(keys[:8], "...")
	}
	return keys
}

func headSummary(h *Head) string {
	if h.Keys == nil {
		if h.Line == 0 {
			return "no line in the first 64 (or the first 64 MiB) is a JSON value"
		}
		return "its first record is not a JSON object"
	}
	keys := sortedNames(h.Keys)
	what := "first record"
	if h.Array {
		what = "first element of the array"
	}
	return fmt.Sprintf("%s has keys %s", what, strings.Join(keys, ", "))
}

func readErrorText(err error, gz bool) string {
	if gz && (err == io.ErrUnexpectedEOF || strings.Contains(err.Error(), "unexpected EOF")) {
		return "gzip data ends early (the file was cut short)"
	}
	return errorText(err)
}

func errorText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
