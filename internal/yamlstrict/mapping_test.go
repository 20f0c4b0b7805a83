package yamlstrict

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestEntries: a mapping's keys are refused in one order (alias, not a
// word, repeated, unknown), the first mistake of the file is the one
// said, and each sees the keys it is given in file order.
func TestEntries(t *testing.T) {
	names := []string{"name", "rules", "cases"}
	tests := []struct {
		name, text string
		noAliases  bool
		names      []string
		want       string // the error; "" none
		keys       string // the keys each saw, in order
	}{
		{"clean", "name: a\nrules: b\n", false, names, "", "name rules"},
		{"any word", "zebra: 1\napple: 2\n", false, nil, "", "zebra apple"},
		{"unknown", "name: a\nrulez: b\n", false, names, `f.yaml:2: unknown key "rulez" at the top level; did you mean "rules"?`, "name"},
		{"repeated before unknown", "name: a\nname: b\nrulez: c\n", false, names, `f.yaml:2: key "name" is repeated at the top level (first given at line 1)`, "name"},
		{"not a word", "name: a\n[x]: b\n", false, names, "f.yaml:2: a key at the top level must be a plain word", "name"},
		{"alias key followed", "a: &k name\n*k : 1\n", false, nil, "f.yaml:2: a key at the top level must be a plain word", "a"},
		{"alias key refused", "a: &k name\n*k : 1\n", true, nil, "f.yaml:2: aliases (*k) are not allowed in rules files; write the value out at the top level", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Path: "f.yaml", Noun: "rules file", NoAliases: tt.noAliases}
			root, err := f.Decode([]byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			var seen []string
			err = f.Entries(root, Where(""), tt.names, func(k, v *yaml.Node) error {
				seen = append(seen, k.Value)
				return nil
			})
			if got := errText(err); got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
			if got := strings.Join(seen, " "); got != tt.keys {
				t.Errorf("saw %q, want %q", got, tt.keys)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestResolve: an alias reads as the node it names, at the alias's line;
// other nodes are returned as they are.
func TestResolve(t *testing.T) {
	f := File{Path: "g.yaml", Noun: "gate file"}
	root, err := f.Decode([]byte("base: &b {preset: nanobot}\ncase:\n  *b\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		node       *yaml.Node
		kind       yaml.Kind
		line       int
		sameAsNode bool
	}{
		{root.Content[1], yaml.MappingNode, 1, true},
		{root.Content[3], yaml.MappingNode, 3, false},
		{nil, 0, 0, true},
	}
	for i, tt := range tests {
		got := Resolve(tt.node)
		if tt.node == nil {
			if got != nil {
				t.Errorf("%d: Resolve(nil) = %v", i, got)
			}
			continue
		}
		if got.Kind != tt.kind || got.Line != tt.line || (got == tt.node) != tt.sameAsNode {
			t.Errorf("%d: kind %v line %d (same node %v), want %v %d (%v)", i, got.Kind, got.Line, got == tt.node, tt.kind, tt.line, tt.sameAsNode)
		}
	}
}
