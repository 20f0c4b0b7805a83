package yamlstrict

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// File names a file for its errors.
type File struct {
	// Path is the file's path as given.
	Path string
	// Noun is the kind of file, as errors name it: "rules file".
	Noun string
	// Needs ends the error of an empty file with what it must hold ("it
	// needs a cases: list"); "" says nothing more.
	Needs string
	// NoAliases refuses aliases where the loader meets them (Entries,
	// AliasRefused): a rules file is read once per run and edited by
	// hand, and a value written out is clearer; a gate file follows them
	// (Resolve).
	NoAliases bool
}

// Error is a mistake in a file, at a line of it (Line 0: the file as a
// whole, as when it cannot be read).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// ErrorAt returns a mistake at a line of the file.
func (f File) ErrorAt(line int, format string, a ...any) *Error {
	return &Error{File: f.Path, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Errorf returns a mistake at n's line (line 1 when n has none).
func (f File) Errorf(n *yaml.Node, format string, a ...any) *Error {
	line := 1
	if n != nil && n.Line > 0 {
		line = n.Line
	}
	return f.ErrorAt(line, format, a...)
}

// Decode parses the file's text into its one document and returns the
// document's root node. Refused, each with the line: text that is not
// YAML, a second document, an empty document, and a document of more than
// MaxNodes nodes once its aliases are expanded.
func (f File) Decode(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, f.syntaxError(data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, f.syntaxError(data, err)
		}
		return nil, f.ErrorAt(max(extra.Line, 1), "a %s holds one YAML document; this is a second one", f.Noun)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || IsNull(doc.Content[0]) {
		// No document, or one with nothing in it ("---" alone, "~").
		msg := "the " + f.Noun + " is empty"
		if f.Needs != "" {
			msg += "; " + f.Needs
		}
		return nil, f.ErrorAt(1, "%s", msg)
	}
	if _, line := ExpandedNodes(&doc, MaxNodes); line > 0 {
		return nil, f.ErrorAt(line, "the %s holds more than %d YAML nodes once its aliases are expanded; it is refused", f.Noun, MaxNodes)
	}
	return doc.Content[0], nil
}

// IsNull reports whether n is an empty value (null, ~ or nothing).
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// parserErrors are the messages of yaml.v3's parser (as opposed to its
// scanner): it numbers their lines from 0, and leaves line 0 out (yaml.v3
// decode.go, parser.fail: "line = p.parser.context_mark.line", plus one
// only "if p.parser.error == yaml_SCANNER_ERROR"), so a file's error
// pointed one line too early.
var parserErrors = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"found undefined tag handle", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document", "found duplicate %TAG directive",
}

// syntaxError turns yaml.v3's "yaml: line N: msg" into "file:N: msg", with
// N counted from 1 whatever part of yaml.v3 found the error, and found in
// the text when yaml.v3 gives none (an unknown anchor, a control
// character, bad UTF-8).
func (f File) syntaxError(data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ":"); i > 0 {
			if n, e := strconv.Atoi(rest[:i]); e == nil {
				line, msg = n, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	switch {
	case slices.Contains(parserErrors, msg):
		line++
	case line > 0:
	case strings.HasPrefix(msg, "unknown anchor '"):
		name := strings.TrimSuffix(strings.TrimPrefix(msg, "unknown anchor '"), "' referenced")
		line = lineAt(data, bytes.Index(data, []byte("*"+name)))
	default:
		line = lineAt(data, firstNonPrintable(data))
	}
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	line = max(min(line, lines), 1)
	hint := ""
	if text := strings.Split(string(data), "\n"); line <= len(text) && strings.HasPrefix(strings.TrimLeft(text[line-1], " "), "\t") {
		hint = " (YAML is indented with spaces, not tabs)"
	}
	return f.ErrorAt(line, "the file is not valid YAML: %s%s", msg, hint)
}

// lineAt is the 1-based line of a byte offset (a negative offset: line 1).
func lineAt(data []byte, off int) int {
	if off < 0 {
		return 1
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// firstNonPrintable is the offset of the first byte YAML does not allow
// (a control character, a non-character, invalid UTF-8), or -1.
func firstNonPrintable(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		ok := r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0x7e || r == 0x85 ||
			r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
		if !ok || r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
