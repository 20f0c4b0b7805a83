package report

import (
	"io"

	"github.com/loopgate/loopgate/analyze"
)

// JSONL writes a report as JSON lines while the replay runs: one line per
// session as soon as it is analyzed, then one summary line. A consumer can
// tell the lines apart by their keys: a session line has "id", the last line
// has "summary".
type JSONL struct {
	w   io.Writer
	opt Options
}

// NewJSONL returns a streaming writer to w.
func NewJSONL(w io.Writer, opt Options) *JSONL { return &JSONL{w: w, opt: opt} }

// Session writes one session's line.
func (j *JSONL) Session(s *analyze.SessionResult) error {
	out := preparedSession(s, j.opt)
	return writeJSON(j.w, &out, "")
}

// jsonlSummary is the last line: everything of the report but the sessions.
type jsonlSummary struct {
	Summary  analyze.Summary    `json:"summary"`
	Rules    analyze.RulesInfo  `json:"rules"`
	Tokens   analyze.TokensInfo `json:"tokens"`
	Tools    []analyze.ToolStat `json:"tools"`
	Problems []analyze.Problem  `json:"problems"`
}

// Finish writes the summary line. rep.Sessions is not read (the sessions
// were written by Session), so a caller may have dropped them.
func (j *JSONL) Finish(rep *analyze.Report) error {
	if rep == nil {
		rep = &analyze.Report{}
	}
	return writeJSON(j.w, &jsonlSummary{
		Summary:  rep.Summary,
		Rules:    rep.Rules,
		Tokens:   rep.Tokens,
		Tools:    preparedTools(rep.Tools, j.opt),
		Problems: preparedProblems(rep.Problems, j.opt),
	}, "")
}
