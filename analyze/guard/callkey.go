package guard

import (
	"reflect"
	"slices"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/rules"
)

// What counts as the same call: a call's key under the rules' key section
// (the tool, keySeparator and the canonical arguments), and the arguments
// the scope's write awareness and reset command read. rules holds the
// schema (rules.KeyRules, rules.ToolKey) and checks it; the guard reads a
// call's arguments by it here, so that keying a call stays in this package.

// keySeparator joins the tool name and the encoded arguments in a key, as
// pi-tools-loop-guard's callKey does ("read::{...}").
const keySeparator = "::"

// toolKeyFor returns the key refinement for a tool: an exact tool entry
// wins over a class entry. nil means the general rules apply.
func toolKeyFor(r *rules.Rules, tool string) *rules.ToolKey {
	if tk, ok := r.Key.Tools[tool]; ok {
		return tk
	}
	if tk, ok := r.Key.Tools["class:"+r.ClassOf(tool)]; ok {
		return tk
	}
	return nil
}

// callKey builds a call's key: the tool name, "::", and the canonical
// arguments. ok is false when the rules give this call no key (nanobot's
// lookups without a url or query): such a call is never counted.
// Arguments that are not JSON (argsOK false) are keyed on their raw text.
func callKey(r *rules.Rules, tool string, args jsonx.Value, argsOK bool, raw string) (string, bool) {
	// The raw arguments' length is a fair guess of the encoded length.
	b, ok := appendCallKey(r, make([]byte, 0, len(tool)+len(keySeparator)+len(raw)), tool, args, argsOK, raw)
	return string(b), ok
}

// appendCallKey appends the call's key (callKey) to buf and returns the
// extended buffer; without a key (ok false) it returns buf unchanged. The
// replay keys every call, so it builds keys in a reused buffer instead of
// allocating one per call.
func appendCallKey(r *rules.Rules, buf []byte, tool string, args jsonx.Value, argsOK bool, raw string) ([]byte, bool) {
	return appendCallKeyWith(r, buf, toolKeyFor(r, tool), tool, args, argsOK, raw)
}

// appendCallKeyWith is appendCallKey given the tool's key refinement,
// which must be toolKeyFor(r, tool): a replay looks it up once per tool of
// a session (keyIndex), where looking it up per call (the tool's
// class, then two map lookups) was a tenth of keying a call.
func appendCallKeyWith(r *rules.Rules, buf []byte, tk *rules.ToolKey, tool string, args jsonx.Value, argsOK bool, raw string) ([]byte, bool) {
	if tk != nil && tk.Pick == "first" {
		if !argsOK || args.Kind != jsonx.Object {
			return buf, false
		}
		for _, name := range tk.Args {
			v, ok := args.Get(name)
			if !ok || !v.PyTruthy() {
				continue
			}
			raw := v.Text()
			if v.Kind == jsonx.Number && r.Key.Numbers == "python" {
				raw = jsonx.PyNumber(raw) // str() of the float json.loads made
			}
			text := foldText(raw, foldsFor(r, tk))
			if text == "" {
				return buf, false
			}
			return append(appendPrefix(buf, tool), text...), true
		}
		return buf, false
	}
	buf = appendPrefix(buf, tool)
	switch {
	case !argsOK:
		return append(buf, raw...), true
	case args.Kind != jsonx.Object:
		if r.Key.Numbers == "python" {
			args = jsonx.PyNumbers(args)
		}
		return args.Append(buf, keyStyle(r)), true
	}
	return canonicalArgs(r, args, tk).Append(buf, keyStyle(r)), true
}

// textKey is what appendCallKeyText needs of a tool's key rules, worked
// out once per tool (textKeyFor) rather than per call: whether a key can
// come from the arguments' text at all, and the test of the top-level
// arguments it keeps.
type textKey struct {
	ok    bool
	keep  func(key string) bool // nil: every argument is kept
	style jsonx.Style
}

// textKeyFor works out the textKey of the tool key refinement tk, which
// must be toolKeyFor of the tool. A key that drops, fills in or folds
// arguments, writes numbers as Python does or picks one argument cannot
// come from the text.
func textKeyFor(r *rules.Rules, tk *rules.ToolKey) textKey {
	if tk != nil && (tk.Pick == "first" || len(tk.Drop) > 0 || len(tk.Defaults) > 0) ||
		len(foldsFor(r, tk)) > 0 || r.Key.Numbers == "python" {
		return textKey{}
	}
	tx := textKey{ok: true, style: keyStyle(r)}
	if len(r.Key.Ignore) > 0 || tk != nil && (len(tk.Ignore) > 0 || len(tk.Args) > 0) {
		tx.keep = func(key string) bool { return !leftOut(r, key, tk) }
	}
	return tx
}

// appendCallKeyText is appendCallKeyWith from the arguments' text alone,
// parsed or not: raw is valid JSON written compact (as Value.String writes
// it; CallEvent.argsCompact), and tx is textKeyFor the tool's key
// refinement. It builds the key from raw alone when the key keeps every
// argument as it stands (jsonx.AppendStyled); done is false, with buf as
// it was, when the rules need the parsed arguments for this call (an
// argument left out, dropped, filled in or folded, numbers as Python
// writes them, a pick): the caller then parses them and calls
// appendCallKeyWith. A replay of a Claude Code transcript keys most calls
// without parsing their arguments at all.
func appendCallKeyText(buf []byte, tx textKey, tool, raw string) (_ []byte, ok, done bool) {
	if !tx.ok {
		return buf, false, false
	}
	b, ok := jsonx.AppendStyled(appendPrefix(buf, tool), raw, tx.style, tx.keep)
	if !ok {
		return buf, false, false
	}
	return b, true, true
}

// appendPrefix appends the tool name and keySeparator, which start a key.
func appendPrefix(buf []byte, tool string) []byte {
	return append(append(buf, tool...), keySeparator...)
}

// keyStyle maps key.style to an encoding. Keys are sorted by their UTF-8
// bytes; pi sorts by UTF-16 code units and Python by code points. The
// orders differ only for keys with characters outside the BMP, and any
// deterministic order gives the same equality, which is all a key needs.
func keyStyle(r *rules.Rules) jsonx.Style {
	switch r.Key.Style {
	case "sorted_top":
		return jsonx.SortedTop
	case "insertion":
		return jsonx.Compact
	}
	return jsonx.Sorted
}

// keySortsMembers reports whether a call's key is the same whatever the
// order of the members of the call's argument objects (key.style sorted):
// then two calls whose arguments are equal once sorted have one key.
// Ignore, drop, defaults, fold and pick all read members by name, and a
// stable sort keeps repeated names in order, so they too give the same
// key for arguments that sort alike.
func keySortsMembers(r *rules.Rules) bool { return keyStyle(r) == jsonx.Sorted }

func foldsFor(r *rules.Rules, tk *rules.ToolKey) []string {
	if tk != nil && tk.Fold != nil {
		return tk.Fold
	}
	return r.Key.Fold
}

// canonicalArgs applies ignore, args, drop and fold to a copy of args. When
// they change nothing (no member left out, no drop or fold), it returns args
// itself: most calls have no ignored member, and copying their members was
// an allocation per call. Drop and fold copy what they change.
func canonicalArgs(r *rules.Rules, args jsonx.Value, tk *rules.ToolKey) jsonx.Value {
	out := jsonx.Value{Kind: jsonx.Object, Obj: args.Obj}
	if first := slices.IndexFunc(args.Obj, func(m jsonx.Member) bool { return leftOut(r, m.Key, tk) }); first >= 0 {
		out.Obj = make([]jsonx.Member, first, len(args.Obj))
		copy(out.Obj, args.Obj[:first])
		for _, m := range args.Obj[first+1:] {
			if !leftOut(r, m.Key, tk) {
				out.Obj = append(out.Obj, m)
			}
		}
	}
	if tk != nil {
		for _, d := range tk.Drop {
			out = dropPath(out, dropSegs(d))
		}
	}
	if tk != nil && len(tk.Defaults) > 0 {
		out = withDefaults(out, tk.Defaults)
	}
	if folds := foldsFor(r, tk); len(folds) > 0 {
		out = foldValue(out, folds, 0)
	}
	if r.Key.Numbers == "python" {
		out = jsonx.PyNumbers(out)
	}
	return out
}

// leftOut reports whether a key leaves the argument named key out: an
// ignored name, or one not among the tool's args.
func leftOut(r *rules.Rules, key string, tk *rules.ToolKey) bool {
	return contains(r.Key.Ignore, key) || (tk != nil && contains(tk.Ignore, key)) ||
		(tk != nil && len(tk.Args) > 0 && !contains(tk.Args, key))
}

// withDefaults adds the default arguments a call leaves out (in name
// order, so that the key does not depend on map order; sorted key styles
// reorder them anyway). It copies args only when it adds something.
func withDefaults(args jsonx.Value, defaults map[string]string) jsonx.Value {
	names := make([]string, 0, len(defaults))
	for name := range defaults {
		if _, ok := args.Get(name); !ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return args
	}
	slices.Sort(names)
	obj := make([]jsonx.Member, len(args.Obj), len(args.Obj)+len(names))
	copy(obj, args.Obj)
	for _, name := range names {
		v, err := jsonx.ParseString(defaults[name])
		if err != nil {
			continue // validate refuses such a default
		}
		obj = append(obj, jsonx.Member{Key: name, Val: v})
	}
	return jsonx.Value{Kind: jsonx.Object, Obj: obj}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func foldText(s string, folds []string) string {
	for _, f := range folds {
		switch f {
		case "trim":
			s = strings.TrimSpace(s)
		case "lower":
			s = strings.ToLower(s)
		}
	}
	return s
}

func foldValue(v jsonx.Value, folds []string, depth int) jsonx.Value {
	if depth > jsonx.MaxDepth {
		return v
	}
	switch v.Kind {
	case jsonx.String:
		v.Str = foldText(v.Str, folds)
	case jsonx.Array:
		arr := make([]jsonx.Value, len(v.Arr))
		for i, e := range v.Arr {
			arr[i] = foldValue(e, folds, depth+1)
		}
		v.Arr = arr
	case jsonx.Object:
		obj := make([]jsonx.Member, len(v.Obj))
		for i, m := range v.Obj {
			obj[i] = jsonx.Member{Key: m.Key, Val: foldValue(m.Val, folds, depth+1)}
		}
		v.Obj = obj
	}
	return v
}

// dropSeg is one step of a drop path: a member name, and whether the
// member is an array whose every element the rest applies to ("edits[]").
type dropSeg struct {
	name string
	each bool
}

// dropSegs reads a drop path that the rules' validation accepted ("name",
// "a.b", "edits[].newText").
func dropSegs(p string) []dropSeg {
	var segs []dropSeg
	for part := range strings.SplitSeq(p, ".") {
		name, each := strings.CutSuffix(part, "[]")
		segs = append(segs, dropSeg{name, each})
	}
	return segs
}

// dropPath returns a copy of v without the field the path names.
func dropPath(v jsonx.Value, segs []dropSeg) jsonx.Value {
	if v.Kind != jsonx.Object || len(segs) == 0 {
		return v
	}
	seg := segs[0]
	obj := make([]jsonx.Member, 0, len(v.Obj))
	for _, m := range v.Obj {
		if m.Key != seg.name {
			obj = append(obj, m)
			continue
		}
		switch {
		case len(segs) == 1:
			continue // dropped
		case seg.each && m.Val.Kind == jsonx.Array:
			arr := make([]jsonx.Value, len(m.Val.Arr))
			for i, e := range m.Val.Arr {
				arr[i] = dropPath(e, segs[1:])
			}
			obj = append(obj, jsonx.Member{Key: m.Key, Val: jsonx.Value{Kind: jsonx.Array, Arr: arr}})
		case !seg.each:
			obj = append(obj, jsonx.Member{Key: m.Key, Val: dropPath(m.Val, segs[1:])})
		default:
			obj = append(obj, m)
		}
	}
	v.Obj = obj
	return v
}

// writePath returns the path a write-class call names, when the rules'
// write awareness covers the tool.
func writePath(r *rules.Rules, tool string, args jsonx.Value) (string, bool) {
	w := r.Scope.WriteClearsReads
	if len(w.Writers) == 0 || !r.MatchesAny(w.Writers, tool) {
		return "", false
	}
	for _, name := range w.PathArgs {
		if p, ok := args.GetString(name); ok && p != "" {
			return p, true
		}
	}
	return "", false
}

// hasResetCommand reports whether a call of tool may be the reset command
// (scope.reset_command names commands and the tool): only then are its
// arguments read.
func hasResetCommand(r *rules.Rules, tool string) bool {
	c := r.Scope.ResetCommand
	return len(c.Commands) > 0 && r.MatchesAny(c.Tools, tool)
}

// isResetCommand reports whether a call is the manual reset command.
func isResetCommand(r *rules.Rules, tool string, args jsonx.Value) bool {
	if !hasResetCommand(r, tool) {
		return false
	}
	c := r.Scope.ResetCommand
	for _, name := range c.Args {
		if s, ok := args.GetString(name); ok {
			s = strings.ToLower(strings.TrimSpace(s))
			for _, cmd := range c.Commands {
				if s == strings.ToLower(strings.TrimSpace(cmd)) {
					return true
				}
			}
		}
	}
	return false
}

// usesPlainKeys reports whether a detector of the rules counts calls by
// their plain key (key: plain): the key without the key.tools entries.
// Every detector with a key setting has it as a text field Key.
func usesPlainKeys(r *rules.Rules) bool {
	for _, s := range r.Detectors {
		v := reflect.ValueOf(s).Elem()
		if k := v.FieldByName("Key"); k.IsValid() && k.Kind() == reflect.String && k.String() == "plain" && v.Field(0).Bool() {
			return true
		}
	}
	return false
}
