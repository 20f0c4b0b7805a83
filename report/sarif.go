package report

// SARIF 2.1.0 for `loopgate gate --sarif FILE`, shaped for GitHub code
// scanning (https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning): every result has a ruleId, a
// message, one physical location (the transcript, as a URI relative to
// %SRCROOT%, the working directory, and a line >= 1: a result without a
// location makes GitHub reject the whole upload), and our own
// partialFingerprints, so that an alert keeps its identity when lines
// shift and when the numbers of a failed expectation change.
//
// Results are the failed expectations (level error) and, when asked, every
// blocked and harmful decision. Reading taken for decisions: in a gate, a
// block in a golden loop is the expected outcome, not a defect, so a block
// is a "note" and a harmful stop (hidden information) a "warning"; only a
// failed expectation is an "error".

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze/gate"
	"github.com/loopgate/loopgate/analyze/guard"
)

// SARIFOptions tune the SARIF report.
type SARIFOptions struct {
	// Decisions adds every blocked, deduped, halted or harmful decision.
	Decisions bool
	// Version is loopgate's version, shown as the driver's version.
	Version string
}

// SARIF rule ids: stable, GitHub keys alerts on them.
const (
	SARIFRuleExpect   = "gate/expectation"
	SARIFRuleCall     = "gate/call"
	SARIFRuleSnapshot = "gate/snapshot"
	SARIFRuleProblems = "gate/input-problems"
	SARIFRuleBlock    = "decision/block"
	SARIFRuleHarmful  = "decision/harmful"
)

// InformationURI is where the SARIF driver points readers.
const InformationURI = "https://github.com/loopgate/loopgate"

// FingerprintKey names our partialFingerprints entry (versioned, so that a
// change of recipe does not collide with old alerts).
const FingerprintKey = "loopgateFinding/v1"

var sarifRules = []sarifRule{
	{ID: SARIFRuleExpect, Name: "GateExpectationFailed", Short: "A summary expectation of a gate case does not hold", Full: "The replay of the case's transcripts gave a summary number (blocked, steered, harmful, precision, ...) that the gate file does not accept.", Level: "error"},
	{ID: SARIFRuleCall, Name: "GateCallExpectationFailed", Short: "A call did not get the action the gate file expects", Full: "A calls: entry of the gate file says what must happen to a given call; the replay did something else.", Level: "error"},
	{ID: SARIFRuleSnapshot, Name: "GateSnapshotDrift", Short: "A decision differs from the case's snapshot", Full: "The replay's decisions differ from those recorded by loopgate gate --update: a decision changed, appeared or disappeared.", Level: "error"},
	{ID: SARIFRuleProblems, Name: "GateInputProblems", Short: "A golden transcript did not read cleanly", Full: "Reading the case's transcripts produced input problems; a golden transcript must read without any unless the case expects them.", Level: "error"},
	{ID: SARIFRuleBlock, Name: "GuardStoppedCall", Short: "The guard would stop this call", Full: "Under the case's rules, the guard blocks, deduplicates or halts at this call.", Level: "note"},
	{ID: SARIFRuleHarmful, Name: "GuardHidInformation", Short: "The guard would hide new information", Full: "The guard stops this call although its real result differed from every earlier result for the same key: a harmful stop.", Level: "warning"},
}

type sarifRule struct {
	ID, Name, Short, Full, Level string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

// sarifRun has no automationDetails on purpose: github/codeql-action's
// upload-sarif sets automationDetails.id from its category input only when
// the run has none, so writing one would silently override the category a
// workflow gives (docs/ci.md).
type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string                `json:"name"`
	Version        string                `json:"version,omitempty"`
	InformationURI string                `json:"informationUri"`
	Rules          []sarifRuleDescriptor `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRuleDescriptor struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	DefaultConfiguration map[string]string `json:"defaultConfiguration"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

func location(file string, line int) sarifLocation {
	return sarifLocation{PhysicalLocation: sarifPhysicalLocation{
		ArtifactLocation: sarifArtifactLocation(file),
		Region:           sarifRegion{StartLine: max(line, 1)},
	}}
}

// SRCROOT is the uriBaseId of every relative artifact URI: the working
// directory loopgate ran in, which in CI is the repository root. Code
// scanning resolves it against the checkout; the log leaves it out of
// originalUriBaseIds on purpose, since its absolute value would be the
// runner's path (a different file on every machine) and GitHub does not
// need it.
const SRCROOT = "%SRCROOT%"

// sarifArtifactLocation locates a file for SARIF: a path inside the
// working directory is a relative URI (forward slashes, percent-encoded)
// against %SRCROOT%; a path outside it an absolute file: URI with no base
// (resolving it against the repository would name another file).
func sarifArtifactLocation(path string) sarifArtifact {
	rel := ArtifactURI(path)
	if !filepath.IsAbs(filepath.FromSlash(rel)) && !strings.HasPrefix(rel, "/") && rel != ".." && !strings.HasPrefix(rel, "../") {
		// A colon in the first segment would read as a scheme.
		return sarifArtifact{URI: strings.ReplaceAll(escapeURIPath(rel), ":", "%3A"), URIBaseID: SRCROOT}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x -> /C:/x
	}
	return sarifArtifact{URI: "file://" + escapeURIPath(p)}
}

func escapeURIPath(p string) string { return (&url.URL{Path: p}).EscapedPath() }

// ArtifactURI makes a path a repository-relative URI as code scanning
// wants it: relative to the working directory (CI runs at the repository
// root), forward slashes, no leading "./". An absolute path outside the
// working directory stays absolute.
func ArtifactURI(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
	}
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(path)), "./")
}

// Fingerprint is the stable identity of a finding: a hash of what it is
// about (rule, case, transcript file, session, call, action, detector,
// field), never of line numbers alone, so that an edit above a call keeps
// its alert.
func Fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// FailureFingerprint identifies a failed expectation by what was expected
// of what, never by what the replay found: the gate file, the case and
// the expectation's key (the summary field; the session and call of a
// calls entry, with the action and detector it asks for; the session,
// call and kind of a snapshot difference). A summary failure keeps its
// alert while its numbers move (blocked 3 -> 5) and while the decision it
// points at changes; an edited call expectation is a new one.
func FailureFingerprint(gateURI, caseName string, f *gate.Failure) string {
	rule := failureRule(f.Kind)
	switch f.Kind {
	case gate.FailCall:
		return Fingerprint(rule, gateURI, caseName, f.Session, strconv.Itoa(f.Call), f.Action, f.Detector)
	case gate.FailSnapshot:
		return Fingerprint(rule, gateURI, caseName, ArtifactURI(f.File), f.Session, strconv.Itoa(f.Call), f.Field)
	}
	return Fingerprint(rule, gateURI, caseName, f.Field)
}

func sarifRuleIndex(id string) int {
	for i, r := range sarifRules {
		if r.ID == id {
			return i
		}
	}
	return 0
}

func failureRule(kind string) string {
	switch kind {
	case gate.FailCall:
		return SARIFRuleCall
	case gate.FailSnapshot:
		return SARIFRuleSnapshot
	case gate.FailProblems:
		return SARIFRuleProblems
	}
	return SARIFRuleExpect
}

// GateSARIF writes the gate result as one SARIF 2.1.0 log.
func GateSARIF(w io.Writer, res *gate.Result, sopt SARIFOptions, opt Options) error {
	res = preparedGate(res, opt)
	driver := sarifDriver{Name: "loopgate", Version: sopt.Version, InformationURI: InformationURI}
	for _, r := range sarifRules {
		driver.Rules = append(driver.Rules, sarifRuleDescriptor{ID: r.ID, Name: r.Name,
			ShortDescription: sarifText{r.Short}, FullDescription: sarifText{r.Full},
			DefaultConfiguration: map[string]string{"level": r.Level}})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}
	gateURI := ArtifactURI(res.File)
	for i := range res.Cases {
		cr := &res.Cases[i]
		for _, f := range cr.Failures {
			rule := failureRule(f.Kind)
			file := f.File
			if file == "" {
				// No transcript to point at (a case with no file):
				// anchor at the gate file's line.
				file = res.File
			}
			r := sarifResult{
				RuleID: rule, RuleIndex: sarifRuleIndex(rule), Level: "error",
				Message:             sarifText{fmt.Sprintf("%s: %s", cr.Case.Name, gateText(f.Message, opt))},
				Locations:           []sarifLocation{location(file, f.Line)},
				PartialFingerprints: map[string]string{FingerprintKey: FailureFingerprint(gateURI, cr.Case.Name, &f)},
				Properties:          map[string]any{"case": cr.Case.Name, "gateFile": gateURI, "gateLine": f.GateLine, "expected": f.Expected, "actual": f.Actual},
			}
			rel := location(res.File, f.GateLine)
			id := 1
			rel.ID = &id
			rel.Message = &sarifText{"the expectation in the gate file"}
			r.RelatedLocations = []sarifLocation{rel}
			run.Results = append(run.Results, r)
		}
		if sopt.Decisions {
			run.Results = append(run.Results, decisionResults(cr, opt)...)
		}
	}
	return writeJSON(w, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}, "  ")
}

// decisionResults lists a case's stopped and harmful decisions. A gate's
// reports hold all their sessions in memory (the gate does not spill).
func decisionResults(cr *gate.CaseResult, opt Options) []sarifResult {
	var out []sarifResult
	for si := range cr.Report.Sessions {
		s := &cr.Report.Sessions[si]
		for _, d := range s.Decisions {
			rule := ""
			switch {
			case d.Harmful:
				rule = SARIFRuleHarmful
			case d.Action.Stops() || d.Action == guard.Halt:
				rule = SARIFRuleBlock
			default:
				continue
			}
			args := gateText(d.Args, opt)
			tool, session := gateText(d.Tool, opt), gateText(s.ID, opt)
			msg := fmt.Sprintf("%s: %s %s %s by %s at call %d of session %s", cr.Case.Name, tool, AbbreviateArgs(args, 80), pastTense(d.Action), d.Detector, d.Call, session)
			if d.Harmful {
				msg += "; harmful: its real result was new information"
			}
			if d.StoppedAction {
				msg += "; a stopped action: the call acts on the world, and only you can say whether repeating it was wanted"
			}
			out = append(out, sarifResult{
				RuleID: rule, RuleIndex: sarifRuleIndex(rule), Level: sarifRules[sarifRuleIndex(rule)].Level,
				Message:   sarifText{msg},
				Locations: []sarifLocation{location(s.File, d.Line)},
				PartialFingerprints: map[string]string{FingerprintKey: Fingerprint(rule, cr.Case.Name, ArtifactURI(s.File), s.ID,
					strconv.Itoa(d.Call), d.Action.String(), d.Detector)},
				Properties: map[string]any{"case": cr.Case.Name, "session": session, "call": d.Call, "tool": tool, "action": d.Action.String(),
					"detector": d.Detector, "tokensSaved": d.TokensSaved},
			})
		}
	}
	return out
}

func pastTense(a guard.Action) string {
	switch a {
	case guard.Block:
		return "blocked"
	case guard.Dedup:
		return "deduplicated"
	case guard.Halt:
		return "halted"
	case guard.Steer:
		return "steered"
	}
	return "allowed"
}
