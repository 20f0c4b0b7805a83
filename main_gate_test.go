package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gate runs `loopgate gate ARGS...` in-process.
func gate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return loopgate(t, append([]string{"gate"}, args...)...)
}

// The project's own gate passes: known loops caught, healthy sessions left
// alone, snapshots unchanged. (No golden of its summary: the loopgate
// preset's numbers in it will move when the preset is tuned.)
func TestGateSelf(t *testing.T) {
	out, stderr, code := gate(t, "fixtures/golden/loopgate.gate.yaml")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, stderr)
	}
	if strings.Contains(out, "FAIL") || !strings.Contains(out, "10 case(s): 10 passed, 0 failed") {
		t.Errorf("summary:\n%s", out)
	}
}

func TestGateFailing(t *testing.T) {
	out, stderr, code := gate(t, "fixtures/gate/failing.gate.yaml")
	if code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, stderr)
	}
	if stderr != "loopgate: gate failed: 2 of 3 case(s) failed\n" {
		t.Errorf("stderr %q", stderr)
	}
	for _, want := range []string{
		"PASS  passes",
		"FAIL  wrong counts",
		"      blocked: expected 3, got 4  (fixtures/gate/failing.gate.yaml:13)",
		"      call 3: expected block by no_progress, got block by repeat (count 3)  (fixtures/gate/failing.gate.yaml:18)",
		"      precision: expected >= 0.9, got null (no observation call was blocked or deduped); a null value fails every numeric comparison",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	checkGolden(t, filepath.Join("fixtures", "gate", "expected", "failing.txt.golden"), out)
}

func TestGateDrift(t *testing.T) {
	out, _, code := gate(t, "fixtures/gate/drifting.gate.yaml")
	if code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"snapshot: ~ ../golden/loops/search-loop.jsonl [telegram:searchloop] call 4 grep",
		": action steer -> block",
		"snapshot: + ../golden/loops/search-loop.jsonl [telegram:searchloop] call 7: block by repeat #5",
		"snapshot: - ../golden/loops/search-loop.jsonl [telegram:searchloop] call 2: steer by repeat #1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("drift output lacks %q:\n%s", want, out)
		}
	}
	checkGolden(t, filepath.Join("fixtures", "gate", "expected", "drifting.txt.golden"), out)
}

// A wrong gate file stops the run with exit 2 and names the file and line.
func TestGateInvalid(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fixtures/gate/invalid/unknown-key.gate.yaml"}, `fixtures/gate/invalid/unknown-key.gate.yaml:4: unknown key "expected" in case 1; did you mean "expect"?`},
		{[]string{"fixtures/gate/invalid/no-match.gate.yaml"}, `fixtures/gate/invalid/no-match.gate.yaml:5: transcript "../../golden/nowhere/*.jsonl" matches no file`},
		{[]string{"fixtures/gate/invalid/ambiguous-session.gate.yaml"}, "fixtures/gate/invalid/ambiguous-session.gate.yaml:8: the case has several sessions (cli:refactor, discord:research, cli:retryfix); say which one"},
		{[]string{"fixtures/gate/none.gate.yaml"}, "fixtures/gate/none.gate.yaml: cannot read the gate file: no such file or directory"},
		{[]string{"a.yaml", "b.yaml"}, "gate takes one gate FILE, not 2"},
		{[]string{"fixtures/gate/passing.gate.yaml", "--sarif-decisions"}, "--sarif-decisions needs --sarif FILE"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, stderr, code := gate(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			if out != "" {
				t.Errorf("standard output should be empty:\n%s", out)
			}
			if !strings.HasPrefix(stderr, "loopgate: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr\n got  %s want %s", stderr, tc.want)
			}
		})
	}
}

// --junit, --sarif, --github and the step summary, from the repository
// root as CI runs it: paths are repository-relative.
func TestGateCIOutputs(t *testing.T) {
	dir := t.TempDir()
	junit, sarif, summary := filepath.Join(dir, "gate.xml"), filepath.Join(dir, "gate.sarif"), filepath.Join(dir, "summary.md")
	if err := os.WriteFile(summary, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	out, _, code := gate(t, "fixtures/gate/failing.gate.yaml", "--junit", junit, "--sarif", sarif, "--sarif-decisions", "--github")
	if code != exitFindings {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "::error file=fixtures/golden/loops/read-loop.jsonl,line=7,title=loopgate gate%3A wrong counts::blocked: expected 3, got 4 (expectation at fixtures/gate/failing.gate.yaml:13)\n") {
		t.Errorf("annotations:\n%s", out)
	}
	if n := strings.Count(out, "::error "); n != 8 {
		t.Errorf("%d annotations, want 8", n)
	}

	// JUnit: the structure CI servers require (testsuites > testsuite >
	// testcase; names, counts, classname, a message on each failure).
	var x struct {
		XMLName  xml.Name
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				ClassName string `xml:"classname,attr"`
				Time      string `xml:"time,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &x); err != nil || x.XMLName.Local != "testsuites" || x.Name == "" || x.Tests != 3 || x.Failures != 2 ||
		len(x.Suites) != 1 || x.Suites[0].Name != "fixtures/gate/failing.gate.yaml" || x.Suites[0].Tests != 3 || x.Suites[0].Failures != 2 ||
		len(x.Suites[0].Cases) != 3 || x.Suites[0].Cases[1].Failure == nil {
		t.Fatalf("junit (%v):\n%s", err, data)
	}
	for _, tc := range x.Suites[0].Cases {
		if _, err := strconv.ParseFloat(tc.Time, 64); tc.Name == "" || tc.ClassName == "" || err != nil || tc.Failure != nil && tc.Failure.Message == "" {
			t.Errorf("junit testcase %+v", tc)
		}
	}

	// SARIF: what code scanning requires (report/gate_test.go checks every
	// object against the schema; here, the file as the CLI writes it).
	var s struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Locations           []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if data, err = os.ReadFile(sarif); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil || s.Schema == "" || s.Version != "2.1.0" || len(s.Runs) != 1 || s.Runs[0].Tool.Driver.Name != "loopgate" {
		t.Fatalf("sarif (%v):\n%s", err, data)
	}
	rules := map[string]bool{}
	for _, r := range s.Runs[0].Tool.Driver.Rules {
		rules[r.ID] = r.ID != ""
	}
	decisions := 0
	for _, r := range s.Runs[0].Results {
		if !rules[r.RuleID] || r.Message.Text == "" || r.PartialFingerprints["loopgateFinding/v1"] == "" || len(r.Locations) == 0 {
			t.Fatalf("result without a known ruleId, message.text, partialFingerprints or location: %+v", r)
		}
		loc := r.Locations[0].PhysicalLocation
		if !strings.HasPrefix(loc.ArtifactLocation.URI, "fixtures/golden/") || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine < 1 {
			t.Errorf("%s at %s (base %q):%d: want a transcript relative to %%SRCROOT%% and a line", r.RuleID, loc.ArtifactLocation.URI, loc.ArtifactLocation.URIBaseID, loc.Region.StartLine)
		}
		if strings.HasPrefix(r.RuleID, "decision/") {
			decisions++
		}
	}
	if len(s.Runs[0].Results) != 15 || decisions != 7 {
		t.Errorf("%d results (%d decisions), want 8 failures and 7 blocks", len(s.Runs[0].Results), decisions)
	}

	if data, err = os.ReadFile(summary); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "earlier step\n## loopgate gate: `fixtures/gate/failing.gate.yaml`") || !strings.Contains(string(data), "**2 of 3 cases failed.**") {
		t.Errorf("step summary not appended:\n%s", data)
	}
}

// --update writes the snapshots (flags may follow the file), a later run
// passes, and a change of rules shows as a drift.
func TestGateUpdate(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "loop.jsonl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "loopgate.gate.yaml")
	writeGate := func(preset string) {
		text := "preset: " + preset + "\ntokenizer: chars4\ncases:\n  - {name: read loop, transcript: loop.jsonl}\n"
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeGate("nanobot")
	// No snapshot yet: the case passes on its expectations, with a note.
	out, stderr, code := gate(t, file)
	if code != exitOK || !strings.Contains(out, "PASS  read loop") ||
		!strings.Contains(out, "note: no snapshot yet ("+filepath.Join(dir, "snapshots", "read-loop.golden")+"): checked on its expectations only; run loopgate gate --update "+file+" to record it") ||
		!strings.Contains(out, "note: 1 case(s) have no snapshot yet") {
		t.Errorf("no snapshot yet: exit %d, want 0 with a note\n%s%s", code, out, stderr)
	}
	out, stderr, code = gate(t, file, "--update")
	if code != exitOK || !strings.Contains(out, "snapshot written: "+filepath.Join(dir, "snapshots", "read-loop.golden")) {
		t.Fatalf("--update: exit %d\n%s%s", code, out, stderr)
	}
	if out, _, code = gate(t, file); code != exitOK || strings.Contains(out, "note:") {
		t.Errorf("after --update: exit %d, and no note\n%s", code, out)
	}
	writeGate("pi-loopguard")
	out, _, code = gate(t, file)
	if code != exitFindings || !strings.Contains(out, "snapshot: ~ loop.jsonl [cli:readloop] call 4 read_file") {
		t.Errorf("rules change: exit %d\n%s", code, out)
	}
	// Run from the gate file's directory, with no FILE: the default name.
	t.Chdir(dir)
	writeGate("nanobot")
	if out, stderr, code = gate(t); code != exitOK {
		t.Errorf("default gate file: exit %d\n%s%s", code, out, stderr)
	}
	if err := os.Remove("loopgate.gate.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code = gate(t); code != exitUsage || !strings.Contains(stderr, "loopgate.gate.yaml: cannot read the gate file") {
		t.Errorf("missing default gate file: exit %d %s", code, stderr)
	}
}

// The gate's exit codes from the command line, one scenario each: a
// passing gate (0), a failing expectation (1), a wrong gate file (2, with
// FILE:LINE), a snapshot drift (1, with the diff), --update then a pass.
func TestGateExitCodes(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "search-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "search.jsonl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	tmpGate := filepath.Join(dir, "loopgate.gate.yaml")
	writeGate := func(preset string) {
		t.Helper()
		text := "preset: " + preset + "\ntokenizer: chars4\ncases:\n  - name: search\n    transcript: search.jsonl\n    expect: {harmful: 0}\n"
		if err := os.WriteFile(tmpGate, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		setup    func()
		args     []string
		code     int
		out      []string // in standard output
		stderr   string   // in standard error
		noStdout bool
	}{
		{name: "passing gate", args: []string{"fixtures/gate/passing.gate.yaml"}, code: exitOK,
			out: []string{"PASS  read loop under a budget of 4", "PASS  every known loop", "PASS  healthy sessions", "3 case(s): 3 passed, 0 failed"}},
		{name: "failing expectation", args: []string{"fixtures/gate/failing.gate.yaml"}, code: exitFindings,
			out:    []string{"FAIL  wrong counts", "      blocked: expected 3, got 4  (fixtures/gate/failing.gate.yaml:13)"},
			stderr: "loopgate: gate failed: 2 of 3 case(s) failed"},
		{name: "invalid gate file: YAML syntax", args: []string{"fixtures/gate/invalid/syntax.gate.yaml"}, code: exitUsage, noStdout: true,
			stderr: "loopgate: fixtures/gate/invalid/syntax.gate.yaml:6: the file is not valid YAML: found unexpected end of stream"},
		{name: "invalid gate file: unknown key", args: []string{"fixtures/gate/invalid/unknown-key.gate.yaml"}, code: exitUsage, noStdout: true,
			stderr: `loopgate: fixtures/gate/invalid/unknown-key.gate.yaml:4: unknown key "expected" in case 1; did you mean "expect"?`},
		{name: "invalid gate file: huge number", args: []string{"fixtures/gate/invalid/huge-number.gate.yaml"}, code: exitUsage, noStdout: true,
			stderr: "loopgate: fixtures/gate/invalid/huge-number.gate.yaml:7: blocked: 1e308 is out of range"},
		{name: "snapshot drift", args: []string{"fixtures/gate/drifting.gate.yaml"}, code: exitFindings,
			out: []string{"FAIL  search loop drift", `snapshot: ~ ../golden/loops/search-loop.jsonl [telegram:searchloop] call 4 grep {"pattern": "schedule =", "path": "src/jobs"}: action steer -> block  (fixtures/gate/drifting.gate.yaml:7)`}},
		{name: "new case without a snapshot", setup: func() { writeGate("nanobot") }, args: []string{tmpGate}, code: exitOK,
			out: []string{"PASS  search", "note: no snapshot yet", "run loopgate gate --update " + tmpGate + " to record it"}},
		{name: "--update", args: []string{tmpGate, "--update"}, code: exitOK,
			out: []string{"PASS  search", "snapshot written: " + filepath.Join(dir, "snapshots", "search.golden")}},
		{name: "pass after --update", args: []string{tmpGate}, code: exitOK, out: []string{"PASS  search", "1 case(s): 1 passed, 0 failed"}},
		{name: "drift after a rules change", setup: func() { writeGate("pi-loopguard") }, args: []string{tmpGate}, code: exitFindings,
			out: []string{"FAIL  search", "snapshot: ~ search.jsonl [telegram:searchloop] call"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			out, stderr, code := gate(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, stderr)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
			if tc.noStdout && out != "" {
				t.Errorf("standard output should be empty:\n%s", out)
			}
		})
	}
}

// Exit 2 with --github: the gate file error is also an annotation at its
// file and line, so that the pull request shows it.
func TestGateGitHubInvalid(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	for _, tc := range []struct{ file, want string }{
		{"fixtures/gate/invalid/unknown-key.gate.yaml", "::error file=fixtures/gate/invalid/unknown-key.gate.yaml,line=4,title=loopgate gate%3A invalid gate file::unknown key \"expected\" in case 1; did you mean \"expect\"?"},
		{"fixtures/gate/invalid/syntax.gate.yaml", "::error file=fixtures/gate/invalid/syntax.gate.yaml,line=6,title=loopgate gate%3A invalid gate file::the file is not valid YAML: found unexpected end of stream\n"},
		{"fixtures/gate/invalid/ambiguous-session.gate.yaml", "::error file=fixtures/gate/invalid/ambiguous-session.gate.yaml,line=8,title=loopgate gate%3A invalid gate file::the case has several sessions"},
		{"fixtures/gate/none.gate.yaml", "::error file=fixtures/gate/none.gate.yaml,title=loopgate gate%3A invalid gate file::cannot read the gate file: no such file or directory; write one from transcripts: loopgate gate init PATH... --output fixtures/gate/none.gate.yaml\n"},
	} {
		out, stderr, code := gate(t, tc.file, "--github")
		if code != exitUsage || !strings.HasPrefix(out, "::error ") || !strings.Contains(out, tc.want) || strings.Count(out, "\n") != 1 {
			t.Errorf("%s: exit %d\nstdout %q\nwant   %q\nstderr %s", tc.file, code, out, tc.want, stderr)
		}
	}
	// Without --github, nothing on standard output (TestGateInvalid).
	if out, _, _ := gate(t, "fixtures/gate/invalid/syntax.gate.yaml"); out != "" {
		t.Errorf("annotation without --github: %q", out)
	}
}

// --junit and --sarif create the directories they write into.
func TestGateReportDirs(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "build", "reports", "loopgate-junit.xml")
	sarif := filepath.Join(dir, "build", "sarif", "loopgate.sarif")
	out, stderr, code := gate(t, "fixtures/gate/passing.gate.yaml", "--junit", junit, "--sarif", sarif)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, p := range []string{junit, sarif} {
		if data, err := os.ReadFile(p); err != nil || len(data) == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	// A path that cannot be a directory is still an error (exit 2).
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := gate(t, "fixtures/gate/passing.gate.yaml", "--junit", filepath.Join(blocker, "x.xml")); code != exitUsage || !strings.Contains(stderr, "cannot write") {
		t.Errorf("unwritable --junit: exit %d %s", code, stderr)
	}
}
