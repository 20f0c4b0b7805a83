package report

// The gate's result as one JSON document (`loopgate gate --format json`,
// docs/ci.md): for a CI step or a script that reads what the gate found
// rather than its exit code alone. No timings, so that the same run gives
// the same bytes.

import (
	"io"
	"path/filepath"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/gate"
)

type gateJSON struct {
	// File is the gate file as given. Paths are written with forward
	// slashes on every system, so that one document reads the same
	// wherever the gate ran.
	File             string         `json:"file"`
	Passed           bool           `json:"passed"`
	Cases            int            `json:"cases"`
	Failed           int            `json:"failed"`
	SnapshotsMissing int            `json:"snapshots_missing"`
	Results          []gateCaseJSON `json:"results"`
}

type gateCaseJSON struct {
	// Index and Line place the case in the gate file.
	Index      int      `json:"index"`
	Line       int      `json:"line"`
	Name       string   `json:"name"`
	Transcript string   `json:"transcript"`
	Files      []string `json:"files"`
	Rules      string   `json:"rules"`
	Tokenizer  string   `json:"tokenizer"`
	Passed     bool     `json:"passed"`
	// Summary is the case's replay summary: the numbers its expect:
	// entries compare (docs/ci.md), as replay --format json gives them.
	Summary analyze.Summary `json:"summary"`
	// Snapshot is the snapshot file ("" when the case takes none).
	Snapshot        string            `json:"snapshot"`
	SnapshotWritten bool              `json:"snapshot_written"`
	SnapshotMissing bool              `json:"snapshot_missing"`
	Failures        []gateFailureJSON `json:"failures"`
}

type gateFailureJSON struct {
	// Kind: expect, call, snapshot or problems.
	Kind     string `json:"kind"`
	Field    string `json:"field"`
	Message  string `json:"message"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// GateLine is the line of the expectation in the gate file; File and
	// Line the transcript's place, when known (Line 0: unknown).
	GateLine int    `json:"gate_line"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Session  string `json:"session"`
	Call     int    `json:"call"`
	Action   string `json:"action"`
	Detector string `json:"detector"`
}

// GateJSON writes the gate's result as one indented JSON document: the
// totals, then per case where it is in the gate file, what its replay
// found and each failed expectation. Text from transcripts and case names
// is redacted unless opt says not to.
func GateJSON(w io.Writer, res *gate.Result, opt Options) error {
	res = preparedGate(res, opt)
	failed := res.Failed()
	doc := gateJSON{File: filepath.ToSlash(res.File), Passed: failed == 0, Cases: len(res.Cases), Failed: failed,
		SnapshotsMissing: res.SnapshotsMissing(), Results: []gateCaseJSON{}}
	for i := range res.Cases {
		cr := &res.Cases[i]
		c := gateCaseJSON{Passed: cr.Passed(), SnapshotWritten: cr.SnapshotWritten, SnapshotMissing: cr.SnapshotMissing,
			Files: []string{}, Failures: []gateFailureJSON{}}
		if k := cr.Case; k != nil {
			c.Index, c.Line, c.Name, c.Transcript, c.Tokenizer, c.Snapshot = k.Index, k.Line, gateText(k.Name, opt), k.Transcript, k.Tokenizer, filepath.ToSlash(k.Snapshot)
			for _, f := range k.Files {
				c.Files = append(c.Files, filepath.ToSlash(f))
			}
		}
		if cr.Report != nil {
			c.Rules, c.Summary = cr.Report.Rules.Name, cr.Report.Summary
		}
		for _, f := range cr.Failures {
			c.Failures = append(c.Failures, gateFailureJSON{Kind: f.Kind, Field: f.Field, Message: gateText(f.Message, opt),
				Expected: gateText(f.Expected, opt), Actual: gateText(f.Actual, opt), GateLine: f.GateLine,
				File: filepath.ToSlash(f.File), Line: f.Line, Session: gateText(f.Session, opt), Call: f.Call, Action: f.Action, Detector: f.Detector})
		}
		doc.Results = append(doc.Results, c)
	}
	return writeJSON(w, doc, "  ")
}
