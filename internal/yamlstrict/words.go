package yamlstrict

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// KindWord words what n is, for "must be ..., not KIND".
func KindWord(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// Where words a place for the key errors: "at the top level" for "",
// else "in " and the place.
func Where(place string) string {
	if place == "" {
		return "at the top level"
	}
	return "in " + place
}

// KeyNotWord is the error of a key k that is not a plain scalar; where is
// a Where phrase.
func (f File) KeyNotWord(k *yaml.Node, where string) *Error {
	return f.Errorf(k, "a key %s must be a plain word", where)
}

// RepeatedKey is the error of a key k given twice, first at line first.
func (f File) RepeatedKey(k *yaml.Node, where string, first int) *Error {
	return f.Errorf(k, "key %q is repeated %s (first given at line %d)", k.Value, where, first)
}

// UnknownKey is the error of a key k not among names, with the nearest
// name as a suggestion, or the names when none is near.
func (f File) UnknownKey(k *yaml.Node, where string, names []string) *Error {
	return f.Errorf(k, "unknown key %q %s%s", k.Value, where, Suggest(k.Value, names))
}

// NotMapping is the error of a value n, named what, that should be a
// mapping of the keys names.
func (f File) NotMapping(n *yaml.Node, what string, names []string) *Error {
	return f.Errorf(n, "%s must be a mapping of keys (%s), not %s", what, strings.Join(names, ", "), KindWord(n))
}

// Suggest returns `; did you mean "x"?` for a near miss among names, or
// the list of valid names when none is near.
func Suggest(word string, names []string) string {
	near := Nearest(word, names, 3)
	if len(near) > 0 {
		return fmt.Sprintf("; did you mean %q?", near[0])
	}
	return fmt.Sprintf("; valid keys: %s", strings.Join(names, ", "))
}

// Nearest returns up to max names close to word: by edit distance, or
// sharing a prefix, closest first.
func Nearest(word string, names []string, max int) []string {
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	w := strings.ToLower(word)
	for _, n := range names {
		dist := EditDistance(w, strings.ToLower(n))
		limit := 2
		if len(w) > 8 {
			limit = len(w) / 4
		}
		switch {
		case dist <= limit:
		case len(w) >= 3 && (strings.HasPrefix(strings.ToLower(n), w) || strings.HasPrefix(w, strings.ToLower(n))):
			dist = limit + 1
		default:
			continue
		}
		cands = append(cands, cand{n, dist})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].dist < cands[j].dist })
	var out []string
	for i := 0; i < len(cands) && i < max; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// EditDistance is the Levenshtein distance, in bytes; inputs are short
// keys.
func EditDistance(a, b string) int {
	if len(a) > 200 || len(b) > 200 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
