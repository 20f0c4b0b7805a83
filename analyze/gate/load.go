package gate

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/internal/yamlstrict"
	"github.com/loopgate/loopgate/rules"
	"gopkg.in/yaml.v3"
)

// FileError is a mistake in a gate file, located at a line of it (Line
// 0: the file as a whole, as when it cannot be read). Every error Load and
// Parse return is one, and so is every error Run returns for a gate file
// that is wrong in a way only the replay shows; a CI renderer can point an
// annotation at File and Line. It is the strict-YAML reader's error, so
// that a gate file's mistakes read as a rules file's do.
type FileError = yamlstrict.Error

func errorf(file string, line int, format string, a ...any) error {
	return &FileError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Load reads and validates a gate file. Every error names the file and
// line, in a plain sentence.
func Load(path string) (*Gate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf(path, 0, "cannot read the gate file: %v", errors.Unwrap(err))
	}
	return Parse(data, path)
}

// Parse validates a gate file's text; path names it in errors and
// anchors its relative paths.
func Parse(data []byte, path string) (*Gate, error) {
	l := &gateLoader{file: yamlstrict.File{Path: path, Noun: "gate file", Needs: "it needs a cases: list"}, dir: filepath.Dir(path), rulesCache: map[string]*rules.Rules{}}
	root, err := l.file.Decode(data)
	if err != nil {
		return nil, err
	}
	return l.gate(yamlstrict.Resolve(root))
}

type gateLoader struct {
	file       yamlstrict.File
	dir        string
	rulesCache map[string]*rules.Rules
}

func (l *gateLoader) errf(n *yaml.Node, format string, a ...any) error {
	return l.file.Errorf(n, format, a...)
}

// mapping checks that n, named what, is a mapping with only the allowed
// keys, none repeated, and returns its values by key (and the key nodes,
// for lines). where places its keys in errors (yamlstrict.Where).
func (l *gateLoader) mapping(n *yaml.Node, what, where string, allowed []string) (map[string]*yaml.Node, map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, l.file.NotMapping(n, what, allowed)
	}
	vals := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	err := l.file.Entries(n, where, allowed, func(k, v *yaml.Node) error {
		keys[k.Value], vals[k.Value] = k, yamlstrict.Resolve(v)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return vals, keys, nil
}

func (l *gateLoader) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Value == "" {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			return "", l.errf(n, "%s must not be empty", key)
		}
		return "", l.errf(n, "%s must be text, not %s", key, yamlstrict.KindWord(n))
	}
	return n.Value, nil
}

func (l *gateLoader) boolean(n *yaml.Node, key string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, l.errf(n, "%s must be true or false, not %s", key, yamlstrict.KindWord(n))
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
	return 0, l.errf(n, "%s must be a whole number of at least 1, not %s", key, yamlstrict.KindWord(n))
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
	vals, keys, err := l.mapping(root, "the gate file", yamlstrict.Where(""), gateTopKeys)
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
		return nil, l.errf(casesNode, "cases must be a list, not %s", yamlstrict.KindWord(casesNode))
	}
	if len(casesNode.Content) == 0 {
		return nil, l.errf(casesNode, "cases is empty; list at least one case")
	}
	g := &Gate{File: l.file.Path, Dir: l.dir}
	names := map[string]int{}
	slugs := map[string]int{}
	for i, cn := range casesNode.Content {
		c, err := l.gateCase(yamlstrict.Resolve(cn), i+1, base)
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

func (l *gateLoader) gateCase(n *yaml.Node, index int, base gateSettings) (*Case, error) {
	what := fmt.Sprintf("case %d", index)
	vals, keys, err := l.mapping(n, what, yamlstrict.Where(what), gateCaseKeys)
	if err != nil {
		return nil, err
	}
	c := &Case{Index: index, Line: n.Line}
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
	t := reflect.TypeOf(analyze.Summary{})
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
func summaryValue(s *analyze.Summary, field string) *float64 {
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
	return reflect.TypeOf(analyze.Summary{}).Field(summaryFields()[field]).Type.Kind() == reflect.Pointer
}

var comparisonOps = []string{"==", "!=", ">=", "<=", ">", "<"} // two-character ones first

// maxExpectNumber bounds the numbers of expectations: every whole number
// up to it is exact in a float64, and no summary field comes near it.
const maxExpectNumber = 1 << 53

// expectations reads a case's expect: mapping. Its calls key is either the
// summary field (a number or a comparison) or, as a list, what must
// happen to given calls: the same entries as the case's calls: key.
func (l *gateLoader) expectations(n *yaml.Node, what string) ([]Expectation, []CallExpectation, error) {
	vals, keys, err := l.mapping(n, what+"'s expect", yamlstrict.Where(what+"'s expect"), SummaryFieldNames())
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
			return nil, nil, l.errf(v, "calls under expect must be the number of calls (a number or a comparison such as \">= 2\") or a list of calls entries such as {call: 3, action: block}, not %s", yamlstrict.KindWord(v))
		default:
			return nil, nil, l.errf(v, "%s must be a number, null, or a comparison such as \">= 2\", not %s", field, yamlstrict.KindWord(v))
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
		return nil, l.errf(n, "calls must be a list, not %s", yamlstrict.KindWord(n))
	}
	var out []CallExpectation
	for _, item := range n.Content {
		ce, err := l.callExpectation(yamlstrict.Resolve(item))
		if err != nil {
			return nil, err
		}
		out = append(out, ce)
	}
	return out, nil
}

func (l *gateLoader) callExpectation(n *yaml.Node) (CallExpectation, error) {
	vals, _, err := l.mapping(n, "a calls entry", yamlstrict.Where("a calls entry"), gateCallKeys)
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
		if !slices.Contains(rules.DetectorNames, ce.Detector) {
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
