package yamlstrict

import (
	"errors"
	"testing"
)

// TestDecodeErrors: every refusal is one sentence at the right line,
// counted from 1 whichever part of yaml.v3 found it, or found in the text
// when yaml.v3 gives no line.
func TestDecodeErrors(t *testing.T) {
	f := File{Path: "x.yaml", Noun: "gate file", Needs: "it needs a cases: list"}
	tests := []struct {
		name, text string
		want       string
	}{
		{"empty", "", "x.yaml:1: the gate file is empty; it needs a cases: list"},
		{"only null", "~\n", "x.yaml:1: the gate file is empty; it needs a cases: list"},
		{"second document", "a: 1\n---\nb: 2\n", "x.yaml:2: a gate file holds one YAML document; this is a second one"},
		// A parser error: yaml.v3 says line 3, counted from 0.
		{"parser error", "a: 1\nb:\n  - x\n c: 2\n", "x.yaml:4: the file is not valid YAML: did not find expected key"},
		// At the end of the text: the last line, not one past it.
		{"parser error at the end", "a: [1,\nb: 2", "x.yaml:2: the file is not valid YAML: did not find expected ',' or ']'"},
		// A scanner error: yaml.v3 counts from 1 already.
		{"scanner error", "a: b: c\n", "x.yaml:1: the file is not valid YAML: mapping values are not allowed in this context"},
		{"unknown anchor", "a: 1\nb: 2\nc: *nowhere\n", "x.yaml:3: the file is not valid YAML: unknown anchor 'nowhere' referenced"},
		{"control character", "a: 1\nb: \x01\n", "x.yaml:2: the file is not valid YAML: control characters are not allowed"},
		{"tab", "a:\n\tb: 1\n", "x.yaml:2: the file is not valid YAML: found character that cannot start any token (YAML is indented with spaces, not tabs)"},
	}
	for _, tt := range tests {
		_, err := f.Decode([]byte(tt.text))
		var e *Error
		if !errors.As(err, &e) || err.Error() != tt.want {
			t.Errorf("%s: got %v\nwant %s", tt.name, err, tt.want)
		}
	}
	if root, err := f.Decode([]byte("cases: []\n")); err != nil || root.Kind == 0 {
		t.Errorf("a valid file: %v", err)
	}
}

// TestKeyErrors: the key errors word a place and suggest a near name.
func TestKeyErrors(t *testing.T) {
	f := File{Path: "r.yaml", Noun: "rules file"}
	root, err := f.Decode([]byte("detectors: 1\nexpectd: 2\ndetectors: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	k := root.Content[2]
	if got, want := f.UnknownKey(k, Where(""), []string{"name", "expected"}).Error(), `r.yaml:2: unknown key "expectd" at the top level; did you mean "expected"?`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got, want := f.UnknownKey(k, Where("case 1"), []string{"name", "scope"}).Error(), `r.yaml:2: unknown key "expectd" in case 1; valid keys: name, scope`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got, want := f.RepeatedKey(root.Content[4], Where(""), 1).Error(), `r.yaml:3: key "detectors" is repeated at the top level (first given at line 1)`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got, want := f.NotMapping(root.Content[1], "detectors", []string{"a", "b"}).Error(), `r.yaml:1: detectors must be a mapping of keys (a, b), not "1"`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
