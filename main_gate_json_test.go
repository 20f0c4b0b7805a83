package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateJSON: `gate -f json` writes the gate's result as one JSON
// document (docs/ci.md): its totals agree with the exit code and the
// table's, every failed expectation carries its gate file line, and the
// document is the golden one (go test . -run TestGateJSON -update).
func TestGateJSON(t *testing.T) {
	cases := []struct {
		file                string
		code, cases, failed int
		passed              bool
		failuresOfCase      map[string]int
		golden              string
	}{
		{"fixtures/gate/failing.gate.yaml", exitFindings, 3, 2, false, map[string]int{"passes": 0, "wrong counts": 6, "null precision": 2}, "failing.json.golden"},
		{"fixtures/gate/drifting.gate.yaml", exitFindings, 1, 1, false, nil, "drifting.json.golden"},
		{"fixtures/gate/passing.gate.yaml", exitOK, 0, 0, true, nil, ""},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			out, stderr, code := gate(t, "-f", "json", tc.file)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, stderr)
			}
			var doc struct {
				File    string `json:"file"`
				Passed  bool   `json:"passed"`
				Cases   int    `json:"cases"`
				Failed  int    `json:"failed"`
				Results []struct {
					Name     string              `json:"name"`
					Passed   bool                `json:"passed"`
					Summary  struct{ Calls int } `json:"summary"`
					Failures []struct {
						Kind     string `json:"kind"`
						GateLine int    `json:"gate_line"`
					} `json:"failures"`
				} `json:"results"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if doc.File != tc.file || doc.Passed != tc.passed || doc.Failed != tc.failed || len(doc.Results) != doc.Cases || (tc.cases > 0 && doc.Cases != tc.cases) {
				t.Errorf("file %q passed %v, %d of %d failed (%d results); want %q %v, %d of %d", doc.File, doc.Passed, doc.Failed, doc.Cases, len(doc.Results), tc.file, tc.passed, tc.failed, tc.cases)
			}
			failed := 0
			for _, r := range doc.Results {
				if r.Passed != (len(r.Failures) == 0) {
					t.Errorf("case %q: passed %v with %d failures", r.Name, r.Passed, len(r.Failures))
				}
				if !r.Passed {
					failed++
				}
				if r.Summary.Calls == 0 {
					t.Errorf("case %q: a summary of no calls", r.Name)
				}
				for _, f := range r.Failures {
					if f.GateLine == 0 || f.Kind == "" {
						t.Errorf("case %q: a failure without its kind or gate line: %+v", r.Name, f)
					}
				}
				if want, ok := tc.failuresOfCase[r.Name]; ok && len(r.Failures) != want {
					t.Errorf("case %q: %d failures, want %d", r.Name, len(r.Failures), want)
				}
			}
			if failed != doc.Failed {
				t.Errorf("%d cases failed, the total says %d", failed, doc.Failed)
			}
			// The table's total line says the same.
			table, _, _ := gate(t, tc.file)
			if !strings.Contains(table, strings.Join([]string{itoa(doc.Cases), " case(s): ", itoa(doc.Cases - doc.Failed), " passed, ", itoa(doc.Failed), " failed"}, "")) {
				t.Errorf("the table's totals differ from the JSON's:\n%s", table)
			}
			if tc.golden != "" {
				checkGolden(t, filepath.Join("fixtures", "gate", "expected", tc.golden), out)
			}
		})
	}
}
