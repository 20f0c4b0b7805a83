package analyze

// The CI gate (`loopgate gate`): a gate file lists golden transcripts and
// what a replay of each must show: summary numbers ("blocked: 4",
// "precision: >= 0.9"), what must happen to given calls, and, through
// snapshots, every decision exactly. This file loads the gate file strictly
// (every error names the file and line), runs each case, and says which
// expectations failed, with enough location to point a CI system at the
// transcript line.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// DefaultGateFile is the gate file read when none is named.
const DefaultGateFile = "loopgate.gate.yaml"

// SnapshotDir is the directory, beside the gate file, that holds the
// snapshots. Snapshot files end in ".golden" so that a directory walk over
// the golden transcripts never reads them as transcripts.
const SnapshotDir = "snapshots"

// Gate is a loaded, validated gate file.
type Gate struct {
	// File is the gate file's path as given; Dir its directory, against
	// which every path in the file is resolved.
	File  string
	Dir   string
	Cases []*GateCase
}

// GateCase is one case: transcripts, the rules to replay them under, and
// what the replay must show.
type GateCase struct {
	// Index is the 1-based position of the case in the file.
	Index int
	// Name is the case's name (given, or the transcript pattern).
	Name string
	// Line is the line of the case in the gate file.
	Line int
	// Transcript is the path or glob as written; Files the transcripts it
	// names (resolved against the gate file's directory, sorted).
	Transcript string
	Files      []string
	// Rules and Tokenizer are the effective ones (case override, else the
	// file's, else the preset loopgate and o200k_base).
	Rules     *rules.Rules
	Tokenizer string
	// Snapshot is the snapshot file ("" when snapshots are off).
	Snapshot string
	Expect   []Expectation
	Calls    []CallExpectation
	// expectsProblems: the case says how many input problems it expects;
	// otherwise a golden transcript must read without any.
	expectsProblems bool
}

// Expectation is one comparison of a summary field.
type Expectation struct {
	// Field is the summary field's JSON name.
	Field string
	// Op is ==, !=, >=, <=, > or <.
	Op string
	// Value is the number compared with; nil means null (only == and !=).
	Value *float64
	// Text is the expectation as written in the file.
	Text string
	Line int
}

// CallExpectation says what must happen to one call.
type CallExpectation struct {
	// Call is the 1-based index of the call in its session.
	Call int
	// Session picks the session (its id, or its file) when the case has
	// several.
	Session string
	// Action (allow, steer, dedup, block, halt), Detector and Count are
	// checked when set.
	Action   string
	Detector string
	Count    int
	Line     int
}

// GateOptions tune a gate run.
type GateOptions struct {
	// Jobs is the number of files read in parallel (0: one per core).
	Jobs int
	// Update rewrites the snapshots instead of comparing with them.
	Update bool
	// SnapshotArgs turns a decision's arguments into what the snapshot
	// keeps (the CLI redacts and abbreviates); nil keeps them as they are.
	SnapshotArgs func(string) string
	// SnapshotText turns a tool name or session id into what the snapshot
	// keeps (the CLI redacts); nil keeps them as they are.
	SnapshotText func(string) string
	// MaxRecord is ingest.Options.MaxRecord for every case.
	MaxRecord int64
}

// GateResult is the outcome of a gate run.
type GateResult struct {
	File     string
	Cases    []CaseResult
	Duration time.Duration
}

// Failed counts the failed cases.
func (r *GateResult) Failed() int {
	n := 0
	for i := range r.Cases {
		if !r.Cases[i].Passed() {
			n++
		}
	}
	return n
}

// SnapshotsMissing counts the cases that take a snapshot but have none
// recorded yet.
func (r *GateResult) SnapshotsMissing() int {
	n := 0
	for i := range r.Cases {
		if r.Cases[i].SnapshotMissing {
			n++
		}
	}
	return n
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Case     *GateCase
	Report   *Report
	Failures []GateFailure
	// SnapshotWritten: --update wrote the snapshot (it had changed).
	SnapshotWritten bool
	// SnapshotMissing: the case takes a snapshot but none is recorded yet;
	// the case is checked on its expectations only (not a failure).
	SnapshotMissing bool
	Duration        time.Duration
}

// Passed reports whether every expectation of the case held.
func (c *CaseResult) Passed() bool { return len(c.Failures) == 0 }

// Failure kinds.
const (
	FailExpect   = "expect"   // a summary expectation
	FailCall     = "call"     // a calls: entry
	FailSnapshot = "snapshot" // a decision differs from the snapshot
	FailProblems = "problems" // the transcripts did not read cleanly
)

// GateFailure is one failed expectation, located both in the gate file
// and, as well as we know, in a transcript.
type GateFailure struct {
	Kind string
	// Message is one line: what was expected and what happened.
	Message string
	// Field is the summary field (expect, problems) or the kind of
	// snapshot difference (changed, new, gone, session ...); Expected and
	// Actual are for renderers that show them apart.
	Field    string
	Expected string
	Actual   string
	// GateLine is the line of the expectation in the gate file (the
	// case's line for snapshots and problems).
	GateLine int
	// File and Line locate the failure in a transcript (Line 0: unknown).
	File string
	Line int
	// Session, Call, Action and Detector identify the call concerned, when
	// there is one (they make a stable fingerprint).
	Session  string
	Call     int
	Action   string
	Detector string
}

// ---------------------------------------------------------------------
// Loading

// GateFileError is a mistake in a gate file, located at a line of it
// (Line 0: the file as a whole, as when it cannot be read). Every error
// LoadGate and ParseGate return is one, and so is every error RunGate
// returns for a gate file that is wrong in a way only the replay shows; a
// CI renderer can point an annotation at File and Line.
type GateFileError struct {
	File string
	Line int
	Msg  string
}

func (e *GateFileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

func gateErrorf(file string, line int, format string, a ...any) error {
	return &GateFileError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// LoadGate reads and validates a gate file. Every error names the file and
// line, in a plain sentence.
func LoadGate(path string) (*Gate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, gateErrorf(path, 0, "cannot read the gate file: %v", errors.Unwrap(err))
	}
	return ParseGate(data, path)
}

// ParseGate validates a gate file's text; path names it in errors and
// anchors its relative paths.
func ParseGate(data []byte, path string) (*Gate, error) {
	l := &gateLoader{file: path, dir: filepath.Dir(path), rulesCache: map[string]*rules.Rules{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err == io.EOF {
		return nil, gateErrorf(path, 1, "the gate file is empty; it needs a cases: list")
	} else if err != nil {
		return nil, gateYAMLError(path, data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
		return nil, gateErrorf(path, 1, "the gate file is empty; it needs a cases: list")
	}
	// One document only: a second one (after ---) would be ignored.
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		if err != nil {
			return nil, gateYAMLError(path, data, err)
		}
		return nil, gateErrorf(path, max(next.Line, 1), "the gate file holds a second YAML document (after ---); keep everything in one")
	}
	// Cases aliasing anchored lists expand in what follows: bound the
	// expanded size first (a 245 KB file reached 24 GB).
	if _, line := rules.ExpandedYAMLNodes(&doc, rules.MaxYAMLNodes); line > 0 {
		return nil, gateErrorf(path, line, "the gate file holds more than %d YAML nodes once its aliases are expanded; it is refused (write the cases out, or use fewer aliases)", rules.MaxYAMLNodes)
	}
	return l.gate(resolveAlias(doc.Content[0]))
}

// gateYAMLError turns yaml.v3's "yaml: line N: msg" into "file:N: msg",
// with N counted from 1 whatever part of yaml.v3 found the error, and
// found in the text when yaml.v3 gives none (an unknown anchor, a control
// character, bad UTF-8).
func gateYAMLError(path string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if n, e := strconv.Atoi(rest[:i]); e == nil {
				line, msg = n, strings.TrimSpace(rest[i+2:])
			}
		}
	}
	switch {
	case containsString(rules.YAMLParserErrors, msg):
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
	return gateErrorf(path, max(min(line, lines), 1), "the file is not valid YAML: %s", msg)
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

type gateLoader struct {
	file, dir  string
	rulesCache map[string]*rules.Rules
}

func (l *gateLoader) errf(n *yaml.Node, format string, a ...any) error {
	line := 1
	if n != nil && n.Line > 0 {
		line = n.Line
	}
	return gateErrorf(l.file, line, format, a...)
}

// resolveAlias follows an alias to the node it names, returned as a
// shallow copy placed at the alias (its children are shared), so that an
// error about the value as a whole ("must be a mapping") names the line
// where it is used rather than where its anchor is. Nothing is expanded:
// an alias bomb costs no more than its text.
func resolveAlias(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.AliasNode {
		return n
	}
	at := n
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 32; depth++ {
		n = n.Alias
	}
	if n == nil {
		return at
	}
	c := *n
	c.Line, c.Column = at.Line, at.Column
	return &c
}

// mapping checks that n is a mapping with only the allowed keys, none
// repeated, and returns its values by key (and the key nodes, for lines).
func (l *gateLoader) mapping(n *yaml.Node, what string, allowed []string) (map[string]*yaml.Node, map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, l.errf(n, "%s must be a mapping (key: value lines), not %s", what, kindWord(n))
	}
	vals := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, nil, l.errf(k, "%s has a key that is not a plain word", what)
		}
		if prev, dup := keys[k.Value]; dup {
			return nil, nil, l.errf(k, "%s repeats the key %q (first at line %d)", what, k.Value, prev.Line)
		}
		if !containsString(allowed, k.Value) {
			return nil, nil, l.errf(k, "%s has an unknown key %q (known: %s)", what, k.Value, strings.Join(allowed, ", "))
		}
		keys[k.Value] = k
		vals[k.Value] = v
	}
	return vals, keys, nil
}

func kindWord(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "empty (null)"
		case "!!int", "!!float":
			return "a number (" + n.Value + ")"
		case "!!bool":
			return "a boolean (" + n.Value + ")"
		}
		return fmt.Sprintf("the text %q", n.Value)
	}
	return "something else"
}

func (l *gateLoader) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Value == "" {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			return "", l.errf(n, "%s must not be empty", key)
		}
		return "", l.errf(n, "%s must be text, not %s", key, kindWord(n))
	}
	return n.Value, nil
}

func (l *gateLoader) boolean(n *yaml.Node, key string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, l.errf(n, "%s must be true or false, not %s", key, kindWord(n))
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", nil
}

// maxCallNumber bounds call: and count: (a session of more calls would
// not fit in memory anyway).
const maxCallNumber = 1<<31 - 1

func (l *gateLoader) positiveInt(n *yaml.Node, key string) (int, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		whole := n.Tag == "!!int"
		f, err := parseExpectNumber(n.Value, whole)
		if err == nil && f > maxCallNumber && f == math.Trunc(f) || err != nil && strings.Contains(err.Error(), "out of range") {
			return 0, l.errf(n, "%s must be a whole number from 1 to %d; %s is too large", key, maxCallNumber, n.Value)
		}
		if err == nil && whole && f >= 1 {
			return int(f), nil
		}
	}
	return 0, l.errf(n, "%s must be a whole number of at least 1, not %s", key, kindWord(n))
}

// settings are the keys a case may inherit from the top of the file.
type gateSettings struct {
	preset, rulesFile string
	presetNode        *yaml.Node
	rulesNode         *yaml.Node
	tokenizer         string
	snapshots         bool
}

func (l *gateLoader) settings(vals map[string]*yaml.Node, keys map[string]*yaml.Node, where string, base gateSettings) (gateSettings, error) {
	s := base
	if vals["preset"] != nil && vals["rules"] != nil {
		return s, l.errf(keys["rules"], "%s gives both preset and rules; keep one", where)
	}
	if n := vals["preset"]; n != nil {
		v, err := l.str(n, "preset")
		if err != nil {
			return s, err
		}
		if _, err := rules.Preset(v); err != nil {
			return s, l.errf(n, "%v", err)
		}
		s.preset, s.presetNode, s.rulesFile, s.rulesNode = v, n, "", nil
	}
	if n := vals["rules"]; n != nil {
		v, err := l.str(n, "rules")
		if err != nil {
			return s, err
		}
		s.rulesFile, s.rulesNode, s.preset, s.presetNode = l.path(v), n, "", nil
	}
	if n := vals["tokenizer"]; n != nil {
		v, err := l.str(n, "tokenizer")
		if err != nil {
			return s, err
		}
		if _, err := tokens.New(v); err != nil {
			return s, l.errf(n, "%v", err)
		}
		s.tokenizer = v
	}
	key := "snapshots"
	if where != "the gate file" {
		key = "snapshot"
	}
	if n := vals[key]; n != nil {
		v, err := l.boolean(n, key)
		if err != nil {
			return s, err
		}
		s.snapshots = v
	}
	return s, nil
}

// path resolves a path of the gate file against its directory.
func (l *gateLoader) path(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.dir, filepath.FromSlash(p))
}

func (l *gateLoader) rules(s gateSettings) (*rules.Rules, error) {
	if s.rulesFile != "" {
		if r, ok := l.rulesCache[s.rulesFile]; ok {
			return r, nil
		}
		r, err := rules.Load(s.rulesFile)
		if err != nil {
			return nil, l.errf(s.rulesNode, "the rules file does not load: %v", err)
		}
		l.rulesCache[s.rulesFile] = r
		return r, nil
	}
	name := s.preset
	if name == "" {
		name = "loopgate"
	}
	r, err := rules.Preset(name)
	if err != nil {
		return nil, l.errf(s.presetNode, "%v", err)
	}
	return r, nil
}

var (
	gateTopKeys  = []string{"preset", "rules", "tokenizer", "snapshots", "cases"}
	gateCaseKeys = []string{"name", "transcript", "preset", "rules", "tokenizer", "snapshot", "expect", "calls"}
	gateCallKeys = []string{"call", "session", "action", "detector", "count"}
)

func (l *gateLoader) gate(root *yaml.Node) (*Gate, error) {
	vals, keys, err := l.mapping(root, "the gate file", gateTopKeys)
	if err != nil {
		return nil, err
	}
	base, err := l.settings(vals, keys, "the gate file", gateSettings{tokenizer: tokens.O200kBase, snapshots: true})
	if err != nil {
		return nil, err
	}
	casesNode := vals["cases"]
	if casesNode == nil {
		return nil, l.errf(root, "the gate file has no cases: list (each case names a transcript and what its replay must show)")
	}
	if casesNode.Kind != yaml.SequenceNode {
		return nil, l.errf(casesNode, "cases must be a list, not %s", kindWord(casesNode))
	}
	if len(casesNode.Content) == 0 {
		return nil, l.errf(casesNode, "cases is empty; list at least one case")
	}
	g := &Gate{File: l.file, Dir: l.dir}
	names := map[string]int{}
	slugs := map[string]int{}
	for i, cn := range casesNode.Content {
		c, err := l.gateCase(resolveAlias(cn), i+1, base)
		if err != nil {
			return nil, err
		}
		if prev, dup := names[c.Name]; dup {
			return nil, l.errf(cn, "case %d has the same name as the case at line %d (%q); names must differ", i+1, prev, c.Name)
		}
		names[c.Name] = c.Line
		if c.Snapshot != "" {
			if prev, dup := slugs[c.Snapshot]; dup {
				return nil, l.errf(cn, "case %d would share its snapshot file %s with the case at line %d; give it another name", i+1, c.Snapshot, prev)
			}
			slugs[c.Snapshot] = c.Line
		}
		g.Cases = append(g.Cases, c)
	}
	return g, nil
}

func (l *gateLoader) gateCase(n *yaml.Node, index int, base gateSettings) (*GateCase, error) {
	what := fmt.Sprintf("case %d", index)
	vals, keys, err := l.mapping(n, what, gateCaseKeys)
	if err != nil {
		return nil, err
	}
	c := &GateCase{Index: index, Line: n.Line}
	s, err := l.settings(vals, keys, what, base)
	if err != nil {
		return nil, err
	}
	if c.Rules, err = l.rules(s); err != nil {
		return nil, err
	}
	c.Tokenizer = s.tokenizer

	tn := vals["transcript"]
	if tn == nil {
		return nil, l.errf(n, "%s has no transcript: (a path or a glob, relative to the gate file)", what)
	}
	if c.Transcript, err = l.str(tn, "transcript"); err != nil {
		return nil, err
	}
	if c.Files, err = l.transcripts(tn, c.Transcript); err != nil {
		return nil, err
	}
	c.Name = c.Transcript
	if nn := vals["name"]; nn != nil {
		if c.Name, err = l.str(nn, "name"); err != nil {
			return nil, err
		}
	}
	if s.snapshots {
		c.Snapshot = filepath.Join(l.dir, SnapshotDir, slug(c.Name)+".golden")
	}
	if en := vals["expect"]; en != nil {
		if c.Expect, c.Calls, err = l.expectations(en, what); err != nil {
			return nil, err
		}
		for _, e := range c.Expect {
			if e.Field == "problems" {
				c.expectsProblems = true
			}
		}
	}
	// calls: may be given beside expect: or, as a list, under it (or
	// both); entries are checked in file order.
	if cn := vals["calls"]; cn != nil {
		cs, err := l.callList(cn)
		if err != nil {
			return nil, err
		}
		c.Calls = append(c.Calls, cs...)
		sort.SliceStable(c.Calls, func(i, j int) bool { return c.Calls[i].Line < c.Calls[j].Line })
	}
	return c, nil
}

// transcripts resolves a path or glob; matching nothing is an error.
func (l *gateLoader) transcripts(n *yaml.Node, pattern string) ([]string, error) {
	full := l.path(pattern)
	matches, err := filepath.Glob(full)
	if err != nil {
		return nil, l.errf(n, "transcript %q is not a valid glob: %v", pattern, err)
	}
	if len(matches) == 0 {
		return nil, l.errf(n, "transcript %q matches no file (looked for %s)", pattern, full)
	}
	sort.Strings(matches)
	return matches, nil
}

// slug makes a case name a file name: lower case letters, digits, '-' and
// '.'; anything else becomes '-'.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		s = "case"
	}
	return s
}

// summaryFields maps each numeric analyze.Summary field's JSON name to its
// field index: these are the names usable under expect.
var summaryFields = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeOf(Summary{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		k := f.Type.Kind()
		numeric := k == reflect.Int || k == reflect.Int64 || (k == reflect.Pointer && f.Type.Elem().Kind() == reflect.Float64)
		if name != "" && name != "-" && numeric {
			m[name] = i
		}
	}
	return m
})

// SummaryFieldNames lists the names usable under expect, sorted.
func SummaryFieldNames() []string {
	names := make([]string, 0, len(summaryFields()))
	for n := range summaryFields() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// summaryValue reads a summary field as a number; nil when it is null.
func summaryValue(s *Summary, field string) *float64 {
	v := reflect.ValueOf(s).Elem().Field(summaryFields()[field])
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		f := float64(v.Int())
		return &f
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		f := v.Elem().Float()
		return &f
	}
	return nil
}

func nullable(field string) bool {
	return reflect.TypeOf(Summary{}).Field(summaryFields()[field]).Type.Kind() == reflect.Pointer
}

var comparisonOps = []string{"==", "!=", ">=", "<=", ">", "<"} // two-character ones first

// maxExpectNumber bounds the numbers of expectations: every whole number
// up to it is exact in a float64, and no summary field comes near it.
const maxExpectNumber = 1 << 53

// expectations reads a case's expect: mapping. Its calls key is either the
// summary field (a number or a comparison) or, as a list, what must
// happen to given calls: the same entries as the case's calls: key.
func (l *gateLoader) expectations(n *yaml.Node, what string) ([]Expectation, []CallExpectation, error) {
	vals, keys, err := l.mapping(n, what+"'s expect", SummaryFieldNames())
	if err != nil {
		return nil, nil, err
	}
	var out []Expectation
	var calls []CallExpectation
	// In file order, so that failures are listed as written.
	for i := 0; i+1 < len(n.Content); i += 2 {
		field := n.Content[i].Value
		v := vals[field]
		if field == "calls" && v.Kind == yaml.SequenceNode {
			cs, err := l.callList(v)
			if err != nil {
				return nil, nil, err
			}
			calls = append(calls, cs...)
			continue
		}
		e := Expectation{Field: field, Line: keys[field].Line}
		switch {
		case v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float"):
			f, err := parseExpectNumber(v.Value, v.Tag == "!!int")
			if err != nil {
				return nil, nil, l.errf(v, "%s: %v", field, err)
			}
			e.Op, e.Value, e.Text = "==", &f, v.Value
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			e.Op, e.Text = "==", "null"
		case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
			op, val, err := parseComparison(v.Value)
			if err != nil {
				return nil, nil, l.errf(v, "%s: %v", field, err)
			}
			e.Op, e.Value, e.Text = op, val, v.Value
		case field == "calls":
			return nil, nil, l.errf(v, "calls under expect must be the number of calls (a number or a comparison such as \">= 2\") or a list of calls entries such as {call: 3, action: block}, not %s", kindWord(v))
		default:
			return nil, nil, l.errf(v, "%s must be a number, null, or a comparison such as \">= 2\", not %s", field, kindWord(v))
		}
		if e.Value == nil {
			if !nullable(field) {
				return nil, nil, l.errf(v, "%s is a count and is never null; compare it with a number", field)
			}
			if e.Op != "==" && e.Op != "!=" {
				return nil, nil, l.errf(v, "%s: only == and != compare with null", field)
			}
		} else if err := checkExpectRange(field, *e.Value); err != nil {
			return nil, nil, l.errf(v, "%s: %v", field, err)
		}
		out = append(out, e)
	}
	return out, calls, nil
}

// checkExpectRange rejects numbers a field can never take: a count is a
// whole number from 0, precision and recall are fractions from 0 to 1.
// Such an expectation could never hold (or would always hold), which is a
// mistake in the gate file, not a finding.
func checkExpectRange(field string, v float64) error {
	switch field {
	case "precision", "recall":
		if v < 0 || v > 1 {
			return fmt.Errorf("%s is a fraction from 0 to 1, so %s is outside it (write 0.9 for 90%%)", field, FormatNumber(&v))
		}
		return nil
	}
	if nullable(field) {
		return nil
	}
	if v < 0 {
		return fmt.Errorf("%s is a count, never negative; %s is not one", field, FormatNumber(&v))
	}
	if v != math.Trunc(v) {
		return fmt.Errorf("%s is a count; %s is not a whole number", field, FormatNumber(&v))
	}
	return nil
}

// parseExpectNumber reads a number of an expectation: finite, and within
// ±maxExpectNumber. whole: YAML resolved it as an integer (0x10, 1_000).
func parseExpectNumber(s string, whole bool) (float64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	var f float64
	var err error
	if whole {
		var i int64
		if i, err = strconv.ParseInt(t, 0, 64); err == nil {
			f = float64(i)
		}
	} else {
		f, err = strconv.ParseFloat(t, 64)
	}
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && ne.Err == strconv.ErrRange, err == nil && math.IsInf(f, 0), err == nil && math.Abs(f) > maxExpectNumber:
		return 0, fmt.Errorf("%s is out of range: numbers in a gate file lie between -%d and %d", strings.TrimSpace(s), int64(maxExpectNumber), int64(maxExpectNumber))
	case err != nil, math.IsNaN(f):
		return 0, fmt.Errorf("%q is not a number", strings.TrimSpace(s))
	}
	return f, nil
}

// parseComparison reads "N", "op N", "null" or "op null".
func parseComparison(s string) (string, *float64, error) {
	t := strings.TrimSpace(s)
	op := "=="
	for _, o := range comparisonOps {
		if strings.HasPrefix(t, o) {
			op, t = o, strings.TrimSpace(t[len(o):])
			break
		}
	}
	if t == "null" || t == "~" {
		return op, nil, nil
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return "", nil, fmt.Errorf("%q is not a comparison: write a number, null, or one of %s followed by a number (\">= 0.9\")", s, strings.Join(comparisonOps, " "))
	}
	f, err := parseExpectNumber(t, false)
	if err != nil {
		return "", nil, err
	}
	return op, &f, nil
}

// callList reads a list of calls entries.
func (l *gateLoader) callList(n *yaml.Node) ([]CallExpectation, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errf(n, "calls must be a list, not %s", kindWord(n))
	}
	var out []CallExpectation
	for _, item := range n.Content {
		ce, err := l.callExpectation(resolveAlias(item))
		if err != nil {
			return nil, err
		}
		out = append(out, ce)
	}
	return out, nil
}

func (l *gateLoader) callExpectation(n *yaml.Node) (CallExpectation, error) {
	vals, _, err := l.mapping(n, "a calls entry", gateCallKeys)
	if err != nil {
		return CallExpectation{}, err
	}
	ce := CallExpectation{Line: n.Line}
	cn := vals["call"]
	if cn == nil {
		return ce, l.errf(n, "a calls entry needs call: (the 1-based index of the call in its session)")
	}
	if ce.Call, err = l.positiveInt(cn, "call"); err != nil {
		return ce, err
	}
	if v := vals["session"]; v != nil {
		if ce.Session, err = l.str(v, "session"); err != nil {
			return ce, err
		}
	}
	if v := vals["action"]; v != nil {
		if ce.Action, err = l.str(v, "action"); err != nil {
			return ce, err
		}
		if _, ok := guard.ParseAction(ce.Action); !ok {
			return ce, l.errf(v, "action %q is not one of %s", ce.Action, strings.Join(guard.ActionNames(), ", "))
		}
	}
	if v := vals["detector"]; v != nil {
		if ce.Detector, err = l.str(v, "detector"); err != nil {
			return ce, err
		}
		if !containsString(rules.DetectorNames, ce.Detector) {
			return ce, l.errf(v, "detector %q is not one of %s", ce.Detector, strings.Join(rules.DetectorNames, ", "))
		}
	}
	if v := vals["count"]; v != nil {
		if ce.Count, err = l.positiveInt(v, "count"); err != nil {
			return ce, err
		}
	}
	if ce.Action == "" && ce.Detector == "" && ce.Count == 0 {
		return ce, l.errf(n, "a calls entry must say what to check: action, detector or count")
	}
	return ce, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------
// Running

// RunGate replays every case and checks it. The error is for a gate file
// that is wrong in a way only the replay shows (a calls entry naming no
// session) and for snapshots that cannot be read or written: exit 2.
func RunGate(g *Gate, opt GateOptions) (*GateResult, error) {
	start := time.Now()
	res := &GateResult{File: g.File}
	counters := map[string]tokens.Counter{}
	for _, c := range g.Cases {
		caseStart := time.Now()
		counter, ok := counters[c.Tokenizer]
		if !ok {
			var err error
			if counter, err = tokens.New(c.Tokenizer); err != nil {
				return nil, gateErrorf(g.File, c.Line, "%v", err)
			}
			counters[c.Tokenizer] = counter
		}
		var early []Problem
		// What a glob matched is read as a walk would read it: no device,
		// no link out of the gate file's tree (nor to a device).
		var matched []string
		for _, f := range c.Files {
			if why := ingest.CheckMatch(f, filepath.Dir(g.File)); why != "" {
				early = append(early, Problem{File: f, Message: why})
				continue
			}
			matched = append(matched, f)
		}
		files := ingest.Expand(matched, func(p Problem) { early = append(early, p) })
		rep := Replay(files, Options{Rules: c.Rules, Tokens: counter, Jobs: opt.Jobs, Ingest: ingest.Options{MaxRecord: opt.MaxRecord}})
		rep.Problems = append(early, rep.Problems...)
		rep.Summary.Problems += len(early)
		cr := CaseResult{Case: c, Report: rep}
		cr.Failures = append(cr.Failures, checkSummary(c, rep)...)
		calls, err := checkCalls(g.File, c, rep)
		if err != nil {
			return nil, err
		}
		cr.Failures = append(cr.Failures, calls...)
		if c.Snapshot != "" && opt.SnapshotText != nil {
			// The file name comes from the case name, by default the
			// transcript's path: redacted as the snapshot's text is.
			c.Snapshot = filepath.Join(filepath.Dir(c.Snapshot), slug(opt.SnapshotText(c.Name))+".golden")
		}
		if c.Snapshot != "" {
			snap := makeSnapshot(g, c, rep, opt.SnapshotArgs, opt.SnapshotText)
			if opt.Update {
				written, err := writeSnapshot(filepath.Dir(g.File), c.Snapshot, snap)
				if err != nil {
					return nil, err
				}
				cr.SnapshotWritten = written
			} else {
				fails, missing, err := checkSnapshot(g, c, snap)
				if err != nil {
					return nil, err
				}
				cr.SnapshotMissing = missing
				cr.Failures = append(cr.Failures, fails...)
			}
		}
		cr.Duration = time.Since(caseStart)
		res.Cases = append(res.Cases, cr)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// FormatNumber prints a summary value: integers as integers, fractions
// with up to 4 decimals, null as "null".
func FormatNumber(v *float64) string {
	if v == nil {
		return "null"
	}
	switch {
	case math.IsInf(*v, 0) || math.IsNaN(*v):
		return strconv.FormatFloat(*v, 'g', -1, 64)
	case *v == math.Trunc(*v) && math.Abs(*v) < 1e15:
		return strconv.FormatInt(int64(*v), 10)
	case *v == math.Trunc(*v):
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(*v*1e4)/1e4, 'f', -1, 64)
}

func compare(op string, actual, want float64) bool {
	const eps = 1e-9
	switch op {
	case "==":
		return math.Abs(actual-want) <= eps
	case "!=":
		return math.Abs(actual-want) > eps
	case ">=":
		return actual >= want-eps
	case "<=":
		return actual <= want+eps
	case ">":
		return actual > want+eps
	case "<":
		return actual < want-eps
	}
	return false
}

func checkSummary(c *GateCase, rep *Report) []GateFailure {
	var out []GateFailure
	for _, e := range c.Expect {
		actual := summaryValue(&rep.Summary, e.Field)
		ok := false
		var msg string
		switch {
		case e.Value == nil && e.Op == "==":
			ok = actual == nil
			msg = fmt.Sprintf("%s: expected null, got %s", e.Field, FormatNumber(actual))
		case e.Value == nil:
			ok = actual != nil
			msg = fmt.Sprintf("%s: expected a number (!= null), got null (%s)", e.Field, nullReason(e.Field))
		case actual == nil:
			msg = fmt.Sprintf("%s: expected %s, got null (%s); a null value fails every numeric comparison", e.Field, opText(e), nullReason(e.Field))
		default:
			ok = compare(e.Op, *actual, *e.Value)
			msg = fmt.Sprintf("%s: expected %s, got %s", e.Field, opText(e), FormatNumber(actual))
		}
		if ok {
			continue
		}
		f := GateFailure{Kind: FailExpect, Message: msg, Field: e.Field, Expected: opText(e), Actual: FormatNumber(actual), GateLine: e.Line}
		anchorSummary(&f, rep, e.Field, c)
		out = append(out, f)
	}
	if !c.expectsProblems && rep.Summary.Problems > 0 {
		p := rep.Problems[0]
		f := GateFailure{Kind: FailProblems, Field: "problems", Expected: "0", Actual: strconv.Itoa(rep.Summary.Problems), GateLine: c.Line, File: p.File, Line: p.Line,
			Message: fmt.Sprintf("problems: the transcripts must read cleanly, got %d input problem(s), first %s:%d: %s (add problems: %d under expect to accept them)",
				rep.Summary.Problems, p.File, p.Line, p.Message, rep.Summary.Problems)}
		if f.File == "" && len(c.Files) > 0 {
			f.File = c.Files[0]
		}
		out = append(out, f)
	}
	return out
}

func opText(e Expectation) string {
	if e.Op == "==" {
		return FormatNumber(e.Value)
	}
	return e.Op + " " + FormatNumber(e.Value)
}

func nullReason(field string) string {
	switch field {
	case "precision":
		return "no observation call was blocked or deduped"
	case "recall":
		return "no call was redundant"
	}
	return "no value"
}

// anchorSummary points a summary failure at the first decision that
// explains it (the first block for "blocked", the first harmful stop for
// "harmful", ...), else at the first transcript's line 1.
func anchorSummary(f *GateFailure, rep *Report, field string, c *GateCase) {
	match := func(d *Decision) bool {
		switch field {
		case "steered":
			return d.Action == guard.Steer
		case "blocked":
			return d.Action == guard.Block
		case "deduped":
			return d.Action == guard.Dedup
		case "halted":
			return d.Action == guard.Halt
		case "harmful":
			return d.Harmful
		case "stopped_actions":
			return d.StoppedAction
		case "redundant", "redundant_stopped", "recall":
			return d.Redundant
		case "native":
			return d.Native != ""
		}
		return d.Action != guard.Allow
	}
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		for j := range s.Decisions {
			if d := &s.Decisions[j]; match(d) {
				f.File, f.Line, f.Session, f.Call = s.File, d.Line, s.ID, d.Call
				f.Action, f.Detector = d.Action.String(), d.Detector
				return
			}
		}
	}
	if len(rep.Sessions) > 0 {
		f.File, f.Session = rep.Sessions[0].File, rep.Sessions[0].ID
		return
	}
	if len(c.Files) > 0 {
		f.File = c.Files[0]
	}
}

// sessionMatches: a calls entry's session names a session by id, by file
// (as resolved, relative to the gate file, or its base name).
func sessionMatches(gateDir string, s *SessionResult, name string) bool {
	if name == s.ID || name == s.File || filepath.ToSlash(name) == filepath.ToSlash(s.File) || name == filepath.Base(s.File) {
		return true
	}
	if rel, err := filepath.Rel(gateDir, s.File); err == nil && filepath.ToSlash(rel) == filepath.ToSlash(name) {
		return true
	}
	return false
}

func checkCalls(gateFile string, c *GateCase, rep *Report) ([]GateFailure, error) {
	var out []GateFailure
	gateDir := filepath.Dir(gateFile)
	for _, ce := range c.Calls {
		var s *SessionResult
		var ids []string
		matched := 0
		for i := range rep.Sessions {
			x := &rep.Sessions[i]
			ids = append(ids, x.ID)
			if ce.Session == "" || sessionMatches(gateDir, x, ce.Session) {
				s = x
				matched++
			}
		}
		if matched > 1 {
			which := "say which one with session: (its id or file)"
			if ce.Session != "" {
				which = fmt.Sprintf("session %q names %d of them; use the session id", ce.Session, matched)
			}
			return nil, gateErrorf(gateFile, ce.Line, "the case has several sessions (%s); %s", strings.Join(ids, ", "), which)
		}
		if s == nil {
			if ce.Session != "" {
				return nil, gateErrorf(gateFile, ce.Line, "no session of this case is %q (sessions: %s)", ce.Session, strings.Join(ids, ", "))
			}
			return nil, gateErrorf(gateFile, ce.Line, "the case has no session to check calls in")
		}
		f := GateFailure{Kind: FailCall, GateLine: ce.Line, File: s.File, Session: s.ID, Call: ce.Call, Action: ce.Action, Detector: ce.Detector}
		want := callText(ce.Action, ce.Detector, ce.Count)
		f.Expected = want
		if ce.Call > s.Calls {
			f.Actual = fmt.Sprintf("the session has %d calls", s.Calls)
			f.Message = fmt.Sprintf("call %d: expected %s, but the session has only %d calls", ce.Call, want, s.Calls)
			out = append(out, f)
			continue
		}
		var d *Decision
		for j := range s.Decisions {
			if s.Decisions[j].Call == ce.Call {
				d = &s.Decisions[j]
				break
			}
		}
		action, detector, count := "allow", "", 0
		if d != nil {
			action, detector, count = d.Action.String(), d.Detector, d.Count
			f.Line = d.Line
		}
		if (ce.Action == "" || ce.Action == action) && (ce.Detector == "" || ce.Detector == detector) && (ce.Count == 0 || ce.Count == count) {
			continue
		}
		f.Actual = callText(action, detector, count)
		f.Message = fmt.Sprintf("call %d: expected %s, got %s", ce.Call, want, f.Actual)
		out = append(out, f)
	}
	return out, nil
}

func callText(action, detector string, count int) string {
	s := action
	if s == "" {
		s = "any action"
	}
	if detector != "" {
		s += " by " + detector
	}
	if count > 0 {
		s += fmt.Sprintf(" (count %d)", count)
	}
	return s
}

// ---------------------------------------------------------------------
// Snapshots

// Snapshot is what a snapshot file records of a case: every decision of
// every session, without token figures (they depend on the tokenizer) or
// messages (the rules file owns them).
type Snapshot struct {
	Case     string            `json:"case"`
	Rules    string            `json:"rules"`
	Sessions []SnapshotSession `json:"sessions"`
}

// SnapshotSession is one session of a snapshot.
type SnapshotSession struct {
	// File is relative to the gate file, with forward slashes.
	File      string             `json:"file"`
	ID        string             `json:"id"`
	Agent     string             `json:"agent"`
	Calls     int                `json:"calls"`
	Decisions []SnapshotDecision `json:"decisions"`
}

// SnapshotDecision is one decision of a snapshot.
type SnapshotDecision struct {
	Call      int    `json:"call"`
	Line      int    `json:"line"`
	Tool      string `json:"tool"`
	Args      string `json:"args"`
	Action    string `json:"action"`
	Detector  string `json:"detector"`
	Count     int    `json:"count"`
	Redundant bool   `json:"redundant"`
	Harmful   bool   `json:"harmful"`
	// StoppedAction is left out when false, so that the snapshots taken
	// before effects existed still read the same.
	StoppedAction bool   `json:"stopped_action,omitempty"`
	Native        string `json:"native,omitempty"`
}

func makeSnapshot(g *Gate, c *GateCase, rep *Report, args, text func(string) string) *Snapshot {
	if text == nil {
		text = func(s string) string { return s }
	}
	snap := &Snapshot{Case: text(c.Name), Rules: rep.Rules.Name, Sessions: []SnapshotSession{}}
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		file := s.File
		if rel, err := filepath.Rel(g.Dir, s.File); err == nil {
			file = rel
		}
		ss := SnapshotSession{File: text(filepath.ToSlash(file)), ID: text(s.ID), Agent: text(s.Agent), Calls: s.Calls, Decisions: []SnapshotDecision{}}
		for _, d := range s.Decisions {
			a := d.Args
			if args != nil {
				a = args(a)
			}
			ss.Decisions = append(ss.Decisions, SnapshotDecision{Call: d.Call, Line: d.Line, Tool: text(d.Tool), Args: a,
				Action: d.Action.String(), Detector: d.Detector, Count: d.Count, Redundant: d.Redundant, Harmful: d.Harmful, StoppedAction: d.StoppedAction, Native: d.Native})
		}
		snap.Sessions = append(snap.Sessions, ss)
	}
	return snap
}

// Encode writes the snapshot as JSON with one decision per line, so that a
// version-control diff of it reads decision by decision.
func (s *Snapshot) Encode() []byte {
	var b bytes.Buffer
	str := func(v any) string { x, _ := json.Marshal(v); return string(x) }
	fmt.Fprintf(&b, "{\n  \"case\": %s,\n  \"rules\": %s,\n  \"sessions\": [", str(s.Case), str(s.Rules))
	for i, ss := range s.Sessions {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    {\"file\": %s, \"id\": %s, \"agent\": %s, \"calls\": %d, \"decisions\": [", str(ss.File), str(ss.ID), str(ss.Agent), ss.Calls)
		for j, d := range ss.Decisions {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n      " + str(d))
		}
		if len(ss.Decisions) > 0 {
			b.WriteString("\n    ")
		}
		b.WriteString("]}")
	}
	if len(s.Sessions) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

// writeSnapshot writes a case's snapshot, only inside the directory tree
// root (the gate file's directory): a snapshot path outside it, a symbolic
// link on the way (snapshots/ itself a link, or a link in it), or something
// other than a regular file where the snapshot goes is refused with an
// error, since os.WriteFile would follow the link and write anywhere. The
// data goes to a temporary file beside the snapshot, renamed over it.
func writeSnapshot(root, path string, snap *Snapshot) (bool, error) {
	data := snap.Encode()
	fail := func(format string, a ...any) (bool, error) {
		return false, fmt.Errorf("cannot write snapshot %s: %s", path, fmt.Sprintf(format, a...))
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fail("it is outside the gate file's directory %s", root)
	}
	// Each directory from root down, made when missing, never a link.
	dir := root
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	for _, part := range parts {
		if part == "." || part == "" {
			continue
		}
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil {
				return fail("%v", errors.Unwrap(err))
			}
		case err != nil:
			return fail("%v", errors.Unwrap(err))
		case info.Mode()&fs.ModeSymlink != 0:
			return fail("%s is a symbolic link; snapshots are written only inside %s, never through a link", dir, root)
		case !info.IsDir():
			return fail("%s is not a directory", dir)
		}
	}
	if info, err := os.Lstat(path); err == nil {
		if info.Mode()&fs.ModeSymlink != 0 {
			return fail("it is a symbolic link; snapshots are written only inside %s, never through a link", root)
		}
		if !info.Mode().IsRegular() {
			return fail("it is not a regular file")
		}
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			return false, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail("%v", errors.Unwrap(err))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".snapshot-*.tmp")
	if err != nil {
		return fail("%v", errors.Unwrap(err))
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fail("%v", werr)
	}
	return true, nil
}

// checkSnapshot compares a case's decisions with its snapshot. A snapshot
// that does not exist yet is no failure (missing is true): a new case
// passes on its expectations, and the CLI says to record the snapshot with
// --update; once recorded, every difference fails.
func checkSnapshot(g *Gate, c *GateCase, got *Snapshot) (fails []GateFailure, missing bool, err error) {
	data, err := os.ReadFile(c.Snapshot)
	if errors.Is(err, os.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, gateErrorf(g.File, c.Line, "cannot read snapshot %s: %v", c.Snapshot, errors.Unwrap(err))
	}
	var want Snapshot
	if err := json.Unmarshal(data, &want); err != nil {
		return nil, false, gateErrorf(g.File, c.Line, "snapshot %s is not valid JSON (%v); rewrite it with --update", c.Snapshot, err)
	}
	return diffSnapshot(g, c, &want, got), false, nil
}

type snapKey struct {
	file, id, agent string
	call            int
}

// diffSnapshot lists every decision that changed, appeared or disappeared,
// one failure (one line) each, in session and call order.
func diffSnapshot(g *Gate, c *GateCase, want, got *Snapshot) []GateFailure {
	type entry struct {
		s *SnapshotSession
		d *SnapshotDecision
	}
	index := func(snap *Snapshot) (map[snapKey]entry, map[[3]string]*SnapshotSession) {
		ds := map[snapKey]entry{}
		ss := map[[3]string]*SnapshotSession{}
		for i := range snap.Sessions {
			s := &snap.Sessions[i]
			ss[[3]string{s.File, s.ID, s.Agent}] = s
			for j := range s.Decisions {
				d := &s.Decisions[j]
				ds[snapKey{s.File, s.ID, s.Agent, d.Call}] = entry{s, d}
			}
		}
		return ds, ss
	}
	wantD, wantS := index(want)
	gotD, gotS := index(got)
	var keys []snapKey
	for k := range wantD {
		keys = append(keys, k)
	}
	for k := range gotD {
		if _, ok := wantD[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.id != b.id {
			return a.id < b.id
		}
		if a.agent != b.agent {
			return a.agent < b.agent
		}
		return a.call < b.call
	})
	var out []GateFailure
	fail := func(s *SnapshotSession, d *SnapshotDecision, sign, msg, expected, actual string) {
		// Field names the kind of difference, so that a fingerprint
		// built from it (with session and call) survives a line shift.
		kind := map[string]string{"~": "changed", "+": "new", "-": "gone"}[sign]
		if d == nil {
			kind = "session " + kind
		}
		f := GateFailure{Kind: FailSnapshot, Field: kind, GateLine: c.Line, File: filepath.Join(g.Dir, filepath.FromSlash(s.File)), Session: s.ID,
			Expected: expected, Actual: actual, Message: "snapshot: " + sign + " " + msg}
		if d != nil {
			f.Line, f.Call, f.Action, f.Detector = d.Line, d.Call, d.Action, d.Detector
		}
		out = append(out, f)
	}
	// Sessions that appeared, disappeared or changed size.
	var sessKeys [][3]string
	for k := range wantS {
		sessKeys = append(sessKeys, k)
	}
	for k := range gotS {
		if _, ok := wantS[k]; !ok {
			sessKeys = append(sessKeys, k)
		}
	}
	sort.Slice(sessKeys, func(i, j int) bool {
		return strings.Join(sessKeys[i][:], "\x00") < strings.Join(sessKeys[j][:], "\x00")
	})
	for _, k := range sessKeys {
		w, g := wantS[k], gotS[k]
		switch {
		case g == nil:
			fail(w, nil, "-", fmt.Sprintf("%s: session %s is gone (it had %d calls)", w.File, w.ID, w.Calls), "present", "absent")
		case w == nil:
			fail(g, nil, "+", fmt.Sprintf("%s: new session %s (%d calls)", g.File, g.ID, g.Calls), "absent", "present")
		case w.Calls != g.Calls:
			fail(g, nil, "~", fmt.Sprintf("%s: session %s had %d calls, now %d", g.File, g.ID, w.Calls, g.Calls), strconv.Itoa(w.Calls), strconv.Itoa(g.Calls))
		}
	}
	for _, k := range keys {
		w, wok := wantD[k]
		g, gok := gotD[k]
		switch {
		case !gok:
			fail(w.s, w.d, "-", fmt.Sprintf("%s [%s] call %d: %s is gone", k.file, k.id, k.call, decisionText(w.d)), decisionText(w.d), "none")
		case !wok:
			fail(g.s, g.d, "+", fmt.Sprintf("%s [%s] call %d: %s is new", k.file, k.id, k.call, decisionText(g.d)), "none", decisionText(g.d))
		case *w.d != *g.d:
			fail(g.s, g.d, "~", fmt.Sprintf("%s [%s] call %d %s %s: %s", k.file, k.id, k.call, g.d.Tool, g.d.Args, decisionChanges(w.d, g.d)), decisionText(w.d), decisionText(g.d))
		}
	}
	return out
}

// decisionText words a snapshot decision on one line.
func decisionText(d *SnapshotDecision) string {
	var b strings.Builder
	b.WriteString(d.Action)
	if d.Detector != "" {
		b.WriteString(" by " + d.Detector)
	}
	if d.Count > 0 {
		fmt.Fprintf(&b, " #%d", d.Count)
	}
	fmt.Fprintf(&b, " %s %s (line %d", d.Tool, d.Args, d.Line)
	if d.Redundant {
		b.WriteString(", redundant")
	}
	if d.Harmful {
		b.WriteString(", harmful")
	}
	if d.StoppedAction {
		b.WriteString(", stopped action")
	}
	if d.Native != "" {
		b.WriteString(", native " + d.Native)
	}
	b.WriteString(")")
	return b.String()
}

// decisionChanges lists the fields that differ, "action steer -> block,
// count 3 -> 4".
func decisionChanges(was, now *SnapshotDecision) string {
	var parts []string
	add := func(name string, a, b any) {
		if a != b {
			parts = append(parts, fmt.Sprintf("%s %v -> %v", name, a, b))
		}
	}
	add("line", was.Line, now.Line)
	add("tool", was.Tool, now.Tool)
	add("args", was.Args, now.Args)
	add("action", was.Action, now.Action)
	add("detector", was.Detector, now.Detector)
	add("count", was.Count, now.Count)
	add("redundant", was.Redundant, now.Redundant)
	add("harmful", was.Harmful, now.Harmful)
	add("stopped action", was.StoppedAction, now.StoppedAction)
	add("native", was.Native, now.Native)
	return strings.Join(parts, ", ")
}
