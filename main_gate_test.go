package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// gate runs `loopgate gate ARGS...` in-process. Once main.go registers
// gateCommand it is exactly the loopgate helper; until then it adds the
// command to the app itself, with run's wiring.
func gate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	args = append([]string{"gate"}, args...)
	if newApp(nil, nil).Command("gate") != nil {
		return loopgate(t, args...)
	}
	t.Setenv("COLUMNS", "100")
	t.Setenv("NO_COLOR", "1")
	var out, errb bytes.Buffer
	app := newApp(&out, &errb)
	cmd := gateCommand()
	cmd.OnUsageError = app.OnUsageError
	app.Commands = append(app.Commands, cmd)
	err := app.Run(permuteArgs(app, append([]string{"loopgate"}, args...)))
	code := exitOK
	var ec cli.ExitCoder
	switch {
	case err == nil:
	case errors.As(err, &ec):
		if msg := ec.Error(); msg != "" {
			fmt.Fprintln(&errb, "loopgate: "+msg)
		}
		code = ec.ExitCode()
	default:
		fmt.Fprintln(&errb, "loopgate: "+err.Error())
		code = exitUsage
	}
	return out.String(), errb.String(), code
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
		"      precision: expected >= 0.9, got null (no call was blocked or deduped); a null value fails every numeric comparison",
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
		{[]string{"fixtures/gate/invalid/unknown-key.gate.yaml"}, `fixtures/gate/invalid/unknown-key.gate.yaml:4: case 1 has an unknown key "expected"`},
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

	var x struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &x); err != nil || x.Tests != 3 || x.Failures != 2 || len(x.Suites) != 1 || len(x.Suites[0].Cases) != 3 || x.Suites[0].Cases[1].Failure == nil {
		t.Errorf("junit (%v):\n%s", err, data)
	}

	var s struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
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
	if err := json.Unmarshal(data, &s); err != nil || s.Version != "2.1.0" || len(s.Runs) != 1 {
		t.Fatalf("sarif (%v):\n%s", err, data)
	}
	decisions := 0
	for _, r := range s.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		if !strings.HasPrefix(loc.ArtifactLocation.URI, "fixtures/golden/") || loc.Region.StartLine < 1 {
			t.Errorf("%s at %s:%d: want a repository-relative transcript and a line", r.RuleID, loc.ArtifactLocation.URI, loc.Region.StartLine)
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
	if _, _, code := gate(t, file); code != exitFindings {
		t.Errorf("no snapshot yet: exit %d, want 1", code)
	}
	out, stderr, code := gate(t, file, "--update")
	if code != exitOK || !strings.Contains(out, "snapshot written: "+filepath.Join(dir, "snapshots", "read-loop.golden")) {
		t.Fatalf("--update: exit %d\n%s%s", code, out, stderr)
	}
	if out, _, code = gate(t, file); code != exitOK {
		t.Errorf("after --update: exit %d\n%s", code, out)
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
