package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// brokenClaudeCode writes the Claude Code fixture with bad lines put in (a
// line that is not JSON, a JSON string, a JSON array) and returns its path.
func brokenClaudeCode(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("fixtures", "ingest", "claude-code", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	lines = slices.Insert(lines, 1, `{broken`)
	lines = slices.Insert(lines, 3, `"just a string"`)
	lines = slices.Insert(lines, 6, `[1, 2]`)
	path := filepath.Join(t.TempDir(), "broken.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonProblems runs a command with -f json and returns its problems.
func jsonProblems(t *testing.T, args ...string) []struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
} {
	t.Helper()
	out, stderr, _ := loopgate(t, append(args, "-f", "json")...)
	var rep struct {
		Problems []struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %v\n%s%s", args, err, out, stderr)
	}
	return rep.Problems
}

// TestProblemMessages: a file's problems come in line order (a call
// without a result is found when its session ends, after later lines), and
// say no Go type.
func TestProblemMessages(t *testing.T) {
	path := brokenClaudeCode(t)
	problems := jsonProblems(t, "replay", path)
	if len(problems) < 5 {
		t.Fatalf("%d problems, want the three bad lines and the fixture's own: %+v", len(problems), problems)
	}
	for i, p := range problems {
		if i > 0 && p.Line < problems[i-1].Line {
			t.Errorf("problem at line %d after line %d: %+v", p.Line, problems[i-1].Line, problems)
		}
		if strings.Contains(p.Message, "Go ") || strings.Contains(p.Message, "ingest.") {
			t.Errorf("line %d names a Go type: %s", p.Line, p.Message)
		}
	}
	var text []string
	for _, p := range problems {
		text = append(text, p.Message)
	}
	for _, want := range []string{"a JSON string, not an object", "a JSON array, not an object"} {
		if !strings.Contains(strings.Join(text, "\n"), want) {
			t.Errorf("no problem says %q:\n%s", want, strings.Join(text, "\n"))
		}
	}
}

// TestSinceLeavesOutProblems: --since that leaves out every session of a
// file leaves out its problems too, and says how many; a file it keeps
// keeps them.
func TestSinceLeavesOutProblems(t *testing.T) {
	path := brokenClaudeCode(t)
	if got := jsonProblems(t, "replay", path, "--since", "2020-01-01"); len(got) == 0 {
		t.Fatal("--since that keeps the file's sessions lost its problems")
	}
	_, stderr, _ := loopgate(t, "replay", path, "--since", "2099-01-01", "-f", "json")
	if got := jsonProblems(t, "replay", path, "--since", "2099-01-01"); len(got) != 0 {
		t.Errorf("--since left the file's sessions out but listed its problems: %+v", got)
	}
	if !strings.Contains(stderr, "problems of files whose sessions were all left out not listed") {
		t.Errorf("the problems left out are not counted on standard error:\n%s", stderr)
	}
}

// TestForcedFormatOnPrettyJSON: a format of JSON lines forced on a JSON
// document written over many lines gives one problem, not one per line.
func TestForcedFormatOnPrettyJSON(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("fixtures", "replay", "healthy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(doc, "", "  ")
	path := filepath.Join(t.TempDir(), "pretty.json")
	if err := os.WriteFile(path, pretty, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(pretty), "\n"); n < 20 {
		t.Fatalf("the document has %d lines: too few to tell", n)
	}
	problems := jsonProblems(t, "replay", path, "--input-format", "claude-code")
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "--input-format claude-code cannot read this file") ||
		!strings.Contains(problems[0].Message, "not JSON lines") {
		t.Errorf("want one problem naming the format and saying the file is not JSON lines, got %+v", problems)
	}
}
