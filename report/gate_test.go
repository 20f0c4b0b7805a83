package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze"
)

// gateResult runs a test gate file from fixtures/gate, with durations
// zeroed so that renderings are the same from run to run.
func gateResult(t *testing.T, name string) *analyze.GateResult {
	t.Helper()
	g, err := analyze.LoadGate(filepath.Join("..", "fixtures", "gate", name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := analyze.RunGate(g, analyze.GateOptions{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	res.Duration = 0
	for i := range res.Cases {
		res.Cases[i].Duration = 0
	}
	return res
}

// JUnit: parse the XML back and check the structure CI servers require:
// testsuites > testsuite > testcase, numeric tests/failures/errors/time,
// counts that agree with the elements, a message on every failure.
func TestGateJUnit(t *testing.T) {
	for _, name := range []string{"failing", "passing"} {
		t.Run(name, func(t *testing.T) {
			res := gateResult(t, name+".gate.yaml")
			var buf bytes.Buffer
			if err := GateJUnit(&buf, res, Options{Redact: true}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(buf.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
				t.Errorf("no XML declaration")
			}
			type failure struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			}
			type testcase struct {
				ClassName string    `xml:"classname,attr"`
				Name      string    `xml:"name,attr"`
				Time      *string   `xml:"time,attr"`
				Failures  []failure `xml:"failure"`
			}
			type suite struct {
				Name     string     `xml:"name,attr"`
				Tests    *string    `xml:"tests,attr"`
				Failures *string    `xml:"failures,attr"`
				Errors   *string    `xml:"errors,attr"`
				Time     *string    `xml:"time,attr"`
				Cases    []testcase `xml:"testcase"`
			}
			var doc struct {
				XMLName  xml.Name
				Tests    *string `xml:"tests,attr"`
				Failures *string `xml:"failures,attr"`
				Errors   *string `xml:"errors,attr"`
				Time     *string `xml:"time,attr"`
				Suites   []suite `xml:"testsuite"`
			}
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, buf.String())
			}
			num := func(what string, s *string) float64 {
				t.Helper()
				if s == nil {
					t.Fatalf("%s missing", what)
				}
				f, err := strconv.ParseFloat(*s, 64)
				if err != nil {
					t.Fatalf("%s = %q, not a number", what, *s)
				}
				return f
			}
			wantFailed := float64(res.Failed())
			if doc.XMLName.Local != "testsuites" || len(doc.Suites) != 1 {
				t.Fatalf("root %q with %d suites, want testsuites with 1", doc.XMLName.Local, len(doc.Suites))
			}
			num("testsuites time", doc.Time)
			if num("testsuites tests", doc.Tests) != 3 || num("testsuites failures", doc.Failures) != wantFailed || num("testsuites errors", doc.Errors) != 0 {
				t.Errorf("testsuites counts %s/%s/%s", *doc.Tests, *doc.Failures, *doc.Errors)
			}
			s := doc.Suites[0]
			num("testsuite time", s.Time)
			if s.Name == "" || num("testsuite tests", s.Tests) != float64(len(s.Cases)) || num("testsuite failures", s.Failures) != wantFailed || num("testsuite errors", s.Errors) != 0 {
				t.Errorf("testsuite %q counts %s/%s/%s with %d testcases", s.Name, *s.Tests, *s.Failures, *s.Errors, len(s.Cases))
			}
			failed := 0
			for i, c := range s.Cases {
				num("testcase time", c.Time)
				if c.Name != res.Cases[i].Case.Name || c.ClassName == "" {
					t.Errorf("testcase %d: name %q classname %q", i, c.Name, c.ClassName)
				}
				if len(c.Failures) > 0 {
					failed++
					if c.Failures[0].Message == "" || c.Failures[0].Type == "" || c.Failures[0].Text == "" {
						t.Errorf("testcase %q: failure without message, type or text", c.Name)
					}
				}
			}
			if float64(failed) != wantFailed {
				t.Errorf("%d testcases with a failure, want %v", failed, wantFailed)
			}
			checkGolden(t, "gate/"+name+".junit.xml", buf.Bytes())
		})
	}
}

// SARIF: parse the JSON back and check what GitHub code scanning requires
// (reference/ecosystem.md §1.2).
func TestGateSARIF(t *testing.T) {
	render := func(res *analyze.GateResult) ([]byte, map[string]any) {
		var buf bytes.Buffer
		if err := GateSARIF(&buf, res, SARIFOptions{Decisions: true, Version: "test"}, Options{Redact: true}); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		return buf.Bytes(), doc
	}
	raw, doc := render(gateResult(t, "failing.gate.yaml"))
	if doc["version"] != "2.1.0" || doc["$schema"] != "https://json.schemastore.org/sarif-2.1.0.json" {
		t.Errorf("version %v schema %v", doc["version"], doc["$schema"])
	}
	runs, _ := doc["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	run := runs[0].(map[string]any)
	driver := dig(run, "tool", "driver").(map[string]any)
	if driver["name"] != "loopgate" || driver["informationUri"] == "" || driver["informationUri"] == nil {
		t.Errorf("driver %v", driver)
	}
	ruleIDs := map[string]bool{}
	for _, r := range driver["rules"].([]any) {
		rule := r.(map[string]any)
		id, _ := rule["id"].(string)
		text, _ := dig(rule, "shortDescription", "text").(string)
		if id == "" || text == "" {
			t.Errorf("rule without id or shortDescription.text: %v", rule)
		}
		ruleIDs[id] = true
	}
	results := run["results"].([]any)
	var fingerprints []string
	byRule := map[string]int{}
	for i, x := range results {
		r := x.(map[string]any)
		id, _ := r["ruleId"].(string)
		if !ruleIDs[id] {
			t.Errorf("result %d: ruleId %q not among the driver's rules", i, id)
		}
		byRule[id]++
		if text, _ := dig(r, "message", "text").(string); text == "" {
			t.Errorf("result %d: no message.text", i)
		}
		switch r["level"] {
		case "error", "warning", "note":
		default:
			t.Errorf("result %d: level %v", i, r["level"])
		}
		locs, _ := r["locations"].([]any)
		if len(locs) == 0 {
			t.Fatalf("result %d has no location: GitHub would reject the whole file", i)
		}
		uri, _ := dig(locs[0].(map[string]any), "physicalLocation", "artifactLocation", "uri").(string)
		line, _ := dig(locs[0].(map[string]any), "physicalLocation", "region", "startLine").(float64)
		if uri == "" || strings.Contains(uri, `\`) || !strings.HasSuffix(uri, ".jsonl") {
			t.Errorf("result %d: uri %q is not a transcript path with forward slashes", i, uri)
		}
		if line < 1 {
			t.Errorf("result %d: startLine %v < 1", i, line)
		}
		fp, _ := dig(r, "partialFingerprints", FingerprintKey).(string)
		if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(fp) {
			t.Errorf("result %d: fingerprint %q", i, fp)
		}
		fingerprints = append(fingerprints, fp)
	}
	// failing.gate.yaml: 6 + 2 failed expectations; blocks: 3 in the
	// fetch loop, 4 in the read loop; no harmful stop.
	if byRule[SARIFRuleExpect] != 5 || byRule[SARIFRuleCall] != 3 || byRule[SARIFRuleBlock] != 7 || byRule[SARIFRuleHarmful] != 0 {
		t.Errorf("results by rule: %v", byRule)
	}
	seen := map[string]bool{}
	for _, fp := range fingerprints {
		if seen[fp] {
			t.Errorf("fingerprint %s repeated", fp)
		}
		seen[fp] = true
	}
	// Stable: a second, separate run gives the same fingerprints.
	_, doc2 := render(gateResult(t, "failing.gate.yaml"))
	for i, x := range dig(doc2, "runs").([]any)[0].(map[string]any)["results"].([]any) {
		if fp := dig(x.(map[string]any), "partialFingerprints", FingerprintKey); fp != fingerprints[i] {
			t.Errorf("result %d: fingerprint %v, first run %s", i, fp, fingerprints[i])
		}
	}
	checkGolden(t, "gate/failing.sarif", raw)
}

// dig walks nested JSON objects.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestFingerprintIgnoresLines(t *testing.T) {
	res := gateResult(t, "failing.gate.yaml")
	var a, b bytes.Buffer
	if err := GateSARIF(&a, res, SARIFOptions{}, Options{}); err != nil {
		t.Fatal(err)
	}
	// The same failures, every transcript line moved down by 10.
	for i := range res.Cases {
		for j := range res.Cases[i].Failures {
			res.Cases[i].Failures[j].Line += 10
		}
	}
	if err := GateSARIF(&b, res, SARIFOptions{}, Options{}); err != nil {
		t.Fatal(err)
	}
	fps := func(raw []byte) []string {
		return regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindAllString(string(raw), -1)
	}
	if fa, fb := fps(a.Bytes()), fps(b.Bytes()); len(fa) == 0 || strings.Join(fa, ",") != strings.Join(fb, ",") {
		t.Errorf("fingerprints changed with line numbers:\n%v\n%v", fa, fb)
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("lines should have moved")
	}
}

func TestGateGitHub(t *testing.T) {
	res := gateResult(t, "failing.gate.yaml")
	var buf bytes.Buffer
	if err := GateGitHub(&buf, res, Options{Redact: true}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "gate/failing.github", buf.Bytes())

	// More failures than GitHub shows: the first 10, then one notice.
	many := &analyze.GateResult{File: "gate.yaml", Cases: []analyze.CaseResult{{
		Case:   &analyze.GateCase{Name: "a, b: c"},
		Report: &analyze.Report{},
	}}}
	for i := 1; i <= 13; i++ {
		many.Cases[0].Failures = append(many.Cases[0].Failures, analyze.GateFailure{
			Kind: analyze.FailExpect, GateLine: i, File: "t/x,y:z.jsonl", Line: i % 3,
			Message: fmt.Sprintf("failure %d: 100%% wrong\nsecond line", i)})
	}
	buf.Reset()
	if err := GateGitHub(&buf, many, Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 11 || strings.Count(buf.String(), "::error ") != 10 || !strings.HasPrefix(lines[10], "::notice title=loopgate gate::3 more failed expectation(s) not annotated") {
		t.Errorf("want 10 errors and a notice, got:\n%s", buf.String())
	}
	want := "::error file=t/x%2Cy%3Az.jsonl,line=1,title=loopgate gate%3A a%2C b%3A c::failure 3: 100%25 wrong%0Asecond line (expectation at gate.yaml:3)"
	if lines[2] != want {
		t.Errorf("escaping or line\n got  %s\n want %s", lines[2], want)
	}
}

func TestGateMarkdown(t *testing.T) {
	res := gateResult(t, "failing.gate.yaml")
	var buf bytes.Buffer
	if err := GateMarkdown(&buf, res, Options{Redact: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"**2 of 3 cases failed.**", "| ✅ pass | passes | nanobot |", "| ❌ fail | wrong counts | nanobot |", "- **wrong counts**: blocked: expected 3, got 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	checkGolden(t, "gate/failing.md", buf.Bytes())
}

func TestArtifactURI(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("x", "y.jsonl"))
	for in, want := range map[string]string{
		"./fixtures/golden/a.jsonl": "fixtures/golden/a.jsonl",
		"fixtures/gate/../golden/b": "fixtures/golden/b",
		abs:                         "x/y.jsonl",
	} {
		if got := ArtifactURI(in); got != want {
			t.Errorf("ArtifactURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// Snapshot drift in SARIF: every difference is a gate/snapshot result at
// the transcript, line >= 1 (a session-level difference has no call line).
func TestGateSARIFDrift(t *testing.T) {
	res := gateResult(t, "drifting.gate.yaml")
	var buf bytes.Buffer
	if err := GateSARIF(&buf, res, SARIFOptions{}, Options{Redact: true}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, r := range doc.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		if r.RuleID != SARIFRuleSnapshot || !strings.HasSuffix(loc.ArtifactLocation.URI, "fixtures/golden/loops/search-loop.jsonl") {
			t.Errorf("%s at %s", r.RuleID, loc.ArtifactLocation.URI)
		}
		lines = append(lines, loc.Region.StartLine)
	}
	// The session's call count, call 2 (gone, line 5), call 4 (line 9),
	// call 7 (new, line 15).
	if fmt.Sprint(lines) != "[1 5 9 15]" {
		t.Errorf("start lines %v, want [1 5 9 15]", lines)
	}
}
