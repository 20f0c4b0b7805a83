package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCounts: every line is seen once and checked, whether it falls inside
// one chunk, across a chunk's end, or is longer than a chunk; a .json file
// is one document; dot-files are skipped as replay skips them.
func TestCounts(t *testing.T) {
	long := `{"text":"` + strings.Repeat("x", 3*chunkSize) + `"}`
	var many strings.Builder
	for i := 0; i < 40000; i++ { // about 1.3 chunks of short lines
		many.WriteString(`{"n":1,"s":"abcdefghijklmnopqrstu"}` + "\n")
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"lines, a blank one and a bad one", map[string]string{"a.jsonl": "{\"a\":1}\n\n[1,2]\n{bad\n\"s\""}, "4 lines, 1 invalid"},
		{"a line longer than a chunk", map[string]string{"a.jsonl": "{}\n" + long + "\n{}\n"}, "3 lines, 0 invalid"},
		{"lines across chunks", map[string]string{"a.jsonl": many.String()}, "40000 lines, 0 invalid"},
		{"a document", map[string]string{"a.json": "{\n  \"a\": [1,\n 2]\n}\n", "b.json": "{\n"}, "2 lines, 1 invalid"},
		{"dot-files skipped", map[string]string{".manifest.json": "{bad", "a.jsonl": "{}\n"}, "1 lines, 0 invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			if err := run([]string{"-jobs", "2", dir}, &out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output %q, want it to say %q", out.String(), tt.want)
			}
		})
	}
}

func TestNoCorpus(t *testing.T) {
	if err := run(nil, &bytes.Buffer{}); err == nil {
		t.Error("no error without a corpus")
	}
}
