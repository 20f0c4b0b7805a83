package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/gate"
	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// pageData extracts the JSON document a page shows.
func pageData(t *testing.T, page string) map[string]any {
	t.Helper()
	const open = `<script type="application/json" id="data">`
	i := strings.Index(page, open)
	j := strings.Index(page[i+len(open):], "</script>")
	if i < 0 || j < 0 {
		t.Fatalf("no data element in the page")
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(page[i+len(open):i+len(open)+j]), &data); err != nil {
		t.Fatalf("page data: %v", err)
	}
	return data
}

// htmlGoldenData is a page's data, indented, for a golden file.
func htmlGoldenData(t *testing.T, page string) []byte {
	t.Helper()
	b, err := json.MarshalIndent(pageData(t, page), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// withoutData is the page with its data element emptied: the markup,
// style and script.
func withoutData(page string) string {
	const open = `<script type="application/json" id="data">`
	i := strings.Index(page, open)
	j := strings.Index(page[i:], "</script>")
	return page[:i+len(open)] + page[i+j:]
}

func renderHTML(t *testing.T, rep *analyze.Report, opt Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, rep, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// externalRef finds what would make a browser load something: a src or
// href attribute, a CSS url() or @import, a fetch or XMLHttpRequest, a
// WebSocket, an absolute http(s) URL.
var externalRef = regexp.MustCompile(`(?i)\b(src|href|action|srcset|formaction|poster)\s*=\s*["']|\.(src|href)\s*=|setAttribute\(\s*["'](src|href)|url\(|@import|\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|https?://|//[a-z0-9.-]+\.[a-z]{2,}/`)

func TestHTMLLoadsNothingExternal(t *testing.T) {
	rep := fullReport() // its arguments hold https:// and postgres:// URLs
	pages := map[string]string{"replay": renderHTML(t, rep, Options{Redact: true})}
	var b bytes.Buffer
	rows := []analyze.CompareRow{{Name: "nanobot", Source: "preset:nanobot", Summary: rep.Summary}}
	if err := Compare("html", &b, rows, analyze.CorpusFacts{Files: 1}, Options{}); err != nil {
		t.Fatal(err)
	}
	pages["compare"] = b.String()
	b.Reset()
	srows := []analyze.SweepRow{{Settings: []analyze.Setting{{Key: "detectors.repeat.block_at", Value: "3"}}, Summary: rep.Summary, Pareto: true}}
	if err := Sweep("html", &b, "loopgate (preset:loopgate)", srows, analyze.CorpusFacts{}, Options{}); err != nil {
		t.Fatal(err)
	}
	pages["sweep"] = b.String()
	b.Reset()
	if err := GateHTML(&b, testGateResult(), Options{Redact: true}); err != nil {
		t.Fatal(err)
	}
	pages["gate"] = b.String()
	for kind, page := range pages {
		t.Run(kind, func(t *testing.T) {
			markup := withoutData(page)
			// The only "src"/"href" allowed: the skip link to #main.
			markup = strings.Replace(markup, `href="#main"`, "", 1)
			if m := externalRef.FindString(markup); m != "" {
				i := strings.Index(markup, m)
				t.Errorf("the page may load something external: %q in %q", m, markup[max(0, i-60):min(len(markup), i+60)])
			}
			if !strings.Contains(page, `Content-Security-Policy" content="default-src 'none'`) {
				t.Errorf("the page does not forbid loading by its Content-Security-Policy")
			}
			// The data holds the transcripts' URLs only as escaped text.
			if strings.Contains(page[strings.Index(page, `id="data">`):], "</script><") && strings.Count(page, "</script>") != 2 {
				t.Errorf("the page has %d </script>, want 2", strings.Count(page, "</script>"))
			}
			pageData(t, page)
		})
	}
}

func TestHTMLRedactsSecrets(t *testing.T) {
	secrets := []string{secretOpenAI, secretBearer, secretURLPass, secretGitHub, secretAWSKeyID}
	for _, redact := range []bool{true, false} {
		page := renderHTML(t, fullReport(), Options{Redact: redact})
		// The secrets are in JSON strings, which escape nothing in them.
		for _, s := range secrets {
			if got := strings.Contains(page, s); got == redact {
				t.Errorf("redact=%v: secret %q in the page: %v", redact, s, got)
			}
		}
	}
	// Some planted secrets are in the report's arguments, messages and
	// problems: the page must show those, redacted.
	page := renderHTML(t, fullReport(), Options{Redact: true})
	if !strings.Contains(page, "[REDACTED") {
		t.Errorf("the redacted page shows no redaction mark")
	}
}

// TestHTMLEscapesScriptClose: a tool's arguments that hold "</script>"
// and markup stay text.
func TestHTMLEscapesScriptClose(t *testing.T) {
	rep := fullReport()
	rep.Sessions[0].Decisions[0].Args = `{"q": "</script><script>alert(1)</script><img src=x>"}`
	page := renderHTML(t, rep, Options{})
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("the page has %d </script>, want 2 (the data and the code)", n)
	}
	if strings.Contains(page, "<img") {
		t.Errorf("markup from the arguments reached the page unescaped")
	}
	data := pageData(t, page)
	if !strings.Contains(fmt.Sprint(data["decisions"]), "<img src=x>") {
		t.Errorf("the arguments did not survive in the data as text")
	}
}

func TestEncodeMarks(t *testing.T) {
	tests := []struct {
		timeline string
		max      int
		want     string
		perMark  int
	}{
		{"", 10, "", 1},
		{"...", 10, ".3", 1},
		{"..s|.B!H|r...", 0, ".2s1.1B1!1H1r1.3", 1},
		// 8 calls in 4 marks: each pair drawn as its weightiest.
		{"..r.B!..", 4, ".1r1!1.1", 2},
		{"sB", 1, "B1", 2},
		// Bytes that are no mark are drawn as allowed.
		{"7s\xff.", 0, ".1s1.2", 1},
	}
	for _, tt := range tests {
		got, per := encodeMarks(tt.timeline, tt.max)
		if got != tt.want || per != tt.perMark {
			t.Errorf("encodeMarks(%q, %d) = %q, %d; want %q, %d", tt.timeline, tt.max, got, per, tt.want, tt.perMark)
		}
	}
}

func TestOnRecallFront(t *testing.T) {
	row := func(recall *float64, harmful int) analyze.SweepRow {
		return analyze.SweepRow{Summary: analyze.Summary{Recall: recall, Harmful: harmful}}
	}
	rows := []analyze.SweepRow{
		row(ptr(0.5), 0), // front: nothing has more recall with no harm
		row(ptr(0.9), 2), // front
		row(ptr(0.8), 3), // beaten by the row above
		row(ptr(0.5), 1), // beaten by the first
		row(nil, 0),      // no recall: on no front
		row(ptr(0.9), 2), // ties the second: both on the front
	}
	want := []bool{true, true, false, false, false, true}
	for i, w := range want {
		if got := onRecallFront(rows, i); got != w {
			t.Errorf("row %d: onRecallFront = %v, want %v", i, got, w)
		}
	}
}

// manyHTMLSessions is a report of n sessions of calls calls each, with a
// decision every fifth call: the shape, if not the content, of a corpus
// of a gibibyte.
func manyHTMLSessions(n, calls int) *analyze.Report {
	rep := &analyze.Report{Rules: analyze.RulesInfo{Name: "loopgate", Source: "preset:loopgate"}}
	timeline := strings.Repeat("....B", calls/5)
	for i := 0; i < n; i++ {
		s := analyze.SessionResult{File: fmt.Sprintf("corpus/file-%05d.jsonl", i/10), ID: fmt.Sprintf("session-%06d", i),
			Format: "hermes-export", Agent: "main", Calls: calls, Blocked: calls / 5, Harmful: i % 7, TokensSaved: int64(i),
			Timeline: timeline}
		for c := 5; c <= calls; c += 5 {
			s.Decisions = append(s.Decisions, analyze.Decision{Call: c, Turn: 1, Line: c, Tool: "read_file", Class: "read",
				Args: `{"path": "src/` + strings.Repeat("deep/", 30) + `file.go"}`, Action: guard.Block, Detector: "repeat",
				Count: 3, Message: strings.Repeat("Blocked: you have read this file already. ", 5), Redundant: true, TokensSaved: 100})
		}
		rep.Sessions = append(rep.Sessions, s)
		rep.Summary.Sessions++
		rep.Summary.Calls += s.Calls
		rep.Summary.Blocked += s.Blocked
		rep.Summary.Harmful += s.Harmful
		rep.Summary.TokensSaved += s.TokensSaved
	}
	return rep
}

// TestHTMLKeepsTheTopSessions: the sessions listed are those that rank
// first, whatever order they come in.
func TestHTMLKeepsTheTopSessions(t *testing.T) {
	for _, n := range []int{10, htmlMaxSessions, 3*htmlMaxSessions + 7} {
		rep := &analyze.Report{}
		for i := 0; i < n; i++ {
			// A permutation of 0..n-1 as the stops: the order is mixed.
			stops := (i * 7919) % n
			if n%7919 == 0 {
				t.Fatal("7919 must not divide n")
			}
			rep.Sessions = append(rep.Sessions, analyze.SessionResult{ID: fmt.Sprint(i), Calls: 1, Blocked: stops})
		}
		top, _, _, err := collectHTMLSessions(rep, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(n, htmlMaxSessions); len(top) != want {
			t.Fatalf("n=%d: kept %d sessions, want %d", n, len(top), want)
		}
		for i, r := range top {
			if want := n - 1 - i; r.s.Blocked != want {
				t.Fatalf("n=%d: session %d kept has %d stops, want %d", n, i, r.s.Blocked, want)
			}
		}
	}
}

// TestHTMLStaysWithinBudget: however many sessions and decisions, the page
// fits HTMLMaxBytes, lists the top sessions, and totals the rest so that
// listed plus aggregated is the whole.
func TestHTMLStaysWithinBudget(t *testing.T) {
	rep := manyHTMLSessions(20000, 100) // 2 M calls, 400 000 decisions
	page := renderHTML(t, rep, Options{Redact: true})
	if len(page) > HTMLMaxBytes || len(page) > 6<<20 {
		t.Fatalf("page is %d bytes, over %d", len(page), HTMLMaxBytes)
	}
	data := pageData(t, page)
	checkAggregates(t, data, rep.Summary)
	sessions := data["sessions"].([]any)
	if len(sessions) == 0 || len(sessions) > htmlMaxSessions {
		t.Errorf("%d sessions listed", len(sessions))
	}
	// The first listed has the most harmful stops (i%7 == 6).
	if h := sessions[0].(map[string]any)["harmful"].(float64); h != 6 {
		t.Errorf("first listed session has %v harmful stops, want 6", h)
	}
}

func checkAggregates(t *testing.T, data map[string]any, sum analyze.Summary) {
	t.Helper()
	rest := data["rest"].(map[string]any)
	sessions := data["sessions"].([]any)
	listedCalls, listedHarmful := 0.0, 0.0
	for _, s := range sessions {
		listedCalls += s.(map[string]any)["calls"].(float64)
		listedHarmful += s.(map[string]any)["harmful"].(float64)
	}
	if got := float64(len(sessions)) + rest["sessions"].(float64); got != float64(sum.Sessions) {
		t.Errorf("listed + aggregated sessions = %v, want %d", got, sum.Sessions)
	}
	if got := listedCalls + rest["calls"].(float64); got != float64(sum.Calls) {
		t.Errorf("listed + aggregated calls = %v, want %d", got, sum.Calls)
	}
	if got := listedHarmful + rest["harmful"].(float64); got != float64(sum.Harmful) {
		t.Errorf("listed + aggregated harmful = %v, want %d", got, sum.Harmful)
	}
	decisions := float64(len(data["decisions"].([]any)))
	if got := decisions + rest["decisions"].(float64); got != data["decisions_total"].(float64) {
		t.Errorf("listed + aggregated decisions = %v, want %v", got, data["decisions_total"])
	}
}

// TestHTMLBudgetOnGeneratedCorpus replays a corpus of many sessions made
// by internal/corpusgen and renders it under a budget small enough that the page
// must aggregate: it fits, and says what it left out.
func TestHTMLBudgetOnGeneratedCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and replays a corpus")
	}
	dir := t.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Config{Seed: 7, TotalBytes: 3 << 20, MaxFileBytes: 128 << 10, MaxResultBytes: 8 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	rep := replayDir(t, dir, "loopgate")
	if rep.Summary.Sessions < 100 {
		t.Fatalf("the generated corpus has only %d sessions", rep.Summary.Sessions)
	}
	full := renderHTML(t, rep, Options{Redact: true})
	defer func(b int) { htmlBudget = b }(htmlBudget)
	htmlBudget = len(full) / 3
	page := renderHTML(t, rep, Options{Redact: true})
	if len(page) > htmlBudget {
		t.Errorf("page is %d bytes, over the budget of %d", len(page), htmlBudget)
	}
	data := pageData(t, page)
	checkAggregates(t, data, rep.Summary)
	if rest := data["rest"].(map[string]any); rest["sessions"].(float64) == 0 && rest["decisions"].(float64) == 0 {
		t.Errorf("a page a third the size aggregated nothing")
	}
	if len(data["sessions"].([]any)) == 0 {
		t.Errorf("the page lists no session")
	}
}

// replayDir replays every file under dir with a preset, tokens counted as
// bytes/4 (fast).
func replayDir(t testing.TB, dir, preset string) *analyze.Report {
	t.Helper()
	r, err := rules.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New(tokens.Chars4)
	if err != nil {
		t.Fatal(err)
	}
	return analyze.Replay(corpusFiles(t, dir), analyze.Options{Rules: r, Tokens: counter, Jobs: 1})
}

// corpusFiles lists the files under dir, the generator's manifest left out.
func corpusFiles(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// testGateResult runs the project's failing and drifting gate fixtures:
// failed expectations of every kind, snapshot differences, a passing case.
func testGateResult() *gate.Result {
	res := &gate.Result{File: "../fixtures/gate/failing.gate.yaml"}
	for _, f := range []string{"failing.gate.yaml", "drifting.gate.yaml"} {
		g, err := gate.Load(filepath.Join("..", "fixtures", "gate", f))
		if err != nil {
			panic(err)
		}
		r, err := gate.Run(g, gate.Options{Jobs: 1, SnapshotArgs: func(s string) string { return AbbreviateArgs(Redact(s), 120) }, SnapshotText: Redact})
		if err != nil {
			panic(err)
		}
		res.Cases = append(res.Cases, r.Cases...)
	}
	return res
}

// FuzzHTMLReplay: whatever a session's timeline, arguments, message and
// names hold, the page renders, its data is JSON that cannot close its
// element, its timeline is marks and digits only, and it fits the budget.
func FuzzHTMLReplay(f *testing.F) {
	f.Add("..s|.B!H|r...", `{"q": "</script><b>"}`, "Blocked.", "read_file", "id-1")
	f.Add("", "", "", "", "")
	f.Add("7\xff|||", "\u2028\x00<!--", "]]>", "</SCRIPT", "\xc3")
	f.Fuzz(func(t *testing.T, timeline, args, message, tool, id string) {
		rep := &analyze.Report{
			Summary: analyze.Summary{Sessions: 1, Calls: len(timeline)},
			Sessions: []analyze.SessionResult{{ID: id, File: id, Timeline: timeline, Calls: len(timeline), StartedAt: id,
				Decisions: []analyze.Decision{{Call: 1, Tool: tool, Args: args, Message: message, Action: guard.Block}}}},
			Tools:    []analyze.ToolStat{{Tool: tool, Calls: 1}},
			Problems: []analyze.Problem{{File: id, Line: 1, Message: message}},
		}
		var b bytes.Buffer
		if err := HTML(&b, rep, Options{Redact: true}); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if n := strings.Count(strings.ToLower(page), "</script"); n != 2 {
			t.Fatalf("%d </script in the page, want 2", n)
		}
		if len(page) > HTMLMaxBytes {
			t.Fatalf("page of %d bytes", len(page))
		}
		data := pageData(t, page)
		for _, s := range data["sessions"].([]any) {
			marks := s.(map[string]any)["marks"].(string)
			if !regexp.MustCompile(`^([.rsBDH!n][0-9]+)*$`).MatchString(marks) {
				t.Fatalf("timeline %q encoded as %q", timeline, marks)
			}
		}
	})
}
