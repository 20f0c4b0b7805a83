package rules

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Value is the value of a key of Set ("detectors.repeat.block_at",
// "tools.class:read.block_at") as the effective rules print it (YAML,
// one line), and "" when the rules do not have it: a detector that is
// off, a tool without an entry. A sweep shows it as the base's value.
func (r *Rules) Value(key string) string {
	var doc yaml.Node
	if err := doc.Encode(r); err != nil {
		return ""
	}
	n := &doc
	for _, seg := range strings.Split(key, ".") {
		if n.Kind != yaml.MappingNode {
			return ""
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == seg {
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			return ""
		}
		n = next
	}
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	n.Style = yaml.FlowStyle
	b, err := yaml.Marshal(n)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// DetectorOff says whether a key of Set belongs to a detector the rules
// have turned off ("detectors.NAME.KEY" with NAME not enabled): setting
// it turns the detector on, which a sweep says.
func (r *Rules) DetectorOff(key string) (detector string, off bool) {
	segs := strings.Split(key, ".")
	if len(segs) < 3 || segs[0] != "detectors" || segs[2] == "enabled" {
		return "", false
	}
	detector = segs[0] + "." + segs[1]
	return detector, r.Value(detector+".enabled") != "true"
}
