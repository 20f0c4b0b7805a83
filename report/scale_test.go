package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
)

// bigReport is a generated corpus of n sessions with long paths, ids and
// tool names, a few decisions each, and many problems.
func bigReport(n int) *analyze.Report {
	rep := fullReport()
	rep.Sessions = nil
	for i := range n {
		s := analyze.SessionResult{
			File:      fmt.Sprintf("/home/someone/.hermes/profiles/work/sessions/2026/11/%02d/trajectory_samples_%06d.jsonl", i%28+1, i),
			ID:        fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d", i),
			Agent:     "main",
			StartedAt: fmt.Sprintf("2026-11-%02dT09:%02d:00Z", i%28+1, i%60),
			Calls:     40, Steered: 1, Blocked: i % 3, TokensSaved: int64(i * 7 % 5000),
			Timeline: strings.Repeat("..s|.B", 30),
		}
		for j := range 5 {
			s.Decisions = append(s.Decisions, analyze.Decision{Turn: 1, Call: j + 1, Line: 37 + j,
				Tool: "mcp__filesystem_server__read_text_file_with_offsets", Args: strings.Repeat(`{"path": "/very/long/path"}`, 5),
				Action: guard.Block, Detector: "repeat", Count: 3, TokensSaved: int64(j * 100)})
		}
		rep.Sessions = append(rep.Sessions, s)
	}
	rep.Summary.Sessions = n
	for i := range 5000 {
		rep.Problems = append(rep.Problems, analyze.Problem{File: strings.Repeat("deep/", 40) + "x.jsonl", Line: i + 1, Message: strings.Repeat("line is not valid JSON ", 20)})
	}
	rep.Summary.Problems = 5000
	return rep
}

func TestMarkdownFitsAComment(t *testing.T) {
	for _, opt := range []Options{
		{Redact: true},
		{Redact: true, Top: 0, MaxDecisions: 0, By: "day"},
		{Redact: true, Top: 0, MaxDecisions: 100000},
	} {
		var buf bytes.Buffer
		if err := Markdown(&buf, bigReport(5000), opt); err != nil {
			t.Fatal(err)
		}
		md := buf.String()
		if n := utf8.RuneCountInString(md); n > MarkdownLimit {
			t.Errorf("%+v: markdown of %d characters, over %d", opt.Top, n, MarkdownLimit)
		}
		if opt.Top == 0 && !strings.Contains(md, "cut to fit a GitHub comment") {
			t.Errorf("top 0: no note that the report was cut (%d characters)", len(md))
		}
		if !strings.Contains(md, "left out") {
			t.Errorf("no count of the sessions left out")
		}
	}
	// A small report is not cut and says nothing of it.
	var buf bytes.Buffer
	if err := Markdown(&buf, fullReport(), Options{Redact: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "cut to fit") {
		t.Errorf("a small report says it was cut")
	}
}

// At 80 columns every line of the table fits: no row wraps.
func TestTableFits80Columns(t *testing.T) {
	for _, rep := range []*analyze.Report{fullReport(), bigReport(50)} {
		var buf bytes.Buffer
		if err := Table(&buf, rep, Options{Redact: true, Width: 80, By: "day"}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(buf.String(), "\n")
		inProblems := false
		for i, line := range lines {
			if strings.HasPrefix(line, "Problems (") {
				inProblems = true // one problem a line, whole: not a table
			}
			if n := utf8.RuneCountInString(line); n > 80 && !inProblems {
				t.Errorf("line %d is %d columns wide:\n%s", i+1, n, line)
			}
		}
		if !strings.Contains(buf.String(), "Session ") || strings.Contains(buf.String(), "Deduped  Harmful") {
			t.Errorf("80 columns did not take the compact layout:\n%s", buf.String())
		}
	}
	// Wide enough, the sessions table has a column per count.
	var buf bytes.Buffer
	if err := Table(&buf, fullReport(), Options{Redact: true, Width: 200}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Deduped  Harmful") {
		t.Errorf("200 columns: no wide layout:\n%s", buf.String())
	}
}

func TestTopSessions(t *testing.T) {
	rep := bigReport(45)
	var buf bytes.Buffer
	if err := Table(&buf, rep, Options{Redact: true, Width: 100, Top: 20}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "Sessions (top 20 of 45") || !strings.Contains(out, "25 left out") {
		t.Errorf("no top-20 heading:\n%.400s", out)
	}
	ss, left := topSessions(bigReport(45).Sessions, 3)
	if left != 42 || len(ss) != 3 {
		t.Fatalf("topSessions kept %d, left %d", len(ss), left)
	}
	for i := 1; i < len(ss); i++ {
		if ss[i].TokensSaved > ss[i-1].TokensSaved {
			t.Errorf("not sorted by tokens saved: %d then %d", ss[i-1].TokensSaved, ss[i].TokensSaved)
		}
	}
	// Ties on tokens go to the session with more stops.
	tie := []analyze.SessionResult{{ID: "a", Blocked: 1}, {ID: "b", Blocked: 3}, {ID: "c", Steered: 1}}
	if got, _ := topSessions(tie, 0); got[0].ID != "b" || got[1].ID != "a" || got[2].ID != "c" {
		t.Errorf("tie order %s %s %s, want b a c", got[0].ID, got[1].ID, got[2].ID)
	}
}

func TestCutMiddle(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"corpus/hermes/trajectory_samples.jsonl:37", 28, "corpus/he…y_samples.jsonl:37"},
		{"0b0b0b0b-0000-4000-8000-000000000001", 16, "0b0b0…0000000001"},
		{"ab", 1, "ab"},
	} {
		got := cutMiddle(c.in, c.max)
		if got != c.want {
			t.Errorf("cutMiddle(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if c.max >= 2 && utf8.RuneCountInString(got) > c.max {
			t.Errorf("cutMiddle(%q, %d) is %d long", c.in, c.max, utf8.RuneCountInString(got))
		}
	}
}

func TestByDay(t *testing.T) {
	ss := []analyze.SessionResult{
		{StartedAt: "2026-11-02T10:00:00Z", Calls: 5, Blocked: 1, TokensSaved: 10},
		{Calls: 1},
		{StartedAt: "2026-11-01T23:00:00Z", Calls: 3, Steered: 2},
		{StartedAt: "2026-11-02T11:00:00Z", Calls: 2, Deduped: 1, TokensSaved: 5},
	}
	rows := byDay(ss)
	want := []DayRow{
		{Day: "2026-11-01", Sessions: 1, Calls: 3, Steered: 2},
		{Day: "2026-11-02", Sessions: 2, Calls: 7, Stops: 2, TokensSaved: 15},
		{Day: "unknown", Sessions: 1, Calls: 1},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("byDay = %v, want %v", rows, want)
	}
}

// TestCountsHaveSeparators: every count a table or markdown shows has its
// thousands separated (the guard line, problems, sessions and tools did not).
func TestCountsHaveSeparators(t *testing.T) {
	rep := bigReport(1200)
	rep.Summary.Steered, rep.Summary.Blocked, rep.Summary.Redundant, rep.Summary.Calls = 12345, 2345, 34567, 45678
	var table, md bytes.Buffer
	if err := Table(&table, rep, Options{Redact: true, Width: 200, Top: 20}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, rep, Options{Redact: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, out, want string }{
		{"table guard", table.String(), "12,345 steered, 2,345 blocked"},
		{"table truth", table.String(), "34,567 redundant"},
		{"table sessions", table.String(), "Sessions (top 20 of 1,200"},
		{"table problems", table.String(), "Problems (5,002)"},
		{"markdown calls", md.String(), "| Tool calls | 45,678 |"},
		{"markdown problems", md.String(), "### Problems (5,002)"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s: no %q", c.name, c.want)
		}
	}
}
