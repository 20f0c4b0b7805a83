package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestProblemsListedPerFileAreCapped: a file with more problems than a
// report lists has its first maxListedProblems listed and one entry for
// the rest, with their number and lines; the summary, and compare's facts,
// count every one; another file's problems are listed as they are.
func TestProblemsListedPerFileAreCapped(t *testing.T) {
	dir := t.TempDir()
	const extra = 500
	var b strings.Builder
	b.WriteString(`{"metadata":{"session_id":"s0"},"messages":[{"role":"user","content":"hi"}]}` + "\n")
	for i := range maxListedProblems + extra {
		fmt.Fprintf(&b, "{\"ts\":%d,\"msg\":\"health check\"}\n", i)
	}
	many := filepath.Join(dir, "a-many.jsonl")
	few := filepath.Join(dir, "b-few.jsonl")
	if err := os.WriteFile(many, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(few, []byte(`{"metadata":{"session_id":"s1"},"messages":[{"role":"user","content":"hi"}]}`+"\n{broken\n{broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	counter, _ := tokens.New("chars4")
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{many, few}
	rep := Replay(files, Options{Rules: r, Tokens: counter, Jobs: 2})
	if got, want := rep.Summary.Problems, maxListedProblems+extra+2; got != want {
		t.Errorf("summary counts %d problems, want %d", got, want)
	}
	if got, want := len(rep.Problems), maxListedProblems+1+2; got != want {
		t.Fatalf("%d problems listed, want %d", got, want)
	}
	for i, p := range rep.Problems[:maxListedProblems] {
		if p.File != many || p.Line != i+2 {
			t.Fatalf("problem %d: %s:%d, want %s:%d", i, p.File, p.Line, many, i+2)
		}
	}
	note := rep.Problems[maxListedProblems]
	wantNote := fmt.Sprintf("%d more problems on lines %d to %d are counted but not listed", extra, maxListedProblems+2, maxListedProblems+extra+1)
	if note.File != many || note.Line != maxListedProblems+2 || !strings.HasPrefix(note.Message, wantNote) {
		t.Errorf("the entry for the rest is %+v, want line %d and %q", note, maxListedProblems+2, wantNote)
	}
	if p := rep.Problems[len(rep.Problems)-1]; p.File != few || p.Line != 3 {
		t.Errorf("the other file's last problem is %+v, want %s:3", p, few)
	}
	reports, facts := ReplayAll(files, Options{Tokens: counter, Jobs: 1}, []*rules.Rules{r}, nil)
	if facts.Problems != rep.Summary.Problems || reports[0].Summary.Problems != rep.Summary.Problems {
		t.Errorf("compare counts %d problems (facts %d), replay %d", reports[0].Summary.Problems, facts.Problems, rep.Summary.Problems)
	}
}
