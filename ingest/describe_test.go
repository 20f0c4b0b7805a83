package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDescribeDocMatchesDescribe: describing a whole-file document by views
// gives the Head that decoding its members gives (the same keys and member
// bytes, the same Array), on every JSON document under fixtures/ and on
// documents at the edges: escaped, non-ASCII and repeated keys, arrays
// without an object, empty ones.
func TestDescribeDocMatchesDescribe(t *testing.T) {
	docs := map[string][]byte{
		"escaped key":      []byte(`{"a": 1, "s\u0065ssion_id": "x"}`),
		"non-ASCII key":    []byte(`{"é": 1, "b": [2]}`),
		"repeated key":     []byte(`{"a": 1, "a": {"b": 2}}`),
		"empty object":     []byte(` {} `),
		"array of objects": []byte("[\n  7,\n  {\"role\": \"user\", \"content\": \"x\"},\n  {\"other\": 1}\n]"),
		"array, no object": []byte(`[1, "two", [3]]`),
		"empty array":      []byte(`[]`),
		"nested escapes":   []byte(`{"a": {"b\u0022": 1}, "c": "\"quoted\""}`),
	}
	err := filepath.WalkDir("../fixtures", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && len(bytes.TrimSpace(b)) > 0 && (bytes.TrimSpace(b)[0] == '{' || bytes.TrimSpace(b)[0] == '[') {
			docs[p] = b
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 15 {
		t.Fatalf("only %d documents to compare", len(docs))
	}
	for name, doc := range docs {
		var decoded, viewed Head
		describe(&decoded, doc)
		describeDoc(&viewed, doc)
		if decoded.Array != viewed.Array || (decoded.Keys == nil) != (viewed.Keys == nil) || len(decoded.Keys) != len(viewed.Keys) {
			t.Errorf("%s: array %v/%v, keys %v/%v", name, decoded.Array, viewed.Array, decoded.Keys, viewed.Keys)
			continue
		}
		for k, v := range decoded.Keys {
			if w, ok := viewed.Keys[k]; !ok || !bytes.Equal(v, w) {
				t.Errorf("%s: member %q is %q decoded, %q viewed", name, k, v, w)
			}
		}
	}
}
