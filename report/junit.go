package report

// JUnit XML for `loopgate gate --junit FILE`: one <testsuite> for the gate
// file, one <testcase> per case, a <failure> per failed case listing every
// failed expectation. There is no formal JUnit standard; this is the
// Ant/Jenkins shape that GitLab, Jenkins and the GitHub test-report actions
// read (https://github.com/testmoapp/junitxml): counts consistent, time numeric.
// The time= attributes are the measured durations (CI dashboards chart
// them), so they are the only part of the file that differs from run to
// run; there is no timestamp or hostname.

import (
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze/gate"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	// Text is one failed expectation per line; CDATA keeps the lines
	// readable in the file (encoding/xml splits any "]]>" safely).
	Text string `xml:",cdata"`
}

// junitSeconds formats a duration as JUnit's numeric seconds.
func junitSeconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// GateJUnit writes the gate result as JUnit XML.
func GateJUnit(w io.Writer, res *gate.Result, opt Options) error {
	res = preparedGate(res, opt)
	suite := junitSuite{Name: ArtifactURI(res.File), Time: junitSeconds(res.Duration), Cases: []junitCase{}}
	className := strings.TrimSuffix(filepath.Base(res.File), filepath.Ext(res.File))
	for i := range res.Cases {
		cr := &res.Cases[i]
		s := cr.Report.Summary
		tc := junitCase{
			ClassName: className,
			Name:      gateText(cr.Case.Name, opt),
			Time:      junitSeconds(cr.Duration),
			SystemOut: fmt.Sprintf("rules %s; transcript %s: %d file(s), %d session(s), %d calls; blocked %d, steered %d, deduped %d, harmful %d, precision %s, stopped actions %d, recall %s",
				cr.Report.Rules.Name, cr.Case.Transcript, s.Files, s.Sessions, s.Calls, s.Blocked, s.Steered, s.Deduped, s.Harmful,
				gate.FormatNumber(s.Precision), s.StoppedActions, gate.FormatNumber(s.Recall)),
		}
		if cr.SnapshotMissing {
			tc.SystemOut += "; " + snapshotNote(res.File, cr)
		}
		if len(cr.Case.Files) == 1 {
			tc.File = ArtifactURI(cr.Case.Files[0])
		}
		if !cr.Passed() {
			var text strings.Builder
			for _, f := range cr.Failures {
				fmt.Fprintf(&text, "%s (%s:%d", gateText(f.Message, opt), ArtifactURI(res.File), f.GateLine)
				if f.File != "" {
					fmt.Fprintf(&text, "; %s:%d", ArtifactURI(f.File), max(f.Line, 1))
				}
				text.WriteString(")\n")
			}
			msg := gateText(cr.Failures[0].Message, opt)
			if n := len(cr.Failures); n > 1 {
				msg = fmt.Sprintf("%s (and %d more)", msg, n-1)
			}
			tc.Failure = &junitFailure{Message: msg, Type: cr.Failures[0].Kind, Text: XMLText(text.String())}
			suite.Failures++
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, tc)
	}
	doc := junitSuites{Name: "loopgate gate", Tests: suite.Tests, Failures: suite.Failures, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// gateText is a failure message as a report shows it: redacted unless
// --no-redact.
func gateText(s string, opt Options) string {
	if opt.Redact {
		return Redact(s)
	}
	return s
}
