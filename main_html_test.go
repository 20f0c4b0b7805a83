package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The html format is registered on every command that writes reports, and
// gate writes the page with --html FILE beside its usual output or, with
// --format html, instead of it.
func TestHTMLFormatOnEveryCommand(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "build", "gate.html")
	tests := []struct {
		name     string
		args     []string
		wantKind string
		wantCode int
	}{
		{"replay", []string{"replay", "--preset", "nanobot", "--tokenizer", "chars4", "--format", "html", "fixtures/demo"}, "replay", exitOK},
		{"compare", []string{"compare", "--preset", "nanobot,loopgate", "--tokenizer", "chars4", "--format", "html", "fixtures/demo"}, "compare", exitOK},
		{"sweep", []string{"sweep", "--preset", "nanobot", "--tokenizer", "chars4", "--vary", "detectors.repeat.block_at=2..3", "--format", "html", "fixtures/demo"}, "sweep", exitOK},
		{"gate format", []string{"gate", "--format", "html", "fixtures/gate/failing.gate.yaml"}, "gate", exitFindings},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := loopgate(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tt.wantCode, stderr)
			}
			if !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(out, `data-kind="`+tt.wantKind+`"`) {
				t.Errorf("not a %s page: %.200q", tt.wantKind, out)
			}
		})
	}
	out, stderr, code := gate(t, "fixtures/gate/failing.gate.yaml", "--html", page)
	if code != exitFindings || !strings.Contains(out, "FAIL  wrong counts") {
		t.Fatalf("gate --html: exit %d, output %q %s", code, out, stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(data), `data-kind="gate"`) {
		t.Errorf("gate --html did not write the page: %v", err)
	}
	if _, stderr, code := gate(t, "--format", "xml", "fixtures/gate/failing.gate.yaml"); code != exitUsage || !strings.Contains(stderr, "--format must be one of table, json, html") {
		t.Errorf("gate --format xml: exit %d %s", code, stderr)
	}
}
