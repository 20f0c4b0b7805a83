package gate

import (
	"time"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/rules"
)

// DefaultFile is the gate file read when none is named.
const DefaultFile = "loopgate.gate.yaml"

// SnapshotDir is the directory, beside the gate file, that holds the
// snapshots. Snapshot files end in ".golden" so that a directory walk over
// the golden transcripts never reads them as transcripts.
const SnapshotDir = "snapshots"

// Gate is a loaded, validated gate file.
type Gate struct {
	// File is the gate file's path as given; Dir its directory, against
	// which every path in the file is resolved.
	File  string
	Dir   string
	Cases []*Case
}

// Case is one case: transcripts, the rules to replay them under, and
// what the replay must show.
type Case struct {
	// Index is the 1-based position of the case in the file.
	Index int
	// Name is the case's name (given, or the transcript pattern).
	Name string
	// Line is the line of the case in the gate file.
	Line int
	// Transcript is the path or glob as written; Files the transcripts it
	// names (resolved against the gate file's directory, sorted).
	Transcript string
	Files      []string
	// Rules and Tokenizer are the effective ones (case override, else the
	// file's, else the preset loopgate and o200k_base).
	Rules     *rules.Rules
	Tokenizer string
	// Snapshot is the snapshot file ("" when snapshots are off).
	Snapshot string
	Expect   []Expectation
	Calls    []CallExpectation
	// expectsProblems: the case says how many input problems it expects;
	// otherwise a golden transcript must read without any.
	expectsProblems bool
}

// Expectation is one comparison of a summary field.
type Expectation struct {
	// Field is the summary field's JSON name.
	Field string
	// Op is ==, !=, >=, <=, > or <.
	Op string
	// Value is the number compared with; nil means null (only == and !=).
	Value *float64
	// Text is the expectation as written in the file.
	Text string
	Line int
}

// CallExpectation says what must happen to one call.
type CallExpectation struct {
	// Call is the 1-based index of the call in its session.
	Call int
	// Session picks the session (its id, or its file) when the case has
	// several.
	Session string
	// Action (allow, steer, dedup, block, halt), Detector and Count are
	// checked when set.
	Action   string
	Detector string
	Count    int
	Line     int
}

// Options tune a gate run.
type Options struct {
	// Jobs is the number of files read in parallel (0: one per core).
	Jobs int
	// Update rewrites the snapshots instead of comparing with them.
	Update bool
	// SnapshotArgs turns a decision's arguments into what the snapshot
	// keeps (the CLI redacts and abbreviates); nil keeps them as they are.
	SnapshotArgs func(string) string
	// SnapshotText turns a tool name or session id into what the snapshot
	// keeps (the CLI redacts); nil keeps them as they are.
	SnapshotText func(string) string
	// MaxRecord is ingest.Options.MaxRecord for every case.
	MaxRecord int64
}

// Result is the outcome of a gate run.
type Result struct {
	File     string
	Cases    []CaseResult
	Duration time.Duration
}

// Failed counts the failed cases.
func (r *Result) Failed() int {
	n := 0
	for i := range r.Cases {
		if !r.Cases[i].Passed() {
			n++
		}
	}
	return n
}

// SnapshotsMissing counts the cases that take a snapshot but have none
// recorded yet.
func (r *Result) SnapshotsMissing() int {
	n := 0
	for i := range r.Cases {
		if r.Cases[i].SnapshotMissing {
			n++
		}
	}
	return n
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Case     *Case
	Report   *analyze.Report
	Failures []Failure
	// SnapshotWritten: --update wrote the snapshot (it had changed).
	SnapshotWritten bool
	// SnapshotMissing: the case takes a snapshot but none is recorded yet;
	// the case is checked on its expectations only (not a failure).
	SnapshotMissing bool
	Duration        time.Duration
}

// Passed reports whether every expectation of the case held.
func (c *CaseResult) Passed() bool { return len(c.Failures) == 0 }

// Failure kinds.
const (
	FailExpect   = "expect"   // a summary expectation
	FailCall     = "call"     // a calls: entry
	FailSnapshot = "snapshot" // a decision differs from the snapshot
	FailProblems = "problems" // the transcripts did not read cleanly
)

// Failure is one failed expectation, located both in the gate file
// and, as well as we know, in a transcript.
type Failure struct {
	Kind string
	// Message is one line: what was expected and what happened.
	Message string
	// Field is the summary field (expect, problems) or the kind of
	// snapshot difference (changed, new, gone, session ...); Expected and
	// Actual are for renderers that show them apart.
	Field    string
	Expected string
	Actual   string
	// GateLine is the line of the expectation in the gate file (the
	// case's line for snapshots and problems).
	GateLine int
	// File and Line locate the failure in a transcript (Line 0: unknown).
	File string
	Line int
	// Session, Call, Action and Detector identify the call concerned, when
	// there is one (they make a stable fingerprint).
	Session  string
	Call     int
	Action   string
	Detector string
}
