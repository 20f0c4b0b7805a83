package yamlstrict

import (
	"slices"

	"gopkg.in/yaml.v3"
)

// Both loaders walk their mappings here, so that a key's mistakes are
// found in the same order and worded the same in a rules file and a gate
// file.

// Entries walks the keys of the mapping n in file order and calls each
// with every key and its value. A key is refused, in this order, as an
// alias (when the file refuses aliases), as not a plain word, as given
// twice, and as not among names (names nil: any word). where places the
// keys in errors (Where). each may stop the walk with an error; keys
// after the first refused one are not looked at, so a file's first
// mistake is the one said. n must be a mapping (NotMapping words the
// error of one that is not).
func (f File) Entries(n *yaml.Node, where string, names []string, each func(k, v *yaml.Node) error) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if f.NoAliases && k.Kind == yaml.AliasNode {
			return f.AliasRefused(k, where)
		}
		if k.Kind != yaml.ScalarNode {
			return f.KeyNotWord(k, where)
		}
		if first, dup := seen[k.Value]; dup {
			return f.RepeatedKey(k, where, first)
		}
		seen[k.Value] = k.Line
		if names != nil && !slices.Contains(names, k.Value) {
			return f.UnknownKey(k, where, names)
		}
		if err := each(k, v); err != nil {
			return err
		}
	}
	return nil
}

// AliasRefused is the error of an alias in a file that refuses them.
func (f File) AliasRefused(n *yaml.Node, where string) *Error {
	return f.Errorf(n, "aliases (*%s) are not allowed in %ss; write the value out %s", n.Value, f.Noun, where)
}

// Resolve follows an alias to the node it names, returned as a shallow
// copy placed at the alias (its children are shared), so that an error
// about the value as a whole ("must be a mapping") names the line where it
// is used rather than where its anchor is. Nothing is expanded: an alias
// bomb costs no more than its text (Decode has bounded its expansion).
// Any other node is returned as it is.
func Resolve(n *yaml.Node) *yaml.Node {
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
