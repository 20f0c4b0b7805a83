package yamlstrict

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// aliasBomb is a document of levels lists, each holding width aliases of
// the one before: width^levels nodes once expanded, a few hundred bytes.
func aliasBomb(levels, width int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, y, z]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < width; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func TestExpandedNodes(t *testing.T) {
	for _, c := range []struct {
		name  string
		text  string
		count int // when under the limit
		over  bool
	}{
		{"plain", "a: [1, 2]\nb: {c: d}\n", 10, false},
		{"one alias", "a: &x [1, 2]\nb: *x\n", 11, false},
		{"bomb", aliasBomb(9, 10), 0, true},
		{"self alias", "a: &x [1, *x]\n", 0, true},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(c.text), &doc); err != nil {
			if c.name == "self alias" {
				continue // yaml.v3 may refuse it itself
			}
			t.Fatal(err)
		}
		count, line := ExpandedNodes(&doc, 1000)
		if c.over != (line > 0) || (!c.over && count != c.count) {
			t.Errorf("%s: count %d, line %d; want %d, over %v", c.name, count, line, c.count, c.over)
		}
	}
}

// TestDecodeRefusesAliasBomb: a file past MaxNodes once its aliases are
// followed is an error with file and line, found in bounded time (the
// count never expands the aliases).
func TestDecodeRefusesAliasBomb(t *testing.T) {
	_, err := File{Path: "bomb.yaml", Noun: "rules file"}.Decode([]byte("name: x\n" + aliasBomb(12, 20)))
	if err == nil || !strings.Contains(err.Error(), "bomb.yaml:") || !strings.Contains(err.Error(), "more than 100000 YAML nodes") {
		t.Errorf("err = %v", err)
	}
}
