package rules

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/loopgate/loopgate/internal/yamlstrict"
	"gopkg.in/yaml.v3"
)

// YAML returns the effective rules as a rules file: every key with its
// value, defaults included. Parse(YAML()) gives equal rules.
func (r *Rules) YAML() ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Effective loopgate rules %q", r.Name)
	if r.Source != "" {
		fmt.Fprintf(&buf, " (from %s)", r.Source)
	}
	buf.WriteString(".\n# Keys and defaults: docs/rules.md.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Clone returns a deep copy that shares nothing with r.
func (r *Rules) Clone() *Rules {
	c := deepCopy(reflect.ValueOf(r)).Interface().(*Rules)
	c.compile()
	return c
}

func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type().Elem())
		n.Elem().Set(deepCopy(v.Elem()))
		return n
	case reflect.Struct:
		n := reflect.New(v.Type()).Elem()
		n.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if n.Field(i).CanSet() {
				n.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			n.Index(i).Set(deepCopy(v.Index(i)))
		}
		return n
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type()).Elem()
		n.Set(deepCopy(v.Elem()))
		return n
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			n.SetMapIndex(iter.Key(), deepCopy(iter.Value()))
		}
		return n
	}
	return v
}

// Set changes one value, for `sweep --vary` and `--set`: key is a dotted
// path such as "detectors.repeat.block_at", "tools.class:read.block_at",
// "tools.read_file.repeat.steer_at" or "scope.window"; value is YAML
// ("4", "2m", "true", "[1, 2]"). The rules are validated again; on any
// error r is unchanged. A bad key gets an error naming valid keys nearby.
func (r *Rules) Set(key, value string) error {
	segs := strings.Split(key, ".")
	for _, s := range segs {
		if s == "" {
			return r.badKey(key)
		}
	}
	if segs[0] == "classes" {
		return fmt.Errorf("%s: the class table is changed in a rules file (classes:), not with a key", key)
	}
	if segs[0] == "effects" {
		return fmt.Errorf("%s: the effect table is changed in a rules file (effects:), not with a key", key)
	}
	if !validPath(reflect.TypeOf(r).Elem(), segs) || !r.isLeaf(key) {
		return r.badKey(key)
	}
	// Text values are taken as written (a message may contain ": ");
	// everything else is read as YAML ("4", "2m", "[1, 2]").
	node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Line: 1}
	if leafKind(reflect.TypeOf(r).Elem(), segs) != reflect.String {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(value), &doc); err != nil || len(doc.Content) == 0 {
			return fmt.Errorf("%s: the value %q is not a YAML value", key, value)
		}
		node = doc.Content[0]
	}
	c := r.Clone()
	d := &decoder{file: yamlstrict.File{Path: "setting " + key}, lines: map[string]int{}}
	if err := setPath(d, reflect.ValueOf(c).Elem(), segs, node, ""); err != nil {
		return stripLine(err)
	}
	c.normalize()
	c.Source = "setting " + key
	if err := c.validate(nil); err != nil {
		return err
	}
	c.Source = r.Source
	c.compile()
	*r = *c
	return nil
}

// isLeaf reports whether key names a value rather than a section: a
// listed key, or a field of a tool entry not yet in the rules.
func (r *Rules) isLeaf(key string) bool {
	for _, k := range r.SettableKeys() {
		if k == key {
			return true
		}
	}
	if !strings.HasPrefix(key, "tools.") && !strings.HasPrefix(key, "key.tools.") {
		return false
	}
	last := key[strings.LastIndexByte(key, '.')+1:]
	_, inTool := fieldsOf(schemaType(toolType))
	_, inOverride := fieldsOf(reflect.TypeOf(Override{}))
	_, inToolKey := fieldsOf(reflect.TypeOf(ToolKey{}))
	_, a := inTool[last]
	_, b := inOverride[last]
	_, c := inToolKey[last]
	if strings.HasPrefix(key, "key.tools.") {
		return c
	}
	// A detector's name under a tool entry is its override, a section.
	return (a || b) && !IsDetector(last)
}

// stripLine removes the ":1" a one-value YAML document gives errors.
func stripLine(err error) error {
	return fmt.Errorf("%s", strings.Replace(err.Error(), ":1: ", ": ", 1))
}

func setPath(d *decoder, v reflect.Value, segs []string, node *yaml.Node, path string) error {
	if len(segs) == 0 {
		return d.decodeValue(node, v, path)
	}
	if isView(v.Type()) {
		view := viewOf(v)
		err := setPath(d, view.Elem(), segs, node, path)
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
		return setPath(d, v.Elem(), segs, node, path)
	case reflect.Struct:
		_, idx := fieldsOf(v.Type())
		return setPath(d, v.Field(idx[segs[0]]), segs[1:], node, join(path, segs[0]))
	case reflect.Map:
		i := mapKeyLen(v.Type().Elem(), segs)
		mk := strings.Join(segs[:i], ".")
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		ev := reflect.New(v.Type().Elem()).Elem()
		if old := v.MapIndex(reflect.ValueOf(mk)); old.IsValid() {
			ev.Set(old)
		}
		if err := setPath(d, ev, segs[i:], node, join(path, mk)); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(mk), ev)
		return nil
	}
	return fmt.Errorf("%s cannot be set", path)
}

// leafKind returns the kind of the value segs name inside t.
func leafKind(t reflect.Type, segs []string) reflect.Kind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	t = schemaType(t)
	if len(segs) == 0 {
		return t.Kind()
	}
	switch t.Kind() {
	case reflect.Struct:
		if _, idx := fieldsOf(t); t != durationType {
			if fi, ok := idx[segs[0]]; ok {
				return leafKind(t.Field(fi).Type, segs[1:])
			}
		}
	case reflect.Map:
		return leafKind(t.Elem(), segs[mapKeyLen(t.Elem(), segs):])
	}
	return reflect.Invalid
}

// mapKeyLen says how many leading segments form the map key: tool names
// may contain dots, so the shortest key that leaves a valid field path.
func mapKeyLen(elem reflect.Type, segs []string) int {
	for i := 1; i < len(segs); i++ {
		if validPath(elem, segs[i:]) {
			return i
		}
	}
	return len(segs)
}

// validPath reports whether segs name a value inside type t.
func validPath(t reflect.Type, segs []string) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	t = schemaType(t)
	if len(segs) == 0 {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == durationType || t == effectsType {
			return false
		}
		_, idx := fieldsOf(t)
		fi, ok := idx[segs[0]]
		return ok && validPath(t.Field(fi).Type, segs[1:])
	case reflect.Map:
		if t == classTableType {
			return false
		}
		return len(segs) >= 2 && mapKeyLen(t.Elem(), segs) < len(segs)
	}
	return false
}

func (r *Rules) badKey(key string) error {
	keys := r.SettableKeys()
	near := nearKeys(key, keys, 8)
	if len(near) == 0 {
		return fmt.Errorf("unknown rules key %q; keys start with name, scope., key., tools. or detectors. (loopgate rules print shows them all)", key)
	}
	return fmt.Errorf("unknown rules key %q; valid keys nearby: %s", key, strings.Join(near, ", "))
}

// nearKeys ranks keys by edit distance, then by the length of the dotted
// prefix they share with key.
func nearKeys(key string, keys []string, count int) []string {
	type cand struct {
		k     string
		score int
	}
	var cands []cand
	limit := max(3, len(key)/5)
	for _, k := range keys {
		dist := yamlstrict.EditDistance(key, k)
		if dist <= limit {
			cands = append(cands, cand{k, dist})
			continue
		}
		if shared := sharedSegments(key, k); shared > 0 && shared >= strings.Count(key, ".") {
			cands = append(cands, cand{k, 100 - shared})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score < cands[j].score })
	var out []string
	for i := 0; i < len(cands) && i < count; i++ {
		out = append(out, cands[i].k)
	}
	return out
}

func sharedSegments(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// SettableKeys lists the keys Set accepts for these rules: every scalar
// and list under scope, key and detectors (a detector not yet on is
// turned on by setting one of its keys), the fields of the tool entries
// the rules have, and steer_at/block_at for every class.
func (r *Rules) SettableKeys() []string {
	var keys []string
	keys = append(keys, "name", "description")
	keys = leafKeys(reflect.TypeOf(Scope{}), "scope", keys)
	keys = append(keys, "key.style", "key.ignore", "key.fold")
	for sel := range r.Key.Tools {
		keys = leafKeys(reflect.TypeOf(ToolKey{}), "key.tools."+sel, keys)
	}
	keys = leafKeys(schemaType(detectorsType), "detectors", keys)
	sels := map[string]bool{}
	for sel := range r.Tools {
		sels[sel] = true
	}
	for _, c := range r.ClassNames() {
		sels["class:"+c] = true
	}
	for sel := range sels {
		keys = append(keys, "tools."+sel+".steer_at", "tools."+sel+".block_at", "tools."+sel+".off")
		t := r.Tools[sel]
		if t == nil {
			continue
		}
		for _, no := range t.overrides() {
			if no.o == nil {
				continue
			}
			for _, f := range OverrideFields(no.det) {
				keys = append(keys, "tools."+sel+"."+no.det+"."+f)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

func leafKeys(t reflect.Type, prefix string, keys []string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == durationType {
		return append(keys, prefix)
	}
	names, idx := fieldsOf(t)
	for _, n := range names {
		ft := t.Field(idx[n]).Type
		if ft.Kind() == reflect.Map {
			continue
		}
		keys = leafKeys(ft, prefix+"."+n, keys)
	}
	return keys
}
