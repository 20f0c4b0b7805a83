package report

// The gate's summary on the terminal (`loopgate gate`, every format but
// html): one line per case, its failures under it, and a total line.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze/gate"
)

// GateSummary prints one line per case (PASS/FAIL, name, what the replay
// found), then each failed expectation indented under it, expected versus
// actual, with the gate file line, then a total line. No timings: the
// output is the same from run to run. PASS is green and FAIL red when
// opt.Color is set.
func GateSummary(w io.Writer, res *gate.Result, opt Options) {
	res = preparedGate(res, opt)
	for i := range res.Cases {
		cr := &res.Cases[i]
		s := cr.Report.Summary
		status := paint(opt.Color, ansiGreen, "PASS")
		if !cr.Passed() {
			status = paint(opt.Color, ansiRed, "FAIL")
		}
		// The case name is by default the transcript's path, and a file
		// name may hold a secret: gateText redacts it unless --no-redact.
		head := fmt.Sprintf("%s  %s  [%s]", status, Sanitize(gateText(cr.Case.Name, opt)), Sanitize(cr.Report.Rules.Name))
		counts := fmt.Sprintf("%d session(s), %d calls: blocked %d, steered %d, deduped %d, harmful %d", s.Sessions, s.Calls, s.Blocked, s.Steered, s.Deduped, s.Harmful)
		if line := head + " " + counts; opt.Width <= 0 || cellWidth(line) <= opt.Width {
			fmt.Fprintf(w, "%s\n", line)
		} else { // the counts on a line of their own, under the case
			fmt.Fprintf(w, "%s\n%s%s\n", fitWidth(opt, head, caseIndent), caseIndent, fitWidth(opt, counts, caseIndent+"  ", len(caseIndent)))
		}
		for _, f := range cr.Failures {
			// A failure may quote a snapshot's diff: text from the
			// transcript, escaped, never at the start of a line.
			fmt.Fprintf(w, "%s\n", GuardLine(caseIndent+fitWidth(opt, fmt.Sprintf("%s  (%s:%d)", Sanitize(gateText(f.Message, opt)), Sanitize(res.File), f.GateLine), caseIndent+"  ", len(caseIndent))))
		}
		if cr.SnapshotWritten {
			fmt.Fprintf(w, "      snapshot written: %s\n", cr.Case.Snapshot)
		}
		if cr.SnapshotMissing {
			fmt.Fprintf(w, "%s%s\n", caseIndent, fitWidth(opt, fmt.Sprintf("note: no snapshot yet (%s): checked on its expectations only; run %s to record it", cr.Case.Snapshot, GateUpdateCommand(res.File)), caseIndent+"  ", len(caseIndent)))
		}
	}
	failed := res.Failed()
	fmt.Fprintf(w, "%d case(s): %d passed, %d failed\n", len(res.Cases), len(res.Cases)-failed, failed)
	if lines := expectationLines(res); len(lines) > 0 {
		// --update records snapshots; what a case expects is only ever
		// changed by hand.
		at := Sanitize(res.File) + ":" + lines[0]
		if len(lines) > 1 {
			at = "s at " + Sanitize(res.File) + " lines " + strings.Join(lines, ", ")
		} else {
			at = " at " + at
		}
		fmt.Fprintf(w, "%s\n", fitWidth(opt, "note: --update does not change expectations: tune the rules, or edit the expectation"+at, caseIndent))
	}
	if n := res.SnapshotsMissing(); n > 0 {
		fmt.Fprintf(w, "%s\n", fitWidth(opt, fmt.Sprintf("note: %d case(s) have no snapshot yet; run %s and commit the snapshots to pin every decision", n, GateUpdateCommand(res.File)), caseIndent))
	}
}

// caseIndent is where the lines under a gate case start.
const caseIndent = "      "

// fitWidth wraps a line at spaces to a known terminal width (opt.Width),
// the lines after the first indented; used, a column or more of the
// first line is taken already (its own indent). With no width known the
// line stays whole.
func fitWidth(opt Options, line, indent string, used ...int) string {
	if opt.Width <= 0 {
		return line
	}
	taken := 0
	for _, u := range used {
		taken += u
	}
	return wrapLines(line, opt.Width-taken, opt.Width-len(indent), indent)
}

// expectationLines are the gate file's lines of the failed expectations
// (summary and calls entries; snapshots left out), each once.
func expectationLines(res *gate.Result) []string {
	var lines []string
	seen := map[int]bool{}
	for i := range res.Cases {
		for _, f := range res.Cases[i].Failures {
			if (f.Kind == gate.FailExpect || f.Kind == gate.FailCall) && f.GateLine > 0 && !seen[f.GateLine] {
				seen[f.GateLine] = true
				lines = append(lines, strconv.Itoa(f.GateLine))
			}
		}
	}
	return lines
}
