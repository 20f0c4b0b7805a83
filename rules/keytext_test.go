package rules_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// TestKeyTextSeesEveryField: the text that interns key sections (KeyID)
// changes with every field of the key section, of a tool's key and of the
// class table, nil apart from empty, and not with a map's order; a field
// added to KeyRules or ToolKey and not written would fail here.
func TestKeyTextSeesEveryField(t *testing.T) {
	base := func() (rules.KeyRules, rules.ClassTable) {
		return rules.KeyRules{Tools: map[string]*rules.ToolKey{"Read": {}}}, rules.ClassTable{"read": {"Read"}}
	}
	k0, c0 := base()
	zero := rules.KeyText(k0, c0)
	changes := map[string]func(*rules.KeyRules, rules.ClassTable){
		"class added":      func(_ *rules.KeyRules, c rules.ClassTable) { c["write"] = []string{"Write"} },
		"class tool added": func(_ *rules.KeyRules, c rules.ClassTable) { c["read"] = append(c["read"], "Grep") },
		"class emptied":    func(_ *rules.KeyRules, c rules.ClassTable) { c["read"] = []string{} },
		"tool key nil":     func(k *rules.KeyRules, _ rules.ClassTable) { k.Tools["Read"] = nil },
		"tool key added":   func(k *rules.KeyRules, _ rules.ClassTable) { k.Tools["Grep"] = &rules.ToolKey{} },
		"tools nil":        func(k *rules.KeyRules, _ rules.ClassTable) { k.Tools = nil },
	}
	// Every field of the key section and of a tool's key: set (a string,
	// a list of one, a map of one), and for lists and maps empty but not
	// nil.
	for _, level := range []string{"key", "tool"} {
		typ := reflect.TypeOf(rules.KeyRules{})
		if level == "tool" {
			typ = reflect.TypeOf(rules.ToolKey{})
		}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if level == "key" && f.Name == "Tools" {
				continue // the tool level below
			}
			for _, how := range []string{"set", "empty"} {
				if how == "empty" && f.Type.Kind() == reflect.String {
					continue
				}
				changes[level+" "+f.Name+" "+how] = func(k *rules.KeyRules, _ rules.ClassTable) {
					v := reflect.ValueOf(k).Elem()
					if level == "tool" {
						v = reflect.ValueOf(k.Tools["Read"]).Elem()
					}
					field := v.Field(i)
					switch f.Type.Kind() {
					case reflect.String:
						field.SetString("x")
					case reflect.Slice:
						s := reflect.MakeSlice(f.Type, 0, 1)
						if how == "set" {
							s = reflect.Append(s, reflect.ValueOf("x"))
						}
						field.Set(s)
					case reflect.Map:
						m := reflect.MakeMap(f.Type)
						if how == "set" {
							m.SetMapIndex(reflect.ValueOf("x"), reflect.ValueOf("1"))
						}
						field.Set(m)
					default:
						t.Fatalf("%s.%s: a field of kind %s, which this test does not set", typ.Name(), f.Name, f.Type.Kind())
					}
				}
			}
		}
	}
	seen := map[string]string{zero: "unchanged"}
	for name, change := range changes {
		k, c := base()
		change(&k, c)
		text := rules.KeyText(k, c)
		if other, dup := seen[text]; dup {
			t.Errorf("%s gives the same text as %s: %s", name, other, text)
		}
		seen[text] = name
	}
	// A map's order does not matter: the same tables built in two orders.
	a, b := rules.ClassTable{}, rules.ClassTable{}
	names := []string{"read", "write", "search", "shell", "web", "edit"}
	for i := range names {
		a[names[i]] = []string{names[i] + "1"}
		b[names[len(names)-1-i]] = []string{names[len(names)-1-i] + "1"}
	}
	if rules.KeyText(k0, a) != rules.KeyText(k0, b) {
		t.Error("the same class table gives two texts")
	}
}

// TestKeyTextTellsApart: key sections and class tables drawn at random
// from a few short strings (the tags and lengths the text is written with
// among them) share a text only when they are equal.
func TestKeyTextTellsApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	words := []string{"", "~", "[", "!", "\x01", "a"}
	str := func() string { return words[rng.IntN(len(words))] }
	list := func() []string {
		if rng.IntN(3) == 0 {
			return nil
		}
		out := []string{}
		for range rng.IntN(3) {
			out = append(out, str())
		}
		return out
	}
	tools := func() map[string]*rules.ToolKey {
		if rng.IntN(3) == 0 {
			return nil
		}
		m := map[string]*rules.ToolKey{}
		for range rng.IntN(3) {
			var tk *rules.ToolKey
			if rng.IntN(2) == 0 {
				tk = &rules.ToolKey{Args: list(), Pick: str(), Drop: list()}
				if rng.IntN(2) == 0 {
					tk.Defaults = map[string]string{str(): str()}
				}
			}
			m[str()] = tk
		}
		return m
	}
	seen := map[string]struct {
		k rules.KeyRules
		c rules.ClassTable
	}{}
	for range 30000 {
		k := rules.KeyRules{Style: str(), Ignore: list(), Fold: list(), Tools: tools()}
		c := rules.ClassTable{}
		for range rng.IntN(3) {
			c[str()] = list()
		}
		text := rules.KeyText(k, c)
		if prev, ok := seen[text]; ok && !(reflect.DeepEqual(prev.k, k) && reflect.DeepEqual(prev.c, c)) {
			t.Fatalf("one text %q for %+v %v and %+v %v", text, prev.k, prev.c, k, c)
		}
		seen[text] = struct {
			k rules.KeyRules
			c rules.ClassTable
		}{k, c}
	}
}
