package report

import (
	"fmt"
	"io"

	"github.com/loopgate/loopgate/analyze/gate"
)

// The gate page: one box per case, pass or fail, with what its replay
// found, and each failed expectation with the gate file line, the
// transcript line, and expected against actual with the difference marked.

type htmlGateCase struct {
	Name            string            `json:"name"`
	Rules           string            `json:"rules"`
	Transcript      string            `json:"transcript"`
	Passed          bool              `json:"passed"`
	Sessions        int               `json:"sessions"`
	Calls           int               `json:"calls"`
	Blocked         int               `json:"blocked"`
	Steered         int               `json:"steered"`
	Deduped         int               `json:"deduped"`
	Harmful         int               `json:"harmful"`
	SnapshotMissing bool              `json:"snapshot_missing"`
	SnapshotWritten bool              `json:"snapshot_written"`
	Failures        []htmlGateFailure `json:"failures"`
}

type htmlGateFailure struct {
	Kind     string `json:"kind"`
	Field    string `json:"field"`
	Message  string `json:"message"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	GateLine int    `json:"gate_line"`
	File     string `json:"file"`
	Line     int    `json:"line"`
}

// GateHTML writes the gate result as one self-contained page (gate
// --format html, --html FILE).
func GateHTML(w io.Writer, res *gate.Result, opt Options) error {
	res = preparedGate(res, opt)
	page := struct {
		File  string         `json:"file"`
		Cases []htmlGateCase `json:"cases"`
	}{File: ArtifactURI(res.File), Cases: []htmlGateCase{}}
	for i := range res.Cases {
		cr := &res.Cases[i]
		s := cr.Report.Summary
		c := htmlGateCase{Name: gateText(cr.Case.Name, opt), Rules: cr.Report.Rules.Name, Transcript: cr.Case.Transcript,
			Passed: cr.Passed(), Sessions: s.Sessions, Calls: s.Calls, Blocked: s.Blocked, Steered: s.Steered,
			Deduped: s.Deduped, Harmful: s.Harmful, SnapshotMissing: cr.SnapshotMissing, SnapshotWritten: cr.SnapshotWritten,
			Failures: []htmlGateFailure{}}
		for _, f := range cr.Failures {
			hf := htmlGateFailure{Kind: f.Kind, Field: f.Field, Message: gateText(f.Message, opt),
				Expected: gateText(f.Expected, opt), Actual: gateText(f.Actual, opt), GateLine: f.GateLine, Line: f.Line}
			if f.File != "" {
				hf.File = ArtifactURI(f.File)
			}
			c.Failures = append(c.Failures, hf)
		}
		page.Cases = append(page.Cases, c)
	}
	data, err := htmlJSON(page)
	if err != nil {
		return err
	}
	failed := res.Failed()
	sub := fmt.Sprintf("%s: %d case(s), %d passed, %d failed.", page.File, len(res.Cases), len(res.Cases)-failed, failed)
	return writeHTMLPage(w, "gate", "loopgate gate", sub, data)
}
