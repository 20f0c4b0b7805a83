package rules

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/yamlstrict"
	"gopkg.in/yaml.v3"
)

// MaxFileSize bounds a rules file; a larger one is refused, not read.
const MaxFileSize = 1 << 20

// MaxThreshold bounds every number in a rules file, so that a typo such as
// 1e30 is an error rather than an overflow.
const MaxThreshold = 1_000_000

// Load reads and validates a rules file. Errors read "path:LINE: sentence".
func Load(path string) (*Rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the rules file: %v", path, unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the rules file: %v", path, unwrapPath(err))
	}
	return Parse(data, path)
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse validates rules from YAML text; source names it in errors. A file
// may start from a preset with "extends: NAME" and change only what it
// gives: mappings merge, lists and scalars replace (class lists extend).
func Parse(data []byte, source string) (*Rules, error) {
	return parseWith(data, source, Preset)
}

// parseWith is Parse with the preset lookup that extends uses.
func parseWith(data []byte, source string, preset func(string) (*Rules, error)) (r *Rules, err error) {
	defer func() {
		// yaml.v3 is not known to panic on v3.0.1, but a rules file must
		// never crash the program.
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("%s: the rules file cannot be read: %v", source, p)
		}
	}()
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: the rules file is larger than %d bytes", source, MaxFileSize)
	}
	file := yamlstrict.File{Path: source, Noun: "rules file", NoAliases: true}
	root, err := file.Decode(data)
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: the rules file must be a mapping of keys (name, scope, key, classes, effects, tools, detectors)", source, root.Line)
	}
	d := &decoder{file: file, lines: map[string]int{}}
	r = &Rules{}
	if n := findKey(root, "extends"); n != nil {
		if n.Kind != yaml.ScalarNode {
			return nil, d.errf(n, "extends must name a preset")
		}
		base, err := preset(n.Value)
		if err != nil {
			return nil, d.errf(n, "extends names an unknown preset %q (presets: %s)", n.Value, strings.Join(PresetNames(), ", "))
		}
		r = base
		r.idx = nil
	} else {
		r.Classes = DefaultClasses()
		r.Effects = DefaultEffects()
	}
	if err := d.decodeStruct(root, reflect.ValueOf(r).Elem(), "", map[string]bool{"extends": true}); err != nil {
		return nil, err
	}
	r.Source = source
	r.normalize()
	if err := r.validate(d); err != nil {
		return nil, err
	}
	r.compile()
	return r, nil
}

func findKey(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// decoder walks a yaml.Node tree into the rules structs by their yaml
// tags, refusing anything the schema does not name.
type decoder struct {
	file yamlstrict.File
	// lines records the line of every value decoded, by its dotted path,
	// so that validation after decoding can still name a line.
	lines map[string]int
}

func (d *decoder) errf(n *yaml.Node, format string, a ...any) error {
	return d.file.Errorf(n, format, a...)
}

func (d *decoder) line(path string) int { return d.lines[path] }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var durationType = reflect.TypeOf(Duration(0))
var classTableType = reflect.TypeOf(ClassTable(nil))

// fieldsOf lists a struct's yaml keys and field indexes in order.
func fieldsOf(t reflect.Type) ([]string, map[string]int) {
	var names []string
	idx := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
		idx[name] = i
	}
	return names, idx
}

func (d *decoder) checkNode(n *yaml.Node, path string) error {
	if n.Kind == yaml.AliasNode {
		return d.file.AliasRefused(n, yamlstrict.Where(path))
	}
	return nil
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string, skip map[string]bool) error {
	if err := d.checkNode(n, path); err != nil {
		return err
	}
	if n.Kind != yaml.MappingNode {
		if det, ok := strings.CutPrefix(path, "detectors."); ok && yamlstrict.IsNull(n) && !strings.Contains(det, ".") {
			return d.errf(n, "%s is empty; write \"%s: {}\" to turn the detector on with its defaults, or give its keys (%s)", path, det, strings.Join(mustNames(v.Type()), ", "))
		}
		return d.file.NotMapping(n, nameOr(path, "the rules"), mustNames(v.Type()))
	}
	names, idx := fieldsOf(v.Type())
	extra := make([]string, 0, len(skip))
	for k := range skip {
		extra = append(extra, k) // valid here too (extends), for suggestions
	}
	sort.Strings(extra)
	names = append(append([]string{}, names...), extra...)
	return d.file.Entries(n, yamlstrict.Where(path), names, func(k, val *yaml.Node) error {
		if skip[k.Value] {
			return nil
		}
		p := join(path, k.Value)
		d.lines[p] = k.Line
		return d.decodeValue(val, v.Field(idx[k.Value]), p)
	})
}

func mustNames(t reflect.Type) []string {
	names, _ := fieldsOf(t)
	return names
}

func nameOr(path, dflt string) string {
	if path == "" {
		return dflt
	}
	return path
}

// newDetector returns a detector with the defaults a user gets by merely
// naming it (see docs/rules.md): its registration's (detectors.go).
// Other structs come back empty.
func newDetector(t reflect.Type) reflect.Value {
	v := reflect.New(t)
	if f := v.Elem().FieldByName("Enabled"); f.IsValid() {
		f.SetBool(true)
	}
	defaultSettings(v)
	return v
}

func (d *decoder) decodeValue(n *yaml.Node, v reflect.Value, path string) error {
	if err := d.checkNode(n, path); err != nil {
		return err
	}
	if v.Type() == durationType {
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			return d.errf(n, "%s must be a duration such as 2m or 90s, not %s", path, yamlstrict.KindWord(n))
		}
		s := strings.TrimSpace(n.Value)
		var dur time.Duration
		if s != "0" {
			var err error
			dur, err = time.ParseDuration(s)
			if err != nil {
				return d.errf(n, "%s must be a duration such as 2m or 90s, not %q", path, n.Value)
			}
		}
		if dur < 0 {
			return d.errf(n, "%s must not be negative", path)
		}
		if dur > 1000*time.Hour {
			return d.errf(n, "%s is too large (at most 1000h)", path)
		}
		v.SetInt(int64(dur))
		return nil
	}
	if v.Type() == classTableType {
		return d.decodeClasses(n, v, path)
	}
	if v.Type() == effectsType {
		return d.decodeEffects(n, v, path)
	}
	if isView(v.Type()) {
		view := viewOf(v)
		err := d.decodeStruct(n, view.Elem(), path, nil)
		setFromView(v, view)
		return err
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			if v.Type().Elem().Kind() == reflect.Struct {
				v.Set(newDetector(v.Type().Elem()))
			} else {
				v.Set(reflect.New(v.Type().Elem()))
			}
		}
		return d.decodeValue(n, v.Elem(), path)
	case reflect.Struct:
		return d.decodeStruct(n, v, path, nil)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			return d.errf(n, "%s must be text, not %s", path, yamlstrict.KindWord(n))
		}
		v.SetString(n.Value)
	case reflect.Int:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			return d.errf(n, "%s must be a whole number, not %s", path, yamlstrict.KindWord(n))
		}
		s := strings.TrimSpace(n.Value)
		if strings.HasPrefix(s, "-") && len(s) > 1 {
			if strings.Contains(path, ".periods[") {
				// 0 is refused too (validate.go): no "use 0" here.
				return d.errf(n, "%s must not be negative (%s); a period is a cycle length, from 1 to the window", path, s)
			}
			return d.errf(n, "%s must not be negative (%s); use 0 to turn it off", path, s)
		}
		i, err := strconv.ParseUint(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) || isDigits(s) {
				return d.errf(n, "%s is too large (at most %d)", path, MaxThreshold)
			}
			return d.errf(n, "%s must be a whole number, not %q", path, n.Value)
		}
		if i > MaxThreshold {
			return d.errf(n, "%s is too large (at most %d)", path, MaxThreshold)
		}
		v.SetInt(int64(i))
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode {
			return d.errf(n, "%s must be true or false, not %s", path, yamlstrict.KindWord(n))
		}
		switch strings.ToLower(n.Value) {
		case "true", "yes", "on":
			v.SetBool(true)
		case "false", "no", "off":
			v.SetBool(false)
		default:
			return d.errf(n, "%s must be true or false, not %q", path, n.Value)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.errf(n, "%s must be a list such as [a, b], not %s", path, yamlstrict.KindWord(n))
		}
		out := reflect.MakeSlice(v.Type(), 0, len(n.Content))
		for i, e := range n.Content {
			ev := reflect.New(v.Type().Elem()).Elem()
			p := fmt.Sprintf("%s[%d]", path, i)
			d.lines[p] = e.Line
			if err := d.decodeValue(e, ev, p); err != nil {
				return err
			}
			out = reflect.Append(out, ev)
		}
		if out.Len() == 0 {
			out = reflect.Zero(v.Type())
		}
		v.Set(out)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
				return nil
			}
			return d.errf(n, "%s must be a mapping, not %s", path, yamlstrict.KindWord(n))
		}
		if v.IsNil() {
			if len(n.Content) == 0 {
				return nil // an empty mapping stays unset
			}
			v.Set(reflect.MakeMap(v.Type()))
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if err := d.checkNode(k, path); err != nil {
				return err
			}
			if k.Kind != yaml.ScalarNode || k.Value == "" {
				return d.errf(k, "a key in %s must be a tool name or class:NAME", path)
			}
			if first, dup := seen[k.Value]; dup {
				return d.file.RepeatedKey(k, yamlstrict.Where(path), first)
			}
			seen[k.Value] = k.Line
			p := join(path, k.Value)
			d.lines[p] = k.Line
			ev := reflect.New(v.Type().Elem()).Elem()
			if old := v.MapIndex(reflect.ValueOf(k.Value)); old.IsValid() {
				ev.Set(old)
			}
			if err := d.decodeValue(val, ev, p); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k.Value), ev)
		}
	default:
		return d.errf(n, "%s cannot be set", path)
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// decodeClasses extends the class table: each listed tool name moves to
// the class it is listed under.
func (d *decoder) decodeClasses(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.errf(n, "%s must be a mapping of class names to lists of tool names", path)
	}
	table, _ := v.Interface().(ClassTable)
	if table == nil {
		table = DefaultClasses()
		if path == "native.classes" {
			// A design's own table names its tools only: it replaces the
			// default table on the design's own agent (Native).
			if len(n.Content) == 0 {
				return nil
			}
			table = ClassTable{}
		}
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if err := d.checkNode(k, path); err != nil {
			return err
		}
		if k.Kind != yaml.ScalarNode || !isWord(k.Value) {
			return d.errf(k, "a class name must be a plain word (letters, digits, _ or -)")
		}
		if first, dup := seen[k.Value]; dup {
			return d.errf(k, "class %q is repeated in %s (first given at line %d)", k.Value, path, first)
		}
		seen[k.Value] = k.Line
		p := join(path, k.Value)
		d.lines[p] = k.Line
		var names []string
		if err := d.decodeValue(val, reflect.ValueOf(&names).Elem(), p); err != nil {
			return err
		}
		for _, name := range names {
			if isWordEntry(name) {
				if _, w, _ := strings.Cut(name, ":"); !isWord(w) || strings.ContainsAny(w, "_-") {
					return d.errf(val, "%s: %q: after verb:, word: or act: comes one word of a tool's name (letters and digits, docs/rules.md)", p, name)
				}
				if strings.HasPrefix(name, actPrefix) && k.Value != "other" {
					// An act word keeps a name out of every class.
					return d.errf(val, "%s: %q: act: entries go under other (docs/rules.md)", p, name)
				}
			}
			for c, list := range table {
				table[c] = remove(list, name)
			}
		}
		// Clipped: a list remove left as it was may share its array with
		// the table decoded into (a preset extended), which appending in
		// place would change.
		table[k.Value] = appendNew(slices.Clip(table[k.Value]), names...)
		if table[k.Value] == nil {
			table[k.Value] = []string{}
		}
	}
	v.Set(reflect.ValueOf(table))
	return nil
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// remove returns list without name: list itself when it does not hold
// name, else a copy. Every name a rules file classes is removed from every
// class, and copying every list for each name was most of the time it
// took to load a preset (docs/performance.md, "Presets loaded").
func remove(list []string, name string) []string {
	first := slices.Index(list, name)
	if first < 0 {
		return list
	}
	out := make([]string, first, len(list)-1)
	copy(out, list[:first])
	for _, s := range list[first+1:] {
		if s != name {
			out = append(out, s)
		}
	}
	return out
}

func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		found := false
		for _, s := range list {
			found = found || s == n
		}
		if !found {
			list = append(list, n)
		}
	}
	return list
}
