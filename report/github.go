package report

// GitHub Actions output for `loopgate gate --github`: workflow-command
// annotations (`::error file=F,line=L,title=T::message`) that GitHub shows
// on the run and on the pull request's files, and a markdown summary for
// $GITHUB_STEP_SUMMARY.
//
// GitHub shows at most 10 error annotations per step and silently drops the
// rest (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands), so we emit the first 10 failures and
// then one notice saying how many more there are; the step summary lists
// them all.

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopgate/loopgate/analyze/gate"
)

// GitHubAnnotationLimit is how many error annotations GitHub shows per step.
const GitHubAnnotationLimit = 10

// stepSummaryFailures caps the failures listed in the step summary, which
// GitHub limits to 1 MiB per step.
const stepSummaryFailures = 200

// escapeData escapes an annotation's message (actions/toolkit command.ts);
// the other control characters, which the runner would print raw in the
// log, are escaped as everywhere else (Sanitize).
func escapeData(s string) string {
	return Sanitize(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// escapeProperty escapes an annotation property value.
func escapeProperty(s string) string {
	return Sanitize(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}

// GateGitHub writes one error annotation per failed expectation, the first
// GitHubAnnotationLimit of them, then a notice for the rest.
func GateGitHub(w io.Writer, res *gate.Result, opt Options) error {
	res = preparedGate(res, opt)
	total, emitted := 0, 0
	for i := range res.Cases {
		cr := &res.Cases[i]
		for _, f := range cr.Failures {
			total++
			if emitted >= GitHubAnnotationLimit {
				continue
			}
			emitted++
			file, line := f.File, f.Line
			if file == "" {
				file, line = res.File, f.GateLine
			}
			title := "loopgate gate: " + gateText(cr.Case.Name, opt)
			msg := fmt.Sprintf("%s (expectation at %s:%d)", gateText(f.Message, opt), ArtifactURI(res.File), f.GateLine)
			if _, err := fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n",
				escapeProperty(ArtifactURI(file)), max(line, 1), escapeProperty(title), escapeData(msg)); err != nil {
				return err
			}
		}
	}
	if total > emitted {
		if _, err := fmt.Fprintf(w, "::notice title=loopgate gate::%s\n", escapeData(fmt.Sprintf(
			"%d more failed expectation(s) not annotated: GitHub shows %d error annotations per step. See the job summary or the JUnit report for all %d.",
			total-emitted, GitHubAnnotationLimit, total))); err != nil {
			return err
		}
	}
	// Cases with no snapshot yet pass on their expectations; say so at
	// the case's line, so that the snapshot gets recorded.
	notices := 0
	for i := range res.Cases {
		cr := &res.Cases[i]
		if !cr.SnapshotMissing || notices >= GitHubAnnotationLimit {
			continue
		}
		notices++
		if _, err := fmt.Fprintf(w, "::notice file=%s,line=%d,title=%s::%s\n", escapeProperty(ArtifactURI(res.File)), max(cr.Case.Line, 1),
			escapeProperty("loopgate gate: no snapshot for "+gateText(cr.Case.Name, opt)), escapeData(snapshotNote(res.File, cr))); err != nil {
			return err
		}
	}
	return nil
}

// snapshotNote words the note for a case with no snapshot yet.
func snapshotNote(file string, cr *gate.CaseResult) string {
	return fmt.Sprintf("case %q has no snapshot yet (%s): it was checked on its expectations only. Run %s and commit the snapshot to pin every decision.",
		cr.Case.Name, ArtifactURI(cr.Case.Snapshot), GateUpdateCommand(file))
}

// GateUpdateCommand is the command that records the snapshots of the gate
// file: the hint names the file, which a gate run from another folder (or
// a file not named loopgate.gate.yaml) needs.
func GateUpdateCommand(file string) string {
	if file == "" || file == gate.DefaultFile {
		return "loopgate gate --update"
	}
	return "loopgate gate --update " + shellWord(file)
}

// shellWord quotes s for a POSIX shell when it holds anything but letters,
// digits and ./_-+:@%,
func shellWord(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("./_-+:@%,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// GateErrorGitHub annotates an error that stopped the gate (exit 2): at
// the gate file's line when the error has one (file "" or line 0: as much
// location as is known).
func GateErrorGitHub(w io.Writer, file string, line int, msg string) error {
	props := "title=" + escapeProperty("loopgate gate: the gate could not run")
	if file != "" {
		props = "file=" + escapeProperty(ArtifactURI(file))
		if line > 0 {
			props += fmt.Sprintf(",line=%d", line)
		}
		props += ",title=" + escapeProperty("loopgate gate: invalid gate file")
	}
	_, err := fmt.Fprintf(w, "::error %s::%s\n", props, escapeData(msg))
	return err
}

// mdCell makes text safe in a markdown table cell (mdText: no HTML, no
// links, no images, no formatting, one line).
func mdCell(s string) string { return mdText(s) }

// GateMarkdown writes the gate result as markdown for a step summary or a
// pull-request comment: a verdict line, a table of cases, every failure.
func GateMarkdown(w io.Writer, res *gate.Result, opt Options) error {
	res = preparedGate(res, opt)
	var b strings.Builder
	failed := res.Failed()
	fmt.Fprintf(&b, "## loopgate gate: `%s`\n\n", ArtifactURI(res.File))
	if failed == 0 {
		fmt.Fprintf(&b, "**All %d cases passed.**\n\n", len(res.Cases))
	} else {
		fmt.Fprintf(&b, "**%d of %d cases failed.**\n\n", failed, len(res.Cases))
	}
	b.WriteString("| | case | rules | sessions | calls | blocked | steered | harmful | precision | stopped actions | recall |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for i := range res.Cases {
		cr := &res.Cases[i]
		s := cr.Report.Summary
		mark := "✅ pass"
		if !cr.Passed() {
			mark = "❌ fail"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d | %s | %d | %s |\n", mark, mdCell(gateText(cr.Case.Name, opt)), mdCell(cr.Report.Rules.Name),
			s.Sessions, s.Calls, s.Blocked, s.Steered, s.Harmful, percent(s.Precision), s.StoppedActions, percent(s.Recall))
	}
	if failed > 0 {
		b.WriteString("\n### Failed expectations\n\n")
		listed, total := 0, 0
		for i := range res.Cases {
			cr := &res.Cases[i]
			for _, f := range cr.Failures {
				total++
				if listed >= stepSummaryFailures {
					continue
				}
				listed++
				where := fmt.Sprintf("%s:%d", ArtifactURI(res.File), f.GateLine)
				if f.File != "" {
					where += fmt.Sprintf(", %s:%d", ArtifactURI(f.File), max(f.Line, 1))
				}
				// A failure may quote a snapshot's diff (tool names,
				// arguments from the transcript): a code span shows it
				// as text, never as HTML, an image or a link.
				fmt.Fprintf(&b, "- **%s**: %s (%s)\n", mdCell(gateText(cr.Case.Name, opt)), mdCode(gateText(f.Message, opt)), mdCode(where))
			}
		}
		if total > listed {
			fmt.Fprintf(&b, "- … and %d more\n", total-listed)
		}
	}
	if n := res.SnapshotsMissing(); n > 0 {
		fmt.Fprintf(&b, "\n### Cases with no snapshot yet\n\nChecked on their expectations only; run `%s` and commit the snapshots to pin every decision.\n\n", GateUpdateCommand(res.File))
		for i := range res.Cases {
			if cr := &res.Cases[i]; cr.SnapshotMissing {
				fmt.Fprintf(&b, "- **%s**: `%s`\n", mdCell(gateText(cr.Case.Name, opt)), ArtifactURI(cr.Case.Snapshot))
			}
		}
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
