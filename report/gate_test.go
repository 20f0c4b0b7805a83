package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/gate"
)

// runGateFixture runs a test gate file from fixtures/gate as CI runs it:
// from the repository root, so that every path in the result is
// repository-relative (fixtures/golden/...), whatever directory the
// renderers later run in.
func runGateFixture(t *testing.T, name string) *gate.Result {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(".."); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Chdir(wd); err != nil {
			t.Fatal(err)
		}
	}()
	g, err := gate.Load(filepath.Join("fixtures", "gate", name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := gate.Run(g, gate.Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// gateResult is runGateFixture with durations zeroed, so that renderings
// are the same from run to run.
func gateResult(t *testing.T, name string) *gate.Result {
	t.Helper()
	res := runGateFixture(t, name)
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
			// Real durations: time= is the one attribute that varies from
			// run to run; the golden comparison below masks it.
			res := runGateFixture(t, name+".gate.yaml")
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
				Name     string  `xml:"name,attr"`
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
			if doc.Name == "" {
				t.Error("testsuites has no name")
			}
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
				if num("testcase time", c.Time) < 0 {
					t.Errorf("testcase %q: negative time", c.Name)
				}
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
			checkGolden(t, "gate/"+name+".junit.xml", junitTimes.ReplaceAll(buf.Bytes(), []byte(`time="0.000"`)))
		})
	}
}

// junitTimes matches JUnit's time= attributes, the only part of the
// report that changes from run to run (docs/ci.md says so).
var junitTimes = regexp.MustCompile(`time="[0-9]+\.[0-9]{3}"`)

// SARIF: parse the JSON back and check what GitHub code scanning requires
// (https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning).
func TestGateSARIF(t *testing.T) {
	render := func(res *gate.Result) ([]byte, map[string]any) {
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
	checkSARIF(t, raw)
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
		base, _ := dig(locs[0].(map[string]any), "physicalLocation", "artifactLocation", "uriBaseId").(string)
		line, _ := dig(locs[0].(map[string]any), "physicalLocation", "region", "startLine").(float64)
		if !strings.HasPrefix(uri, "fixtures/golden/") || !strings.HasSuffix(uri, ".jsonl") || base != "%SRCROOT%" {
			t.Errorf("result %d: uri %q (base %q) is not a transcript path relative to %%SRCROOT%%", i, uri, base)
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

// checkSARIF checks a SARIF log against the SARIF 2.1.0 schema
// (sarif-schema-2.1.0.json) for every object loopgate writes: the required
// properties, the types, and no property the schema does not define (it
// says additionalProperties: false throughout); then GitHub code
// scanning's own rules (docs.github.com, "SARIF support for code scanning"): a location with a
// URI and a line >= 1 on every result, partialFingerprints, ruleIndex
// pointing at the rule of ruleId, a relative URI only with a uriBaseId.
func checkSARIF(t *testing.T, raw []byte) {
	t.Helper()
	var log any
	if err := json.Unmarshal(raw, &log); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	errorf := func(path, format string, a ...any) {
		t.Helper()
		t.Errorf("SARIF %s: "+format, append([]any{path}, a...)...)
	}
	obj := func(path string, v any, required []string, allowed ...string) map[string]any {
		t.Helper()
		m, ok := v.(map[string]any)
		if !ok {
			errorf(path, "want an object, got %T", v)
			return map[string]any{}
		}
		for _, k := range required {
			if _, ok := m[k]; !ok {
				errorf(path, "required property %q missing", k)
			}
		}
		for k := range m {
			if !slices.Contains(allowed, k) && !slices.Contains(required, k) && k != "properties" {
				errorf(path, "property %q is not in the schema", k)
			}
		}
		if p, ok := m["properties"]; ok {
			if _, ok := p.(map[string]any); !ok {
				errorf(path+".properties", "want a property bag (object)")
			}
		}
		return m
	}
	str := func(path string, v any) string {
		t.Helper()
		s, ok := v.(string)
		if !ok {
			errorf(path, "want a string, got %T", v)
		}
		return s
	}
	list := func(path string, v any) []any {
		t.Helper()
		l, ok := v.([]any)
		if !ok {
			errorf(path, "want an array, got %T", v)
		}
		return l
	}
	integer := func(path string, v any, min float64) int {
		t.Helper()
		f, ok := v.(float64)
		if !ok || f != float64(int(f)) || f < min {
			errorf(path, "want an integer >= %v, got %v", min, v)
		}
		return int(f)
	}
	message := func(path string, v any) {
		t.Helper()
		m := obj(path, v, nil, "text", "markdown", "id", "arguments")
		if text, _ := m["text"].(string); text == "" {
			errorf(path, "message without text")
		}
	}
	multiformat := func(path string, v any) {
		t.Helper()
		m := obj(path, v, []string{"text"}, "markdown")
		str(path+".text", m["text"])
	}
	levels := []string{"none", "note", "warning", "error"}
	artifact := func(path string, v any) {
		t.Helper()
		a := obj(path, v, nil, "uri", "uriBaseId", "index", "description")
		uri := str(path+".uri", a["uri"])
		u, err := url.Parse(uri)
		if uri == "" || err != nil || strings.Contains(uri, `\`) {
			errorf(path, "uri %q is not a valid URI reference (%v)", uri, err)
			return
		}
		_, hasBase := a["uriBaseId"]
		if u.IsAbs() == hasBase {
			errorf(path, "uri %q: a relative URI needs a uriBaseId, an absolute one must not have one", uri)
		}
	}
	location := func(path string, v any) {
		t.Helper()
		l := obj(path, v, []string{"physicalLocation"}, "id", "logicalLocations", "message", "annotations", "relationships")
		if id, ok := l["id"]; ok {
			integer(path+".id", id, -1)
		}
		if m, ok := l["message"]; ok {
			message(path+".message", m)
		}
		p := obj(path+".physicalLocation", l["physicalLocation"], []string{"artifactLocation", "region"}, "address", "contextRegion")
		artifact(path+".physicalLocation.artifactLocation", p["artifactLocation"])
		r := obj(path+".physicalLocation.region", p["region"], []string{"startLine"}, "startColumn", "endLine", "endColumn",
			"charOffset", "charLength", "byteOffset", "byteLength", "snippet", "message", "sourceLanguage")
		integer(path+".physicalLocation.region.startLine", r["startLine"], 1)
	}

	root := obj("log", log, []string{"$schema", "version", "runs"}, "inlineExternalProperties")
	if str("log.$schema", root["$schema"]) == "" || root["version"] != "2.1.0" {
		errorf("log", "$schema %v, version %v (want 2.1.0)", root["$schema"], root["version"])
	}
	for ri, rv := range list("log.runs", root["runs"]) {
		rp := fmt.Sprintf("runs[%d]", ri)
		run := obj(rp, rv, []string{"tool", "results"}, "invocations", "conversion", "language", "versionControlProvenance",
			"originalUriBaseIds", "artifacts", "logicalLocations", "graphs", "automationDetails", "runAggregates",
			"baselineGuid", "redactionTokens", "defaultEncoding", "defaultSourceLanguage", "newlineSequences", "columnKind",
			"externalPropertyFileReferences", "threadFlowLocations", "taxonomies", "addresses", "translations", "policies",
			"webRequests", "webResponses", "specialLocations")
		if ad, ok := run["automationDetails"]; ok {
			a := obj(rp+".automationDetails", ad, nil, "description", "id", "guid", "correlationGuid")
			str(rp+".automationDetails.id", a["id"])
		}
		tool := obj(rp+".tool", run["tool"], []string{"driver"}, "extensions")
		driver := obj(rp+".tool.driver", tool["driver"], []string{"name", "rules"}, "guid", "organization", "product",
			"productSuite", "shortDescription", "fullDescription", "fullName", "version", "semanticVersion",
			"dottedQuadFileVersion", "releaseDateUtc", "downloadUri", "informationUri", "globalMessageStrings",
			"notifications", "taxa", "locations", "language", "contents", "isComprehensive",
			"localizedDataSemanticVersion", "minimumRequiredLocalizedDataSemanticVersion", "associatedComponent",
			"translationMetadata", "supportedTaxonomies")
		if str(rp+".tool.driver.name", driver["name"]) == "" {
			errorf(rp+".tool.driver", "empty name")
		}
		var ruleIDs []string
		for i, x := range list(rp+".tool.driver.rules", driver["rules"]) {
			p := fmt.Sprintf("%s.tool.driver.rules[%d]", rp, i)
			rule := obj(p, x, []string{"id"}, "deprecatedIds", "guid", "deprecatedGuids", "name", "deprecatedNames",
				"shortDescription", "fullDescription", "messageStrings", "defaultConfiguration", "helpUri", "help", "relationships")
			ruleIDs = append(ruleIDs, str(p+".id", rule["id"]))
			for _, k := range []string{"shortDescription", "fullDescription", "help"} {
				if v, ok := rule[k]; ok {
					multiformat(p+"."+k, v)
				}
			}
			if v, ok := rule["defaultConfiguration"]; ok {
				c := obj(p+".defaultConfiguration", v, nil, "enabled", "level", "rank", "parameters")
				if !slices.Contains(levels, str(p+".defaultConfiguration.level", c["level"])) {
					errorf(p+".defaultConfiguration.level", "%v", c["level"])
				}
			}
		}
		for i, x := range list(rp+".results", run["results"]) {
			p := fmt.Sprintf("%s.results[%d]", rp, i)
			r := obj(p, x, []string{"ruleId", "message", "locations", "partialFingerprints"}, "ruleIndex", "rule", "kind", "level",
				"analysisTarget", "guid", "correlationGuid", "occurrenceCount", "fingerprints", "stacks", "codeFlows", "graphs",
				"graphTraversals", "relatedLocations", "suppressions", "baselineState", "rank", "attachments", "hostedViewerUri",
				"workItemUris", "provenance", "fixes", "taxa", "webRequest", "webResponse")
			id := str(p+".ruleId", r["ruleId"])
			if !slices.Contains(ruleIDs, id) {
				errorf(p, "ruleId %q is not a rule of the driver", id)
			}
			if ix, ok := r["ruleIndex"]; ok {
				if n := integer(p+".ruleIndex", ix, 0); n >= len(ruleIDs) || ruleIDs[n] != id {
					errorf(p, "ruleIndex %d does not point at rule %q", n, id)
				}
			}
			if lv, ok := r["level"]; ok && !slices.Contains(levels, str(p+".level", lv)) {
				errorf(p, "level %v", lv)
			}
			message(p+".message", r["message"])
			locs := list(p+".locations", r["locations"])
			if len(locs) == 0 {
				errorf(p, "no location: GitHub rejects the whole file")
			}
			for j, l := range locs {
				location(fmt.Sprintf("%s.locations[%d]", p, j), l)
			}
			if rl, ok := r["relatedLocations"]; ok {
				for j, l := range list(p+".relatedLocations", rl) {
					location(fmt.Sprintf("%s.relatedLocations[%d]", p, j), l)
				}
			}
			fps, _ := r["partialFingerprints"].(map[string]any)
			if len(fps) == 0 {
				errorf(p, "no partialFingerprints")
			}
			for k, v := range fps {
				str(p+".partialFingerprints."+k, v)
			}
		}
	}
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
	many := &gate.Result{File: "gate.yaml", Cases: []gate.CaseResult{{
		Case:   &gate.Case{Name: "a, b: c"},
		Report: &analyze.Report{},
	}}}
	for i := 1; i <= 13; i++ {
		many.Cases[0].Failures = append(many.Cases[0].Failures, gate.Failure{
			Kind: gate.FailExpect, GateLine: i, File: "t/x,y:z.jsonl", Line: i % 3,
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
	for _, want := range []string{"**2 of 3 cases failed.**", "| ✅ pass | passes | nanobot |", "| ❌ fail | wrong counts | nanobot |", "- **wrong counts**: `blocked: expected 3, got 4`"} {
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
	checkSARIF(t, buf.Bytes())
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

// A failed expectation keeps its fingerprint when the replay's numbers
// change (blocked 4 -> 2 under other rules, its anchor decision moving
// from call 3 to call 5, a call's actual action changing): it identifies
// the expectation (gate file, case, field or call), not what was found.
func TestFailureFingerprintStable(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "golden", "loops", "read-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "loop.jsonl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	gateFile := filepath.Join(dir, "loopgate.gate.yaml")
	run := func(preset string) (map[string]string, map[string]string) {
		t.Helper()
		text := "preset: " + preset + "\ntokenizer: chars4\nsnapshots: false\ncases:\n  - name: loop\n    transcript: loop.jsonl\n" +
			"    expect:\n      blocked: 0\n      precision: \"< 0.5\"\n      calls:\n        - {call: 4, action: allow}\n"
		if err := os.WriteFile(gateFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := gate.Load(gateFile)
		if err != nil {
			t.Fatal(err)
		}
		res, err := gate.Run(g, gate.Options{Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := GateSARIF(&buf, res, SARIFOptions{}, Options{}); err != nil {
			t.Fatal(err)
		}
		checkSARIF(t, buf.Bytes())
		var doc struct {
			Runs []struct {
				Results []struct {
					Message             struct{ Text string }   `json:"message"`
					PartialFingerprints map[string]string       `json:"partialFingerprints"`
					Properties          struct{ Actual string } `json:"properties"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		fps, actual := map[string]string{}, map[string]string{}
		for _, r := range doc.Runs[0].Results {
			key := strings.SplitN(strings.TrimPrefix(r.Message.Text, "loop: "), ":", 2)[0] // "blocked", "precision", "call 4"
			fps[key], actual[key] = r.PartialFingerprints[FingerprintKey], r.Properties.Actual
		}
		return fps, actual
	}
	nanobot, nanobotActual := run("nanobot")
	again, _ := run("nanobot")
	pi, piActual := run("pi-loopguard")
	if len(nanobot) != 3 || fmt.Sprint(nanobot) != fmt.Sprint(again) {
		t.Fatalf("two runs: %v / %v", nanobot, again)
	}
	if nanobotActual["blocked"] == piActual["blocked"] || nanobotActual["call 4"] == piActual["call 4"] {
		t.Fatalf("the two presets should find different numbers: %v / %v", nanobotActual, piActual)
	}
	for key, fp := range nanobot {
		if pi[key] != fp {
			t.Errorf("%s: fingerprint changed with the numbers (%s -> %s): %s / %s", key, nanobotActual[key], piActual[key], fp, pi[key])
		}
	}
	if nanobot["blocked"] == nanobot["precision"] || nanobot["blocked"] == nanobot["call 4"] {
		t.Errorf("different expectations share a fingerprint: %v", nanobot)
	}

	// Every part of the failure that reports what was found may change.
	f := gate.Failure{Kind: gate.FailExpect, Field: "blocked", Expected: "3", Actual: "4", GateLine: 13,
		File: "t/a.jsonl", Line: 7, Session: "s", Call: 3, Action: "block", Detector: "repeat", Message: "blocked: expected 3, got 4"}
	moved := gate.Failure{Kind: gate.FailExpect, Field: "blocked", Expected: "5", Actual: "0", GateLine: 20,
		File: "t/b.jsonl", Message: "blocked: expected 5, got 0"}
	if a, b := FailureFingerprint("g.yaml", "c", &f), FailureFingerprint("g.yaml", "c", &moved); a != b {
		t.Errorf("summary fingerprint depends on the numbers: %s / %s", a, b)
	}
	for _, other := range []string{FailureFingerprint("h.yaml", "c", &f), FailureFingerprint("g.yaml", "d", &f)} {
		if other == FailureFingerprint("g.yaml", "c", &f) {
			t.Error("gate file and case name must be part of the fingerprint")
		}
	}
}

func TestSARIFArtifactLocation(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("x", "a b.jsonl"))
	outside := filepath.Join(filepath.Dir(filepath.Dir(abs)), "..", "out.jsonl")
	outsideAbs, _ := filepath.Abs(outside)
	for _, tc := range []struct{ in, uri, base string }{
		{"fixtures/golden/a.jsonl", "fixtures/golden/a.jsonl", "%SRCROOT%"},
		{"./fixtures/golden/a b%.jsonl", "fixtures/golden/a%20b%25.jsonl", "%SRCROOT%"},
		{"a:b.jsonl", "a%3Ab.jsonl", "%SRCROOT%"},
		{abs, "x/a%20b.jsonl", "%SRCROOT%"},
		{outside, "file://" + (&url.URL{Path: filepath.ToSlash(outsideAbs)}).EscapedPath(), ""},
	} {
		got := sarifArtifactLocation(tc.in)
		if got.URI != tc.uri || got.URIBaseID != tc.base {
			t.Errorf("%q: uri %q base %q, want %q %q", tc.in, got.URI, got.URIBaseID, tc.uri, tc.base)
		}
		if u, err := url.Parse(got.URI); err != nil || u.IsAbs() != (got.URIBaseID == "") {
			t.Errorf("%q: %q is not a URI of the right kind (%v)", tc.in, got.URI, err)
		}
	}
}

// Exit 2 with --github: the error is annotated at the gate file's line.
func TestGateErrorGitHub(t *testing.T) {
	var buf bytes.Buffer
	if err := GateErrorGitHub(&buf, "ci/loopgate.gate.yaml", 4, `case 1 has an unknown key "expected" (known: a, b)`); err != nil {
		t.Fatal(err)
	}
	if err := GateErrorGitHub(&buf, "loopgate.gate.yaml", 0, "cannot read the gate file: no such file or directory"); err != nil {
		t.Fatal(err)
	}
	if err := GateErrorGitHub(&buf, "", 0, "cannot write out/x.sarif: 100% full"); err != nil {
		t.Fatal(err)
	}
	want := "::error file=ci/loopgate.gate.yaml,line=4,title=loopgate gate%3A invalid gate file::case 1 has an unknown key \"expected\" (known: a, b)\n" +
		"::error file=loopgate.gate.yaml,title=loopgate gate%3A invalid gate file::cannot read the gate file: no such file or directory\n" +
		"::error title=loopgate gate%3A the gate could not run::cannot write out/x.sarif: 100%25 full\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// A case with no snapshot yet passes; the GitHub output and the step
// summary say to record it.
func TestGateSnapshotMissingNotes(t *testing.T) {
	res := &gate.Result{File: "ci/loopgate.gate.yaml", Cases: []gate.CaseResult{
		{Case: &gate.Case{Name: "read loop", Line: 7, Snapshot: "ci/snapshots/read-loop.golden"}, Report: &analyze.Report{}, SnapshotMissing: true},
		{Case: &gate.Case{Name: "healthy", Line: 12, Snapshot: "ci/snapshots/healthy.golden"}, Report: &analyze.Report{}},
	}}
	var gh, md bytes.Buffer
	if err := GateGitHub(&gh, res, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "::notice file=ci/loopgate.gate.yaml,line=7,title=loopgate gate%3A no snapshot for read loop::case \"read loop\" has no snapshot yet (ci/snapshots/read-loop.golden): it was checked on its expectations only. Run loopgate gate --update ci/loopgate.gate.yaml and commit the snapshot to pin every decision.\n"
	if gh.String() != want {
		t.Errorf("github\n got  %s want %s", gh.String(), want)
	}
	if err := GateMarkdown(&md, res, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"**All 2 cases passed.**", "### Cases with no snapshot yet", "- **read loop**: `ci/snapshots/read-loop.golden`"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, md.String())
		}
	}
	if strings.Contains(md.String(), "healthy.golden") {
		t.Errorf("a case with its snapshot is not a note:\n%s", md.String())
	}
}
