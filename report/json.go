package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/loopgate/loopgate/analyze"
)

// JSON writes the report as one indented document whose fields are exactly
// the analyze types' JSON tags (the --format json contract,
// docs/architecture.md). Lists are [] when empty, never null.
//
// The document is written member by member and session by session, each
// prepared (redacted, abbreviated) just before it is written: encoding the
// report whole built the entire document in memory, a copy of every
// session included, which on a corpus of a million small sessions was
// gigabytes on top of the report itself (docs/performance.md). The bytes
// are those json.Encoder writes for the whole report with a two-space
// indent (TestJSONStreamsAsEncoded).
func JSON(w io.Writer, rep *analyze.Report, opt Options) error {
	jw := newJSONDocWriter(w)
	jw.raw("{\n")
	jw.member("summary", &rep.Summary, false)
	rules := preparedRules(rep.Rules, opt)
	jw.member("rules", &rules, false)
	jw.member("tokens", &rep.Tokens, false)
	jw.list("sessions", func(elem func(any) error) error {
		return rep.EachSession(func(s *analyze.SessionResult) error {
			p := preparedSession(s, opt)
			return elem(&p)
		})
	}, false)
	jw.list("tools", eachOf(preparedTools(rep.Tools, opt)), false)
	jw.list("problems", eachOf(preparedProblems(rep.Problems, opt)), opt.Partial == nil)
	if opt.Partial != nil {
		// A shard's report (--shard K/N) carries what 'loopgate merge'
		// needs, as the JSON lines' summary line does.
		jw.member("partial", opt.Partial, true)
	}
	return jw.close()
}

// jsonDocWriter writes a two-space indented JSON object one member, or one
// list element, at a time. The first error stops it.
type jsonDocWriter struct {
	w       *bufio.Writer
	buf     bytes.Buffer
	enc     *json.Encoder
	scratch []byte // a session's bytes (appendSessionJSON)
	err     error
}

func newJSONDocWriter(w io.Writer) *jsonDocWriter {
	jw := &jsonDocWriter{w: bufio.NewWriterSize(w, 64<<10)}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw
}

func (jw *jsonDocWriter) raw(s string) {
	if jw.err == nil {
		_, jw.err = jw.w.WriteString(s)
	}
}

// value writes v as encoding/json indents it at the given nesting depth
// (its first line already placed), without the encoder's final newline.
func (jw *jsonDocWriter) value(v any, depth int) {
	if jw.err != nil {
		return
	}
	if s, ok := v.(*analyze.SessionResult); ok {
		if b, ok := appendSessionJSON(jw.scratch[:0], s, strings.Repeat("  ", depth), true); ok {
			jw.scratch = b
			_, jw.err = jw.w.Write(b)
			return
		}
	}
	jw.buf.Reset()
	jw.enc.SetIndent(strings.Repeat("  ", depth), "  ")
	if jw.err = jw.enc.Encode(v); jw.err != nil {
		return
	}
	_, jw.err = jw.w.Write(bytes.TrimSuffix(jw.buf.Bytes(), []byte("\n")))
}

// member writes a top-level member whose value is v.
func (jw *jsonDocWriter) member(key string, v any, last bool) {
	jw.raw(`  "` + key + `": `)
	jw.value(v, 1)
	jw.end(last)
}

// jsonList is a top-level member whose value is a list, written element by
// element as they come: its key goes out with the first element, so that
// the number of elements need not be known first (a spilled report's
// sessions are read from disk once; inspect writes sessions as it reads).
type jsonList struct {
	jw  *jsonDocWriter
	key string
	n   int
}

func (jw *jsonDocWriter) openList(key string) *jsonList { return &jsonList{jw: jw, key: key} }

// elem writes the next element and returns the writer's error.
func (l *jsonList) elem(v any) error {
	if l.n == 0 {
		l.jw.raw(`  "` + l.key + "\": [\n    ")
	} else {
		l.jw.raw(",\n    ")
	}
	l.n++
	l.jw.value(v, 2)
	return l.jw.err
}

// close ends the list: [] when it had no element.
func (l *jsonList) close(last bool) {
	if l.n == 0 {
		l.jw.raw(`  "` + l.key + `": []`)
	} else {
		l.jw.raw("\n  ]")
	}
	l.jw.end(last)
}

// list writes a top-level member whose value is the list of the values each
// passes to its elem in turn.
func (jw *jsonDocWriter) list(key string, each func(elem func(any) error) error, last bool) {
	l := jw.openList(key)
	if err := each(l.elem); jw.err == nil {
		jw.err = err
	}
	l.close(last)
}

// close ends the document and flushes it, returning the first error.
func (jw *jsonDocWriter) close() error {
	jw.raw("}\n")
	if jw.err != nil {
		return jw.err
	}
	return jw.w.Flush()
}

// eachOf is list's each for a slice in memory.
func eachOf[T any](xs []T) func(elem func(any) error) error {
	return func(elem func(any) error) error {
		for i := range xs {
			if err := elem(&xs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

func (jw *jsonDocWriter) end(last bool) {
	if last {
		jw.raw("\n")
	} else {
		jw.raw(",\n")
	}
}

// writeJSON encodes v with the given indent ("" for one line) and a final
// newline. HTML characters stay as written: reports are not HTML.
func writeJSON(w io.Writer, v any, indent string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(v)
}

// WriteJSON writes v as indented JSON, as every report does.
func WriteJSON(w io.Writer, v any) error { return writeJSON(w, v, "  ") }
