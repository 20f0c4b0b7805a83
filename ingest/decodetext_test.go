package ingest

import (
	"encoding/json"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
)

// TestDecodeText: the decoders' type errors are worded without Go type
// names, the member and the JSON type kept.
func TestDecodeText(t *testing.T) {
	type inner struct {
		Content []string `json:"content"`
	}
	type rec struct {
		Type    string `json:"type"`
		Message inner  `json:"message"`
	}
	tests := []struct {
		input string
		want  string
	}{
		{`"just a string"`, "a JSON string, not an object"},
		{`[1,2]`, "a JSON array, not an object"},
		{`{"type": 3}`, "its member `type` is a JSON number, not a string"},
		{`{"message": {"content": "text"}}`, "its member `message.content` is a JSON string, not an array"},
		{`{"message": 5}`, "its member `message` is a JSON number, not an object"},
	}
	for _, tt := range tests {
		for lib, unmarshal := range map[string]func([]byte, any) error{"encoding/json": json.Unmarshal, "go-json": gojson.Unmarshal} {
			var list []rec
			if err := unmarshal([]byte(`{"type": "x"}`), &list); err == nil || decodeText(err) != "a JSON object, not an array" {
				t.Errorf("%s: an object for a list: %v", lib, err)
			}
		}
		for lib, unmarshal := range map[string]func([]byte, any) error{"encoding/json": json.Unmarshal, "go-json": gojson.Unmarshal} {
			var r rec
			err := unmarshal([]byte(tt.input), &r)
			if err == nil {
				t.Fatalf("%s: %s decoded", lib, tt.input)
			}
			got := decodeText(err)
			if !strings.Contains(got, tt.want) || strings.Contains(got, "Go ") || strings.Contains(got, "ingest.") {
				t.Errorf("%s: %s: %q, want %q and no Go type", lib, tt.input, got, tt.want)
			}
		}
	}
}
