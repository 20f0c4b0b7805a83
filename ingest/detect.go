package ingest

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

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
	// FixtureOnly says the reader was written from the agent's public
	// source alone: no real file of the format was read yet (`loopgate
	// formats` says so).
	FixtureOnly bool
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
	// Envelope splits a result of this format into the tool's output and
	// the envelope the agent wrote around it that changes from run to run
	// (envelope.go); nil when the whole result is the tool's output.
	Envelope func(result string) (output, envelope string)
	// Text says the reader records each response's visible text in
	// Request.Text when asked (Options.KeepText).
	Text bool
	// HookResult is a result as the agent hands it to its hooks, where
	// that is not the result it records (Codex: the command's output
	// without the header, envelope.go); nil: the recorded result. The
	// guard reads this in replay, so that replay decides as a hook inside
	// the agent does; the truth compares the output (Envelope).
	HookResult func(result string) string
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

	noLineReuse bool // Options.noLineReuse
	workers     int  // Options.Workers
	aheadAfter  int  // Options.aheadAfter
	// size is the file's size on disk when it is known and the file is
	// read as it is (not gzip): readers size their tables from it.
	size int64
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

// sniffLines is how many lines detection looks at for a first valid record.
const sniffLines = 64

// sniffBytes bounds the bytes of those lines. Detection keeps the lines it
// looked at, to hand them to the parser; without a bound a file whose first
// lines are huge junk (eight 64 MiB lines) held them all at once, over a GB.
// A file with no JSON record in its first 64 MiB is reported as
// of no known format.
const sniffBytes = 64 << 20

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

// sniffed is what sniff learned of a file: its head (the first record's
// keys), and for a one-document file the document.
type sniffed struct {
	h *Head
	// first is the line of the file's first non-blank line.
	first int
	// doc is the whole-file document when h.Doc; docBadUTF8 lists its
	// lines that held invalid UTF-8, reported when it is read (JSONL
	// lines are reported by the line reader as the parser reads them).
	doc        []byte
	docBadUTF8 []int
	// cut, when not "", is the problem of a one-record file whose stream
	// ended in a read error after the record, at line cutLine: reported
	// after the record is read.
	cut     string
	cutLine int
}

// sniff reads the head of the file: its first line, and, when that is a
// whole-file document (pretty-printed over many lines, or a file of one
// line), the document; else the first lines up to one that is a JSON
// value. What it read is given back to the line reader for the format's
// reader. ok is false, the problem reported, for an empty or unreadable
// file, a document over the record limit or not valid JSON.
func sniff(in *stream, opt Options, out *Sink) (*sniffed, bool) {
	lr, gz, maxRecord := in.lr, in.gz, opt.maxRecord()
	h := &Head{Path: in.path, Name: in.name, noLineReuse: opt.noLineReuse, workers: opt.Workers, aheadAfter: opt.aheadAfter}
	if !gz {
		h.size = opt.sizeHint
	}
	s := &sniffed{h: h}

	first, n, ok := lr.Next()
	s.first = n
	if !ok {
		if err := lr.Err(); err != nil {
			out.Problemf(0, "cannot read file: %v", readErrorText(err, gz))
		} else if lr.skipped > 0 {
			// Every line was over the limit: each is a problem already.
		} else {
			out.Problemf(0, "file is empty")
		}
		return nil, false
	}
	// The reader reuses its buffer: keep our own copy of the first line
	// before reading the next one.
	first = append([]byte(nil), first...)
	firstTruncated, firstBadUTF8 := lr.Truncated(), lr.BadUTF8()
	trimmed := bytes.TrimSpace(first)
	switch {
	case jsonx.Valid(trimmed):
		// Is this a one-record file? Peek at the next line.
		if second, n2, ok2 := lr.Next(); ok2 {
			lr.Unread(second, n2)
			lr.pending = append([]pendingLine{{first, n, firstTruncated, firstBadUTF8}}, lr.pending...)
		} else {
			s.doc = append([]byte(nil), first...)
			h.Doc = true
			h.Line = n
			if firstBadUTF8 {
				s.docBadUTF8 = append(s.docBadUTF8, n)
			}
			// A gzip stream cut right after a complete first
			// line ended the file silently; the cut must be a problem.
			if err := lr.Err(); err != nil {
				s.cutLine = lr.Lines()
				s.cut = fmt.Sprintf("file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, gz))
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
			s.docBadUTF8 = append(s.docBadUTF8, n)
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
				s.docBadUTF8 = append(s.docBadUTF8, ln)
			}
			if buf.Len()+len(line) > maxRecord {
				// A document is one record: past the limit it is not read.
				out.Problemf(n, "JSON document starting here is over the --max-record limit of %s (at line %d): it is not read", FormatSize(int64(maxRecord)), ln)
				return nil, false
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
		if err := lr.Err(); err != nil {
			// One problem for one bad spot. A document cut short
			// by the read error is not also reported as invalid JSON.
			out.Problemf(lr.Lines(), "file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, gz))
			return nil, false
		}
		s.doc = buf.Bytes()
		h.Doc = true
		h.Line = n
		if !jsonx.Valid(s.doc) {
			// Name the line where the document goes wrong (the
			// parser's error offset), else the document's first line.
			_, err := jsonx.Parse(s.doc)
			if err == nil {
				err = fmt.Errorf("invalid JSON")
			}
			line, msg, _ := jsonErrorLine(s.doc, n, err)
			out.Problemf(line, "file is not valid JSON: %s (a JSON document that is cut short or corrupt; %d lines read)", msg, lr.Lines())
			return nil, false
		}
	default:
		lr.pending = append([]pendingLine{{first, n, firstTruncated, firstBadUTF8}}, lr.pending...)
	}

	if h.Doc {
		describeDoc(h, s.doc)
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
	return s, true
}

// pickFormat is the format of the sniffed file: the forced one, else the
// first whose Sniff knows its head. nil, the problem reported, when there
// is none (or the forced one does not exist).
func pickFormat(in *stream, s *sniffed, opt Options, out *Sink) *Format {
	lr, h, n := in.lr, s.h, s.first
	var f *Format
	if opt.Format != "" {
		if f = forcedFormat(opt.Format, out); f == nil {
			return nil
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
		// A gzip file cut before its first complete record was
		// reported as "of no known format"; the cut is the cause.
		if err := lr.Err(); err != nil {
			out.Problemf(lr.Lines(), "file could not be read to the end after line %d: %v", lr.Lines(), readErrorText(err, in.gz))
			return nil
		}
		// The line of the first record detection looked at, else
		// (no line is a JSON value) the file's first line: always a line
		// of the file, never 0, which is kept for problems that have no
		// line (an empty or unreadable file).
		line := h.Line
		if line == 0 {
			line = n
		}
		if msg := claudeMetaProblem(h.Path); msg != "" {
			out.Problemf(line, "%s", msg)
			return nil
		}
		if msg := claudeJournalProblem(h.Path); msg != "" {
			out.Problemf(line, "%s", msg)
			return nil
		}
		if codexHistory(h) {
			out.Problemf(line, "not a transcript: Codex's prompt history (history.jsonl: each prompt typed, with its session_id and time); a session's transcript is its rollout under sessions/")
			return nil
		}
		if hermesSessionIndexHead(h) {
			out.Problemf(line, "not a transcript: hermes' session index (sessions.json: each chat's session key, its session_id and token counts); the sessions' transcripts are the files beside it")
			return nil
		}
		out.Problemf(line, "file is of no known format (%s); name one with --input-format", headSummary(h))
		return nil
	}
	return f
}
