package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
)

var update = flag.Bool("update", false, "rewrite the golden files in fixtures/report")

// Secrets planted in the test report. Each must vanish from every format
// when redacting.
const (
	secretOpenAI   = "sk-proj-T3stK3y0123456789abcdefGHIJ"
	secretBearer   = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJl42"
	secretURLPass  = "hunter2pw"
	secretGitHub   = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
	secretAWSKeyID = "AKIAIOSFODNN7EXAMPLE"
)

func ptr(f float64) *float64 { return &f }

// fullReport has steers, blocks, a harmful block, a dedup, a halt, native
// and redundant-only decisions, a long timeline, a problem, and secrets in
// arguments, a message and a problem message.
func fullReport() *analyze.Report {
	long := strings.Repeat("....r|", 40) + "..sBB!|..D"
	return &analyze.Report{
		Summary: analyze.Summary{
			Files: 2, Sessions: 3, Turns: 47, Requests: 260, Calls: 262,
			Steered: 2, Blocked: 4, Deduped: 1, Halted: 1,
			Redundant: 44, RedundantStopped: 3, Harmful: 1, StoppedActions: 1,
			Precision: ptr(0.75), Recall: ptr(3.0 / 44.0),
			TokensSaved: 12345, ContextTokensSaved: 1234567, SteerTokens: 210,
			Native: 1, Problems: 1,
		},
		Rules:  analyze.RulesInfo{Name: "loopgate", Source: "preset:loopgate"},
		Tokens: analyze.TokensInfo{Tokenizer: "o200k_base", SessionsWithUsage: 1, RecordedInput: 98765, RecordedOutput: 4321},
		Sessions: []analyze.SessionResult{
			{
				File: "corpus/hermes/session_20260301.json", ID: "20260301_101500_ab12cd", Format: "hermes-export",
				Agent: "main", Selector: "20260301_101500_ab12cd", Model: "gpt-5", Turns: 3, Requests: 12, Calls: 11,
				Steered: 1, Blocked: 2, Halted: 1, Redundant: 2, RedundantStopped: 1, Harmful: 1,
				TokensSaved: 2300, ContextTokensSaved: 9200, SteerTokens: 70, HasUsage: true,
				Timeline: "..s|.B!H|r...",
				Decisions: []analyze.Decision{
					{Turn: 1, Call: 3, CallID: "call_3", Tool: "terminal", Class: "shell",
						Args:   `{"command": "OPENAI_API_KEY=` + secretOpenAI + ` python eval.py --limit 5"}`,
						Action: guard.Steer, Detector: "repeat", Count: 3,
						Message: "You have run this exact command 3 times; try something else."},
					{Turn: 2, Call: 5, CallID: "call_5", Tool: "web_fetch", Class: "web_fetch",
						Args:   `{"url": "https://api.example.com/v1/items", "headers": {"Authorization": "Bearer ` + secretBearer + `"}}`,
						Action: guard.Block, Detector: "repeat", Count: 4, Redundant: true,
						Message:     "Blocked: identical fetch repeated 4 times.",
						TokensSaved: 1800, ContextTokensSaved: 7200},
					{Turn: 2, Call: 6, CallID: "call_6", Tool: "read_file", Class: "read",
						Args:   `{"path": "config/db.yaml"}`,
						Action: guard.Block, Detector: "consecutive", Count: 3, Harmful: true,
						Message:     "Blocked: config/db.yaml was read 3 times (postgres://admin:" + secretURLPass + "@db.internal:5432/app).",
						TokensSaved: 500, ContextTokensSaved: 2000},
					{Turn: 2, Call: 7, CallID: "call_7", Tool: "read_file", Class: "read",
						Args:   `{"path": "config/db.yaml"}`,
						Action: guard.Halt, Detector: "consecutive", Count: 4,
						Message: "Stopping this turn: the same call keeps failing."},
					{Turn: 3, Call: 8, CallID: "call_8", Tool: "search_files", Class: "search",
						Args:   `{"pattern": "a|b", "path": "src"}`,
						Action: guard.Allow, Redundant: true, Native: "hermes-warning"},
				},
			},
			{
				File: "corpus/nanobot/cli_direct.jsonl", ID: "cli:direct", Format: "nanobot",
				Agent: "main", Selector: "cli:direct", Turns: 42, Requests: 240, Calls: 246,
				Steered: 1, Blocked: 1, Deduped: 1, Redundant: 42, RedundantStopped: 2,
				TokensSaved: 10045, ContextTokensSaved: 1225367, SteerTokens: 140,
				Timeline: long,
				Decisions: []analyze.Decision{
					{Turn: 41, Call: 243, Line: 1201, CallID: "call_243", Tool: "exec", Class: "shell",
						Args:   `{"command": "aws s3 ls --profile ci", "env": {"AWS_ACCESS_KEY_ID": "` + secretAWSKeyID + `"}}`,
						Action: guard.Steer, Detector: "cycle", Count: 2, Redundant: true,
						Message: "Warning: you seem to be in a loop (period 2)."},
					{Turn: 41, Call: 244, Line: 1207, CallID: "call_244", Tool: "exec", Class: "shell",
						Args:   `{"command": "cat notes.txt"}`,
						Action: guard.Block, Detector: "repeat", Count: 3, Redundant: true,
						Message:     "Error: this call was already made; its result has not changed.",
						TokensSaved: 10000, ContextTokensSaved: 1200000},
					{Turn: 42, Call: 246, Line: 1240, CallID: "call_246", Tool: "read_file", Class: "read",
						Args:   "{\"path\": \"notes.txt\",\n  \"offset\": 0}",
						Action: guard.Dedup, Detector: "dedup", Count: 2, Redundant: true,
						Message:     "[same result as call 240]",
						TokensSaved: 45, ContextTokensSaved: 25367},
				},
			},
			{
				File: "corpus/nanobot/cli_direct.jsonl", ID: "cli:direct/sub-1", Selector: "cli:direct/sub-1", Format: "nanobot",
				Agent: "sub-1", Parent: "cli:direct", Turns: 2, Requests: 8, Calls: 5,
				Blocked: 1, StoppedActions: 1, TokensSaved: 12, ContextTokensSaved: 12,
				Timeline: "..|..B",
				Decisions: []analyze.Decision{
					// An action stopped: neither right nor harmful.
					{Turn: 2, Call: 5, Line: 1250, CallID: "call_5", Tool: "browser_click", Class: "browser",
						Args:   `{"ref": "@e12"}`,
						Action: guard.Block, Detector: "consecutive", Count: 3, StoppedAction: true,
						Message:     "Blocked: clicked 3 times in a row.",
						TokensSaved: 12, ContextTokensSaved: 12},
				},
			},
		},
		Tools: []analyze.ToolStat{
			{Tool: "exec", Class: "shell", Calls: 120, Redundant: 30, Steered: 1, Blocked: 1, TokensSaved: 10000},
			{Tool: "read_file", Class: "read", Calls: 100, Redundant: 12, Blocked: 1, Deduped: 1, Harmful: 1, TokensSaved: 545},
			{Tool: "terminal", Class: "shell", Calls: 30, Steered: 1},
			{Tool: "web_fetch", Class: "web_fetch", Calls: 12, Redundant: 2, Blocked: 1, TokensSaved: 1800},
			{Tool: "browser_click", Class: "browser", Calls: 1, Blocked: 1, TokensSaved: 12},
		},
		Problems: []analyze.Problem{
			{File: "corpus/nanobot/broken.jsonl", Line: 17, Message: `line is not JSON: {"role": "tool", "content": "token ` + secretGitHub + `"`},
			{File: "corpus/unknown.json", Message: "no known format (top-level keys: foo, bar)"},
		},
	}
}

// quietReport has no stop at all (precision and recall null), steers only,
// and nil lists everywhere.
func quietReport() *analyze.Report {
	return &analyze.Report{
		Summary: analyze.Summary{Files: 1, Sessions: 1, Turns: 2, Requests: 4, Calls: 3, Steered: 1, SteerTokens: 35},
		Rules:   analyze.RulesInfo{Name: "attractor", Source: "preset:attractor"},
		Tokens:  analyze.TokensInfo{Tokenizer: "chars4"},
		Sessions: []analyze.SessionResult{{
			File: "chat.json", ID: "chat", Format: "openai-chat", Agent: "main", Selector: "chat",
			Turns: 2, Requests: 4, Calls: 3, Steered: 1, SteerTokens: 35, Timeline: "..|s",
			Decisions: []analyze.Decision{{Turn: 2, Call: 3, Tool: "grep", Class: "search",
				Args: `{"pattern": "TODO"}`, Action: guard.Steer, Detector: "cycle", Count: 1,
				Message: "Loop warning: the last calls repeat with period 1."}},
		}},
	}
}

var goldenReports = []struct {
	name string
	rep  func() *analyze.Report
	opt  Options
	// formats the options matter to (nil: all)
	formats []string
}{
	{"full", fullReport, Options{Redact: true, Width: 100}, nil},
	{"full-capped", fullReport, Options{Redact: true, Width: 80, MaxDecisions: 2}, []string{"markdown", "table"}},
	{"quiet", quietReport, Options{Redact: true}, nil},
}

// The html golden is the page's data only (htmlGoldenData): its script and
// style are checked in a browser (html_browser_test.go).
var goldenExt = map[string]string{"table": "txt", "json": "json", "jsonl": "jsonl", "markdown": "md", "html": "html-data.json"}

func TestGolden(t *testing.T) {
	for _, g := range goldenReports {
		formats := g.formats
		if formats == nil {
			formats = FormatNames("replay")
		}
		for _, format := range formats {
			name := g.name + "." + goldenExt[format]
			t.Run(name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := Render(format, &buf, g.rep(), g.opt); err != nil {
					t.Fatal(err)
				}
				got := buf.Bytes()
				if format == "html" {
					got = htmlGoldenData(t, buf.String())
				}
				checkGolden(t, name, got)
			})
		}
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "fixtures", "report", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// With Redact every planted secret is gone from every format; without it,
// each appears where that format shows it (the table does not show guard
// messages, so the URL password in a block message is not in it).
func TestSecretsRedacted(t *testing.T) {
	all := []string{secretOpenAI, secretBearer, secretURLPass, secretGitHub, secretAWSKeyID}
	shown := map[string][]string{
		"json":     all,
		"jsonl":    all,
		"table":    {secretOpenAI, secretGitHub},
		"markdown": {secretOpenAI, secretGitHub},
	}
	for _, format := range FormatNames("replay") {
		for _, redact := range []bool{true, false} {
			var buf bytes.Buffer
			// A wide table keeps whole arguments, so that a secret cannot
			// vanish merely by being cut.
			if err := Render(format, &buf, fullReport(), Options{Redact: redact, Width: 400}); err != nil {
				t.Fatal(err)
			}
			// Markdown escapes _ and [ outside code: undo that, so that an
			// escaped secret still counts as shown.
			out := strings.NewReplacer(`\_`, "_", `\[`, "[", `\]`, "]").Replace(buf.String())
			if redact {
				for _, s := range all {
					if strings.Contains(out, s) {
						t.Errorf("%s: secret %q survives redaction", format, s)
					}
				}
				if !strings.Contains(out, "[REDACTED:") {
					t.Errorf("%s: no redaction marker in the output", format)
				}
				continue
			}
			for _, s := range shown[format] {
				if !strings.Contains(out, s) {
					t.Errorf("%s with Redact=false: secret %q is missing", format, s)
				}
			}
		}
	}
}

func TestRenderDoesNotMutate(t *testing.T) {
	rep := fullReport()
	for _, format := range FormatNames("replay") {
		if err := Render(format, &bytes.Buffer{}, rep, Options{Redact: true}); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(rep, fullReport()) {
		t.Error("rendering changed the caller's report")
	}
}

func TestJSONShape(t *testing.T) {
	for _, rep := range []*analyze.Report{{}, quietReport(), fullReport()} {
		var buf bytes.Buffer
		if err := JSON(&buf, rep, Options{Redact: true}); err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"summary", "rules", "sessions", "tools", "problems"} {
			if v, ok := doc[k]; !ok || string(v) == "null" {
				t.Errorf("top-level %q is %s", k, v)
			}
		}
		var summary map[string]json.RawMessage
		_ = json.Unmarshal(doc["summary"], &summary)
		for _, k := range []string{"files", "sessions", "turns", "requests", "calls", "steered", "blocked",
			"deduped", "halted", "redundant", "harmful", "precision", "recall", "tokens_saved",
			"context_tokens_saved", "problems"} {
			if _, ok := summary[k]; !ok {
				t.Errorf("summary lacks %q", k)
			}
		}
		var sessions []map[string]json.RawMessage
		_ = json.Unmarshal(doc["sessions"], &sessions)
		for _, s := range sessions {
			if d := string(s["decisions"]); d == "" || d == "null" {
				t.Errorf("session decisions = %q, want a list", d)
			}
		}
	}
}

// TestJSONStreamsAsEncoded: the report written member by member and session
// by session is byte for byte the whole report encoded at once, for every
// test report, redacted or not, with secrets, HTML characters and
// multi-line values (it fails when Report gains a field JSON does not
// write, or a list is written as null).
func TestJSONStreamsAsEncoded(t *testing.T) {
	html := fullReport()
	html.Sessions[0].Decisions[0].Message = "a <b> & \"c\"\n\td"
	html.Rules.Name = "</script>"
	oneSession := quietReport()
	oneSession.Sessions = oneSession.Sessions[:1]
	for i, rep := range []*analyze.Report{{}, quietReport(), fullReport(), html, oneSession, {Sessions: []analyze.SessionResult{}}} {
		for _, redact := range []bool{true, false} {
			opt := Options{Redact: redact}
			var got, want bytes.Buffer
			if err := JSON(&got, rep, opt); err != nil {
				t.Fatal(err)
			}
			p, err := prepared(rep, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := writeJSON(&want, p, "  "); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("report %d (redact %v): streamed JSON differs from the encoded report:\n%s", i, redact, cmp.Diff(want.String(), got.String()))
			}
		}
	}
}

func TestJSONLStreams(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSONL(&buf, Options{Redact: true})
	rep := fullReport()
	if err := j.Session(&rep.Sessions[0]); err != nil {
		t.Fatal(err)
	}
	// Lines are buffered until a flush (at the end of each file, in a
	// replay); the first line is out before the report is finished.
	if n := strings.Count(buf.String(), "\n"); n != 0 {
		t.Fatalf("after one session, before a flush: %d lines, want 0", n)
	}
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Fatalf("after one session and a flush: %d lines, want 1", n)
	}
	if err := j.Finish(rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	var last map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[1]), &last); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range last {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "problems,rules,summary,tokens,tools" {
		t.Errorf("summary line keys = %s", got)
	}
}

func TestTableColor(t *testing.T) {
	var plain, colored bytes.Buffer
	rep := fullReport()
	if err := Table(&plain, rep, Options{Redact: true}); err != nil {
		t.Fatal(err)
	}
	if err := Table(&colored, rep, Options{Redact: true, Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("uncolored table has ANSI codes")
	}
	for _, want := range []string{
		ansiYellow + "s" + ansiReset, ansiRed + "B" + ansiReset, ansiMagenta + "!" + ansiReset,
		ansiDim + "r" + ansiReset, ansiRed + "D" + ansiReset,
	} {
		if !strings.Contains(colored.String(), want) {
			t.Errorf("colored table lacks mark %q", want)
		}
	}
	// Machine formats never carry color.
	for _, format := range []string{"json", "jsonl", "markdown"} {
		var buf bytes.Buffer
		_ = Render(format, &buf, rep, Options{Color: true})
		if strings.Contains(buf.String(), "\x1b[") {
			t.Errorf("%s has ANSI codes", format)
		}
	}
}

func TestTimelineCut(t *testing.T) {
	tw := &textWriter{}
	tl := strings.Repeat(".", 50) + "|" + strings.Repeat(".", 49) + "sB"
	got := tw.timeline(tl, 40)
	if len([]rune(got)) > 40 {
		t.Errorf("cut timeline is %d wide, want ≤ 40: %q", len([]rune(got)), got)
	}
	if !strings.HasSuffix(got, "sB") {
		t.Errorf("cut timeline %q lost its end", got)
	}
	// Marks cut + marks kept = all marks (the separator is not a mark).
	var cut int
	kept := got[strings.Index(got, "…")+len("…"):]
	if _, err := fmt.Sscanf(got, "[%d marks cut]", &cut); err != nil {
		t.Fatalf("no cut count in %q", got)
	}
	if cut+len(kept)-strings.Count(kept, "|") != 101 {
		t.Errorf("%d cut + %q kept ≠ 101 marks", cut, kept)
	}
	if got := tw.timeline("..s", 40); got != "..s" {
		t.Errorf("short timeline changed: %q", got)
	}
}

// Odd options and odd input must not panic: a tiny width, a huge
// timeline, empty strings everywhere.
func TestRenderEdgeCases(t *testing.T) {
	rep := fullReport()
	rep.Sessions[1].Timeline = strings.Repeat("....B|", 200000)
	rep.Sessions = append(rep.Sessions, analyze.SessionResult{Decisions: []analyze.Decision{{}}})
	rep.Problems = append(rep.Problems, analyze.Problem{})
	for _, format := range FormatNames("replay") {
		for _, width := range []int{-5, 1, 30, 1000} {
			var buf bytes.Buffer
			if err := Render(format, &buf, rep, Options{Redact: true, Width: width, MaxDecisions: 1}); err != nil {
				t.Errorf("%s width %d: %v", format, width, err)
			}
			if buf.Len() == 0 {
				t.Errorf("%s width %d: no output", format, width)
			}
		}
	}
	if err := Render("table", &bytes.Buffer{}, nil, Options{}); err != nil {
		t.Errorf("nil report: %v", err)
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	err := Render("xml", &bytes.Buffer{}, fullReport(), Options{})
	if err == nil || !strings.Contains(err.Error(), "markdown") {
		t.Errorf("Render(xml) error = %v, want one listing the formats", err)
	}
}

func TestAbbreviateArgs(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"", 10, ""},
		{"abc", 10, "abc"},
		{"  a \n\t b  ", 10, "a b"},
		{"abcdefghij", 10, "abcdefghij"},
		{"abcdefghijk", 10, "abcdefghi…"},
		{"abcd efghijk", 6, "abcd…"},
		{"héllo wörld", 7, "héllo…"},
		{"abc", 1, "…"},
		{"a\nb", 0, "a b"},
	}
	for _, c := range cases {
		if got := AbbreviateArgs(c.in, c.max); got != c.want {
			t.Errorf("AbbreviateArgs(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestColorEnabled(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv("NO_COLOR", "")
	cases := []struct {
		mode, noColor string
		want          bool
	}{
		{"never", "", false},
		{"always", "", true},
		{"always", "1", true}, // an explicit flag overrides NO_COLOR
		{"auto", "", false},   // a file is not a terminal
		{"", "1", false},
		{"sometimes", "", false},
	}
	for _, c := range cases {
		t.Setenv("NO_COLOR", c.noColor)
		if got := ColorEnabled(c.mode, f); got != c.want {
			t.Errorf("ColorEnabled(%q) with NO_COLOR=%q = %v, want %v", c.mode, c.noColor, got, c.want)
		}
	}
}

// TestProblemCountsTheUnlisted: when the summary counts more problems than
// the report lists (a file had more than a report lists, and one entry
// stands for the rest), the table and markdown headings give the count,
// and markdown's "more" line the problems not shown.
func TestProblemCountsTheUnlisted(t *testing.T) {
	rep := quietReport()
	rep.Problems = nil
	for i := range 60 {
		rep.Problems = append(rep.Problems, analyze.Problem{File: "a.jsonl", Line: i + 1, Message: "line is not valid JSON"})
	}
	rep.Summary.Problems = 2000
	var table, md bytes.Buffer
	if err := Table(&table, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, out, want string }{
		{"table", table.String(), "Problems (2,000)"},
		{"markdown", md.String(), "### Problems (2,000)"},
		{"markdown", md.String(), "…and 1,950 more problems"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s: no %q in\n%s", c.name, c.want, c.out)
		}
	}
}
