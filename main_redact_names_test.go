package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsInIdsAndFileNames: a session id and a file name holding
// secrets are redacted in inspect (table, JSON, --calls headings), in every
// replay format, in problems, and in the gate's output and snapshots (file
// names and contents).
func TestSecretsInIdsAndFileNames(t *testing.T) {
	const idSecret = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
	const fileSecret = "sk-Tq3xV9bLm2Rf7KpW1sYz8NcD4hJe6GaU0oQi5tXv"
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `"key": "cli:readloop"`, `"key": "cli:`+idSecret+`"`, 1) + "{broken\n"
	if !strings.Contains(text, idSecret) {
		t.Fatal("the fixture's session key was not replaced")
	}
	file := filepath.Join(dir, "run-"+fileSecret+".jsonl")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what, out string) {
		t.Helper()
		for _, s := range []string{idSecret, fileSecret} {
			if strings.Contains(out, s) {
				t.Errorf("%s shows %s", what, s)
			}
		}
		if !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s shows no redaction marker:\n%.500s", what, out)
		}
	}
	for _, args := range [][]string{
		{"inspect", "--format", "table"},
		{"inspect", "--format", "table", "--calls"},
		{"inspect", "--format", "json", "--calls"},
		{"replay", "--format", "json", "--tokenizer", "chars4"},
		{"replay", "--format", "jsonl", "--tokenizer", "chars4"},
		{"replay", "--format", "table", "--tokenizer", "chars4"},
		{"replay", "--format", "markdown", "--tokenizer", "chars4"},
	} {
		out, stderr, _ := loopgate(t, append(args, file)...)
		check(strings.Join(args, " "), out+stderr)
	}
	// --no-redact shows them: the test can see them when they are there.
	if out, _, _ := loopgate(t, "inspect", "--format", "json", "--no-redact", file); !strings.Contains(out, idSecret) || !strings.Contains(out, fileSecret) {
		t.Errorf("--no-redact does not show the id and the file name")
	}

	gateFile := filepath.Join(dir, "g.gate.yaml")
	os.WriteFile(gateFile, []byte("preset: nanobot\ntokenizer: chars4\ncases:\n  - {transcript: 'run-"+fileSecret+".jsonl', expect: {problems: 1}}\n"), 0o644)
	out, stderr, code := gate(t, gateFile, "--update")
	if code != exitOK {
		t.Fatalf("gate --update: exit %d\n%s%s", code, out, stderr)
	}
	check("gate --update", out+stderr)
	entries, _ := os.ReadDir(filepath.Join(dir, "snapshots"))
	if len(entries) != 1 {
		t.Fatalf("snapshots: %v", entries)
	}
	snap, _ := os.ReadFile(filepath.Join(dir, "snapshots", entries[0].Name()))
	check("the snapshot "+entries[0].Name(), entries[0].Name()+"\n"+string(snap))
}
