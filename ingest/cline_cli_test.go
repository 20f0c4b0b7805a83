package ingest

import (
	"path/filepath"
	"testing"
)

// TestClineCLI reads a Cline CLI 3.x session (the shape the lab's Cline
// CLI 3.0.65 writes): per-item outcomes as results, a failed item an
// error, the CLI's own messages (displayRole "system") not a turn.
func TestClineCLI(t *testing.T) {
	path := filepath.Join("..", "fixtures", "ingest", "cline-cli", "sessions", "1796190000000_abcde", "1796190000000_abcde.messages.json")
	sessions, problems := readAll(t, path, Options{})
	if len(problems) != 0 || len(sessions) != 1 {
		t.Fatalf("%d sessions, problems %v", len(sessions), problems)
	}
	s := sessions[0]
	if s.Format != formatClineCLI || s.ID != "1796190000000_abcde" || s.Model != "lab-model" || len(s.Turns) != 2 {
		t.Fatalf("session %s %s %s, %d turns", s.Format, s.ID, s.Model, len(s.Turns))
	}
	var got []Call
	for _, r := range s.Turns[0].Requests {
		got = append(got, r.Calls...)
	}
	want := []struct {
		tool, args, result string
		isError            bool
	}{
		{"run_commands", `{"commands":["cat missing.txt"]}`, "cat: missing.txt: No such file or directory", true},
		{"read_files", `{"files":[{"path":"/w/a.txt"}]}`, "lab-a\n", false},
	}
	if len(got) != len(want) {
		t.Fatalf("%d calls, want %d", len(got), len(want))
	}
	for i, w := range want {
		c := got[i]
		if c.Tool != w.tool || c.ArgsRaw != w.args || c.Result != w.result || c.IsError != w.isError || !c.HasResult {
			t.Errorf("call %d: %s %s %q error %v, want %s %s %q %v", i+1, c.Tool, c.ArgsRaw, c.Result, c.IsError, w.tool, w.args, w.result, w.isError)
		}
	}
}

// TestClineOutcomes: a Cline CLI result given as text (its hooks'
// postToolUse.result) is read as the session's tool_result is: per-item
// outcomes joined, a failed item a failure; other text is not outcomes.
func TestClineOutcomes(t *testing.T) {
	cases := []struct {
		name, in, text string
		failed, ok     bool
	}{
		{"one command", `[{"query":"echo x","result":"x\n","success":true}]`, "x\n", false, true},
		{"a failed item", `[{"query":"cat m","result":"","error":"cat: m: No such file","success":false}]`, "cat: m: No such file", true, true},
		{"two items", ` [{"query":"a","result":"1","success":true},{"query":"b","result":"2","success":true}]`, "1\n2", false, true},
		{"unsuccessful without an error", `[{"query":"a","result":"out","success":false}]`, "out", true, true},
		{"text blocks are no outcomes", `[{"type":"text","text":"x"}]`, "", false, false},
		{"plain text", "[not json", "", false, false},
		{"empty list", "[]", "", false, false},
	}
	for _, c := range cases {
		text, failed, ok := ClineOutcomes(c.in)
		if text != c.text || failed != c.failed || ok != c.ok {
			t.Errorf("%s: %q %v %v, want %q %v %v", c.name, text, failed, ok, c.text, c.failed, c.ok)
		}
	}
}
