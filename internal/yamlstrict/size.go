package yamlstrict

import "gopkg.in/yaml.v3"

// MaxNodes bounds a rules or gate document's size as a reader that
// follows its aliases sees it: an anchored list aliased by many entries,
// each aliased again, is a few KB of text and billions of nodes (a 245 KB
// gate file reached 24 GB). Real files hold a few thousand.
const MaxNodes = 100_000

// ExpandedNodes counts the nodes of the tree under n with every alias
// counted as the whole node it names, in time that follows the text, not
// the expansion (each anchored node is counted once and remembered). It
// stops once the count passes limit and returns that count and the line of
// the node where it did; an alias that names a node it sits in counts as
// past the limit. Under the limit, line is 0.
func ExpandedNodes(n *yaml.Node, limit int) (count, line int) {
	c := nodeCounter{limit: limit, sizes: map[*yaml.Node]int{}}
	count = c.count(n)
	return count, c.line
}

type nodeCounter struct {
	limit int
	sizes map[*yaml.Node]int // anchored nodes' sizes; -1 while being counted
	line  int                // where the count passed the limit
}

func (c *nodeCounter) count(n *yaml.Node) int {
	if n == nil || c.line > 0 {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		target := n.Alias
		if target == nil {
			return 1
		}
		size, seen := c.sizes[target]
		if !seen {
			size = c.count(target)
		}
		if size < 0 { // the alias sits inside the node it names
			c.line = max(n.Line, 1)
			return c.limit + 1
		}
		return c.over(n, 1+size)
	}
	if n.Anchor != "" {
		if size, seen := c.sizes[n]; seen {
			return size
		}
		c.sizes[n] = -1
	}
	total := 1
	for _, child := range n.Content {
		total += c.count(child)
		if total > c.limit {
			break
		}
	}
	total = c.over(n, total)
	if n.Anchor != "" {
		c.sizes[n] = total
	}
	return total
}

// over notes the line where the count first passes the limit.
func (c *nodeCounter) over(n *yaml.Node, total int) int {
	if total > c.limit && c.line == 0 {
		c.line = max(n.Line, 1)
	}
	return total
}
